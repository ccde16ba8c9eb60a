/**
 * The credential cache (src/auth/credential-cache.ts, issue 18): a checked login session or
 * personal token is served without the database until its account's revocation epoch moves, which
 * every service that ends credentials does once its change commits; so revocation stays instant,
 * in this process and across processes (Redis).
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createCredentialCache } from '../../src/auth/credential-cache.ts';
import type { CachedCredential } from '../../src/auth/credential-cache.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const redisUrl = process.env.TEST_REDIS_URL;
const session = (userId: number): CachedCredential => ({
  principal: {
    kind: 'session',
    userId,
    sessionId: `s${userId}`,
    sessionKind: 'native',
    isAdmin: false,
    scopes: new Set(),
    viewAs: null,
  },
  expiresAtMs: clock.ms() + 3_600_000,
});

describe('the credential cache', () => {
  it('serves a checked session without the database until the account is revoked', async () => {
    const u = await seedUser(app);
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(200);
    // a change that does not announce itself is not seen while the entry lives: proof of the cache
    await app.db.prisma.session.update({
      where: { id: u.sessionId },
      data: { revokedAt: clock.now() },
    });
    expect((await rest(app, 'GET', '/api/auth/me', { token: u.token })).status).toBe(200);
    await app.deps.credentials.revoked(u.user.id);
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

  it('serves a checked personal token until it is revoked, which the API does at once', async () => {
    const u = await seedUser(app);
    const pat = await seedPersonalToken(app, u.user.id, ['consents:read']);
    const other = await seedPersonalToken(app, u.user.id, ['consents:read']);
    const read = (token: string) => rest(app, 'GET', '/api/v1/consents', { token });
    expect((await read(pat)).status).toBe(200);
    expect((await read(other)).status).toBe(200);
    const listed = (await rest(app, 'GET', '/api/v1/tokens', { token: u.token })).body as {
      id: number;
    }[];
    expect(listed).toHaveLength(2);
    // not announced: the cached token still counts (proof of the cache), until the epoch moves
    await app.db.prisma.personalToken.update({
      where: { id: listed[0].id },
      data: { revokedAt: clock.now() },
    });
    expect((await read(pat)).status).toBe(200);
    expect((await read(other)).status).toBe(200);
    await app.deps.credentials.revoked(u.user.id);
    const [first, second] = [await read(pat), await read(other)];
    expect([first.status, second.status].sort()).toEqual([200, 401]);
    // through the API: DELETE /api/v1/tokens/{id} ends the other one at once
    const live = first.status === 200 ? pat : other;
    const liveId = listed[1].id;
    expect((await read(live)).status).toBe(200);
    expect((await rest(app, 'DELETE', `/api/v1/tokens/${liveId}`, { token: u.token })).status).toBe(
      200,
    );
    expect((await read(live)).status).toBe(401);
  });

  it('never keeps a lookup that raced a revocation (the epoch is read before the lookup)', async () => {
    const cache = createCredentialCache({ namespace: 't' });
    const epoch = await cache.epochOf(7);
    await cache.revoked(7);
    cache.set('token', session(7), epoch);
    expect(await cache.get('token', clock.ms())).toBeNull();
    cache.set('token', session(7), await cache.epochOf(7));
    expect(await cache.get('token', clock.ms())).toMatchObject({ principal: { userId: 7 } });
    expect(await cache.get('token', clock.ms() + 7_200_000)).toBeNull();
  });

  describe.skipIf(!redisUrl)('with Redis (TEST_REDIS_URL)', () => {
    const clients = redisUrl ? [new Redis(redisUrl), new Redis(redisUrl)] : [];
    afterAll(() => clients.forEach((c) => c.disconnect()));

    it("sees another process's revocation at once", async () => {
      const namespace = `session-cache-test-${process.pid}-${clock.ms()}`;
      const [a, b] = clients.map((redis) => createCredentialCache({ redis, namespace }));
      for (const c of clients) await c.ping();
      a.set('token', session(9), await a.epochOf(9));
      expect(await a.get('token', clock.ms())).toMatchObject({ principal: { userId: 9 } });
      await b.revoked(9);
      expect(await a.get('token', clock.ms())).toBeNull();
    });
  });
});
