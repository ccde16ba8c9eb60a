/**
 * The negative matrix (issue 13, "Tests and goals"; docs/mcp-oauth.md section 12): each
 * case is refused, and refused the way a client can act on. Details of the token rules behind
 * several cases: tokens.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/credentials.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import {
  authorize,
  authorizeParams,
  exchange,
  mcpStatus,
  obtainCode,
  pkce,
  postForm,
  REDIRECT_URI,
  refresh,
  registerTestClient,
} from '../harness/oauth-client.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

async function connected() {
  const person = await seedUser(app);
  const client = await registerTestClient(app);
  const { code, verifier } = await obtainCode(app, {
    clientId: client.client_id,
    token: person.token,
  });
  const tokens = (await exchange(app, client.client_id, code, verifier)).body;
  return { person, client, code, verifier, tokens };
}

describe('the negative matrix', () => {
  it('plain PKCE (or none) is refused back at the client, before any consent', async () => {
    const client = await registerTestClient(app);
    for (const method of ['plain', '']) {
      const res = await authorize(app, {
        ...authorizeParams(client.client_id),
        code_challenge_method: method,
      });
      expect(res.status, method).toBe(302);
      expect(res.location?.origin + res.location!.pathname).toBe(REDIRECT_URI);
      expect(res.location?.searchParams.get('error')).toBe('invalid_request');
      // the SDK's handler echoes no state when the request fails its schema (docs/decisions.md)
    }
  });

  it('a wrong code_verifier is invalid_grant', async () => {
    const person = await seedUser(app);
    const client = await registerTestClient(app);
    const { code } = await obtainCode(app, { clientId: client.client_id, token: person.token });
    const res = await exchange(app, client.client_id, code, pkce().verifier);
    expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
  });

  it('a foreign redirect URI is refused without redirecting, at authorize and at registration', async () => {
    const client = await registerTestClient(app);
    for (const uri of [
      'https://evil.example/cb',
      'http://evil.example/callback',
      'http://127.0.0.1:9/other',
    ]) {
      const res = await authorize(app, { ...authorizeParams(client.client_id), redirect_uri: uri });
      expect(res.status, uri).toBe(400);
      expect(res.location).toBeNull();
      expect(JSON.parse(res.body).error).toBe('invalid_request');
    }
    const dcr = await app.mcpFetch('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://evil.example/cb'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(dcr.status).toBe(400);
  });

  it('a replayed code is refused and what it issued stops working', async () => {
    const { client, code, verifier, tokens } = await connected();
    const replay = await exchange(app, client.client_id, code, verifier);
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
    expect(await mcpStatus(app, tokens.access_token)).toBe(401);
  });

  it('a rotated refresh token reused after the grace is refused and ends the connection', async () => {
    const { client, tokens } = await connected();
    const next = (await refresh(app, client.client_id, tokens.refresh_token)).body;
    await app.db.prisma.oAuthToken.updateMany({
      where: { tokenHash: sha256(tokens.refresh_token) },
      data: { rotatedAt: new Date(clock.ms() - 3 * 60_000) },
    });
    const reuse = await refresh(app, client.client_id, tokens.refresh_token);
    expect([reuse.status, reuse.body.error]).toEqual([400, 'invalid_grant']);
    expect(await mcpStatus(app, next.access_token)).toBe(401);
  });

  it('a token for another resource is refused: at authorize, on /mcp, and on every other door', async () => {
    const client = await registerTestClient(app);
    const res = await authorize(app, {
      ...authorizeParams(client.client_id),
      resource: 'https://other.example/mcp',
    });
    expect(res.status).toBe(302);
    expect(res.location?.searchParams.get('error')).toBe('invalid_target');

    const { user } = await seedUser(app);
    const foreign = await seedOAuthConnection(app, user.id, ['profile:read'], {
      resource: 'https://other.example/mcp',
    });
    expect(await mcpStatus(app, foreign.accessToken)).toBe(401);

    const { tokens } = await connected();
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await rest(app, 'GET', '/api/auth/me', { headers: bearer })).status).toBe(401);
    expect((await rest(app, 'GET', '/api/v1/connected-apps', { headers: bearer })).status).toBe(
      401,
    );
    const graph = await gql(app, '{ me { id } }', { headers: bearer });
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const patDoor = await app.fetch('/api/mcp', {
      method: 'POST',
      headers: {
        ...bearer,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(patDoor.status).toBe(401);
  });

  it('an expired access token is 401', async () => {
    const { tokens } = await connected();
    await app.db.prisma.oAuthToken.updateMany({
      where: { tokenHash: sha256(tokens.access_token) },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    expect(await mcpStatus(app, tokens.access_token)).toBe(401);
  });

  it('a revoked access token is 401', async () => {
    const { client, tokens } = await connected();
    await postForm(app, '/oauth/revoke', {
      client_id: client.client_id,
      token: tokens.access_token,
    });
    expect(await mcpStatus(app, tokens.access_token)).toBe(401);
  });

  it('a client metadata document at a private or loopback address is refused, never fetched', async () => {
    for (const clientId of [
      'https://10.0.0.1/client.json',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost/client.json',
      'https://[::1]/client.json',
      'https://127.0.0.1:1/client.json',
    ]) {
      const res = await authorize(app, {
        ...authorizeParams(clientId),
        redirect_uri: REDIRECT_URI,
      });
      expect(res.status, clientId).toBe(400);
      expect(res.location).toBeNull();
      expect(JSON.parse(res.body).error).toBe('invalid_client');
    }
    const stored = await app.db.prisma.oAuthClient.count({ where: { kind: 'cimd' } });
    expect(stored).toBe(0);
  });
});
