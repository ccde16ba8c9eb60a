/**
 * The real WatermelonDB client (0.28) in Node, as a phone: a LokiJS in-memory database with the
 * phone's schema of the synced tables, synchronised through `synchronize()` against the REST paths.
 * Its ES build does not import in Node, so it is loaded with createRequire.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { TestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const require = createRequire(import.meta.url);
const { Database, Model, appSchema, tableSchema } = require('@nozbe/watermelondb');
const LokiJSAdapter = require('@nozbe/watermelondb/adapters/lokijs').default;
const { synchronize } = require('@nozbe/watermelondb/sync');

/** WatermelonDB's schema builders, for tests whose phone keeps other tables. */
export const watermelon = { Model, appSchema, tableSchema };

/** The phone's local schema and its model classes. */
export interface PhoneTables {
  schema: unknown;
  modelClasses: unknown[];
}

class JournalEntry extends Model {
  static table = 'journal_entries';
}

const schema = appSchema({
  version: 2,
  tables: [
    tableSchema({
      name: 'journal_entries',
      columns: [
        { name: 'body', type: 'string' },
        { name: 'happened_at', type: 'number', isOptional: true },
        { name: 'mood', type: 'number', isOptional: true },
      ],
    }),
  ],
});

export interface EntryFields {
  body?: string;
  happened_at?: number | null;
  mood?: number | null;
}

let counter = 0;

/** One phone of an account: its own local database, synchronised with the server through REST. */
export class Phone {
  readonly db: any;
  /** statuses of the pushes this phone sent */
  readonly pushStatuses: number[] = [];

  constructor(
    readonly app: TestApp,
    readonly token: string,
    tables: PhoneTables = { schema, modelClasses: [JournalEntry] },
  ) {
    const adapter = new LokiJSAdapter({
      schema: tables.schema,
      dbName: `phone-${process.pid}-${++counter}`,
      useWebWorker: false,
      useIncrementalIndexedDB: false,
      extraLokiOptions: { autosave: false },
    });
    this.db = new Database({ adapter, modelClasses: tables.modelClasses });
  }

  private get entries(): any {
    return this.db.get('journal_entries');
  }

  /** Creates an entry locally; answers its (client-generated) id. */
  create(fields: EntryFields): Promise<string> {
    return this.db.write(async () => {
      const rec = await this.entries.create((r: any) => {
        for (const [k, v] of Object.entries(fields)) r._setRaw(k, v);
      });
      return rec.id as string;
    });
  }

  async update(id: string, fields: EntryFields): Promise<void> {
    await this.db.write(async () => {
      const rec = await this.entries.find(id);
      await rec.update((r: any) => {
        for (const [k, v] of Object.entries(fields)) r._setRaw(k, v);
      });
    });
  }

  /** Deletes an entry the syncable way (a tombstone the next push sends). */
  async delete(id: string): Promise<void> {
    await this.db.write(async () => {
      const rec = await this.entries.find(id);
      await rec.markAsDeleted();
    });
  }

  /** The live local entries, by id, with their synced columns. */
  async snapshot(): Promise<Record<string, EntryFields>> {
    const all = await this.entries.query().fetch();
    const out: Record<string, EntryFields> = {};
    for (const r of all)
      out[r.id] = { body: r._raw.body, happened_at: r._raw.happened_at, mood: r._raw.mood };
    return out;
  }

  /** One WatermelonDB synchronize(): pull (all pages of one snapshot), then push. */
  async sync(options: { beforePush?: () => Promise<void> } = {}): Promise<void> {
    await synchronize({
      database: this.db,
      log: {},
      pullChanges: async ({ lastPulledAt }: { lastPulledAt: number | null }) => {
        const changes: Record<
          string,
          { created: unknown[]; updated: unknown[]; deleted: string[] }
        > = {};
        let cursor: string | null = null;
        for (;;) {
          const query: string = cursor
            ? `cursor=${cursor}`
            : lastPulledAt
              ? `last_pulled_at=${lastPulledAt}`
              : '';
          const res = await rest(this.app, 'GET', `/api/sync/pull${query ? `?${query}` : ''}`, {
            token: this.token,
          });
          if (res.status !== 200) throw new Error(`pull ${res.status} ${JSON.stringify(res.body)}`);
          for (const [table, c] of Object.entries(res.body.changes as typeof changes)) {
            const into = (changes[table] ??= { created: [], updated: [], deleted: [] });
            into.created.push(...c.created);
            into.updated.push(...c.updated);
            into.deleted.push(...c.deleted);
          }
          if (!res.body.has_more) return { changes, timestamp: res.body.timestamp };
          cursor = res.body.next_cursor;
        }
      },
      pushChanges: async ({
        changes,
        lastPulledAt,
      }: {
        changes: unknown;
        lastPulledAt: number;
      }) => {
        await options.beforePush?.();
        const res = await rest(this.app, 'POST', '/api/sync/push', {
          token: this.token,
          body: { changes, last_pulled_at: lastPulledAt },
        });
        this.pushStatuses.push(res.status);
        if (res.status !== 200) throw new Error(`push ${res.status} ${JSON.stringify(res.body)}`);
      },
    });
  }

  /** Syncs, and on a conflict (409) syncs again: the client pulls, then retries its push. */
  async syncRetrying(times = 3, options: { beforePush?: () => Promise<void> } = {}): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        return await this.sync(i === 0 ? options : {});
      } catch (e) {
        if (i >= times || !String(e).includes('push 409')) throw e;
      }
    }
  }
}

/**
 * One synchronize() with pullChanges and pushChanges as WatermelonDB's sync documentation writes
 * them ("Implementing pullChanges() / pushChanges()"), with the app's Authorization header added:
 * one pull request (no cursor), the bare changes pushed as text/plain.
 */
export async function documentedSync(phone: Phone, token: string): Promise<void> {
  const base = phone.app.baseUrl;
  await synchronize({
    database: phone.db,
    pullChanges: async ({
      lastPulledAt,
      schemaVersion,
      migration,
    }: {
      lastPulledAt: number | null;
      schemaVersion: number;
      migration: unknown;
    }) => {
      const urlParams = `last_pulled_at=${lastPulledAt}&schema_version=${schemaVersion}&migration=${encodeURIComponent(
        JSON.stringify(migration),
      )}`;
      const response = await fetch(`${base}/api/sync/pull?${urlParams}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (!response.ok) {
        throw new Error(await response.text());
      }

      const { changes, timestamp } = await response.json();
      return { changes, timestamp };
    },
    pushChanges: async ({ changes, lastPulledAt }: { changes: unknown; lastPulledAt: number }) => {
      const response = await fetch(`${base}/api/sync/push?last_pulled_at=${lastPulledAt}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify(changes),
      });
      if (!response.ok) {
        throw new Error(await response.text());
      }
    },
  });
}

/**
 * Creates a record on a phone with these raw columns; answers its id (a uuid, as the app makes meal
 * and log ids, unless the test passes another form of client id).
 */
export function createLocal(
  phone: Phone,
  table: string,
  raw: Record<string, unknown>,
  id: string = randomUUID(),
): Promise<string> {
  return phone.db.write(async () => {
    const rec = await phone.db.get(table).create((r: any) => {
      r._raw.id = id;
      for (const [k, v] of Object.entries(raw)) r._setRaw(k, v);
    });
    return rec.id as string;
  });
}

/** The phone's live local rows of a table, raw columns as synchronised. */
export async function localRows(phone: Phone, table: string): Promise<Record<string, any>[]> {
  return (await phone.db.get(table).query().fetch()).map((r: any) => r._raw);
}
