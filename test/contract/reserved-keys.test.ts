/**
 * Issue 29 item 5: the keys `__proto__`, `constructor` and `prototype` on every door. MCP refuses
 * them as undeclared arguments like any other (`extra_forbidden`, both the personal-token door and
 * the OAuth host's /mcp); GraphQL refuses them as unknown input fields; REST and the OAuth host's
 * registration ignore them like any unknown field (FastAPI's habit). None ever sets a prototype,
 * passes a check (confirm) or reaches the data. Bodies are raw JSON text: JSON.parse makes
 * `__proto__` an own key, as a client's request does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolDeps } from '../../mcp-facade/call-tool.ts';
import { buildRegistry } from '../../mcp-facade/registry.ts';
import { mcpServer } from '../../mcp-facade/server.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import type { Context } from '../../src/graphql/context.ts';
import { schema } from '../../src/schema/schema.ts';
import { createLogger } from '../../src/base/logger.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { mcpPost } from '../harness/mcp.ts';
import { postForm } from '../harness/oauth-client.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const RESERVED = ['__proto__', 'constructor', 'prototype'];

afterEach(() => {
  // nothing any door did may have reached Object.prototype
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

type Door = (body: string) => Promise<any>;

/** A tools/call of `name` whose arguments are `args`, JSON text as sent. */
const call = (name: string, args: string): string =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;

const SCOPES = ['profile:write', 'account:write', 'health:nutrition:write'] as const;

async function patDoor(): Promise<{ post: Door; userId: number }> {
  const { user } = await seedUser(app);
  const token = await seedPersonalToken(app, user.id, [...SCOPES]);
  return { post: async (body) => (await mcpPost(app, body, { token })).body, userId: user.id };
}

async function oauthDoor(): Promise<{ post: Door; userId: number }> {
  const { user } = await seedUser(app);
  const { accessToken } = await seedOAuthConnection(app, user.id, [...SCOPES]);
  const post: Door = async (body) => {
    const res = await app.mcpFetch('/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${accessToken}`,
      },
      body,
    });
    expect(res.status).toBe(200);
    return res.json();
  };
  return { post, userId: user.id };
}

describe.each([
  ['/api/mcp (personal token)', patDoor],
  ['/mcp (OAuth)', oauthDoor],
])('MCP arguments on %s', (_door, open) => {
  it.each(RESERVED)(
    'refuses %s as an undeclared argument, like any other, and changes nothing',
    async (name) => {
      const { post, userId } = await open();
      const args = `{"${name}":{"height_cm":199,"polluted":true},"name":"X"}`;
      const answer = await post(call('update_profile', args));
      expect(answer.result.isError).toBe(true);
      expect(answer.result.structuredContent.error).toEqual({
        code: 'VALIDATION_FAILED',
        message: `Invalid arguments: ${name}: Extra inputs are not permitted`,
        retryable: false,
        detail: [{ loc: [name], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
      });
      const stored = await app.db.prisma.user.findUniqueOrThrow({ where: { id: userId } });
      expect(stored.name).not.toBe('X');
      expect(stored.heightCm).toBeNull();
    },
  );

  it('never reads confirm through a __proto__ argument', async () => {
    const { post, userId } = await open();
    const answer = await post(call('account_delete', '{"__proto__":{"confirm":true}}'));
    expect(answer.result.structuredContent.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['__proto__'], type: 'extra_forbidden' }],
    });
    expect(await app.db.prisma.user.count({ where: { id: userId } })).toBe(1);
  });

  it.each(RESERVED)(
    'refuses %s inside a nested input object (GraphQL: an unknown field)',
    async (name) => {
      const { post, userId } = await open();
      const item = `{"name":"rice","grams":100,"carbs_g":30,"${name}":{"polluted":true}}`;
      const answer = await post(
        call('nutrition_meal_log', `{"idempotency_key":"reserved-${name}","items":[${item}]}`),
      );
      expect(answer.result.isError).toBe(true);
      expect(answer.result.structuredContent.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(answer.result.structuredContent.error)).toContain(name);
      expect(await app.db.prisma.meal.count({ where: { userId } })).toBe(0);
    },
  );
});

describe('MCP arguments whose prototype a parser replaced', () => {
  it('count as sending __proto__: an inherited confirm is never read', async () => {
    const registry = buildRegistry(TOOLS, { schema, operations: app.operations });
    const ctx = {
      principal: {
        kind: 'personal_token',
        userId: 1,
        tokenId: 1,
        isAdmin: false,
        scopes: new Set(['account:write']),
      },
      requestId: 'test',
      log: createLogger('silent'),
    } as unknown as Context;
    // as if a parser had assigned `__proto__` instead of defining an own key
    const args = Object.create({ confirm: true }) as Record<string, unknown>;
    const message = { method: 'tools/call', params: { name: 'account_delete', arguments: args } };
    // nothing gets past the declared arguments, so nothing reaches the deps
    const server = mcpServer(registry, ctx, {} as CallToolDeps, 'pat', message);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'reserved-keys-test', version: '1.0.0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    const result = await client.callTool({ name: 'account_delete', arguments: {} });
    expect((result.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['__proto__'], type: 'extra_forbidden' }],
    });
    await client.close();
  });
});

describe('GraphQL variables', () => {
  it.each(RESERVED)(
    'refuses %s in an input object as an unknown field (no 5xx, no write)',
    async (name) => {
      const { user, token } = await seedUser(app);
      const res = await app.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body:
          '{"query":"mutation($input: UpdateProfileInput!) { updateProfile(input: $input) { name } }",' +
          `"variables":{"input":{"name":"X","${name}":{"isAdmin":true,"polluted":true}}}}`,
      });
      expect(res.status).toBeLessThan(500);
      const body = await res.json();
      expect(body.data ?? null).toBeNull();
      expect(body.errors[0].message).toContain(
        `"${name}" is not defined by type "UpdateProfileInput"`,
      );
      const stored = await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(stored.name).not.toBe('X');
      expect(stored.isAdmin).toBe(false);
    },
  );

  it('answers a __proto__ variable the operation does not declare without a 5xx', async () => {
    const { token } = await seedUser(app);
    const raw = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{"query":"query { me { id } }","variables":{"__proto__":{"polluted":true}}}',
    });
    expect(raw.status).toBeLessThan(500);
  });
});

describe('REST bodies', () => {
  it('ignores __proto__, constructor and prototype like any unknown field, at any depth', async () => {
    const { user, token } = await seedUser(app);
    const body = JSON.parse(
      '{"name":"Renamed","__proto__":{"is_admin":true,"name":"P","polluted":true},' +
        '"constructor":{"prototype":{"polluted":true}},"prototype":{"polluted":true}}',
    );
    const res = await rest(app, 'PATCH', '/api/auth/me', { token, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name: 'Renamed', is_admin: false });
    const stored = await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored).toMatchObject({ name: 'Renamed', isAdmin: false });

    // a list of input objects: each item's reserved keys are ignored too
    const readings = JSON.parse(
      `[{"timestamp":"${new Date(clock.ms() - 60_000).toISOString()}",` +
        '"value_mg_dl":101,"__proto__":{"value_mg_dl":999,"polluted":true},"constructor":1}]',
    );
    const batch = await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: readings });
    expect(batch).toMatchObject({ status: 200, body: 1 });
    const values = await app.db.prisma.glucoseReading.findMany({
      where: { userId: user.id },
      select: { valueMgDl: true },
    });
    expect(values.map((v) => v.valueMgDl)).not.toContain(999);
  });
});

describe('OAuth host JSON bodies', () => {
  it('registers a client whose metadata carried reserved keys, storing none of them', async () => {
    const res = await app.mcpFetch('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body:
        '{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none",' +
        '"__proto__":{"polluted":true,"client_name":"P"},"constructor":{"prototype":{"polluted":true}},"prototype":1}',
    });
    expect(res.status).toBe(201);
    const client = (await res.json()) as Record<string, unknown>;
    for (const name of RESERVED) expect(Object.hasOwn(client, name)).toBe(false);
    expect(client.client_name).toBeUndefined();
    const stored = await app.db.prisma.oAuthClient.findUniqueOrThrow({
      where: { id: client.client_id as string },
    });
    for (const name of RESERVED) expect(Object.hasOwn(stored.metadata as object, name)).toBe(false);
  });

  it('answers a token request whose form names reserved keys with a 4xx', async () => {
    const form = Object.fromEntries([
      ['grant_type', 'authorization_code'],
      ...RESERVED.map((name) => [name, 'x']),
    ]) as Record<string, string>;
    const res = await postForm(app, '/oauth/token', form);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
