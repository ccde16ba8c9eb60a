/**
 * Connected apps (docs/mcp-oauth.md section 9; increment 4): a login session lists its live OAuth
 * connections (not revoked or expired ones, nor another person's) and disconnects one through REST
 * or GraphQL; the connection's access token is 401 on /mcp at once; another person's id is 404; a
 * personal token is refused like on the tokens routes; revoke-all ends connections.
 */
import { describe, expect, it } from 'vitest';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { rpc } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

/** A tools/list POST to the OAuth host's /mcp with an access token; answers the status. */
async function mcpStatus(token: string): Promise<number> {
  const res = await app.mcpFetch('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(rpc('tools/list')),
  });
  await res.text();
  return res.status;
}

const LIST = `{ connectedApps { id clientId clientName scopes createdAt expiresAt lastUsedAt } }`;
const DISCONNECT = `mutation ($id: Int!) { disconnectConnectedApp(id: $id) { id clientName } }`;

describe('listing connected apps', () => {
  it("shows live connections newest first, not revoked or expired ones, nor another person's", async () => {
    const { user, token } = await seedUser(app);
    const other = await seedUser(app);
    const older = await seedOAuthConnection(app, user.id, ['profile:read']);
    const newer = await seedOAuthConnection(app, user.id, ['profile:read', 'health:glucose:read']);
    const revoked = await seedOAuthConnection(app, user.id, ['profile:read']);
    await app.db.prisma.oAuthConnection.update({
      where: { id: revoked.connectionId },
      data: { revokedAt: clock.now(), revokedReason: 'client' },
    });
    await seedOAuthConnection(app, user.id, ['profile:read'], { connectionTtlMs: -1000 });
    await seedOAuthConnection(app, other.user.id, ['profile:read']);

    const list = await rest(app, 'GET', '/api/v1/connected-apps', { token });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: number }) => c.id)).toEqual([
      newer.connectionId,
      older.connectionId,
    ]);
    expect(list.body[0]).toEqual({
      id: newer.connectionId,
      client_id: newer.clientId,
      client_name: 'Test assistant',
      scopes: ['profile:read', 'health:glucose:read'],
      created_at: expect.any(String),
      expires_at: expect.any(String),
      last_used_at: null,
    });
    expect(new Date(list.body[0].expires_at).getTime()).toBeGreaterThan(clock.ms());

    const viaGql = await gql(app, LIST, { token });
    expect(viaGql.status).toBe(200);
    expect(viaGql.body.data.connectedApps.map((c: { id: number }) => c.id)).toEqual([
      newer.connectionId,
      older.connectionId,
    ]);

    const web = await seedWebSession(app, user.id);
    const viaCookie = await rest(app, 'GET', '/api/v1/connected-apps', {
      headers: { cookie: web.cookie },
    });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body).toHaveLength(2);
  });
});

describe('disconnecting a connected app', () => {
  it('through REST: ends the connection and its tokens at once (401 on /mcp), reason user', async () => {
    const { user, token } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    const kept = await seedOAuthConnection(app, user.id, ['profile:read']);
    expect(await mcpStatus(seeded.accessToken)).toBe(200);

    const res = await rest(app, 'DELETE', `/api/v1/connected-apps/${seeded.connectionId}`, {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: seeded.connectionId, client_id: seeded.clientId });
    expect(await mcpStatus(seeded.accessToken)).toBe(401);
    expect(await mcpStatus(kept.accessToken)).toBe(200);

    const row = await app.db.prisma.oAuthConnection.findUniqueOrThrow({
      where: { id: seeded.connectionId },
    });
    expect(row.revokedReason).toBe('user');
    expect(row.revokedAt).not.toBeNull();
    const tokens = await app.db.prisma.oAuthToken.findMany({
      where: { connectionId: seeded.connectionId },
    });
    expect(tokens).toHaveLength(2);
    for (const t of tokens) expect(t.revokedAt).toEqual(row.revokedAt);

    const list = await rest(app, 'GET', '/api/v1/connected-apps', { token });
    expect(list.body.map((c: { id: number }) => c.id)).toEqual([kept.connectionId]);
    const again = await rest(app, 'DELETE', `/api/v1/connected-apps/${seeded.connectionId}`, {
      token,
    });
    expect(again.status).toBe(404);
    const badId = await rest(app, 'DELETE', '/api/v1/connected-apps/abc', { token });
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0].loc).toEqual(['path', 'connection_id']);
  });

  it('through GraphQL: ends the connection at once; NOT_FOUND when already revoked', async () => {
    const { user, token } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    expect(await mcpStatus(seeded.accessToken)).toBe(200);
    const res = await gql(app, DISCONNECT, { token, variables: { id: seeded.connectionId } });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.disconnectConnectedApp).toEqual({
      id: seeded.connectionId,
      clientName: 'Test assistant',
    });
    expect(await mcpStatus(seeded.accessToken)).toBe(401);
    expect((await gql(app, LIST, { token })).body.data.connectedApps).toEqual([]);
    const again = await gql(app, DISCONNECT, { token, variables: { id: seeded.connectionId } });
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("answers 404 for another person's connection or an unknown id, leaving it live", async () => {
    const owner = await seedUser(app);
    const other = await seedUser(app);
    const seeded = await seedOAuthConnection(app, owner.user.id, ['profile:read']);
    const foreign = await rest(app, 'DELETE', `/api/v1/connected-apps/${seeded.connectionId}`, {
      token: other.token,
    });
    expect(foreign.status).toBe(404);
    const viaGql = await gql(app, DISCONNECT, {
      token: other.token,
      variables: { id: seeded.connectionId },
    });
    expect(viaGql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const unknown = await rest(app, 'DELETE', '/api/v1/connected-apps/999999999', {
      token: owner.token,
    });
    expect(unknown.status).toBe(404);
    expect(await mcpStatus(seeded.accessToken)).toBe(200);
    const row = await app.db.prisma.oAuthConnection.findUniqueOrThrow({
      where: { id: seeded.connectionId },
    });
    expect(row.revokedAt).toBeNull();
  });
});

describe('who may call them', () => {
  it('refuses a personal token (403, like the tokens routes) and no credential (401)', async () => {
    const { user } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    const pat = await seedPersonalToken(app, user.id, ['profile:read', 'account:write']);
    expect((await rest(app, 'GET', '/api/v1/tokens', { token: pat })).status).toBe(403);
    expect((await rest(app, 'GET', '/api/v1/connected-apps', { token: pat })).status).toBe(403);
    const del = await rest(app, 'DELETE', `/api/v1/connected-apps/${seeded.connectionId}`, {
      token: pat,
    });
    expect(del.status).toBe(403);
    expect((await rest(app, 'GET', '/api/v1/connected-apps')).status).toBe(401);
    // an OAuth access token is no credential outside /mcp
    const viaOAuth = await rest(app, 'GET', '/api/v1/connected-apps', {
      token: seeded.accessToken,
    });
    expect(viaOAuth.status).toBe(401);
    expect(await mcpStatus(seeded.accessToken)).toBe(200);
  });
});

describe('revoke-all', () => {
  it('ends every connection, so none is listed any more', async () => {
    const { user, token } = await seedUser(app);
    const seeded = await seedOAuthConnection(app, user.id, ['profile:read']);
    await seedOAuthConnection(app, user.id, ['profile:read']);
    expect((await rest(app, 'GET', '/api/v1/connected-apps', { token })).body).toHaveLength(2);
    const res = await rest(app, 'POST', '/api/auth/sessions/revoke-all', { token });
    expect(res.status).toBe(200);
    expect(await mcpStatus(seeded.accessToken)).toBe(401);
    const fresh = await seedWebSession(app, user.id);
    const list = await rest(app, 'GET', '/api/v1/connected-apps', {
      headers: { cookie: fresh.cookie },
    });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
  });
});
