/**
 * The synced-table registry (issue 4) against the Prisma datamodel and the wire-name rules; each
 * table declared by the domain whose models hold it (issue 31).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEVICES_SYNCED_TABLES } from '../../src/domains/devices/index.ts';
import { GLUCOSE_SYNCED_TABLES } from '../../src/domains/glucose/index.ts';
import { GOALS_SYNCED_TABLES } from '../../src/domains/goals/index.ts';
import { HEALTH_SYNCED_TABLES } from '../../src/domains/health/index.ts';
import { LOGS_SYNCED_TABLES } from '../../src/domains/logs/index.ts';
import { MEALS_SYNCED_TABLES } from '../../src/domains/meals/index.ts';
import { SNORING_SYNCED_TABLES } from '../../src/domains/snoring/index.ts';
import { LABS_SYNCED_TABLES } from '../../src/domains/labs/index.ts';
import { fromRoot } from '../../src/base/paths.ts';
import { defineSyncedTable } from '../../src/platform/synced-tables.ts';
import {
  SYNC_SCHEMA_VERSION,
  SYNCED_TABLES,
  tableChangedSince,
} from '../../src/domains/sync/sync.tables.ts';
import { toCamel, toSnake } from '../../src/base/wire.ts';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();

describe('SYNCED_TABLES', () => {
  it('names plain identifiers that survive the facade case mapping, and no table twice', () => {
    const ident = /^[a-z][a-z_]*[a-z]$/;
    expect(new Set(SYNCED_TABLES.map((t) => t.table)).size).toBe(SYNCED_TABLES.length);
    for (const t of SYNCED_TABLES) {
      for (const name of [t.table, t.sqlTable, ...t.columns.flatMap((c) => [c.wire, c.db])]) {
        expect(name, t.table).toMatch(ident);
        expect(toSnake(toCamel(name)), name).toBe(name);
      }
      expect(tableChangedSince(t)).toBeLessThanOrEqual(SYNC_SCHEMA_VERSION);
    }
  });

  it("lists each domain's own tables: every model is in that domain's Prisma files, sync owns only the journal", () => {
    const modelsDir = fromRoot('prisma', 'models');
    const domainOfModel = new Map<string, string>();
    for (const file of readdirSync(modelsDir)) {
      const domain = file.replace(/(-[a-z]+)?\.prisma$/, '');
      for (const m of readFileSync(`${modelsDir}/${file}`, 'utf8').matchAll(/^model (\w+) /gm))
        domainOfModel.set(m[1], domain);
    }
    const declared: [string, readonly { model: string }[]][] = [
      ['devices', DEVICES_SYNCED_TABLES],
      ['glucose', GLUCOSE_SYNCED_TABLES],
      ['goals', GOALS_SYNCED_TABLES],
      ['health', HEALTH_SYNCED_TABLES],
      ['logs', LOGS_SYNCED_TABLES],
      ['meals', MEALS_SYNCED_TABLES],
      ['snoring', SNORING_SYNCED_TABLES],
      ['labs', LABS_SYNCED_TABLES],
    ];
    for (const [domain, tables] of declared)
      for (const t of tables) expect(domainOfModel.get(t.model), t.model).toBe(domain);
    const byOwners = new Set(declared.flatMap(([, tables]) => tables));
    const syncsOwn = SYNCED_TABLES.filter((t) => !byOwners.has(t));
    expect(syncsOwn.map((t) => [t.table, domainOfModel.get(t.model)])).toEqual([
      ['journal_entries', 'sync'],
    ]);
    expect(SYNCED_TABLES.length).toBe(byOwners.size + 1);
  });

  it('refuses to define a table whose names are not plain identifiers (they are spliced into SQL)', () => {
    const table = {
      table: 'notes',
      sqlTable: 'notes',
      model: 'Note',
      since: 1,
      readScope: 'health:summary:read',
      writeScope: 'health:logs:write',
      columns: [{ wire: 'body', db: 'body', type: 'text' }],
    } as const;
    expect(defineSyncedTable(table).table).toBe('notes');
    expect(() => defineSyncedTable({ ...table, sqlTable: 'notes; DROP TABLE users' })).toThrow(
      /no plain name/,
    );
    expect(() =>
      defineSyncedTable({ ...table, columns: [{ wire: 'body', db: 'Body"', type: 'text' }] }),
    ).toThrow(/no plain name/);
  });

  it('names no table like a key of the wrapped push body, so the two body forms never read alike (issue 11)', () => {
    // a push body with a key `changes` is the wrapped form {changes, last_pulled_at, identity_version}
    for (const t of SYNCED_TABLES)
      expect(['changes', 'last_pulled_at', 'identity_version'], t.table).not.toContain(t.table);
  });

  it('follows the synced-table convention in the migrated database', async () => {
    for (const t of SYNCED_TABLES) {
      const rows = await app.db.prisma.$queryRawUnsafe<
        {
          column_name: string;
          data_type: string;
          is_nullable: string;
          column_default: string | null;
        }[]
      >(
        'SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns WHERE table_name = $1',
        t.sqlTable,
      );
      const col = (name: string) => rows.find((r) => r.column_name === name);
      expect(col('id'), t.table).toMatchObject({ data_type: 'text', is_nullable: 'NO' });
      expect(col('user_id'), t.table).toMatchObject({ data_type: 'integer', is_nullable: 'NO' });
      expect(col('server_updated_at'), t.table).toMatchObject({
        data_type: 'timestamp without time zone',
        is_nullable: 'NO',
      });
      expect(col('deleted_at'), t.table).toMatchObject({
        data_type: 'timestamp without time zone',
        is_nullable: 'YES',
      });
      const types: Record<string, string> = {
        text: 'text',
        int: 'integer',
        float: 'double precision',
        bool: 'boolean',
        timestamp_ms: 'timestamp without time zone',
        timestamptz_ms: 'timestamp with time zone',
      };
      for (const c of t.columns) {
        const where = `${t.table}.${c.db}`;
        expect(col(c.db)?.data_type, where).toBe(types[c.type]);
        // NOT NULL in the database <=> notNull in the registry; one without a default must be
        // given a value by every created record (required, or a registry default; texts store '')
        expect(col(c.db)?.is_nullable === 'NO', where).toBe(c.notNull === true);
        if (c.notNull && c.type !== 'text')
          expect(c.required === true || c.default !== undefined, where).toBe(true);
      }
      // every other NOT NULL column without a default would break a pushed INSERT
      const known = new Set(['id', 'user_id', 'server_updated_at', ...t.columns.map((c) => c.db)]);
      for (const r of rows) {
        if (!known.has(r.column_name) && r.is_nullable === 'NO')
          expect(r.column_default, `${t.table}.${r.column_name}`).not.toBeNull();
      }
    }
  });
});
