/**
 * Issue 11, MCP answers an agent can use: tools/list shows only what the token can call (item 12),
 * health answers say whose data they are and when the phone last synced, set by every ingest path
 * (item 13), arguments a tool does not declare are refused (item 14), the ask-the-user note says
 * what the tool does (item 15), and the README's client set-up works as written (item 16).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpTool } from '../../mcp-facade/tool.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient, startMcpHost } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

// a row on an operation whose field takes login sessions only (a personal token can never call it)
const LOGIN_ONLY: McpTool = {
  name: 'token_revoke_login_only',
  operation: 'revokePersonalToken',
  scopes: ['account:write'],
  kind: 'deletes',
};

const app = await startTestApp();
const host = await startMcpHost(app, [...TOOLS, LOGIN_ONLY]);
const errorOf = (result: { structuredContent?: unknown }): any =>
  (result.structuredContent as any).error;
const minutesAgo = (m: number): string => new Date(clock.ms() - m * 60_000).toISOString();

async function listed(scopes: Scope[], target: { baseUrl: string } = app): Promise<string[]> {
  const { user } = await seedUser(app);
  const client = await mcpClient(target, await seedPersonalToken(app, user.id, scopes));
  return (await client.listTools()).tools.map((t) => t.name);
}

describe('tools/list shows only what the token can call (item 12)', () => {
  it('lists a tool the spec gives no scope only to tokens holding the scope of its field', async () => {
    const unscoped = [
      'get_glucose_readings',
      'get_nutrition_meals',
      'list_changes',
      'list_records',
    ];
    expect(await listed(['profile:read'])).toEqual(['get_profile']);
    expect((await listed(['health:glucose:read'])).filter((n) => unscoped.includes(n))).toEqual([
      'get_glucose_readings',
    ]);
    expect((await listed(['health:nutrition:read'])).filter((n) => unscoped.includes(n))).toEqual([
      'get_nutrition_meals',
    ]);
    expect((await listed(['health:summary:read'])).filter((n) => unscoped.includes(n))).toEqual([
      'list_changes',
    ]);
    expect((await listed(['health:metrics:read'])).filter((n) => unscoped.includes(n))).toEqual([
      'list_records',
    ]);
  });

  it('never lists a tool whose field refuses every personal token; calling it still answers the refusal', async () => {
    expect(await listed(['account:write'], host)).not.toContain('token_revoke_login_only');
    expect(await listed(['account:write'], host)).toContain('sessions_all_revoke');
    const { user } = await seedUser(app);
    const client = await mcpClient(host, await seedPersonalToken(app, user.id, ['account:write']));
    const result = await callTool(client, 'token_revoke_login_only', { id: 1, confirm: true });
    expect(errorOf(result).code).toBe('FORBIDDEN');
  });

  it('answers a call of an unlisted tool with the scope it lacks', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(app, await seedPersonalToken(app, user.id, ['profile:read']));
    const result = await callTool(client, 'get_glucose_readings');
    expect(errorOf(result)).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'health:glucose:read' },
    });
  });
});

describe('whose data (item 13)', () => {
  async function scene(): Promise<{ owner: SeededUser; pat: string }> {
    const owner = await seedUser(app, { name: 'Olga Owner' });
    const grantee = await seedUser(app, { name: 'Gus Grantee' });
    const grantId = await seedActiveGrant(app, owner, grantee);
    const pat = await seedPersonalToken(app, grantee.user.id, [
      'health:glucose:read',
      'health:summary:read',
      'sharing:read',
    ]);
    await switchViewAs(app, pat, grantId);
    return { owner, pat };
  }

  it("names the owner as meta.subject, with the owner's phone sync time, while a token views as", async () => {
    const { owner, pat } = await scene();
    const batch = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: owner.token,
      body: [{ sensor_id: 1, timestamp: minutesAgo(10), value_mg_dl: 123 }],
    });
    expect(batch.status).toBe(200);
    const synced = (await app.db.prisma.user.findUniqueOrThrow({ where: { id: owner.user.id } }))
      .phoneLastSyncAt;
    const client = await mcpClient(app, pat);
    for (const tool of ['get_glucose_readings', 'glucose_readings_read', 'get_scores']) {
      const body = (await callTool(client, tool)).structuredContent as any;
      expect(body.meta, tool).toEqual({
        phone_last_sync_at: synced!.toISOString(),
        subject: { user_id: owner.user.id, name: 'Olga Owner' },
      });
    }
    expect(
      ((await callTool(client, 'get_glucose_readings')).structuredContent as any).items,
    ).toMatchObject([{ value_mg_dl: 123 }]);
  });

  it('names no subject when the token reads its own data, and none on answers that are not health data', async () => {
    const { pat } = await scene();
    const client = await mcpClient(app, pat);
    // switched back to the grantee's own data (MCP sharing_view_as_switch without a grant)
    expect((await callTool(client, 'sharing_view_as_switch', {})).structuredContent).toMatchObject({
      viewing: false,
    });
    expect(
      ((await callTool(client, 'get_glucose_readings')).structuredContent as any).meta,
    ).toEqual({ phone_last_sync_at: null });
    expect((await callTool(client, 'sharing_grant_list')).structuredContent).not.toHaveProperty(
      'meta',
    );
  });

  it('marks the phone synced on every ingest path: glucose and raw batches, sensor payloads, health imports', async () => {
    const ingests: [string, string, unknown][] = [
      [
        'glucose batch',
        '/api/glucose/readings/batch',
        [{ sensor_id: 1, timestamp: minutesAgo(5), value_mg_dl: 101 }],
      ],
      [
        'raw batch',
        '/api/glucose/raw/batch',
        [{ sensor_id: 3, timestamp: minutesAgo(5), raw_value: 1200 }],
      ],
      [
        'sensor payload',
        '/api/glucose/process-sensor',
        { sensor_id: 2, samples: [{ timestamp: minutesAgo(5), raw_value: 140 }] },
      ],
      [
        'health metrics',
        '/api/health/platform/import',
        { samples: [{ metric_type: 'steps', value: 120, timestamp: minutesAgo(5) }] },
      ],
      [
        'health intervals',
        '/api/health/platform/import/batch',
        {
          sleep: [{ stage: 'deep', start_at: minutesAgo(120), end_at: minutesAgo(60) }],
          workouts: [],
        },
      ],
    ];
    for (const [what, route, body] of ingests) {
      const { user, token } = await seedUser(app);
      const client = await mcpClient(
        app,
        await seedPersonalToken(app, user.id, ['health:glucose:read']),
      );
      expect(
        ((await callTool(client, 'get_glucose_readings')).structuredContent as any).meta,
        what,
      ).toEqual({ phone_last_sync_at: null });
      const before = clock.ms();
      const res = await rest(app, 'POST', route, { token, body });
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
      const meta = ((await callTool(client, 'get_glucose_readings')).structuredContent as any).meta;
      expect(Date.parse(meta.phone_last_sync_at), what).toBeGreaterThanOrEqual(before - 1000);
    }
  });
});

describe('arguments a tool does not declare (item 14)', () => {
  it('refuses confirm, idempotency_key and cursor on tools that do not take them, and runs nothing', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['profile:read', 'profile:write']),
    );
    const cases: [string, Record<string, unknown>, string][] = [
      ['get_profile', { confirm: true }, 'confirm'],
      ['update_profile', { name: 'Changed', confirm: true }, 'confirm'],
      [
        'update_profile',
        { name: 'Changed', idempotency_key: 'key-0001-undeclared' },
        'idempotency_key',
      ],
      ['get_profile', { cursor: 'abc' }, 'cursor'],
    ];
    for (const [tool, args, loc] of cases) {
      const result = await callTool(client, tool, args);
      expect(result.isError, `${tool} ${loc}`).toBe(true);
      expect(errorOf(result), `${tool} ${loc}`).toMatchObject({
        code: 'VALIDATION_FAILED',
        detail: [{ loc: [loc], type: 'extra_forbidden' }],
      });
    }
    expect((await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).name).toBe(
      'Test User',
    );
    expect(await app.db.prisma.idempotencyRecord.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe('the ask-the-user note (item 15)', () => {
  it('says what each confirm tool does in the refusal, and only the note in the description', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['account:write', 'consents:write']),
    );
    const expected: Record<string, [Record<string, unknown>, string]> = {
      sessions_one_revoke: [
        { sid: 'x' },
        'It signs one session (a phone or a browser, by its id from the session list) out.',
      ],
      sessions_all_revoke: [
        {},
        'It signs the person out of every phone and browser at once and revokes every personal token.',
      ],
      account_delete: [{}, "It permanently deletes the person's account."],
      account_ai_consent_revoke: [
        {},
        "It withdraws the person's consent to AI processing of a kind",
      ],
    };
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    for (const [tool, [args, note]] of Object.entries(expected)) {
      // issue 30 item 6: the description says what the tool does once, the refusal restates it
      expect(tools.get(tool)!.description, tool).not.toContain(note);
      expect(tools.get(tool)!.description, tool).toMatch(/ Ask the person first\.$/);
      const refused = await callTool(client, tool, args);
      expect(errorOf(refused), tool).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
      expect(errorOf(refused).message, tool).toContain(note);
      expect(errorOf(refused).message, tool).toContain('Ask the person first');
      expect(errorOf(refused).message, tool).not.toContain('deletes data');
    }
  });
});

describe('the README client set-up (item 16)', () => {
  const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

  it('shows a claude mcp add line for the HTTP transport with the personal token header', () => {
    const command = readme.match(
      /claude mcp add --transport http (\S+) (\S+) \\\n\s*--header "Authorization: Bearer hdp_pat_\.\.\."/,
    );
    expect(command, 'claude mcp add line').not.toBeNull();
    expect(new URL(command![2]).pathname).toBe('/api/mcp');
  });

  it('shows an mcpServers entry that a client connects with, as written', async () => {
    const block = [...readme.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((m) => m[1])
      .find((b) => b.includes('mcpServers'));
    expect(block, 'mcpServers block').toBeDefined();
    const config = JSON.parse(block!) as {
      mcpServers: Record<string, { type: string; url: string; headers: Record<string, string> }>;
    };
    const [entry] = Object.values(config.mcpServers);
    expect(entry).toMatchObject({ type: 'http', headers: { Authorization: 'Bearer hdp_pat_...' } });
    // the entry as written, pointed at this server and given a real personal token
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['profile:read']);
    const url = new URL(new URL(entry.url).pathname, app.baseUrl);
    const headers = {
      ...entry.headers,
      Authorization: entry.headers.Authorization.replace('hdp_pat_...', pat),
    };
    const client = new Client({ name: 'readme-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['get_profile']);
    } finally {
      await client.close();
    }
  });
});
