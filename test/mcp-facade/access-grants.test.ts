/**
 * The access-grants MCP family through the SDK client on the personal-token host: listing,
 * annotations from the spec's kinds, confirm and idempotency on the sharing tools, and a full
 * invite -> accept -> renew -> view as -> revoke round trip.
 */
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const SHARING: Scope[] = ['sharing:read', 'sharing:write'];

async function agentFor(scopes: Scope[] = SHARING) {
  const seeded = await seedUser(app);
  const client = await mcpClient(app, await seedPersonalToken(app, seeded.user.id, scopes));
  return { ...seeded, client };
}

// Tools the spec gives no scope are listed to every token (their fields still check scopes).
const errorOf = (result: { structuredContent?: unknown }): any =>
  (result.structuredContent as any).error;

describe('access-grants tools', () => {
  it('lists the six tools with the hints of their kinds; sharing:read alone sees list and switch', async () => {
    const { client } = await agentFor();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()].filter((n) => n.startsWith('sharing_'))).toEqual([
      'sharing_grant_accept',
      'sharing_grant_invite',
      'sharing_grant_list',
      'sharing_grant_renew',
      'sharing_grant_revoke',
      'sharing_view_as_switch',
    ]);
    for (const name of ['sharing_grant_accept', 'sharing_grant_invite', 'sharing_grant_renew']) {
      const tool = byName.get(name)!;
      // destructive; not idempotent and open world, the spec's defaults, go unsaid (issue 30 item 7)
      expect(tool.annotations, name).toEqual({ destructiveHint: true });
      expect(tool.inputSchema.required, name).toContain('confirm');
      // issue 30 item 6: the description says what the tool does once, then the short note
      expect(tool.description, name).toMatch(
        /^(Accepts|Invites|Keeps sharing) .*\. Ask the person first\.$/,
      );
      expect(tool.description, name).not.toMatch(/\. It (accepts|invites|keeps sharing) /);
    }
    expect(byName.get('sharing_grant_invite')!.inputSchema.required).toEqual([
      'email',
      'confirm',
      'idempotency_key',
    ]);
    expect(byName.get('sharing_grant_accept')!.inputSchema.required).toEqual([
      'grant_id',
      'confirm',
    ]);
    expect(byName.get('sharing_grant_revoke')!.annotations).toMatchObject({
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get('sharing_grant_revoke')!.inputSchema.required).toEqual(['grant_id']);
    for (const name of ['sharing_grant_list', 'sharing_view_as_switch']) {
      expect(byName.get(name)!.annotations, name).toMatchObject({ readOnlyHint: true });
    }
    expect(byName.get('sharing_view_as_switch')!.inputSchema.required).toBeUndefined();

    const reader = await agentFor(['sharing:read']);
    expect(
      (await reader.client.listTools()).tools
        .map((t) => t.name)
        .filter((n) => n.startsWith('sharing_')),
    ).toEqual(['sharing_grant_list', 'sharing_view_as_switch']);
  });

  it('refuses to invite without confirm: true, and creates one grant per idempotency key', async () => {
    const { client, user } = await agentFor();
    const email = `mcp-friend.${clock.ms()}@example.com`;
    const unconfirmed = await callTool(client, 'sharing_grant_invite', {
      email,
      idempotency_key: 'invite-key-1',
    });
    expect(errorOf(unconfirmed).code).toBe('CONFIRMATION_REQUIRED');
    const args = { email, confirm: true, idempotency_key: 'invite-key-1' };
    const first = await callTool(client, 'sharing_grant_invite', args);
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({
      role: 'owner',
      status: 'pending',
      invitee_email: email,
    });
    const replay = await callTool(client, 'sharing_grant_invite', args);
    expect(replay.structuredContent).toEqual(first.structuredContent);
    expect(await app.db.prisma.accessGrant.count({ where: { ownerId: user.id } })).toBe(1);
    const duplicate = await callTool(client, 'sharing_grant_invite', {
      ...args,
      idempotency_key: 'invite-key-2',
    });
    expect(errorOf(duplicate)).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'grant_exists' },
    });
    const self = await callTool(client, 'sharing_grant_invite', {
      ...args,
      email: user.email,
      idempotency_key: 'invite-key-3',
    });
    expect(errorOf(self)).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['email'] }],
    });
  });

  it('invites, accepts, renews, lists, views as and revokes', async () => {
    const owner = await agentFor();
    const grantee = await agentFor([...SHARING, 'profile:read']);
    const invite = await callTool(owner.client, 'sharing_grant_invite', {
      email: grantee.user.email,
      confirm: true,
      idempotency_key: `round-trip-${clock.ms()}`,
    });
    const grantId = (invite.structuredContent as any).id as number;

    expect(
      errorOf(
        await callTool(owner.client, 'sharing_grant_accept', { grant_id: grantId, confirm: true }),
      ).code,
    ).toBe('NOT_FOUND');
    const accepted = await callTool(grantee.client, 'sharing_grant_accept', {
      grant_id: grantId,
      confirm: true,
    });
    expect(accepted.structuredContent).toMatchObject({
      id: grantId,
      role: 'grantee',
      status: 'active',
    });

    expect(
      errorOf(
        await callTool(grantee.client, 'sharing_grant_renew', { grant_id: grantId, confirm: true }),
      ).code,
    ).toBe('FORBIDDEN');
    const renewed = await callTool(owner.client, 'sharing_grant_renew', {
      grant_id: grantId,
      confirm: true,
    });
    expect(renewed.structuredContent).toMatchObject({ id: grantId, status: 'active' });

    const list = await callTool(grantee.client, 'sharing_grant_list');
    expect((list.structuredContent as any).items).toEqual([
      expect.objectContaining({ id: grantId, role: 'grantee', viewing: false }),
    ]);

    const switched = await callTool(grantee.client, 'sharing_view_as_switch', {
      grant_id: grantId,
    });
    expect(switched.structuredContent).toMatchObject({
      viewing: true,
      grant: { id: grantId, owner_email: owner.user.email },
    });
    const viewing = await callTool(grantee.client, 'sharing_grant_list');
    expect((viewing.structuredContent as any).items[0].viewing).toBe(true);

    const revoked = await callTool(owner.client, 'sharing_grant_revoke', { grant_id: grantId });
    expect(revoked.structuredContent).toMatchObject({ status: 'revoked' });
    const after = await callTool(grantee.client, 'sharing_grant_list');
    expect((after.structuredContent as any).items[0]).toMatchObject({
      status: 'revoked',
      viewing: false,
    });
    const again = await callTool(grantee.client, 'sharing_view_as_switch', { grant_id: grantId });
    expect(errorOf(again)).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'grant_not_active', status: 'revoked' },
    });
  });
});
