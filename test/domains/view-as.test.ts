/**
 * View-as (issue 3): a grantee switches a credential to read the owner's data, read-only, and the
 * next request after the grant is revoked (by either side) or expires reads the grantee's own data,
 * on all three doors: REST, POST /graphql (persisted operation) and MCP.
 */
import { describe, expect, it } from 'vitest';
import type { McpTool } from '../../mcp-facade/tool.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { seedActiveGrant, seedInvitation, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient, startMcpHost } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

// No shipped MCP tool reads another person's data yet (get_profile is always the caller's own):
// a test host adds one on viewedProfile, with the real facade, call path and authentication.
const VIEWED_PROFILE_TOOL: McpTool = {
  name: 'viewed_profile_read',
  operation: 'viewedProfile',
  scopes: ['profile:read'],
  kind: 'read',
};

const app = await startTestApp();
const host = await startMcpHost(app, [...TOOLS, VIEWED_PROFILE_TOOL]);
const GRANTEE_SCOPES = ['profile:read', 'profile:write', 'sharing:read', 'sharing:write'] as const;

type Door = 'rest' | 'graphql' | 'mcp';
const DOORS: Door[] = ['rest', 'graphql', 'mcp'];

/** Whose profile `token` reads through a door (its user id), or the failure. */
async function viewedId(door: Door, token: string): Promise<number | string> {
  if (door === 'rest') {
    const res = await rest(app, 'GET', '/api/v1/profile', { token });
    return res.status === 200 ? res.body.id : `HTTP ${res.status}`;
  }
  if (door === 'graphql') {
    const res = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        extensions: {
          persistedQuery: {
            version: 1,
            sha256Hash: app.operations.byName.get('viewedProfile')!.id,
          },
        },
      }),
    });
    const body = await res.json();
    return body.data?.viewedProfile?.id ?? body.errors?.[0]?.extensions?.code;
  }
  const result = await callTool(await mcpClient(host, token), 'viewed_profile_read');
  return result.isError
    ? (result.structuredContent as any).error.code
    : (result.structuredContent as any).id;
}

/** Whose profile `token` reads on each door (a login token has no MCP door: that host takes personal tokens). */
async function readsOnEveryDoor(
  token: string,
  doors: Door[] = DOORS,
): Promise<Partial<Record<Door, number | string>>> {
  const out: Partial<Record<Door, number | string>> = {};
  for (const door of doors) out[door] = await viewedId(door, token);
  return out;
}

const LOGIN_DOORS: Door[] = ['rest', 'graphql'];

const everywhere = (id: number): Record<Door, number> => ({ rest: id, graphql: id, mcp: id });

interface Scene {
  owner: SeededUser;
  grantee: SeededUser;
  grantId: number;
  /** the grantee's personal token, switched to view as the owner (over MCP) */
  pat: string;
}

/** An active grant, with the grantee's login token and a personal token both viewing as the owner. */
async function viewingScene(): Promise<Scene> {
  const owner = await seedUser(app, { name: 'Owner' });
  const grantee = await seedUser(app, { name: 'Grantee' });
  const grantId = await seedActiveGrant(app, owner, grantee);
  const pat = await seedPersonalToken(app, grantee.user.id, [...GRANTEE_SCOPES]);
  const switched = await callTool(await mcpClient(app, pat), 'sharing_view_as_switch', {
    grant_id: grantId,
  });
  expect(switched.structuredContent).toMatchObject({
    viewing: true,
    grant: { id: grantId, role: 'grantee', viewing: true },
  });
  await switchViewAs(app, grantee.token, grantId);
  expect(await readsOnEveryDoor(pat)).toEqual(everywhere(owner.user.id));
  expect(await readsOnEveryDoor(grantee.token, LOGIN_DOORS)).toEqual({
    rest: owner.user.id,
    graphql: owner.user.id,
  });
  return { owner, grantee, grantId, pat };
}

/** After the grant ended: every door reads the grantee's own data again, and writes work again. */
async function expectBackToOwnData(scene: Scene): Promise<void> {
  const own = scene.grantee.user.id;
  expect(await readsOnEveryDoor(scene.pat)).toEqual(everywhere(own));
  expect(await readsOnEveryDoor(scene.grantee.token, LOGIN_DOORS)).toEqual({
    rest: own,
    graphql: own,
  });
  const patch = await rest(app, 'PATCH', '/api/auth/me', {
    token: scene.grantee.token,
    body: { name: 'Mine again' },
  });
  expect(patch.status).toBe(200);
  expect(patch.body.id).toBe(own);
  const sessions = await app.db.prisma.session.findMany({
    where: { userId: own },
    select: { viewAsGrantId: true },
  });
  const tokens = await app.db.prisma.personalToken.findMany({
    where: { userId: own },
    select: { viewAsGrantId: true },
  });
  expect([...sessions, ...tokens].map((c) => c.viewAsGrantId)).toEqual(
    [...sessions, ...tokens].map(() => null),
  );
}

describe('view-as', () => {
  it("reads the owner's data on every door; `me` stays the caller's own profile; the list marks the grant", async () => {
    const { owner, grantee, grantId, pat } = await viewingScene();
    const me = await rest(app, 'GET', '/api/auth/me', { token: grantee.token });
    expect(me.body).toMatchObject({ id: grantee.user.id, name: 'Grantee' });
    const viewed = await rest(app, 'GET', '/api/v1/profile', { token: grantee.token });
    expect(viewed.body).toMatchObject({
      id: owner.user.id,
      email: owner.user.email,
      name: 'Owner',
    });
    const mcpMe = await callTool(await mcpClient(app, pat), 'get_profile');
    expect(mcpMe.structuredContent).toMatchObject({ id: grantee.user.id });
    const list = await rest(app, 'GET', '/api/auth/grants', { token: grantee.token });
    expect(list.body).toEqual([expect.objectContaining({ id: grantId, viewing: true })]);
    // the owner's own credentials are untouched
    expect(
      (await rest(app, 'GET', '/api/auth/grants', { token: owner.token })).body[0].viewing,
    ).toBe(false);
    expect(await viewedId('rest', owner.token)).toBe(owner.user.id);
  });

  it("switches one credential only: the grantee's other sessions and tokens keep reading their own data", async () => {
    const { grantee } = await viewingScene();
    const otherLogin = await rest(app, 'POST', '/api/auth/login', {
      body: { email: grantee.user.email, password: grantee.password },
    });
    expect(await viewedId('rest', otherLogin.body.access_token)).toBe(grantee.user.id);
    const otherPat = await seedPersonalToken(app, grantee.user.id, ['profile:read']);
    expect(await readsOnEveryDoor(otherPat)).toEqual(everywhere(grantee.user.id));
  });

  it("switches back to the caller's own data without a grant id", async () => {
    const { grantee, pat } = await viewingScene();
    const back = await rest(app, 'POST', '/api/v1/view-as', { token: grantee.token, body: {} });
    expect(back.status).toBe(200);
    expect(back.body).toEqual({ viewing: false, grant: null });
    expect(await viewedId('rest', grantee.token)).toBe(grantee.user.id);
    const mcpBack = await callTool(await mcpClient(app, pat), 'sharing_view_as_switch', {});
    expect(mcpBack.structuredContent).toEqual({ viewing: false, grant: null });
    expect(await readsOnEveryDoor(pat)).toEqual(everywhere(grantee.user.id));
  });

  it('works for a web session (cookie + CSRF) on REST and GraphQL', async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const grantId = await seedActiveGrant(app, owner, grantee);
    const web = await seedWebSession(app, grantee.user.id);
    const headers = { cookie: web.cookie, 'x-csrf-token': web.csrf };
    const switched = await rest(app, 'POST', '/api/v1/view-as', {
      headers,
      body: { grant_id: grantId },
    });
    expect(switched.status).toBe(200);
    expect(
      (await rest(app, 'GET', '/api/v1/profile', { headers: { cookie: web.cookie } })).body.id,
    ).toBe(owner.user.id);
    const viaGql = await gql(app, '{ viewedProfile { id } me { id } }', { headers });
    expect(viaGql.body.data).toEqual({
      viewedProfile: { id: owner.user.id },
      me: { id: grantee.user.id },
    });
    const write = await gql(app, 'mutation { updateProfile(input: {name: "x"}) { id } }', {
      headers,
    });
    expect(write.body.errors[0]).toMatchObject({
      message: "read-only while viewing another person's data",
      extensions: { code: 'FORBIDDEN' },
    });
  });
});

describe('writes while viewing as', () => {
  it('answer 403 on REST, FORBIDDEN on GraphQL and isError on MCP, and change nothing', async () => {
    const { owner, grantee, grantId, pat } = await viewingScene();
    const patch = await rest(app, 'PATCH', '/api/auth/me', {
      token: grantee.token,
      body: { name: 'Hacked' },
    });
    expect(patch.status).toBe(403);
    expect(patch.body).toEqual({ detail: { code: 'view_as_read_only', grant_id: grantId } });
    const viaGql = await gql(app, 'mutation { updateProfile(input: {name: "Hacked"}) { id } }', {
      token: pat,
    });
    expect(viaGql.body.errors[0].extensions).toMatchObject({
      code: 'FORBIDDEN',
      detail: { code: 'view_as_read_only' },
    });
    const viaMcp = await callTool(await mcpClient(app, pat), 'update_profile', { name: 'Hacked' });
    expect(viaMcp.isError).toBe(true);
    expect((viaMcp.structuredContent as any).error).toMatchObject({
      code: 'FORBIDDEN',
      message: "read-only while viewing another person's data",
      detail: { code: 'view_as_read_only', grant_id: grantId },
    });
    const names = await app.db.prisma.user.findMany({
      where: { id: { in: [owner.user.id, grantee.user.id] } },
      select: { name: true },
    });
    expect(names.map((u) => u.name).sort()).toEqual(['Grantee', 'Owner']);
  });

  it('still allow the sharing scopes (switching back and revoking: see below), inviting as oneself', async () => {
    const { grantee, pat } = await viewingScene();
    const client = await mcpClient(app, pat);
    expect((await callTool(client, 'sharing_grant_list')).isError).toBeFalsy();
    const invite = await callTool(client, 'sharing_grant_invite', {
      email: `friend.${clock.ms()}@example.com`,
      confirm: true,
      idempotency_key: `invite-${clock.ms()}`,
    });
    expect(invite.isError).toBeFalsy();
    // the invitation shares the caller's own data, never the owner's
    expect(invite.structuredContent).toMatchObject({
      role: 'owner',
      owner_email: grantee.user.email,
    });
  });
});

describe("the next request after the grant ends reads the grantee's own data, on every door", () => {
  it('after the owner revokes', async () => {
    const scene = await viewingScene();
    const res = await rest(app, 'POST', `/api/auth/grants/${scene.grantId}/revoke`, {
      token: scene.owner.token,
    });
    expect(res.status).toBe(200);
    await expectBackToOwnData(scene);
  });

  it('after the grantee revokes, from the viewing credential itself (MCP)', async () => {
    const scene = await viewingScene();
    const revoked = await callTool(await mcpClient(app, scene.pat), 'sharing_grant_revoke', {
      grant_id: scene.grantId,
    });
    expect(revoked.isError).toBeFalsy();
    expect(revoked.structuredContent).toMatchObject({ status: 'revoked', viewing: false });
    await expectBackToOwnData(scene);
  });

  it('after the grantee revokes over GraphQL from the viewing login', async () => {
    const scene = await viewingScene();
    const revoked = await gql(
      app,
      'mutation($id: Int!) { revokeAccessGrant(grantId: $id) { status } }',
      {
        token: scene.grantee.token,
        variables: { id: scene.grantId },
      },
    );
    expect(revoked.body.data.revokeAccessGrant.status).toBe('revoked');
    await expectBackToOwnData(scene);
  });

  it('after it expires (nobody acts), and it does not resume when the owner shares again', async () => {
    const scene = await viewingScene();
    await app.db.prisma.accessGrant.update({
      where: { id: scene.grantId },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    await expectBackToOwnData(scene);
    expect(
      (
        await rest(app, 'POST', `/api/v1/grants/${scene.grantId}/renew`, {
          token: scene.owner.token,
        })
      ).status,
    ).toBe(409);
    const again = await seedActiveGrant(app, scene.owner, scene.grantee);
    expect(await viewedId('rest', scene.grantee.token)).toBe(scene.grantee.user.id);
    await switchViewAs(app, scene.grantee.token, again);
    expect(await viewedId('rest', scene.grantee.token)).toBe(scene.owner.user.id);
  });

  it('after the grant row is gone (owner account deleted)', async () => {
    const scene = await viewingScene();
    await app.db.prisma.user.delete({ where: { id: scene.owner.user.id } });
    await expectBackToOwnData(scene);
  });

  it('ignores a view-as marker naming a grant the caller is not grantee of', async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    const eve = await seedUser(app);
    const annToBob = await seedActiveGrant(app, ann, bob);
    await app.db.prisma.session.update({
      where: { id: eve.sessionId },
      data: { viewAsGrantId: annToBob },
    });
    expect(await viewedId('rest', eve.token)).toBe(eve.user.id);
    expect(
      (await app.db.prisma.session.findUniqueOrThrow({ where: { id: eve.sessionId } }))
        .viewAsGrantId,
    ).toBeNull();
  });
});

describe('switching (POST /api/v1/view-as, sharing_view_as_switch)', () => {
  it('answers 404 for a grant the caller is not grantee of (a stranger, or its owner)', async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const stranger = await seedUser(app);
    const grantId = await seedActiveGrant(app, owner, grantee);
    for (const who of [stranger, owner]) {
      const res = await rest(app, 'POST', '/api/v1/view-as', {
        token: who.token,
        body: { grant_id: grantId },
      });
      expect(res.status).toBe(404);
    }
    expect(
      (
        await rest(app, 'POST', '/api/v1/view-as', {
          token: grantee.token,
          body: { grant_id: 999999 },
        })
      ).status,
    ).toBe(404);
  });

  it('answers 409 until the grant is accepted, and once it is revoked or expired', async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const pending = await seedInvitation(app, owner, grantee.user.email);
    const notYet = await rest(app, 'POST', '/api/v1/view-as', {
      token: grantee.token,
      body: { grant_id: pending },
    });
    expect(notYet.status).toBe(409);
    expect(notYet.body.detail).toEqual({ code: 'grant_not_active', status: 'pending' });
    await rest(app, 'POST', `/api/auth/grants/${pending}/revoke`, { token: owner.token });
    expect(
      (
        await rest(app, 'POST', '/api/v1/view-as', {
          token: grantee.token,
          body: { grant_id: pending },
        })
      ).body.detail.status,
    ).toBe('revoked');
    const active = await seedActiveGrant(app, owner, grantee);
    await app.db.prisma.accessGrant.update({
      where: { id: active },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    expect(
      (
        await rest(app, 'POST', '/api/v1/view-as', {
          token: grantee.token,
          body: { grant_id: active },
        })
      ).body.detail.status,
    ).toBe('expired');
  });

  it('needs sharing:read on a personal token; 401 without a credential', async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const grantId = await seedActiveGrant(app, owner, grantee);
    const pat = await seedPersonalToken(app, grantee.user.id, ['profile:read']);
    const refused = await rest(app, 'POST', '/api/v1/view-as', {
      token: pat,
      body: { grant_id: grantId },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toEqual({ code: 'insufficient_scope', scope: 'sharing:read' });
    expect(
      (await rest(app, 'POST', '/api/v1/view-as', { body: { grant_id: grantId } })).status,
    ).toBe(401);
    expect((await rest(app, 'GET', '/api/v1/profile')).status).toBe(401);
  });
});
