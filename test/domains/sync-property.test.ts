/**
 * Sync, model-based (issue 4): fast-check draws random interleavings of local edits, pulls and pushes
 * from three devices of one account; a model of what the server acknowledged says what must hold:
 * no acknowledged write is lost, no deletion comes back, a refused (409) push leaves no trace, and
 * after everyone syncs every device and the server agree.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp({
  DATA_DIR: `/tmp/hdp-test/sync-prop-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
});
const DEVICES = 3;

type Op =
  | { kind: 'create'; dev: number; body: string }
  | { kind: 'update'; dev: number; pick: number; body: string }
  | { kind: 'delete'; dev: number; pick: number }
  | { kind: 'pull' | 'push'; dev: number };

const dev = fc.nat(DEVICES - 1);
const body = fc.string({ maxLength: 6 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), dev, body }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('update' as const), dev, pick: fc.nat(3), body }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('delete' as const), dev, pick: fc.nat(3) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pull' as const), dev }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('push' as const), dev }) },
);

/** A device: its local records, its unsynced changes and its last pull (like WatermelonDB's). */
class Device {
  records = new Map<string, string>();
  pending = new Map<string, 'created' | 'updated' | 'deleted'>();
  lastPulledAt: number | null = null;
  constructor(
    readonly user: SeededUser,
    readonly name: string,
  ) {}

  async pull(): Promise<void> {
    let cursor: string | null = null;
    for (;;) {
      const query: string = cursor
        ? `?cursor=${cursor}`
        : this.lastPulledAt !== null
          ? `?last_pulled_at=${this.lastPulledAt}`
          : '';
      const res = await rest(app, 'GET', `/api/sync/pull${query}`, { token: this.user.token });
      expect(res.status).toBe(200);
      const c = res.body.changes.journal_entries;
      for (const r of [...c.created, ...c.updated])
        if (!this.pending.has(r.id)) this.records.set(r.id, r.body);
      for (const id of c.deleted) {
        this.records.delete(id);
        this.pending.delete(id);
      }
      if (!res.body.has_more) {
        this.lastPulledAt = res.body.timestamp;
        return;
      }
      cursor = res.body.next_cursor;
    }
  }

  /**
   * Pushes the unsynced changes; answers the status and what was sent. Like WatermelonDB's
   * synchronize(), a device that never pulled pulls first: deletions reach a device only through
   * pulls since its last one, so one that pushed before any pull would never learn of them.
   */
  async push(): Promise<{
    status: number;
    sent: Map<string, string | null>;
    timestamp: number;
    lastPulledAt: number | null;
  }> {
    if (this.lastPulledAt === null) await this.pull();
    const lastPulledAt = this.lastPulledAt;
    const changes = { created: [] as unknown[], updated: [] as unknown[], deleted: [] as string[] };
    const sent = new Map<string, string | null>();
    for (const [id, what] of this.pending) {
      if (what === 'deleted') changes.deleted.push(id);
      else changes[what].push({ id, body: this.records.get(id), happened_at: null, mood: null });
      sent.set(id, what === 'deleted' ? null : this.records.get(id)!);
    }
    const res = await rest(app, 'POST', '/api/sync/push', {
      token: this.user.token,
      body: { changes: { journal_entries: changes }, last_pulled_at: this.lastPulledAt },
    });
    expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
    if (res.status === 200) this.pending.clear();
    return { status: res.status, sent, timestamp: res.body.timestamp, lastPulledAt };
  }
}

/** The server's rows of the account: id -> body, or null for a tombstone. */
async function serverState(userId: number): Promise<Map<string, string | null>> {
  const rows = await app.db.prisma.journalEntry.findMany({ where: { userId } });
  return new Map(rows.map((r) => [r.id, r.deletedAt ? null : r.body]));
}

let seq = 0;

describe('sync under random interleavings of three devices', () => {
  it('loses no acknowledged write, resurrects no deletion, shows no partial push, and converges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), async (ops) => {
        const user = await seedUser(app);
        const devices = Array.from({ length: DEVICES }, (_, i) => new Device(user, `d${i}`));
        /** what the server acknowledged: id -> body, or null once deleted */
        const acked = new Map<string, string | null>();
        /** when the server acknowledged the last write of each id */
        const ackedAt = new Map<string, number>();
        const pushAndRecord = async (d: Device): Promise<number> => {
          const before = await serverState(user.user.id);
          const { status, sent, timestamp, lastPulledAt } = await d.push();
          if (status === 200) {
            for (const [id, value] of sent) {
              // an acknowledged write replaces only what the device had seen: none is silently lost
              if (ackedAt.has(id)) expect(ackedAt.get(id)!).toBeLessThanOrEqual(lastPulledAt ?? -1);
              ackedAt.set(id, timestamp);
              // a deletion is final: nothing written after it counts
              if (acked.get(id) === null) continue;
              if (value === null) acked.set(id, null);
              else acked.set(id, value);
            }
          } else {
            // a refused push leaves no trace
            expect(await serverState(user.user.id)).toEqual(before);
          }
          // no acknowledged write lost, no deletion resurrected
          expect(await serverState(user.user.id)).toEqual(acked);
          return status;
        };

        for (const op of ops) {
          const d = devices[op.dev];
          const local = [...d.records.keys()].sort();
          if (op.kind === 'create') {
            const id = `p${++seq}x${Math.random().toString(36).slice(2, 8)}`;
            d.records.set(id, op.body);
            d.pending.set(id, 'created');
          } else if (op.kind === 'update' && local.length) {
            const id = local[op.pick % local.length];
            d.records.set(id, op.body);
            if (d.pending.get(id) !== 'created') d.pending.set(id, 'updated');
          } else if (op.kind === 'delete' && local.length) {
            const id = local[op.pick % local.length];
            d.records.delete(id);
            if (d.pending.get(id) === 'created') d.pending.delete(id);
            else d.pending.set(id, 'deleted');
          } else if (op.kind === 'pull') {
            await d.pull();
          } else if (op.kind === 'push') {
            await pushAndRecord(d);
          }
        }

        // everyone syncs (pull, push; on a conflict pull and push again), then pulls once more
        for (const d of devices) {
          for (let i = 0; ; i++) {
            expect(i).toBeLessThan(5);
            await d.pull();
            if ((await pushAndRecord(d)) === 200) break;
          }
        }
        for (const d of devices) await d.pull();
        const live = new Map([...acked].filter(([, v]) => v !== null) as [string, string][]);
        for (const d of devices) expect(d.records).toEqual(live);
        const fresh = new Device(user, 'fresh');
        await fresh.pull();
        expect(fresh.records).toEqual(live);
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
