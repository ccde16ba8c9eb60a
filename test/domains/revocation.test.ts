/**
 * Revocation (issue 3): after revoking one session, all sessions, or resetting the password, the
 * old bearer token and the old cookie are refused on their very next request, over REST and
 * POST /graphql alike. Personal tokens are separate credentials and keep working.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, gql, rest } from '../harness/clients.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });

interface Credentials {
  /** native bearer token */
  token: string;
  /** web cookie and its CSRF token */
  web: { cookie: string; csrf: string; sessionId: string };
}

/** A user with a phone session (bearer) and a browser session (cookie). */
async function signedInTwice(): Promise<Credentials & { userId: number; sessionId: string; email: string; password: string }> {
  const seeded = await seedUser(app);
  return {
    token: seeded.token,
    sessionId: seeded.sessionId,
    userId: seeded.user.id,
    email: seeded.user.email,
    password: seeded.password,
    web: await seedWebSession(app, seeded.user.id),
  };
}

/** The status of a read and a state change, over REST and GraphQL, with a bearer token. */
async function bearerStatuses(token: string): Promise<string[]> {
  const me = await rest(app, 'GET', '/api/auth/me', { token });
  const patch = await rest(app, 'PATCH', '/api/auth/me', { token, body: { name: 'Changed' } });
  const query = await gql(app, '{ me { id } }', { token });
  return [String(me.status), String(patch.status), query.body.errors?.[0]?.extensions.code ?? 'OK'];
}

/** The same with a cookie (and its CSRF token, so only the session decides). */
async function cookieStatuses(web: { cookie: string; csrf: string }): Promise<string[]> {
  const headers = { cookie: web.cookie, 'x-csrf-token': web.csrf };
  const me = await rest(app, 'GET', '/api/auth/me', { headers });
  const patch = await rest(app, 'PATCH', '/api/auth/me', { headers, body: { name: 'Changed' } });
  const query = await gql(app, '{ me { id } }', { headers });
  return [String(me.status), String(patch.status), query.body.errors?.[0]?.extensions.code ?? 'OK'];
}

const WORKS = ['200', '200', 'OK'];
const REFUSED = ['401', '401', 'UNAUTHENTICATED'];

describe('POST /api/auth/sessions/{sid}/revoke', () => {
  it('refuses the revoked bearer token and cookie at once, on REST and GraphQL; other sessions keep working', async () => {
    const a = await signedInTwice();
    expect(await bearerStatuses(a.token)).toEqual(WORKS);
    expect(await cookieStatuses(a.web)).toEqual(WORKS);

    const res = await rest(app, 'POST', `/api/auth/sessions/${a.web.sessionId}/revoke`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.web.sessionId, kind: 'web', current: false });
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
    expect(await bearerStatuses(a.token)).toEqual(WORKS);
  });

  it('revokes the caller\'s own session too', async () => {
    const a = await signedInTwice();
    const res = await rest(app, 'POST', `/api/auth/sessions/${a.sessionId}/revoke`, { token: a.token });
    expect(res.body).toMatchObject({ id: a.sessionId, current: true });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(WORKS);
  });

  it('clears the cookies when a browser revokes its own session', async () => {
    const a = await signedInTwice();
    const headers = { cookie: a.web.cookie, 'x-csrf-token': a.web.csrf };
    const res = await rest(app, 'POST', `/api/auth/sessions/${a.web.sessionId}/revoke`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().map((c) => c.split(';')[0])).toEqual(['hdp_session=', 'hdp_csrf=']);
  });

  it("answers 404 for another person's session and for an unknown id, and revokes nothing", async () => {
    const a = await signedInTwice();
    const b = await signedInTwice();
    for (const sid of [b.sessionId, b.web.sessionId, 'no-such-session']) {
      const res = await rest(app, 'POST', `/api/auth/sessions/${sid}/revoke`, { token: a.token });
      expect(res.status, sid).toBe(404);
      expect(res.body).toEqual({ detail: 'Session not found' });
    }
    expect(await bearerStatuses(b.token)).toEqual(WORKS);
    expect(await cookieStatuses(b.web)).toEqual(WORKS);
  });

  it('is the revokeSession mutation over GraphQL', async () => {
    const a = await signedInTwice();
    const res = await gql(app, 'mutation($sid: String!) { revokeSession(sid: $sid) { id } }', {
      token: a.token,
      variables: { sid: a.web.sessionId },
    });
    expect(res.body.data.revokeSession).toEqual({ id: a.web.sessionId });
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
  });

  it('needs a credential (401)', async () => {
    expect((await rest(app, 'POST', '/api/auth/sessions/x/revoke')).status).toBe(401);
  });
});

describe('POST /api/auth/sessions/revoke-all', () => {
  it('refuses every token and cookie minted before, the caller\'s own included, on REST and GraphQL', async () => {
    const a = await signedInTwice();
    const phone2 = (await rest(app, 'POST', '/api/auth/login', { body: { email: a.email, password: a.password }, headers: fromNewIp() })).body
      .access_token as string;
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await bearerStatuses(phone2)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
    expect((await app.db.prisma.user.findUniqueOrThrow({ where: { id: a.userId } })).sessionEpoch).toBe(1);

    const again = await rest(app, 'POST', '/api/auth/login', { body: { email: a.email, password: a.password }, headers: fromNewIp() });
    expect(await bearerStatuses(again.body.access_token)).toEqual(WORKS);
    expect((await rest(app, 'GET', '/api/auth/sessions', { token: again.body.access_token })).body).toHaveLength(1);
  });

  it('keeps personal tokens working (they are revoked under /api/v1/tokens)', async () => {
    const a = await signedInTwice();
    const pat = await seedPersonalToken(app, a.userId, ['profile:read']);
    await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: a.token });
    expect((await rest(app, 'GET', '/api/auth/me', { token: pat })).status).toBe(200);
  });

  it('clears the cookies of a browser caller (with its CSRF token) and refuses one without', async () => {
    const a = await signedInTwice();
    const refused = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { headers: { cookie: a.web.cookie } });
    expect(refused.status).toBe(403);
    expect(await bearerStatuses(a.token)).toEqual(WORKS);
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { headers: { cookie: a.web.cookie, 'x-csrf-token': a.web.csrf } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().map((c) => c.split(';')[0])).toEqual(['hdp_session=', 'hdp_csrf=']);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
  });

  it('is the revokeAllSessions mutation over GraphQL (with a cookie)', async () => {
    const a = await signedInTwice();
    const res = await gql(app, 'mutation { revokeAllSessions { ok } }', { headers: { cookie: a.web.cookie, 'x-csrf-token': a.web.csrf } });
    expect(res.body.data).toEqual({ revokeAllSessions: { ok: true } });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
  });

  it('needs a credential (401)', async () => {
    expect((await rest(app, 'POST', '/api/auth/sessions/revoke-all')).status).toBe(401);
  });
});

describe('password reset', () => {
  it('refuses every token and cookie of the account once the password is reset, on REST and GraphQL', async () => {
    const a = await signedInTwice();
    const since = smtp.messages.length;
    await rest(app, 'POST', '/api/auth/forgot-password', { body: { email: a.email }, headers: fromNewIp() });
    const token = /token=([\w-]+)/.exec((await smtp.waitFor(a.email, { since })).text)![1];
    const res = await rest(app, 'POST', '/api/auth/reset-password', { body: { token, new_password: 'a brand new password' } });
    expect(res.status).toBe(200);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
  });
});
