/**
 * Issue 29, item 7: on POST /graphql every presented credential that is no longer valid answers
 * HTTP 401 before any field runs, a revoked web session cookie as a revoked bearer token does;
 * the 401 to a cookie also clears the browser's session cookies, so its next request (a new
 * sign-in) goes through.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { cookiesFrom, fromNewIp, gql, rest } from '../harness/clients.ts';

const app = await startTestApp();

/** Signs in for the web through POST /api/auth/web/login: the Cookie header and the CSRF token. */
async function signInForTheWeb(): Promise<{ cookie: string; csrf: string }> {
  const { user, password } = await seedUser(app);
  const login = await rest(app, 'POST', '/api/auth/web/login', {
    body: { email: user.email, password },
    headers: fromNewIp(),
  });
  expect(login.status).toBe(200);
  return { cookie: cookiesFrom(login.headers), csrf: login.body.csrf_token };
}

describe('POST /graphql with a revoked credential (issue 29)', () => {
  it('answers a revoked session cookie HTTP 401, as a revoked bearer token, and clears the cookies', async () => {
    const web = await signInForTheWeb();
    const headers = { cookie: web.cookie, 'x-csrf-token': web.csrf };
    const before = await gql(app, '{ me { id } }', { headers });
    expect(before.status).toBe(200);
    expect(before.body.errors).toBeUndefined();

    const logout = await rest(app, 'POST', '/api/auth/web/logout', { headers });
    expect(logout.status).toBe(200);

    for (const query of ['{ me { id } }', '{ __typename }']) {
      const after = await gql(app, query, { headers });
      expect(after.status, query).toBe(401);
      expect(after.body.data).toBeUndefined();
      expect(after.body.errors).toMatchObject([{ extensions: { code: 'UNAUTHENTICATED' } }]);
      expect(after.headers.getSetCookie().map((c) => c.split(';')[0])).toEqual([
        'hdp_session=',
        'hdp_csrf=',
      ]);
    }

    const phone = await seedUser(app);
    const revoke = `/api/auth/sessions/${phone.sessionId}/revoke`;
    expect((await rest(app, 'POST', revoke, { token: phone.token })).status).toBe(200);
    const bearer = await gql(app, '{ me { id } }', { token: phone.token });
    expect(bearer.status).toBe(401);
    expect(bearer.body.errors).toMatchObject([{ extensions: { code: 'UNAUTHENTICATED' } }]);
  });

  it('answers a session cookie that is not a token at all HTTP 401', async () => {
    const res = await gql(app, '{ __typename }', { headers: { cookie: 'hdp_session=forged' } });
    expect(res.status).toBe(401);
  });

  it('leaves requests without a credential, or with other cookies only, to the public fields', async () => {
    const requests: Record<string, string>[] = [{}, { cookie: 'theme=dark; hdp_csrf=stale' }];
    for (const headers of requests) {
      const res = await gql(app, '{ __typename }', { headers });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ __typename: 'Query' });
    }
  });
});
