/**
 * The call path's mechanisms that no shipped tool exercises yet (confirm, idempotency, health meta),
 * through a second MCP host whose tool table adds test rows on existing operations.
 */
import { describe, expect, it } from 'vitest';
import type { McpTool } from '../../mcp-facade/tool.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { fingerprintOf } from '../../src/platform/idempotency.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient, startMcpHost } from '../harness/mcp.ts';

const TEST_ROWS: McpTool[] = [
  // updateProfile does not create; the flag makes it a creating tool so that a PAT can exercise replays
  {
    name: 'profile_update_once',
    operation: 'updateProfile',
    scopes: ['profile:write'],
    kind: 'write',
    creates: true,
  },
  // a deletes row on a real mutation (an unknown session: NOT_FOUND once confirmed)
  {
    name: 'token_revoke_confirmed',
    operation: 'revokeSession',
    scopes: ['account:write'],
    kind: 'deletes',
  },
  {
    name: 'profile_health_read',
    operation: 'me',
    scopes: ['profile:read', 'health:metrics:read'],
    kind: 'read',
  },
];

const app = await startTestApp();
const host = await startMcpHost(app, [...TOOLS, ...TEST_ROWS]);

async function clientFor(
  scopes: Scope[],
): Promise<{ client: Awaited<ReturnType<typeof mcpClient>>; userId: number }> {
  const { user } = await seedUser(app);
  return {
    client: await mcpClient(host, await seedPersonalToken(app, user.id, scopes)),
    userId: user.id,
  };
}

const errorOf = (result: { structuredContent?: unknown }): any =>
  (result.structuredContent as any).error;

describe('confirm', () => {
  it('lists a deletes tool with a required confirm, a destructive hint and the ask-the-user note', async () => {
    const { client } = await clientFor(['account:write']);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'token_revoke_confirmed')!;
    expect(tool.inputSchema.required).toEqual(['sid', 'confirm']);
    expect(tool.inputSchema.properties?.confirm).toMatchObject({ type: 'boolean' });
    expect(tool.annotations).toEqual({
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(tool.description).toMatch(/^Signs one session .*\. Ask the person first\.$/);
    expect(tool.inputSchema.properties?.confirm).toMatchObject({
      description: 'true once the person agreed',
    });
  });

  it('refuses to run without confirm: true and tells the agent to ask the person', async () => {
    const { client } = await clientFor(['account:write']);
    const sid = 'no-such-session';
    for (const args of [{ sid }, { sid, confirm: false }, { sid, confirm: 'yes' }]) {
      const result = await callTool(client, 'token_revoke_confirmed', args);
      expect(result.isError).toBe(true);
      expect(errorOf(result)).toMatchObject({ code: 'CONFIRMATION_REQUIRED', retryable: false });
      expect(errorOf(result).message).toContain('Ask the person first');
    }
    // confirmed, the call reaches the operation, which knows no such session
    const confirmed = await callTool(client, 'token_revoke_confirmed', { sid, confirm: true });
    expect(errorOf(confirmed)).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('checks the scope before asking for confirmation', async () => {
    const { client } = await clientFor(['profile:read']);
    const result = await callTool(client, 'token_revoke_confirmed', { sid: 'x' });
    expect(errorOf(result).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('idempotency_key', () => {
  it('is a required argument of creating tools only', async () => {
    const { client } = await clientFor(['profile:write']);
    const tools = (await client.listTools()).tools;
    const once = tools.find((t) => t.name === 'profile_update_once')!;
    expect(once.inputSchema.required).toEqual(['idempotency_key']);
    expect(once.inputSchema.properties?.idempotency_key).toMatchObject({
      type: 'string',
      minLength: 8,
      maxLength: 128,
    });
    expect(once.annotations?.idempotentHint).toBe(true);
    expect(
      tools.find((t) => t.name === 'update_profile')!.inputSchema.properties,
    ).not.toHaveProperty('idempotency_key');
  });

  it('refuses a missing or malformed key before running', async () => {
    const { client, userId } = await clientFor(['profile:write']);
    const missing = await callTool(client, 'profile_update_once', { name: 'Never' });
    expect(errorOf(missing)).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['idempotency_key'], type: 'missing' }],
    });
    const short = await callTool(client, 'profile_update_once', {
      name: 'Never',
      idempotency_key: 'short',
    });
    expect(errorOf(short).detail[0].type).toBe('string_too_short');
    expect(await app.db.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({
      name: 'Test User',
    });
  });

  it('answers the stored result for the same key and arguments without running again', async () => {
    const { client, userId } = await clientFor(['profile:write', 'profile:read']);
    const key = 'key-0001-replay';
    const first = await callTool(client, 'profile_update_once', {
      name: 'First',
      timezone: 'UTC',
      idempotency_key: key,
    });
    expect(first.structuredContent).toMatchObject({ name: 'First', timezone: 'UTC' });

    await callTool(client, 'update_profile', { name: 'Second' });
    const replay = await callTool(client, 'profile_update_once', {
      idempotency_key: key,
      timezone: 'UTC',
      name: 'First',
    });
    expect(replay).toEqual(first);
    expect((await callTool(client, 'get_profile')).structuredContent).toMatchObject({
      name: 'Second',
    });
    expect(await app.db.prisma.idempotencyRecord.count({ where: { userId } })).toBe(1);
  });

  it('refuses the same key with other arguments', async () => {
    const { client } = await clientFor(['profile:write']);
    const key = 'key-0002-conflict';
    await callTool(client, 'profile_update_once', { name: 'One', idempotency_key: key });
    const other = await callTool(client, 'profile_update_once', {
      name: 'Two',
      idempotency_key: key,
    });
    expect(other.isError).toBe(true);
    expect(errorOf(other)).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'idempotency_key_reused' },
      retryable: false,
    });
  });

  it('answers a retryable error while a call with the key is still running', async () => {
    const { client, userId } = await clientFor(['profile:write']);
    const key = 'key-0003-running';
    await app.db.prisma.idempotencyRecord.create({
      data: {
        userId,
        tool: 'profile_update_once',
        key,
        fingerprint: fingerprintOf({ name: 'Later' }),
        status: 'in_progress',
      },
    });
    const result = await callTool(client, 'profile_update_once', {
      name: 'Later',
      idempotency_key: key,
    });
    expect(errorOf(result)).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'idempotency_in_progress' },
      retryable: true,
      retry_after: 1,
    });
  });

  it('keeps no record of a failed call, so the key can be retried with fixed arguments', async () => {
    const { client, userId } = await clientFor(['profile:write']);
    const key = 'key-0004-fix-and-retry';
    const bad = await callTool(client, 'profile_update_once', {
      height_cm: 5000,
      idempotency_key: key,
    });
    expect(errorOf(bad).code).toBe('VALIDATION_FAILED');
    expect(await app.db.prisma.idempotencyRecord.count({ where: { userId } })).toBe(0);
    const fixed = await callTool(client, 'profile_update_once', {
      height_cm: 180,
      idempotency_key: key,
    });
    expect(fixed.structuredContent).toMatchObject({ height_cm: 180 });
  });

  it("keeps each person's keys apart", async () => {
    const key = 'key-0005-shared';
    const ann = await clientFor(['profile:write']);
    const bob = await clientFor(['profile:write']);
    expect(
      (await callTool(ann.client, 'profile_update_once', { name: 'Ann', idempotency_key: key }))
        .structuredContent,
    ).toMatchObject({ name: 'Ann' });
    const bobs = await callTool(bob.client, 'profile_update_once', {
      name: 'Bob',
      idempotency_key: key,
    });
    expect(bobs.structuredContent).toMatchObject({ id: bob.userId, name: 'Bob' });
  });
});

describe('health data', () => {
  it('carries meta.phone_last_sync_at on tools with a health scope only', async () => {
    const { client, userId } = await clientFor(['profile:read', 'health:metrics:read']);
    const never = await callTool(client, 'profile_health_read');
    expect((never.structuredContent as any).meta).toEqual({ phone_last_sync_at: null });

    const synced = new Date('2025-03-04T05:06:07.000Z');
    await app.db.prisma.user.update({ where: { id: userId }, data: { phoneLastSyncAt: synced } });
    const result = await callTool(client, 'profile_health_read');
    expect(result.structuredContent).toMatchObject({
      id: userId,
      meta: { phone_last_sync_at: '2025-03-04T05:06:07.000Z' },
    });
    expect((await callTool(client, 'get_profile')).structuredContent).not.toHaveProperty('meta');
  });
});
