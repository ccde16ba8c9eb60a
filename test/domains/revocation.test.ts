/**
 * Revocation (issue 3): after revoking one session, all sessions, or resetting the password, the
 * old bearer token and the old cookie are refused on their very next request, over REST and
 * POST /graphql alike. Revoking one session leaves personal tokens alone.
 * Issue 10: revoke-all and a password reset end every credential, personal tokens included (the
 * one calling revoke-all too), refused at once over REST and MCP.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });

interface Credentials {
  /** native bearer token */
  token: string;
  /** web cookie and its CSRF token */
  web: { cookie: string; csrf: string; sessionId: string };
}

/** A user with a phone session (bearer) and a browser session (cookie). */
async function signedInTwice(): Promise<
  Credentials & { userId: number; sessionId: string; email: string; password: string }
> {
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

/** The status of a REST read and of an MCP tools/list with a personal token. */
async function patStatuses(pat: string): Promise<number[]> {
  const me = await rest(app, 'GET', '/api/auth/me', { token: pat });
  const glucose = await rest(app, 'GET', '/api/glucose/readings', { token: pat });
  const mcp = await mcpPost(app, rpc('tools/list'), { token: pat });
  return [me.status, glucose.status, mcp.status];
}

const PAT_WORKS = [200, 200, 200];
const PAT_REFUSED = [401, 401, 401];
const PAT_SCOPES = [
  'profile:read',
  'health:glucose:read',
  'account:read',
  'account:write',
] as const;

/** A fresh phone login of `a` (from its own client address) listing its personal tokens. */
async function tokensListedAfter(a: { email: string; password: string }): Promise<unknown[]> {
  const login = await rest(app, 'POST', '/api/auth/login', {
    body: { email: a.email, password: a.password },
    headers: fromNewIp(),
  });
  const list = await rest(app, 'GET', '/api/v1/tokens', { token: login.body.access_token });
  expect(list.status).toBe(200);
  return list.body;
}

/** Whether every personal token row of `userId` carries revoked_at. */
async function allTokenRowsRevoked(userId: number): Promise<boolean[]> {
  const rows = await app.db.prisma.personalToken.findMany({
    where: { userId },
    orderBy: { id: 'asc' },
  });
  return rows.map((r) => r.revokedAt !== null);
}

describe('POST /api/auth/sessions/{sid}/revoke', () => {
  it('refuses the revoked bearer token and cookie at once, on REST and GraphQL; other sessions keep working', async () => {
    const a = await signedInTwice();
    expect(await bearerStatuses(a.token)).toEqual(WORKS);
    expect(await cookieStatuses(a.web)).toEqual(WORKS);

    const res = await rest(app, 'POST', `/api/auth/sessions/${a.web.sessionId}/revoke`, {
      token: a.token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.web.sessionId, kind: 'web', current: false });
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
    expect(await bearerStatuses(a.token)).toEqual(WORKS);
  });

  it("revokes the caller's own session too", async () => {
    const a = await signedInTwice();
    const res = await rest(app, 'POST', `/api/auth/sessions/${a.sessionId}/revoke`, {
      token: a.token,
    });
    expect(res.body).toMatchObject({ id: a.sessionId, current: true });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(WORKS);
  });

  it('clears the cookies when a browser revokes its own session', async () => {
    const a = await signedInTwice();
    const headers = { cookie: a.web.cookie, 'x-csrf-token': a.web.csrf };
    const res = await rest(app, 'POST', `/api/auth/sessions/${a.web.sessionId}/revoke`, {
      headers,
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().map((c) => c.split(';')[0])).toEqual([
      'hdp_session=',
      'hdp_csrf=',
    ]);
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

  it('leaves personal tokens working (one session is not every credential)', async () => {
    const a = await signedInTwice();
    const pat = await seedPersonalToken(app, a.userId, [...PAT_SCOPES]);
    await rest(app, 'POST', `/api/auth/sessions/${a.sessionId}/revoke`, { token: a.token });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await patStatuses(pat)).toEqual(PAT_WORKS);
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
  it("refuses every token and cookie minted before, the caller's own included, on REST and GraphQL", async () => {
    const a = await signedInTwice();
    const phone2 = (
      await rest(app, 'POST', '/api/auth/login', {
        body: { email: a.email, password: a.password },
        headers: fromNewIp(),
      })
    ).body.access_token as string;
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await bearerStatuses(phone2)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
    expect(
      (await app.db.prisma.user.findUniqueOrThrow({ where: { id: a.userId } })).sessionEpoch,
    ).toBe(1);

    const again = await rest(app, 'POST', '/api/auth/login', {
      body: { email: a.email, password: a.password },
      headers: fromNewIp(),
    });
    expect(await bearerStatuses(again.body.access_token)).toEqual(WORKS);
    expect(
      (await rest(app, 'GET', '/api/auth/sessions', { token: again.body.access_token })).body,
    ).toHaveLength(1);
  });

  it('clears the cookies of a browser caller (with its CSRF token) and refuses one without', async () => {
    const a = await signedInTwice();
    const refused = await rest(app, 'POST', '/api/auth/sessions/revoke-all', {
      headers: { cookie: a.web.cookie },
    });
    expect(refused.status).toBe(403);
    expect(await bearerStatuses(a.token)).toEqual(WORKS);
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', {
      headers: { cookie: a.web.cookie, 'x-csrf-token': a.web.csrf },
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().map((c) => c.split(';')[0])).toEqual([
      'hdp_session=',
      'hdp_csrf=',
    ]);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
  });

  it('is the revokeAllSessions mutation over GraphQL (with a cookie)', async () => {
    const a = await signedInTwice();
    const res = await gql(app, 'mutation { revokeAllSessions { ok } }', {
      headers: { cookie: a.web.cookie, 'x-csrf-token': a.web.csrf },
    });
    expect(res.body.data).toEqual({ revokeAllSessions: { ok: true } });
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
  });

  it('needs a credential (401)', async () => {
    expect((await rest(app, 'POST', '/api/auth/sessions/revoke-all')).status).toBe(401);
  });
});

describe('issue 10: revoke-all ends every credential', () => {
  it('revokes every personal token when a login session calls it: REST and MCP answer 401 at once', async () => {
    const a = await signedInTwice();
    const pats = [
      await seedPersonalToken(app, a.userId, [...PAT_SCOPES], 'assistant'),
      await seedPersonalToken(app, a.userId, ['profile:read', 'health:glucose:read'], 'script'),
    ];
    const other = await signedInTwice();
    const othersPat = await seedPersonalToken(app, other.userId, [...PAT_SCOPES]);
    for (const pat of pats) expect(await patStatuses(pat)).toEqual(PAT_WORKS);

    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: a.token });
    expect(res.status).toBe(200);

    for (const pat of pats) expect(await patStatuses(pat)).toEqual(PAT_REFUSED);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
    expect(await tokensListedAfter(a)).toEqual([]);
    expect(await allTokenRowsRevoked(a.userId)).toEqual([true, true]);
    // another person's credentials are untouched
    expect(await patStatuses(othersPat)).toEqual(PAT_WORKS);
    expect(await bearerStatuses(other.token)).toEqual(WORKS);
  });

  it('revokes the personal token that calls it over MCP (sessions_all_revoke), and every other credential', async () => {
    const a = await signedInTwice();
    const caller = await seedPersonalToken(app, a.userId, [...PAT_SCOPES], 'assistant');
    const sibling = await seedPersonalToken(
      app,
      a.userId,
      ['profile:read', 'health:glucose:read'],
      'script',
    );
    const client = await mcpClient(app, caller);
    const result = await callTool(client, 'sessions_all_revoke', { confirm: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true });

    expect(await patStatuses(caller)).toEqual(PAT_REFUSED);
    const next = await mcpPost(
      app,
      rpc('tools/call', { name: 'sessions_list_read', arguments: {} }),
      { token: caller },
    );
    expect(next.status).toBe(401);
    expect(await patStatuses(sibling)).toEqual(PAT_REFUSED);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
    expect(await tokensListedAfter(a)).toEqual([]);
  });

  it('revokes the personal token that calls it over REST', async () => {
    const a = await signedInTwice();
    const caller = await seedPersonalToken(app, a.userId, [...PAT_SCOPES]);
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: caller });
    expect(res.status).toBe(200);
    expect(await patStatuses(caller)).toEqual(PAT_REFUSED);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
  });

  it('leaves tokens created afterwards working', async () => {
    const a = await signedInTwice();
    await seedPersonalToken(app, a.userId, [...PAT_SCOPES]);
    await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token: a.token });
    const fresh = await seedPersonalToken(app, a.userId, [...PAT_SCOPES], 'after');
    expect(await patStatuses(fresh)).toEqual(PAT_WORKS);
    expect(await tokensListedAfter(a)).toMatchObject([{ name: 'after' }]);
  });
});

describe('password reset', () => {
  it('refuses every token and cookie of the account once the password is reset, on REST and GraphQL', async () => {
    const a = await signedInTwice();
    const since = smtp.messages.length;
    await rest(app, 'POST', '/api/auth/forgot-password', {
      body: { email: a.email },
      headers: fromNewIp(),
    });
    const token = /token=([\w-]+)/.exec((await smtp.waitFor(a.email, { since })).text)![1];
    const res = await rest(app, 'POST', '/api/auth/reset-password', {
      body: { token, new_password: 'a brand new password' },
    });
    expect(res.status).toBe(200);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await cookieStatuses(a.web)).toEqual(REFUSED);
  });

  it('issue 10: revokes every personal token of the account: REST and MCP answer 401 at once', async () => {
    const a = await signedInTwice();
    const pats = [
      await seedPersonalToken(app, a.userId, [...PAT_SCOPES], 'assistant'),
      await seedPersonalToken(app, a.userId, ['profile:read', 'health:glucose:read'], 'script'),
    ];
    for (const pat of pats) expect(await patStatuses(pat)).toEqual(PAT_WORKS);
    const since = smtp.messages.length;
    await rest(app, 'POST', '/api/auth/forgot-password', {
      body: { email: a.email },
      headers: fromNewIp(),
    });
    const token = /token=([\w-]+)/.exec((await smtp.waitFor(a.email, { since })).text)![1];
    const newPassword = 'a brand new password';
    const res = await rest(app, 'POST', '/api/auth/reset-password', {
      body: { token, new_password: newPassword },
    });
    expect(res.status).toBe(200);

    for (const pat of pats) expect(await patStatuses(pat)).toEqual(PAT_REFUSED);
    expect(await bearerStatuses(a.token)).toEqual(REFUSED);
    expect(await tokensListedAfter({ email: a.email, password: newPassword })).toEqual([]);
    expect(await allTokenRowsRevoked(a.userId)).toEqual([true, true]);
  });
});
