/**
 * Sync with the real WatermelonDB client (issue 4): two phones of one account converge through
 * creates, updates, deletes and a stale push (409, then pull and retry).
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { Phone } from './sync-watermelon.helpers.ts';

const app = await startTestApp({
  DATA_DIR: `/tmp/hdp-test/sync-wm-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
});

describe('WatermelonDB synchronize() against /api/sync', () => {
  it('makes two phones of one account converge through creates, updates, deletes and a stale push', async () => {
    const u = await seedUser(app);
    const a = new Phone(app, u.token);
    const b = new Phone(app, u.token);

    const x = await a.create({ body: 'ran 5 km', happened_at: 1_763_000_000_000, mood: 4 });
    const y = await a.create({ body: 'headache', happened_at: null, mood: null });
    await a.sync();
    await b.sync();
    expect(await b.snapshot()).toEqual(await a.snapshot());
    expect(Object.keys(await b.snapshot()).sort()).toEqual([x, y].sort());

    // b edits x and deletes y; a learns of both
    await b.update(x, { body: 'ran 6 km' });
    await b.delete(y);
    const z = await b.create({ body: 'new from b', mood: 3 });
    await b.sync();
    await a.sync();
    expect(await a.snapshot()).toEqual(await b.snapshot());
    expect((await a.snapshot())[x].body).toBe('ran 6 km');
    expect((await a.snapshot())[y]).toBeUndefined();

    // stale push: both edit z; b pushes between a's pull and a's push, so a's push is refused (409),
    // and a pulls and pushes again
    await a.update(z, { mood: 5 });
    await b.update(z, { body: 'edited on b' });
    await a.syncRetrying(3, { beforePush: () => b.sync() });
    expect(a.pushStatuses).toContain(409);
    await b.sync();
    expect(await a.snapshot()).toEqual(await b.snapshot());
    // WatermelonDB keeps the local change of a field the server also changed: a's mood wins, b's body stays
    expect((await a.snapshot())[z]).toEqual({ body: 'edited on b', happened_at: null, mood: 5 });

    const rows = await app.db.prisma.journalEntry.findMany({
      where: { userId: u.user.id },
      orderBy: { id: 'asc' },
    });
    expect(
      rows
        .filter((r) => !r.deletedAt)
        .map((r) => r.id)
        .sort(),
    ).toEqual([x, z].sort());
    expect(rows.find((r) => r.id === y)?.deletedAt).not.toBeNull();
  });
});
