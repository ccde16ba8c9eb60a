/**
 * Issue 29, item 10: the documented WatermelonDB client completes a first sync of an account with
 * more than 1,000 records in one synchronize(). A pull without cursor, limit or max_chars is
 * answered whole (every page of one snapshot, streamed as one answer, with its timestamp); a pull
 * that names one of them keeps its pages. Changes written while the answer streams are not in it
 * and arrive on the next pull.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PULL_PAGE_SIZE } from '../../src/domains/sync/sync.service.ts';
import { journal, journalEntries, recordIds } from '../factories/sync.ts';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { documentedSync, Phone } from './sync-watermelon.helpers.ts';

const require = createRequire(import.meta.url);
// its warnings about the synced tables this phone's schema leaves out (it skips them, by design)
require('@nozbe/watermelondb/utils/common/logger').default.silence();

const app = await startTestApp({
  DATA_DIR: `/tmp/hdp-test/sync-first-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
});

const entry = journalEntries(recordIds('fs'));
const RECORDS = 5_000;

/** A push as WatermelonDB's documented client sends it: the changes object as a text body. */
async function documentedPush(u: SeededUser, changes: unknown, lastPulledAt?: number) {
  const query = lastPulledAt === undefined ? '' : `?last_pulled_at=${lastPulledAt}`;
  const res = await app.fetch(`/api/sync/push${query}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${u.token}` },
    body: JSON.stringify(changes),
  });
  return { status: res.status, body: await res.json() };
}

/** The account's live journal entries on the server, by id: body and mood. */
async function serverEntries(u: SeededUser): Promise<Record<string, unknown>> {
  const rows = await app.db.prisma.journalEntry.findMany({
    where: { userId: u.user.id, deletedAt: null },
  });
  return Object.fromEntries(rows.map((r) => [r.id, { body: r.body, mood: r.mood }]));
}

async function phoneEntries(phone: Phone): Promise<Record<string, unknown>> {
  const snapshot = await phone.snapshot();
  return Object.fromEntries(
    Object.entries(snapshot).map(([id, r]) => [id, { body: r.body, mood: r.mood }]),
  );
}

describe('issue 29, item 10: a first sync of more than 1,000 records', () => {
  it('completes in one documented synchronize(), and so does a later sync of thousands of updates and deletions', async () => {
    const u = await seedUser(app);
    const created = Array.from({ length: RECORDS }, () => entry());
    expect((await documentedPush(u, journal({ created }))).status).toBe(200);

    const phone = new Phone(app, u.token);
    await documentedSync(phone, u.token);
    expect(Object.keys(await phone.snapshot())).toHaveLength(RECORDS);
    expect(await phoneEntries(phone)).toEqual(await serverEntries(u));
    const firstPulledAt = await phone.db.adapter.getLocal('__watermelon_last_pulled_at');
    expect(Number(firstPulledAt)).toBeGreaterThan(0);

    // another device changes 1,500 entries and deletes 1,500: more than one page of updates, then
    // more than one page of tombstones
    const updated = created.slice(0, 1_500).map((e) => ({ ...e, body: 'edited', mood: 1 }));
    const deleted = created.slice(1_500, 3_000).map((e) => e.id);
    expect(
      (await documentedPush(u, journal({ updated, deleted }), Number(firstPulledAt))).status,
    ).toBe(200);

    await documentedSync(phone, u.token);
    expect(Object.keys(await phone.snapshot())).toHaveLength(RECORDS - 1_500);
    expect(await phoneEntries(phone)).toEqual(await serverEntries(u));
  }, 120_000);

  it('answers the documented pull in one streamed answer; a pull naming cursor, limit or max_chars keeps its pages', async () => {
    const u = await seedUser(app);
    const created = Array.from({ length: PULL_PAGE_SIZE * 2 + 7 }, () => entry());
    await documentedPush(u, journal({ created }));

    const res = await app.fetch(
      '/api/sync/pull?last_pulled_at=null&schema_version=2&migration=null',
      {
        headers: { Authorization: `Bearer ${u.token}` },
      },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const whole = await res.json();
    expect(whole).toMatchObject({ has_more: false, next_cursor: null, identity_version: 1 });
    expect(typeof whole.timestamp).toBe('number');
    expect(whole.changes.journal_entries.created.map((r: { id: string }) => r.id).sort()).toEqual(
      created.map((e) => e.id).sort(),
    );
    // every synced table the token reads, each with its three lists
    for (const lists of Object.values(whole.changes))
      expect(Object.keys(lists as object)).toEqual(['created', 'updated', 'deleted']);

    for (const query of ['limit=1000', 'max_chars=100000']) {
      const page = await rest(app, 'GET', `/api/sync/pull?${query}`, { token: u.token });
      expect(page.body).toMatchObject({ has_more: true, timestamp: null });
      expect(page.body.changes.journal_entries.created.length).toBeLessThanOrEqual(PULL_PAGE_SIZE);
      const next = await rest(app, 'GET', `/api/sync/pull?cursor=${page.body.next_cursor}`, {
        token: u.token,
      });
      expect(next.body.has_more).toBe(true);
      expect(next.body.changes.journal_entries.created).toHaveLength(PULL_PAGE_SIZE);
    }
  });

  it('leaves out of the answer what is written while it streams, and brings it on the next pull', async () => {
    const u = await seedUser(app);
    const created = Array.from({ length: RECORDS }, () => entry());
    const before = (await documentedPush(u, journal({ created }))).body.timestamp as number;
    const lastById = [...created].sort((a, b) => (a.id < b.id ? -1 : 1)).at(-1)!;

    const res = await app.fetch('/api/sync/pull?last_pulled_at=null', {
      headers: { Authorization: `Bearer ${u.token}` },
    });
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value!];
    // while the answer streams: a new entry, and an edit of the entry served last
    const late = entry();
    const edited = { ...lastById, body: 'edited while streaming' };
    expect((await documentedPush(u, journal({ created: [late] }), before)).status).toBe(200);
    expect((await documentedPush(u, journal({ updated: [edited] }), before)).status).toBe(200);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const whole = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const ids = whole.changes.journal_entries.created.map((r: { id: string }) => r.id);
    expect(ids).not.toContain(late.id);
    expect(new Set(ids).size).toBe(ids.length);

    const next = await rest(app, 'GET', `/api/sync/pull?last_pulled_at=${whole.timestamp}`, {
      token: u.token,
    });
    expect(next.body.changes.journal_entries.updated).toEqual(
      expect.arrayContaining([late, edited]),
    );
    expect(next.body.changes.journal_entries.updated).toHaveLength(2);
  }, 60_000);
});
