import { describe, expect, it } from 'vitest';
import { createIdempotencyStore, fingerprintOf } from '../../src/platform/idempotency.ts';
import type { IdempotencyKey } from '../../src/platform/idempotency.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const store = createIdempotencyStore(app.db.prisma, { ttlMs: 60_000, staleMs: 10_000 });

let n = 0;
async function newKey(): Promise<IdempotencyKey> {
  const { user } = await seedUser(app);
  return { userId: user.id, tool: 'thing_create', key: `key-${++n}-abcdef` };
}

describe('fingerprintOf', () => {
  it('ignores key order and undefined members, and tells different values apart', () => {
    expect(fingerprintOf({ a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      fingerprintOf({ b: { d: 'x', c: [1, 2] }, a: 1, e: undefined }),
    );
    expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: '1' }));
    expect(fingerprintOf({ c: [1, 2] })).not.toBe(fingerprintOf({ c: [2, 1] }));
  });
});

describe('createIdempotencyStore', () => {
  it('claims a new key, replays the stored result, and refuses other arguments', async () => {
    const id = await newKey();
    expect(await store.claim(id, 'f1')).toEqual({ state: 'claimed' });
    expect(await store.claim(id, 'f1')).toEqual({ state: 'in_progress' });
    await store.complete(id, {
      structuredContent: { id: 7 },
      at: new Date('2025-01-02T03:04:05Z'),
    });
    expect(await store.claim(id, 'f1')).toEqual({
      state: 'replay',
      result: { structuredContent: { id: 7 }, at: '2025-01-02T03:04:05.000Z' },
    });
    expect(await store.claim(id, 'f2')).toEqual({ state: 'conflict' });
  });

  it('lets exactly one of two concurrent calls claim a key', async () => {
    const id = await newKey();
    const claims = await Promise.all([
      store.claim(id, 'f'),
      store.claim(id, 'f'),
      store.claim(id, 'f'),
    ]);
    expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c.state === 'in_progress')).toHaveLength(2);
  });

  it('forgets a released claim, but never a finished one', async () => {
    const id = await newKey();
    await store.claim(id, 'f1');
    await store.release(id);
    expect(await store.claim(id, 'f2')).toEqual({ state: 'claimed' });
    await store.complete(id, { ok: true });
    await store.release(id);
    expect(await store.claim(id, 'f2')).toEqual({ state: 'replay', result: { ok: true } });
  });

  it('scopes keys by user and by tool', async () => {
    const id = await newKey();
    const other = await newKey();
    await store.claim(id, 'f1');
    expect(await store.claim({ ...other, key: id.key }, 'f2')).toEqual({ state: 'claimed' });
    expect(await store.claim({ ...id, tool: 'other_create' }, 'f2')).toEqual({ state: 'claimed' });
  });

  it('lets a key be used again after it expires, and takes over an abandoned claim', async () => {
    const id = await newKey();
    const t0 = clock.now();
    await store.claim(id, 'f1', t0);
    await store.complete(id, { ok: 1 });
    expect(await store.claim(id, 'f2', new Date(t0.getTime() + 30_000))).toEqual({
      state: 'conflict',
    });
    expect(await store.claim(id, 'f2', new Date(t0.getTime() + 61_000))).toEqual({
      state: 'claimed',
    });

    const stuck = await newKey();
    await store.claim(stuck, 'f1', t0);
    expect(await store.claim(stuck, 'f1', new Date(t0.getTime() + 5_000))).toEqual({
      state: 'in_progress',
    });
    expect(await store.claim(stuck, 'f1', new Date(t0.getTime() + 11_000))).toEqual({
      state: 'claimed',
    });
    expect(await app.db.prisma.idempotencyRecord.count({ where: { userId: stuck.userId } })).toBe(
      1,
    );
  });
});
