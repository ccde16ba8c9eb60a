/**
 * Sync over REST (issue 4): GET /api/sync/pull and POST /api/sync/push, one test per rule and
 * status. The real WatermelonDB client is in sync-watermelon.test.ts, the model-based property
 * test in sync-property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PULL_PAGE_SIZE, bumpSyncIdentity } from '../../src/domains/sync/sync.service.ts';
import { SYNC_SCHEMA_VERSION } from '../../src/domains/sync/sync.tables.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { journal, journalEntries, recordIds } from '../factories/sync.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp({
  DATA_DIR: `/tmp/hdp-test/sync-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
});

const newId = recordIds('rec');
const entry = journalEntries(newId);

async function pull(u: SeededUser, query = '') {
  return rest(app, 'GET', `/api/sync/pull${query ? `?${query}` : ''}`, { token: u.token });
}

async function push(u: SeededUser, changes: unknown, lastPulledAt: number | null, query = '') {
  return rest(app, 'POST', `/api/sync/push${query ? `?${query}` : ''}`, {
    token: u.token,
    body: { changes, last_pulled_at: lastPulledAt },
  });
}

describe('GET /api/sync/pull', () => {
  it('answers 401 without a token', async () => {
    const res = await rest(app, 'GET', '/api/sync/pull');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Not authenticated' });
  });

  it('answers everything as created on a first pull, with wire names left as they are', async () => {
    const u = await seedUser(app);
    const a = entry();
    expect((await push(u, journal({ created: [a] }), null)).status).toBe(200);
    const res = await pull(u);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      changes: { journal_entries: { created: [a], updated: [], deleted: [] } },
      has_more: false,
      next_cursor: null,
      identity_version: 1,
      schema_version: SYNC_SCHEMA_VERSION,
    });
    expect(typeof res.body.timestamp).toBe('number');
  });

  it('answers only what changed since last_pulled_at: updates and tombstones', async () => {
    const u = await seedUser(app);
    const [a, b, c] = [entry(), entry(), entry()];
    await push(u, journal({ created: [a, b, c] }), null);
    const t1 = (await pull(u)).body.timestamp as number;
    expect(
      (await push(u, journal({ updated: [{ ...a, body: 'edited' }], deleted: [b.id] }), t1)).status,
    ).toBe(200);
    const res = await pull(u, `last_pulled_at=${t1}`);
    expect(res.body.changes.journal_entries).toEqual({
      created: [],
      updated: [{ ...a, body: 'edited' }],
      deleted: [b.id],
    });
    expect(res.body.timestamp).toBeGreaterThan(t1);
    const empty = await pull(u, `last_pulled_at=${res.body.timestamp}`);
    expect(empty.body.changes.journal_entries).toEqual({ created: [], updated: [], deleted: [] });
    // a tombstone stays a tombstone and never arrives in a first pull
    const first = await pull(u);
    expect(
      first.body.changes.journal_entries.created.map((r: { id: string }) => r.id).sort(),
    ).toEqual([a.id, c.id].sort());
  });

  it("never shows another account's records", async () => {
    const [u, other] = [await seedUser(app), await seedUser(app)];
    await push(other, journal({ created: [entry()] }), null);
    const res = await pull(u);
    expect(res.body.changes.journal_entries.created).toEqual([]);
  });

  it('pages one snapshot with cursor; a push between pages is not in it, and arrives on the next pull', async () => {
    const u = await seedUser(app);
    const records = Array.from({ length: PULL_PAGE_SIZE + 5 }, () => entry());
    expect((await push(u, journal({ created: records }), null)).status).toBe(200);
    // a pull naming limit is paged (without cursor, limit or max_chars it is answered whole)
    const p1 = await pull(u, `limit=${PULL_PAGE_SIZE}`);
    expect(p1.body).toMatchObject({ has_more: true, timestamp: null });
    expect(p1.body.changes.journal_entries.created).toHaveLength(PULL_PAGE_SIZE);
    const late = entry();
    const t0 = clock.ms();
    const pushed = await push(u, journal({ created: [late] }), t0);
    expect(pushed.status).toBe(200);
    const p2 = await pull(u, `cursor=${p1.body.next_cursor}`);
    expect(p2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(p2.body.changes.journal_entries.created).toHaveLength(5);
    const ids = new Set(
      [...p1.body.changes.journal_entries.created, ...p2.body.changes.journal_entries.created].map(
        (r: { id: string }) => r.id,
      ),
    );
    expect(ids.size).toBe(records.length);
    expect(ids.has(late.id)).toBe(false);
    expect(p2.body.timestamp).toBeLessThan(pushed.body.timestamp);
    const p3 = await pull(u, `last_pulled_at=${p2.body.timestamp}`);
    expect(p3.body.changes.journal_entries.updated).toEqual([late]);
  });

  it('leaves out excluded tables', async () => {
    const u = await seedUser(app);
    await push(u, journal({ created: [entry()] }), null);
    const res = await pull(u, 'exclude=journal_entries');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.changes)).not.toContain('journal_entries');
  });

  it('sends whole the tables with columns a migration sync adds (issue 29, item 11)', async () => {
    const u = await seedUser(app);
    const a = entry({ mood: 5 });
    await push(u, journal({ created: [a] }), null);
    const t = (await pull(u)).body.timestamp as number;
    const current = await pull(u, `last_pulled_at=${t}&schema_version=${SYNC_SCHEMA_VERSION}`);
    expect(current.body.changes.journal_entries.updated).toEqual([]);
    // a client on version 1 without a migration already has what its schema allows
    const old = await pull(u, `last_pulled_at=${t}&schema_version=1&migration=null`);
    expect(old.body.changes.journal_entries.updated).toEqual([]);
    // journal_entries.mood came in version 2: a client migrating from 1 gets the table whole
    const migration = encodeURIComponent(JSON.stringify({ from: 1, tables: [], columns: [] }));
    const migrating = await pull(u, `last_pulled_at=${t}&schema_version=2&migration=${migration}`);
    expect(migrating.body.changes.journal_entries.updated).toEqual([a]);
  });

  it('answers 422 for bad parameters', async () => {
    const u = await seedUser(app);
    for (const [query, loc] of [
      ['last_pulled_at=abc', ['query', 'last_pulled_at']],
      ['last_pulled_at=-5', ['query', 'last_pulled_at']],
      ['schema_version=0', ['query', 'schema_version']],
      ['limit=0', ['query', 'limit']],
      ['limit=1001', ['query', 'limit']],
      ['exclude=not_a_table', ['query', 'exclude', 0]],
      ['exclude=journal_entries,not_a_table', ['query', 'exclude', 1]],
      [`cursor=${'a'.repeat(4097)}`, ['query', 'cursor']],
      ['cursor=nonsense', ['query', 'cursor']],
    ] as const) {
      const res = await pull(u, query);
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc, query).toEqual(loc);
    }
  });

  it('tells a client of an older identity to reset (409 identity_changed)', async () => {
    const u = await seedUser(app);
    expect((await pull(u, 'identity_version=1')).status).toBe(200);
    const v = await bumpSyncIdentity(app.db.prisma, u.user.id);
    expect(v).toBe(2);
    const res = await pull(u, 'identity_version=1');
    expect(res.status).toBe(409);
    expect(res.body.detail).toEqual({ code: 'identity_changed', identity_version: 2 });
    const pushed = await push(u, journal({ created: [entry()] }), null, 'identity_version=1');
    expect(pushed.status).toBe(409);
    expect(pushed.body.detail.code).toBe('identity_changed');
    expect((await pull(u, 'identity_version=2')).body.identity_version).toBe(2);
  });

  it("lets a grantee viewing as the owner pull the owner's data, but not push (403)", async () => {
    const [owner, grantee] = [await seedUser(app), await seedUser(app)];
    const a = entry();
    await push(owner, journal({ created: [a] }), null);
    const grantId = await seedActiveGrant(app, owner, grantee);
    await switchViewAs(app, grantee.token, grantId);
    const res = await pull(grantee);
    expect(res.status).toBe(200);
    expect(res.body.changes.journal_entries.created).toEqual([a]);
    const pushed = await push(grantee, journal({ created: [entry()] }), null);
    expect(pushed.status).toBe(403);
    expect(pushed.body.detail).toMatchObject({ code: 'view_as_read_only' });
    expect(await app.db.prisma.journalEntry.count({ where: { userId: owner.user.id } })).toBe(1);
  });

  it('needs health:summary:read from a personal token', async () => {
    const u = await seedUser(app);
    const token = await seedPersonalToken(app, u.user.id, ['profile:read']);
    const res = await rest(app, 'GET', '/api/sync/pull', { token });
    expect(res.status).toBe(403);
  });
});

describe('POST /api/sync/push', () => {
  it('answers 401 without a token', async () => {
    const res = await rest(app, 'POST', '/api/sync/push', { body: { changes: {} } });
    expect(res.status).toBe(401);
  });

  it('stores records as the caller, stamps the server change time and records phone_last_sync_at', async () => {
    const u = await seedUser(app);
    const a = entry({ user_id: 999_999 });
    const before = clock.ms();
    const res = await push(u, journal({ created: [a] }), null);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, identity_version: 1, accepted: 1 });
    const row = await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } });
    expect(row).toMatchObject({ userId: u.user.id, body: 'slept well', mood: 4, deletedAt: null });
    expect(row.happenedAt?.getTime()).toBe(a.happened_at);
    expect(row.serverUpdatedAt.getTime()).toBe(res.body.timestamp);
    const user = await app.db.prisma.user.findUniqueOrThrow({ where: { id: u.user.id } });
    expect(user.phoneLastSyncAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
  });

  it('keeps deletions as tombstones that an update cannot bring back', async () => {
    const u = await seedUser(app);
    const a = entry();
    await push(u, journal({ created: [a] }), null);
    const t1 = (await pull(u)).body.timestamp;
    expect((await push(u, journal({ deleted: [a.id] }), t1)).status).toBe(200);
    const row = await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.deletedAt).not.toBeNull();
    const t2 = (await pull(u, `last_pulled_at=${t1}`)).body.timestamp;
    expect((await push(u, journal({ updated: [{ ...a, body: 'back?' }] }), t2)).status).toBe(200);
    const after = await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } });
    expect(after).toMatchObject({ body: 'slept well' });
    expect(after.deletedAt).not.toBeNull();
  });

  it('fails the whole push with 409 when a record changed since last_pulled_at, writing nothing', async () => {
    const u = await seedUser(app);
    const a = entry();
    await push(u, journal({ created: [a] }), null);
    const t1 = (await pull(u)).body.timestamp;
    await push(u, journal({ updated: [{ ...a, body: 'from phone A' }] }), t1);
    const fresh = entry();
    const stale = await push(
      u,
      journal({ created: [fresh], updated: [{ ...a, body: 'from phone B' }] }),
      t1,
    );
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toEqual({
      code: 'sync_conflict',
      table: 'journal_entries',
      ids: [a.id],
    });
    expect(await app.db.prisma.journalEntry.findUnique({ where: { id: fresh.id } })).toBeNull();
    expect((await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } })).body).toBe(
      'from phone A',
    );
  });

  it("never overwrites another account's record with the same id (409)", async () => {
    const [u, other] = [await seedUser(app), await seedUser(app)];
    const a = entry();
    await push(other, journal({ created: [a] }), null);
    const res = await push(
      u,
      journal({ created: [{ ...a, body: 'mine now?' }] }),
      clock.ms() + 60_000,
    );
    expect(res.status).toBe(409);
    const del = await push(u, journal({ deleted: [a.id] }), clock.ms() + 60_000);
    expect(del.status).toBe(409);
    const row = await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } });
    expect(row).toMatchObject({ userId: other.user.id, body: 'slept well', deletedAt: null });
  });

  it('answers 422 for malformed changes', async () => {
    const u = await seedUser(app);
    const cases: [unknown, (string | number)[]][] = [
      [
        { not_a_table: { created: [], updated: [], deleted: [] } },
        ['body', 'changes', 'not_a_table'],
      ],
      [
        journal({ created: [{ id: 5 }] }),
        ['body', 'changes', 'journal_entries', 'created', 0, 'id'],
      ],
      [
        journal({ created: [{ ...entry(), mood: 'good' }] }),
        ['body', 'changes', 'journal_entries', 'created', 0, 'mood'],
      ],
      [
        journal({ created: [{ ...entry(), happened_at: 'yesterday' }] }),
        ['body', 'changes', 'journal_entries', 'created', 0, 'happened_at'],
      ],
    ];
    for (const [changes, loc] of cases) {
      const res = await push(u, changes, null);
      expect(res.status, JSON.stringify(changes)).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    const dup = entry();
    const twice = await push(u, journal({ created: [dup], deleted: [dup.id] }), null);
    expect(twice.status).toBe(422);
    const missing = await app.fetch('/api/sync/push', {
      method: 'POST',
      headers: { authorization: `Bearer ${u.token}` },
    });
    expect(missing.status).toBe(422);
    expect((await missing.json()).detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
    expect(await app.db.prisma.journalEntry.count({ where: { userId: u.user.id } })).toBe(0);
  });

  it('lets exactly one of several concurrent stale-racing pushes of one record through', async () => {
    const u = await seedUser(app);
    const a = entry();
    await push(u, journal({ created: [a] }), null);
    const t = (await pull(u)).body.timestamp;
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        push(u, journal({ created: [entry()], updated: [{ ...a, body: `device ${i}` }] }), t),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = results.findIndex((r) => r.status === 200);
    expect((await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } })).body).toBe(
      `device ${winner}`,
    );
    // the losers wrote nothing: only the winner's new record exists besides a
    expect(await app.db.prisma.journalEntry.count({ where: { userId: u.user.id } })).toBe(2);
  });

  it("stores a null body (a NOT NULL text column) as ''", async () => {
    const u = await seedUser(app);
    const a = entry({ body: null, mood: null });
    expect((await push(u, journal({ created: [a] }), null)).status).toBe(200);
    expect(
      await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } }),
    ).toMatchObject({ body: '', mood: null });
  });

  it('keeps stored columns that an update leaves out', async () => {
    const u = await seedUser(app);
    const a = entry({ mood: 2 });
    await push(u, journal({ created: [a] }), null);
    const t = (await pull(u)).body.timestamp;
    await push(u, journal({ updated: [{ id: a.id, body: 'only the body' }] }), t);
    expect(
      await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } }),
    ).toMatchObject({ body: 'only the body', mood: 2 });
  });
});
