import { describe, expect, it } from 'vitest';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { seedUser, seedWebSession } from '../factories/users.ts';
import { signAccessToken } from '../../src/auth/credentials.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

describe('login sessions', () => {
  it("rejects a token once its session is revoked or the user's epoch moves on", async () => {
    const a = await seedUser(app);
    const b = await seedUser(app);
    expect((await rest(app, 'GET', '/api/auth/me', { token: a.token })).status).toBe(200);
    // written straight to the database, then announced as every service that changes sessions does
    await app.db.prisma.session.update({
      where: { id: a.sessionId },
      data: { revokedAt: clock.now() },
    });
    await app.deps.credentials.revoked(a.user.id);
    expect((await rest(app, 'GET', '/api/auth/me', { token: a.token })).status).toBe(401);

    expect((await rest(app, 'GET', '/api/auth/me', { token: b.token })).status).toBe(200);
    await app.db.prisma.user.update({
      where: { id: b.user.id },
      data: { sessionEpoch: { increment: 1 } },
    });
    await app.deps.credentials.revoked(b.user.id);
    expect((await rest(app, 'GET', '/api/auth/me', { token: b.token })).status).toBe(401);
    expect(
      (await gql(app, '{ me { id } }', { token: b.token })).body.errors[0].extensions.code,
    ).toBe('UNAUTHENTICATED');
  });

  it('rejects a token signed with another key, or naming another user than its session', async () => {
    const a = await seedUser(app);
    const other = new TextEncoder().encode('another-secret-another-secret-another-secret');
    const forged = await signAccessToken(
      other,
      { sub: String(a.user.id), sid: a.sessionId, epoch: 0 },
      600,
    );
    expect((await rest(app, 'GET', '/api/auth/me', { token: forged })).status).toBe(401);
    const b = await seedUser(app);
    const swapped = await signAccessToken(
      app.config.jwtSecret,
      { sub: String(b.user.id), sid: a.sessionId, epoch: 0 },
      600,
    );
    expect((await rest(app, 'GET', '/api/auth/me', { token: swapped })).status).toBe(401);
  });

  it('lists sessions with the current one marked', async () => {
    const a = await seedUser(app);
    const web = await seedWebSession(app, a.user.id);
    const res = await rest(app, 'GET', '/api/auth/sessions', { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.map((s: any) => [s.id, s.kind, s.current]).sort()).toEqual(
      [
        [a.sessionId, 'native', true],
        [web.sessionId, 'web', false],
      ].sort(),
    );
  });

  it('does not accept a web session token as a bearer token, nor a phone token as a cookie', async () => {
    const a = await seedUser(app);
    const web = await seedWebSession(app, a.user.id);
    const webToken = web.cookie.split('=')[1];
    expect((await rest(app, 'GET', '/api/auth/me', { token: webToken })).status).toBe(401);
    expect(
      (await rest(app, 'GET', '/api/auth/me', { headers: { cookie: `hdp_session=${a.token}` } }))
        .status,
    ).toBe(401);
  });
});

describe('web cookie sessions', () => {
  it('reads with the cookie alone', async () => {
    const a = await seedUser(app);
    const web = await seedWebSession(app, a.user.id);
    const me = await rest(app, 'GET', '/api/auth/me', { headers: { cookie: web.cookie } });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(a.user.id);
  });

  it('refuses a state change without the CSRF header, over REST and GraphQL', async () => {
    const a = await seedUser(app);
    const web = await seedWebSession(app, a.user.id);
    const noCsrf = await rest(app, 'PATCH', '/api/auth/me', {
      headers: { cookie: web.cookie },
      body: { name: 'X' },
    });
    expect(noCsrf.status).toBe(403);
    const wrong = await rest(app, 'PATCH', '/api/auth/me', {
      headers: { cookie: web.cookie, 'x-csrf-token': 'nope' },
      body: { name: 'X' },
    });
    expect(wrong.status).toBe(403);
    const viaGraphql = await gql(app, 'mutation { updateProfile(input: {name: "X"}) { name } }', {
      headers: { cookie: web.cookie },
    });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await app.db.prisma.user.findUniqueOrThrow({ where: { id: a.user.id } })).name).toBe(
      'Test User',
    );

    const ok = await rest(app, 'PATCH', '/api/auth/me', {
      headers: { cookie: web.cookie, 'x-csrf-token': web.csrf },
      body: { name: 'X' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.name).toBe('X');
  });
});
