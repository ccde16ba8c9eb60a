/**
 * Web sessions (issue 3): POST /api/auth/web/login, GET /api/auth/web/session and
 * POST /api/auth/web/logout, with the HttpOnly cookie and the CSRF header.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { cookiesFrom, fromNewIp, gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const webLogin = (email: string, password: string, ip = fromNewIp()) =>
  rest(app, 'POST', '/api/auth/web/login', { body: { email, password }, headers: ip });

describe('POST /api/auth/web/login', () => {
  it('sets the HttpOnly session cookie and answers WebSessionOut (user, csrf_token, expires_in), no token', async () => {
    const { user, password } = await seedUser(app);
    const res = await webLogin(user.email.toUpperCase(), password);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: { id: user.id, email: user.email },
      expires_in: 30 * 86_400,
    });
    expect(Object.keys(res.body).sort()).toEqual(['csrf_token', 'expires_in', 'user']);
    const cookies = res.headers.getSetCookie();
    expect(cookies[0]).toMatch(
      /^hdp_session=[\w.-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(cookies[1]).toBe(
      `hdp_csrf=${res.body.csrf_token}; Max-Age=2592000; Path=/; SameSite=Lax`,
    );
    const session = await app.db.prisma.session.findFirstOrThrow({
      where: { userId: user.id, kind: 'web' },
    });
    expect(session.revokedAt).toBeNull();
  });

  it('answers a wrong password and an unknown address with the same 401 bytes and sets no cookie', async () => {
    const { user } = await seedUser(app);
    const answers = await Promise.all(
      [user.email, 'nobody-web@example.com'].map((email) =>
        app.fetch('/api/auth/web/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...fromNewIp() },
          body: JSON.stringify({ email, password: 'wrong password' }),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([401, 401]);
    const [a, b] = await Promise.all(answers.map((x) => x.text()));
    expect(a).toBe('{"detail":"Incorrect email or password"}');
    expect(b).toBe(a);
    expect(answers.flatMap((x) => x.headers.getSetCookie())).toEqual([]);
  });

  it('answers 401 for an account that has no password (emailed-code accounts)', async () => {
    const { user } = await seedUser(app);
    await app.db.prisma.user.update({ where: { id: user.id }, data: { passwordHash: null } });
    expect((await webLogin(user.email, 'correct horse battery')).status).toBe(401);
  });
});

describe('GET /api/auth/web/session', () => {
  it('answers the cookie session: user, its CSRF token and the seconds left', async () => {
    const { user, password } = await seedUser(app);
    const login = await webLogin(user.email, password);
    const res = await rest(app, 'GET', '/api/auth/web/session', {
      headers: { cookie: cookiesFrom(login.headers) },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: user.id, email: user.email });
    expect(res.body.csrf_token).toBe(login.body.csrf_token);
    expect(res.body.expires_in).toBeGreaterThan(30 * 86_400 - 60);
    expect(res.body.expires_in).toBeLessThanOrEqual(30 * 86_400);
  });

  it('answers a bearer (phone) session with the user and no CSRF token', async () => {
    const { user, token } = await seedUser(app);
    const res = await rest(app, 'GET', '/api/auth/web/session', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ user: { id: user.id }, csrf_token: null });
  });

  it('answers 401 without a credential and 403 for a personal token', async () => {
    expect((await rest(app, 'GET', '/api/auth/web/session')).status).toBe(401);
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['profile:read', 'account:read']);
    expect((await rest(app, 'GET', '/api/auth/web/session', { token: pat })).status).toBe(403);
  });

  it('is the same field over GraphQL', async () => {
    const { user } = await seedUser(app);
    const web = await seedWebSession(app, user.id);
    const res = await gql(app, '{ webSession { user { id } csrfToken } }', {
      headers: { cookie: web.cookie, 'x-csrf-token': web.csrf },
    });
    expect(res.body.data.webSession).toEqual({ user: { id: user.id }, csrfToken: web.csrf });
  });
});

describe('POST /api/auth/web/logout', () => {
  it("revokes the cookie's session, clears both cookies and answers ok", async () => {
    const { user } = await seedUser(app);
    const web = await seedWebSession(app, user.id);
    const res = await rest(app, 'POST', '/api/auth/web/logout', {
      headers: { cookie: web.cookie, 'x-csrf-token': web.csrf },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(res.headers.getSetCookie()).toEqual([
      'hdp_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
      'hdp_csrf=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; SameSite=Lax',
    ]);
    expect(
      (await app.db.prisma.session.findUniqueOrThrow({ where: { id: web.sessionId } })).revokedAt,
    ).not.toBeNull();
    expect(
      (await rest(app, 'GET', '/api/auth/me', { headers: { cookie: web.cookie } })).status,
    ).toBe(401);
  });

  it('answers ok and clears the cookies without a session, or with a revoked one', async () => {
    const none = await rest(app, 'POST', '/api/auth/web/logout');
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ ok: true });
    expect(none.headers.getSetCookie()).toHaveLength(2);
    const { user } = await seedUser(app);
    const web = await seedWebSession(app, user.id);
    await app.db.prisma.session.update({
      where: { id: web.sessionId },
      data: { revokedAt: clock.now() },
    });
    const stale = await rest(app, 'POST', '/api/auth/web/logout', {
      headers: { cookie: web.cookie },
    });
    expect(stale.status).toBe(200);
    expect(stale.body).toEqual({ ok: true });
  });

  it('refuses a live cookie without its CSRF token (403), so another site cannot sign a person out', async () => {
    const { user } = await seedUser(app);
    const web = await seedWebSession(app, user.id);
    const res = await rest(app, 'POST', '/api/auth/web/logout', {
      headers: { cookie: web.cookie },
    });
    expect(res.status).toBe(403);
    expect(
      (await app.db.prisma.session.findUniqueOrThrow({ where: { id: web.sessionId } })).revokedAt,
    ).toBeNull();
  });

  it('leaves a bearer session alone', async () => {
    const { token, sessionId } = await seedUser(app);
    expect((await rest(app, 'POST', '/api/auth/web/logout', { token })).body).toEqual({ ok: true });
    expect(
      (await app.db.prisma.session.findUniqueOrThrow({ where: { id: sessionId } })).revokedAt,
    ).toBeNull();
    expect((await rest(app, 'GET', '/api/auth/me', { token })).status).toBe(200);
  });
});
