/**
 * The token and revocation endpoints (issue 13, docs/mcp-oauth.md sections 8 and 9): codes are
 * single use and short-lived, a replay ends what the code issued; access tokens last an hour (never
 * past their connection) and work on /mcp; refresh tokens rotate, with a 120 s grace for a lost
 * answer and the connection's end on any other reuse; scopes only narrow; confidential clients prove
 * their secret; revocation ends the connection. The authorize-side refusals: negative-matrix.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { OAuthTokensSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { sha256 } from '../../src/auth/credentials.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import {
  exchange,
  mcpStatus,
  obtainCode,
  postForm,
  refresh,
  registerTestClient,
} from '../harness/oauth-client.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const prisma = app.db.prisma;

/** A person, a public client, and the tokens of one approved authorization. */
async function connected(families: string[] = ['read']) {
  const person = await seedUser(app);
  const client = await registerTestClient(app);
  const { code, verifier } = await obtainCode(app, {
    clientId: client.client_id,
    token: person.token,
    families,
  });
  const res = await exchange(app, client.client_id, code, verifier);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { person, client, code, verifier, tokens: res.body as Record<string, any> };
}

async function connectionOf(accessToken: string) {
  const row = await prisma.oAuthToken.findUniqueOrThrow({
    where: { tokenHash: sha256(accessToken) },
    include: { connection: true },
  });
  return row.connection;
}

describe('the authorization code exchange', () => {
  it('answers an access and a refresh token for the approved families, not stored in the clear', async () => {
    const { person, client, tokens } = await connected(['read', 'dna']);
    expect(OAuthTokensSchema.safeParse(tokens).success).toBe(true);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toMatch(/^hdp_oat_[\w-]{43}$/);
    expect(tokens.refresh_token).toMatch(/^hdp_ort_[\w-]{43}$/);
    expect(tokens.scope.split(' ')).toEqual(
      expect.arrayContaining(['profile:read', 'health:dna:read', 'health:dna:write']),
    );
    expect(tokens.scope).not.toContain('nutrition:write');
    expect(await mcpStatus(app, tokens.access_token)).toBe(200);
    const connection = await connectionOf(tokens.access_token);
    expect(connection).toMatchObject({
      userId: person.user.id,
      clientId: client.client_id,
      clientName: 'Flow test client',
      resource: `${app.mcpUrl}/mcp`,
    });
    const days = (connection.expiresAt.getTime() - connection.createdAt.getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(365);
    const stored = await prisma.oAuthToken.findMany({ where: { connectionId: connection.id } });
    for (const row of stored) {
      expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect([tokens.access_token, tokens.refresh_token]).not.toContain(row.tokenHash);
    }
  });

  it('sends no-store and answers the SDK schema', async () => {
    const person = await seedUser(app);
    const client = await registerTestClient(app);
    const { code, verifier } = await obtainCode(app, {
      clientId: client.client_id,
      token: person.token,
    });
    const res = await exchange(app, client.client_id, code, verifier);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a replayed code and ends the connection it made', async () => {
    const { client, code, verifier, tokens } = await connected();
    const again = await exchange(app, client.client_id, code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    expect(await mcpStatus(app, tokens.access_token)).toBe(401);
    expect((await refresh(app, client.client_id, tokens.refresh_token)).body.error).toBe(
      'invalid_grant',
    );
    expect((await connectionOf(tokens.access_token)).revokedReason).toBe('code_replay');
  });

  it('refuses an expired code, a wrong verifier, a differing redirect_uri or resource, another client', async () => {
    const person = await seedUser(app);
    const client = await registerTestClient(app);
    const other = await registerTestClient(app);
    const fresh = () => obtainCode(app, { clientId: client.client_id, token: person.token });

    const expired = await fresh();
    await prisma.oAuthAuthorizationCode.updateMany({
      where: { codeHash: sha256(expired.code) },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const late = await exchange(app, client.client_id, expired.code, expired.verifier);
    expect([late.status, late.body.error]).toEqual([400, 'invalid_grant']);

    const wrong = await fresh();
    const bad = await exchange(app, client.client_id, wrong.code, `${wrong.verifier}x`);
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_grant']);

    const redirect = await fresh();
    const moved = await exchange(app, client.client_id, redirect.code, redirect.verifier, {
      redirect_uri: 'http://127.0.0.1:9/other',
    });
    expect([moved.status, moved.body.error]).toEqual([400, 'invalid_grant']);

    const target = await fresh();
    const elsewhere = await exchange(app, client.client_id, target.code, target.verifier, {
      resource: 'https://other.example/mcp',
    });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, 'invalid_target']);

    const stolen = await fresh();
    const thief = await exchange(app, other.client_id, stolen.code, stolen.verifier);
    expect([thief.status, thief.body.error]).toEqual([400, 'invalid_grant']);
    // none of the refusals used the code up: its own client still exchanges it
    expect((await exchange(app, client.client_id, stolen.code, stolen.verifier)).status).toBe(200);
  });
});

describe('refresh tokens', () => {
  it('rotate on every use: a new pair each time, the chain goes on', async () => {
    const { client, tokens } = await connected();
    const first = await refresh(app, client.client_id, tokens.refresh_token);
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(await mcpStatus(app, first.body.access_token)).toBe(200);
    const second = await refresh(app, client.client_id, first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(await mcpStatus(app, second.body.access_token)).toBe(200);
  });

  it('give a client that lost the answer a new pair within the grace; the lost one ends', async () => {
    const { client, tokens } = await connected();
    const lost = await refresh(app, client.client_id, tokens.refresh_token);
    const retry = await refresh(app, client.client_id, tokens.refresh_token);
    expect(retry.status).toBe(200);
    expect(await mcpStatus(app, retry.body.access_token)).toBe(200);
    // the retried pair goes on; the lost refresh token was ended by the retry
    expect((await refresh(app, client.client_id, retry.body.refresh_token)).status).toBe(200);
    const thief = await refresh(app, client.client_id, lost.body.refresh_token);
    expect([thief.status, thief.body.error]).toEqual([400, 'invalid_grant']);
    // someone presenting a replaced token: the whole connection ends
    expect((await connectionOf(tokens.access_token)).revokedReason).toBe('refresh_reuse');
  });

  it('end the connection when a rotated token is reused after the grace', async () => {
    const { client, tokens } = await connected();
    const next = await refresh(app, client.client_id, tokens.refresh_token);
    await prisma.oAuthToken.updateMany({
      where: { tokenHash: sha256(tokens.refresh_token) },
      data: { rotatedAt: new Date(clock.ms() - 121_000) },
    });
    const reuse = await refresh(app, client.client_id, tokens.refresh_token);
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(await mcpStatus(app, next.body.access_token)).toBe(401);
    expect((await refresh(app, client.client_id, next.body.refresh_token)).status).toBe(400);
    expect((await connectionOf(tokens.access_token)).revokedReason).toBe('refresh_reuse');
  });

  it('end the connection when a rotated token is reused after its successor was used', async () => {
    const { client, tokens } = await connected();
    const next = await refresh(app, client.client_id, tokens.refresh_token);
    const after = await refresh(app, client.client_id, next.body.refresh_token);
    expect(after.status).toBe(200);
    const reuse = await refresh(app, client.client_id, tokens.refresh_token);
    expect(reuse.body.error).toBe('invalid_grant');
    expect(await mcpStatus(app, after.body.access_token)).toBe(401);
  });

  it('may narrow the scopes, never widen them', async () => {
    const { client, tokens } = await connected();
    const narrow = await refresh(app, client.client_id, tokens.refresh_token, {
      scope: 'profile:read',
    });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe('profile:read');
    const wide = await refresh(app, client.client_id, narrow.body.refresh_token, {
      scope: 'profile:read health:glucose:read',
    });
    expect([wide.status, wide.body.error]).toEqual([400, 'invalid_scope']);
  });

  it("are refused at another client, after the connection's end, and clip the access token to it", async () => {
    const { client, tokens } = await connected();
    const other = await registerTestClient(app);
    const foreign = await refresh(app, other.client_id, tokens.refresh_token);
    expect([foreign.status, foreign.body.error]).toEqual([400, 'invalid_grant']);

    const connection = await connectionOf(tokens.access_token);
    await prisma.oAuthConnection.update({
      where: { id: connection.id },
      data: { expiresAt: new Date(clock.ms() + 100_000) },
    });
    const clipped = await refresh(app, client.client_id, tokens.refresh_token);
    expect(clipped.status).toBe(200);
    expect(clipped.body.expires_in).toBeLessThanOrEqual(100);

    await prisma.oAuthConnection.update({
      where: { id: connection.id },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const ended = await refresh(app, client.client_id, clipped.body.refresh_token);
    expect([ended.status, ended.body.error]).toEqual([400, 'invalid_grant']);
    expect(await mcpStatus(app, clipped.body.access_token)).toBe(401);
  });
});

describe('revocation (RFC 7009)', () => {
  it('ends the whole connection from its access or its refresh token', async () => {
    for (const which of ['access_token', 'refresh_token'] as const) {
      const { client, tokens } = await connected();
      const res = await postForm(app, '/oauth/revoke', {
        client_id: client.client_id,
        token: tokens[which],
      });
      expect(res.status, which).toBe(200);
      expect(await mcpStatus(app, tokens.access_token)).toBe(401);
      expect((await refresh(app, client.client_id, tokens.refresh_token)).body.error).toBe(
        'invalid_grant',
      );
      expect((await connectionOf(tokens.access_token)).revokedReason).toBe('client');
    }
  });

  it("answers 200 and changes nothing for an unknown token or another client's", async () => {
    const { client, tokens } = await connected();
    const other = await registerTestClient(app);
    for (const [clientId, token] of [
      [client.client_id, 'hdp_oat_unknown'],
      [client.client_id, 'not-a-token'],
      [other.client_id, tokens.access_token],
    ]) {
      expect(
        (await postForm(app, '/oauth/revoke', { client_id: clientId!, token: token! })).status,
      ).toBe(200);
    }
    expect(await mcpStatus(app, tokens.access_token)).toBe(200);
  });
});

describe('confidential clients', () => {
  it('must send their secret to the token and revocation endpoints (401 invalid_client otherwise)', async () => {
    const person = await seedUser(app);
    const client = await registerTestClient(app, {
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(client.client_secret).toMatch(/^hdp_ocs_/);
    const { code, verifier } = await obtainCode(app, {
      clientId: client.client_id,
      token: person.token,
    });
    for (const secret of [undefined, 'hdp_ocs_wrong', `${client.client_secret}x`]) {
      const res = await exchange(
        app,
        client.client_id,
        code,
        verifier,
        secret ? { client_secret: secret } : {},
      );
      expect([res.status, res.body.error], String(secret)).toEqual([401, 'invalid_client']);
    }
    const ok = await exchange(app, client.client_id, code, verifier, {
      client_secret: client.client_secret!,
    });
    expect(ok.status).toBe(200);
    const revoke = await postForm(app, '/oauth/revoke', {
      client_id: client.client_id,
      token: ok.body.access_token,
    });
    expect(revoke.status).toBe(401);
  });
});

describe('hostile requests to the token endpoint', () => {
  it('answer OAuth 4xx errors, never 5xx', async () => {
    const client = await registerTestClient(app);
    const cases: Array<[Record<string, string>, number, string]> = [
      [
        { grant_type: 'client_credentials', client_id: client.client_id },
        400,
        'unsupported_grant_type',
      ],
      [{ grant_type: 'password', client_id: client.client_id }, 400, 'unsupported_grant_type'],
      [{ client_id: client.client_id }, 400, 'invalid_request'],
      [{ grant_type: 'authorization_code', client_id: client.client_id }, 400, 'invalid_request'],
      [
        { grant_type: 'authorization_code', client_id: 'nobody', code: 'x', code_verifier: 'y' },
        400,
        'invalid_client',
      ],
      [
        { grant_type: 'authorization_code', client_id: 'a\u0000b', code: 'x', code_verifier: 'y' },
        400,
        'invalid_client',
      ],
      [
        {
          grant_type: 'refresh_token',
          client_id: client.client_id,
          refresh_token: 'hdp_ort_\u0000',
        },
        400,
        'invalid_grant',
      ],
      [
        {
          grant_type: 'authorization_code',
          client_id: client.client_id,
          code: 'hdp_oac_'.padEnd(5000, 'x'),
          code_verifier: 'y',
        },
        400,
        'invalid_grant',
      ],
    ];
    for (const [form, status, error] of cases) {
      const res = await postForm(app, '/oauth/token', form);
      expect([res.status, res.body.error], JSON.stringify(form).slice(0, 80)).toEqual([
        status,
        error,
      ]);
    }
    const huge = await postForm(app, '/oauth/token', { client_id: 'x'.repeat(20_000) });
    expect(huge.status).toBe(413);
    const broken = await app.mcpFetch('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=koi8-r' },
      body: 'grant_type=x',
    });
    expect(broken.status).toBeGreaterThanOrEqual(400);
    expect(broken.status).toBeLessThan(500);
  });
});
