import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

async function tokenFor(
  scopes: Scope[],
): Promise<{ token: string; userId: number; email: string; login: string }> {
  const seeded = await seedUser(app);
  const token = await seedPersonalToken(app, seeded.user.id, scopes);
  return { token, userId: seeded.user.id, email: seeded.user.email, login: seeded.token };
}

// Tools the spec gives no scope: listed only to tokens holding their field's scope (issue 11).
const UNSCOPED = new Set(TOOLS.filter((t) => t.scopes.length === 0).map((t) => t.name));

describe('tools/list', () => {
  it('shows exactly the tools whose scopes the token holds, in name order', async () => {
    const cases: [Scope[], string[]][] = [
      [['profile:read'], ['get_profile']],
      [['profile:write'], ['profile_photo_set', 'update_profile', 'update_profile_onboarding']],
      [['account:read'], ['feedback_report_list', 'sessions_list_read']],
      [
        ['profile:read', 'profile:write', 'account:read'],
        [
          'feedback_report_list',
          'get_profile',
          'profile_photo_set',
          'sessions_list_read',
          'update_profile',
          'update_profile_onboarding',
        ],
      ],
      [
        ['health:metrics:read'],
        [
          'activity_body_composition_read',
          'bp_readings_list',
          'get_health_archive_coverage',
          'health_archive_ecg',
          'health_archive_events',
          'health_archive_routes',
          'health_archive_samples',
          'health_archive_workout_series',
          'list_records',
          'monitor_readings_read',
          'synced_records_read',
        ],
      ],
      [
        ['health:metrics:read', 'account:write'],
        [
          'account_delete',
          'activity_body_composition_read',
          'bp_readings_list',
          'get_health_archive_coverage',
          'health_archive_ecg',
          'health_archive_events',
          'health_archive_routes',
          'health_archive_samples',
          'health_archive_workout_series',
          'list_records',
          'monitor_readings_read',
          'sessions_all_revoke',
          'sessions_one_revoke',
          'synced_records_read',
        ],
      ],
      [
        ['health:glucose:read'],
        [
          'get_glucose_readings',
          'glucose_readings_read',
          'meal_detected_list',
          'meal_glucose_response_read',
          'sensors_cgm_status_read',
        ],
      ],
    ];
    expect([...UNSCOPED].sort()).toEqual([
      'get_glucose_readings',
      'get_health_summary',
      'get_labs_reports',
      'get_nutrition_meals',
      'list_changes',
      'list_records',
    ]);
    for (const [scopes, expected] of cases) {
      const client = await mcpClient(app, (await tokenFor(scopes)).token);
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names, scopes.join(' ')).toEqual(expected);
    }
  });

  it('describes each tool from its operation, with snake_case inputs and explicit annotations', async () => {
    const client = await mcpClient(app, (await tokenFor(['profile:read', 'profile:write'])).token);
    const { tools } = await client.listTools();
    const get = tools.find((t) => t.name === 'get_profile')!;
    expect(get.description).toBe(
      "Reads the person's profile: name, email, units, body measures, goals and onboarding state.",
    );
    expect(get.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(get.title).toBe('Read my profile');
    expect(get.annotations).toEqual({ readOnlyHint: true });
    const update = tools.find((t) => t.name === 'update_profile')!;
    expect(Object.keys(update.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['name', 'timezone', 'glucose_unit', 'height_cm', 'date_of_birth']),
    );
    expect(update.inputSchema.properties).not.toHaveProperty('input');
    expect(update.inputSchema.properties).not.toHaveProperty('idempotency_key');
    expect(update.annotations).toEqual({
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});

describe('tools/call', () => {
  it("get_profile answers the caller's profile in snake_case, as structured content and text", async () => {
    const { token, userId, email } = await tokenFor(['profile:read']);
    const client = await mcpClient(app, token);
    const result = await callTool(client, 'get_profile');
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      id: userId,
      email,
      name: 'Test User',
      glucose_unit: 'mg/dL',
      onboarding_completed: false,
    });
    expect(result.structuredContent).not.toHaveProperty('meta');
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(
      result.structuredContent,
    );
  });

  it('update_profile changes fields given as top-level snake_case arguments', async () => {
    const client = await mcpClient(app, (await tokenFor(['profile:write'])).token);
    const result = await callTool(client, 'update_profile', {
      timezone: 'Europe/Berlin',
      height_cm: 172.5,
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      timezone: 'Europe/Berlin',
      height_cm: 172.5,
      name: 'Test User',
    });
  });

  it('update_profile answers isError VALIDATION_FAILED listing every issue at its argument', async () => {
    const client = await mcpClient(app, (await tokenFor(['profile:write'])).token);
    const bad = await callTool(client, 'update_profile', { height_cm: 5000, glucose_unit: 'mg' });
    expect(bad.isError).toBe(true);
    const error = (bad.structuredContent as any).error;
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
    expect(error.detail.map((d: any) => d.loc)).toEqual(
      expect.arrayContaining([['height_cm'], ['glucose_unit']]),
    );
    expect(error.message).toContain('height_cm');

    const typed = await callTool(client, 'update_profile', { height_cm: 'tall' });
    expect((typed.structuredContent as any).error.detail[0].loc).toEqual(['height_cm']);
    const unknown = await callTool(client, 'update_profile', { shoe_size: 44 });
    expect((unknown.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['shoe_size'], type: 'extra_forbidden' }],
    });
  });

  it('update_profile_onboarding records onboarding progress', async () => {
    const client = await mcpClient(app, (await tokenFor(['profile:write'])).token);
    const result = await callTool(client, 'update_profile_onboarding', {
      onboarding_step: 3,
      onboarding_completed: true,
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      onboarding_step: 3,
      onboarding_completed: true,
    });
  });

  it("sessions_list_read lists the person's sessions as items", async () => {
    const { token } = await tokenFor(['account:read']);
    const client = await mcpClient(app, token);
    const result = await callTool(client, 'sessions_list_read');
    expect(result.isError).toBeFalsy();
    const items = (result.structuredContent as { items: any[] }).items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'native', current: false });
    expect(items[0]).toHaveProperty('last_used_at');
  });

  it('refuses a tool the token lacks a scope for with isError INSUFFICIENT_SCOPE', async () => {
    const client = await mcpClient(app, (await tokenFor(['profile:read'])).token);
    const result = await callTool(client, 'update_profile', { name: 'Eve' });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as any).error).toEqual({
      code: 'INSUFFICIENT_SCOPE',
      message: 'This token lacks the scope profile:write that update_profile needs',
      detail: { code: 'insufficient_scope', scope: 'profile:write' },
      retryable: false,
    });
  });

  it('answers a JSON-RPC error for a tool that does not exist', async () => {
    const client = await mcpClient(app, (await tokenFor(['profile:read'])).token);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("never shows one person's data to another person's token", async () => {
    const ann = await tokenFor(['profile:read', 'account:read']);
    const bob = await tokenFor(['profile:read', 'account:read']);
    const annClient = await mcpClient(app, ann.token);
    const bobClient = await mcpClient(app, bob.token);
    const annProfile = (await callTool(annClient, 'get_profile')).structuredContent as any;
    const bobProfile = (await callTool(bobClient, 'get_profile')).structuredContent as any;
    expect(annProfile).toMatchObject({ id: ann.userId, email: ann.email });
    expect(bobProfile).toMatchObject({ id: bob.userId, email: bob.email });
    const annSessions = await app.db.prisma.session.findMany({
      where: { userId: ann.userId },
      select: { id: true },
    });
    const bobItems = ((await callTool(bobClient, 'sessions_list_read')).structuredContent as any)
      .items;
    expect(bobItems.map((s: any) => s.id)).not.toEqual(
      expect.arrayContaining(annSessions.map((s) => s.id)),
    );
    expect(bobItems).toHaveLength(1);
  });
});

describe('HTTP', () => {
  const list = rpc('tools/list');

  it('answers 401 with WWW-Authenticate: Bearer (no resource_metadata) without a token, with a login token or a bad one', async () => {
    const { login } = await tokenFor(['profile:read']);
    const none = await mcpPost(app, list);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.body).toMatchObject({
      jsonrpc: '2.0',
      error: { message: 'Not authenticated' },
      id: null,
    });
    // a presented bearer that is no active personal token: error="invalid_token" (test/mcp-facade/endpoint.test.ts)
    for (const token of [login, 'hdp_pat_not-a-real-token']) {
      const res = await mcpPost(app, list, { token });
      expect(res.status, token).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(res.body).toMatchObject({
        jsonrpc: '2.0',
        error: { data: { code: 'invalid_token' } },
        id: null,
      });
    }
  });

  it('answers 401 to a web session cookie, with or without its CSRF token', async () => {
    const { userId } = await tokenFor(['profile:read']);
    const web = await seedWebSession(app, userId);
    const attempts: Record<string, string>[] = [
      { cookie: web.cookie },
      { cookie: web.cookie, 'x-csrf-token': web.csrf },
    ];
    for (const headers of attempts) {
      const res = await mcpPost(app, list, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('answers 401 for a revoked personal token', async () => {
    const { token, userId } = await tokenFor(['profile:read']);
    expect((await mcpPost(app, list, { token })).status).toBe(200);
    // written straight to the database, then announced as the token services do
    await app.db.prisma.personalToken.updateMany({
      where: { userId },
      data: { revokedAt: clock.now() },
    });
    await app.deps.credentials.revoked(userId);
    expect((await mcpPost(app, list, { token })).status).toBe(401);
  });

  it('answers 405 to GET and DELETE', async () => {
    const { token } = await tokenFor(['profile:read']);
    for (const method of ['GET', 'DELETE']) {
      const res = await mcpPost(app, null, { token, method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('answers 403 to a foreign Origin and serves same-origin and localhost pages', async () => {
    const { token } = await tokenFor(['profile:read']);
    const foreign = await mcpPost(app, list, {
      token,
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await mcpPost(app, list, { token, headers: { origin: 'null' } })).status).toBe(403);
    for (const origin of [app.baseUrl, 'http://localhost:5173', 'http://127.0.0.1:3000']) {
      expect((await mcpPost(app, list, { token, headers: { origin } })).status, origin).toBe(200);
    }
  });

  it('leaves Accept and Content-Type checks to the transport (406, 415) and answers a parse error', async () => {
    const { token } = await tokenFor(['profile:read']);
    expect(
      (await mcpPost(app, list, { token, headers: { accept: 'application/json' } })).status,
    ).toBe(406);
    expect(
      (
        await mcpPost(app, JSON.stringify(list), {
          token,
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(415);
    const broken = await mcpPost(app, '{"jsonrpc":', { token });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ error: { code: -32700 } });
  });

  it('serves tools/call without initialize (stateless) and answers JSON', async () => {
    const { token } = await tokenFor(['profile:read']);
    const res = await mcpPost(app, rpc('tools/call', { name: 'get_profile', arguments: {} }), {
      token,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body.result.structuredContent).toHaveProperty('email');
  });
});
