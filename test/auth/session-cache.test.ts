/**
 * The login-session cache (src/auth/session-cache.ts, issue 18): a checked session is served
 * without the database until its account's revocation epoch moves, which every service that ends
 * sessions does once its change commits; so revocation stays instant, in this process (PGlite)
 * and across processes (Redis).
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createSessionCache } from '../../src/auth/session-cache.ts';
import type { CachedSession } from '../../src/auth/session-cache.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();
const redisUrl = process.env.TEST_REDIS_URL;
const session = (userId: number): CachedSession => ({
  userId,
  sessionId: `s${userId}`,
  sessionKind: 'native',
  isAdmin: false,
  expiresAtMs: Date.now() + 3_600_000,
});

describe('the login-session cache', () => {
  it('serves a checked session without the database until the account is revoked', async () => {
    const u = await seedUser(app);
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(200);
    // a change that does not announce itself is not seen while the entry lives: proof of the cache
    await app.db.prisma.session.update({
      where: { id: u.sessionId },
      data: { revokedAt: new Date() },
    });
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(200);
    await app.deps.sessions.revoked(u.user.id);
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(401);
  });

  it('ends a cached session at once when it is revoked through the API', async () => {
    const u = await seedUser(app);
    const other = await rest(app, 'POST', '/api/auth/login', {
      body: { email: u.user.email, password: u.password },
    });
    const second = other.body.access_token as string;
    expect((await rest(app, 'GET', '/api/auth/me', { token: second })).status).toBe(200);
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(200);
    const sid = (await rest(app, 'GET', '/api/auth/sessions', { token: u.token })).body.find(
      (s: { current: boolean }) => !s.current,
    ).id as string;
    expect(
      (await rest(app, 'POST', `/api/auth/sessions/${sid}/revoke`, { token: u.token })).status,
    ).toBe(200);
    expect((await rest(app, 'GET', '/api/auth/me', { token: second })).status).toBe(401);
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(200);
    expect(
      (await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: u.token })).status,
    ).toBe(200);
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(401);
  });

  it('never keeps a lookup that raced a revocation (the epoch is read before the lookup)', async () => {
    const cache = createSessionCache({ namespace: 't' });
    const epoch = await cache.epochOf(7);
    await cache.revoked(7);
    cache.set('token', session(7), epoch);
    expect(await cache.get('token', Date.now())).toBeNull();
    cache.set('token', session(7), await cache.epochOf(7));
    expect(await cache.get('token', Date.now())).toMatchObject({ userId: 7 });
    expect(await cache.get('token', Date.now() + 7_200_000)).toBeNull();
  });

  describe.skipIf(!redisUrl)('with Redis (TEST_REDIS_URL)', () => {
    const clients = redisUrl ? [new Redis(redisUrl), new Redis(redisUrl)] : [];
    afterAll(() => clients.forEach((c) => c.disconnect()));

    it("sees another process's revocation at once", async () => {
      const namespace = `session-cache-test-${process.pid}-${Date.now()}`;
      const [a, b] = clients.map((redis) => createSessionCache({ redis, namespace }));
      for (const c of clients) await c.ping();
      a.set('token', session(9), await a.epochOf(9));
      expect(await a.get('token', Date.now())).toMatchObject({ userId: 9 });
      await b.revoked(9);
      expect(await a.get('token', Date.now())).toBeNull();
    });
  });
});
