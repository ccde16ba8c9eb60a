/**
 * OAuth access tokens on the OAuth host's /mcp (docs/mcp-oauth.md sections 5, 9 and 10; increment 3):
 * a seeded connection's token lists and calls tools there, payment and pat-only tools hidden; the
 * same token is no credential on /api/mcp, /graphql or REST; an expired or revoked token or
 * connection, or a token for another resource, is 401; revoke-all ends connections; a missing scope
 * is a 403 step-up challenge; limits count per connection.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildRegistry } from '../../mcp-facade/registry.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { OAUTH_SCOPES } from '../../src/auth/scope-families.ts';
import { schema } from '../../src/schema/schema.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { fromNewIp, gql, rest } from '../harness/clients.ts';
import { callTool, mcpPost, rpc } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });
const PRM = '/.well-known/oauth-protected-resource/mcp';

/** A raw JSON-RPC POST to the OAuth host's /mcp. */
async function oauthPost(
  token: string | null,
  body: unknown,
  on: TestApp = app,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await on.mcpFetch('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function expectInvalid(token: string): Promise<void> {
  const res = await oauthPost(token, rpc('tools/list'));
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", resource_metadata="${app.mcpUrl}${PRM}"`,
  );
}

describe('a seeded OAuth access token on /mcp', () => {
  it('lists and calls tools through the SDK client', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, ['profile:read']);
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', app.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    });
    const client = new Client({ name: 'hdp-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['get_profile']);
      const result = await callTool(client, 'get_profile');
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain(user.email);
    } finally {
      await client.close();
    }
  });

  it('lists exactly the tools offered over OAuth: no payment tools, no pat-only rows', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, [...OAUTH_SCOPES]);
    const res = await oauthPost(accessToken, rpc('tools/list'));
    expect(res.status).toBe(200);
    const listed = (res.body.result.tools as { name: string }[]).map((t) => t.name);
    const registry = buildRegistry(TOOLS, { schema, operations: app.operations });
    const offered = registry.visibleTo(new Set(OAUTH_SCOPES), 'oauth').map((t) => t.row.name);
    expect(listed).toEqual(offered);
    const hidden = TOOLS.filter((t) => t.kind === 'takes a payment' || t.oauth === false);
    for (const t of hidden) expect(listed, t.name).not.toContain(t.name);
    expect(listed.length).toBeGreaterThan(10);
  });

  it('answers GET with 405 once authenticated (auth comes first)', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, ['profile:read']);
    const res = await app.mcpFetch('/mcp', { headers: { authorization: `Bearer ${accessToken}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('holds only the scopes of both the token and its connection', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, ['profile:read'], {
      tokenScopes: ['profile:read', 'account:read'],
    });
    const res = await oauthPost(accessToken, rpc('tools/list'));
    expect((res.body.result.tools as { name: string }[]).map((t) => t.name)).toEqual([
      'get_profile',
    ]);
  });
});

describe('where an OAuth access token is no credential', () => {
  it('is 401 on /api/mcp, /graphql and REST (no door there names its resource)', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, [...OAUTH_SCOPES]);
    expect((await mcpPost(app, rpc('tools/list'), { token: accessToken })).status).toBe(401);
    expect((await rest(app, 'GET', '/api/auth/me', { token: accessToken })).status).toBe(401);
    expect((await rest(app, 'GET', '/api/v1/profile', { token: accessToken })).status).toBe(401);
    expect((await gql(app, '{ me { id } }', { token: accessToken })).status).toBe(401);
  });

  it('is 401 when expired, when its connection expired or was revoked, or for another resource', async () => {
    const { user } = await seedUser(app);
    const expired = await seedOAuthConnection(app, user.id, ['profile:read'], {
      accessTtlMs: -1000,
    });
    await expectInvalid(expired.accessToken);
    const ended = await seedOAuthConnection(app, user.id, ['profile:read'], {
      connectionTtlMs: -1000,
    });
    await expectInvalid(ended.accessToken);
    const revoked = await seedOAuthConnection(app, user.id, ['profile:read']);
    expect((await oauthPost(revoked.accessToken, rpc('tools/list'))).status).toBe(200);
    await app.db.prisma.oAuthConnection.update({
      where: { id: revoked.connectionId },
      data: { revokedAt: clock.now(), revokedReason: 'user' },
    });
    await expectInvalid(revoked.accessToken);
    const elsewhere = await seedOAuthConnection(app, user.id, ['profile:read'], {
      resource: 'https://other.example/mcp',
    });
    await expectInvalid(elsewhere.accessToken);
  });

  it('is 401 for a revoked token, a refresh token, and a personal token on /mcp', async () => {
    const { user } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    await expectInvalid(seeded.refreshToken);
    await expectInvalid(await seedPersonalToken(app, user.id, ['profile:read']));
    await app.db.prisma.oAuthToken.update({
      where: { id: seeded.accessTokenId },
      data: { revokedAt: clock.now() },
    });
    await expectInvalid(seeded.accessToken);
  });
});

describe('revoke-all', () => {
  it('end every OAuth connection of the account (revoke_all)', async () => {
    const { user, token } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    expect((await oauthPost(seeded.accessToken, rpc('tools/list'))).status).toBe(200);
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token });
    expect(res.status).toBe(200);
    await expectInvalid(seeded.accessToken);
    const row = await app.db.prisma.oAuthConnection.findUniqueOrThrow({
      where: { id: seeded.connectionId },
    });
    expect(row.revokedReason).toBe('revoke_all');
    expect(row.revokedAt).not.toBeNull();
  });
});

describe('password reset', () => {
  it('ends every OAuth connection of the account', async () => {
    const { user } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    const since = smtp.messages.length;
    await rest(app, 'POST', '/api/auth/forgot-password', {
      body: { email: user.email },
      headers: fromNewIp(),
    });
    const token = /token=([\w-]+)/.exec((await smtp.waitFor(user.email, { since })).text)![1];
    const res = await rest(app, 'POST', '/api/auth/reset-password', {
      body: { token, new_password: 'a brand new password' },
    });
    expect(res.status).toBe(200);
    await expectInvalid(seeded.accessToken);
  });
});

describe('a known tool the token lacks a scope for', () => {
  it('is a 403 step-up challenge naming the scopes held and needed', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, ['profile:read']);
    const res = await oauthPost(
      accessToken,
      rpc('tools/call', { name: 'update_profile', arguments: { name: 'X' } }),
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="profile:read profile:write", resource_metadata="${app.mcpUrl}${PRM}"`,
    );
    expect(res.body.error.data).toEqual({ code: 'insufficient_scope', scope: 'profile:write' });
    // an unknown tool stays a JSON-RPC error of the transport, not a challenge
    const unknown = await oauthPost(accessToken, rpc('tools/call', { name: 'no_such_tool' }));
    expect(unknown.status).toBe(200);
    expect(unknown.body.error.code).toBe(-32602);
  });
});

describe('limits over OAuth', () => {
  it('count per connection: two tokens of one connection share the per-minute count', async () => {
    const limited = await startTestApp({ MCP_CALLS_PER_MINUTE: '3' });
    const { user } = await seedUser(limited);
    const first = await seedOAuthConnection(limited, user.id, ['profile:read']);
    const second = await seedOAuthConnection(limited, user.id, ['profile:read'], {
      connectionId: first.connectionId,
    });
    const other = await seedOAuthConnection(limited, user.id, ['profile:read']);
    const statuses = [];
    for (const t of [first, second, first, second])
      statuses.push((await oauthPost(t.accessToken, rpc('tools/list'), limited)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await oauthPost(other.accessToken, rpc('tools/list'), limited)).status).toBe(200);
  });
});
