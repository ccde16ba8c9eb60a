/**
 * The OAuth door's tool filter (docs/mcp-oauth.md section 10, increment 1): payment tools and rows
 * with `oauth: false` are neither listed nor callable over OAuth, and stay listed and callable over a
 * personal token. Through the registry, and through the SDK server of one request (tools/list and
 * tools/call) on an in-memory transport.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolDeps } from '../../mcp-facade/call-tool.ts';
import { buildRegistry } from '../../mcp-facade/registry.ts';
import { mcpServer } from '../../mcp-facade/server.ts';
import type { McpDoor, McpTool } from '../../mcp-facade/tool.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import type { Context } from '../../src/graphql/context.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { createLogger } from '../../src/base/logger.ts';

const ROWS: McpTool[] = [
  { name: 'profile_plain_read', operation: 'me', scopes: ['profile:read'], kind: 'read' },
  {
    name: 'profile_pat_only_read',
    operation: 'me',
    scopes: ['profile:read'],
    kind: 'read',
    oauth: false,
  },
  {
    name: 'profile_payment_take',
    operation: 'updateProfile',
    scopes: ['profile:write'],
    kind: 'takes a payment',
  },
];

const operations = loadOperations(schema);
const registry = buildRegistry(ROWS, { schema, operations });
const scopes = new Set(['profile:read', 'profile:write']);
const names = (door?: McpDoor): string[] => registry.visibleTo(scopes, door).map((t) => t.row.name);

describe('registry.visibleTo per door', () => {
  it('lists every row the scopes allow over a personal token, by default and for pat', () => {
    const all = ['profile_pat_only_read', 'profile_payment_take', 'profile_plain_read'];
    expect(names()).toEqual(all);
    expect(names('pat')).toEqual(all);
  });

  it('hides payment rows and rows with oauth: false over OAuth', () => {
    expect(names('oauth')).toEqual(['profile_plain_read']);
    expect(registry.tools.map((t) => [t.row.name, t.oauthHidden])).toEqual([
      ['profile_pat_only_read', true],
      ['profile_payment_take', true],
      ['profile_plain_read', false],
    ]);
  });

  it('still needs the scopes over OAuth', () => {
    expect(registry.visibleTo(new Set(), 'oauth')).toEqual([]);
    expect(registry.visibleTo(new Set(['profile:write']), 'oauth')).toEqual([]);
  });

  it('finds a hidden row by name over a personal token only', () => {
    for (const name of ['profile_pat_only_read', 'profile_payment_take']) {
      expect(registry.find(name)?.row.name).toBe(name);
      expect(registry.find(name, 'pat')?.row.name).toBe(name);
      expect(registry.find(name, 'oauth')).toBeUndefined();
    }
    expect(registry.find('profile_plain_read', 'oauth')?.row.name).toBe('profile_plain_read');
    expect(registry.find('no_such_tool', 'pat')).toBeUndefined();
  });

  it('keeps the shipped personal-token listing: pat hides nothing, oauth only payment and oauth: false rows', () => {
    const shipped = buildRegistry(TOOLS, { schema, operations });
    const pat = shipped.visibleTo(ALL_SCOPES, 'pat');
    expect(shipped.visibleTo(ALL_SCOPES)).toEqual(pat);
    expect(pat).toEqual(shipped.tools.filter((t) => !t.tokenCannotCall));
    const hidden = pat.filter((t) => !shipped.visibleTo(ALL_SCOPES, 'oauth').includes(t));
    expect(hidden.every((t) => t.row.kind === 'takes a payment' || t.row.oauth === false)).toBe(
      true,
    );
  });
});

/** An SDK client talking to the per-request server of `door`, for a token holding `scopes`. */
async function clientOf(door: McpDoor): Promise<Client> {
  const ctx = {
    principal: { kind: 'personal_token', userId: 1, tokenId: 1, isAdmin: false, scopes },
    requestId: 'test',
    log: createLogger('silent'),
  } as unknown as Context;
  // no call below gets past confirm or the declared arguments, so nothing reaches the deps
  const server = mcpServer(registry, ctx, {} as CallToolDeps, door);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'oauth-door-test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

describe('the MCP server per door', () => {
  it('lists the hidden rows over a personal token and not over OAuth', async () => {
    const listed = async (door: McpDoor): Promise<string[]> =>
      (await (await clientOf(door)).listTools()).tools.map((t) => t.name);
    expect(await listed('pat')).toEqual([
      'profile_pat_only_read',
      'profile_payment_take',
      'profile_plain_read',
    ]);
    expect(await listed('oauth')).toEqual(['profile_plain_read']);
  });

  it('answers Unknown tool for a hidden row over OAuth, and runs its call path over a personal token', async () => {
    const pat = await clientOf('pat');
    const payment = await pat.callTool({ name: 'profile_payment_take', arguments: {} });
    expect((payment.structuredContent as any).error.code).toBe('CONFIRMATION_REQUIRED');
    const patOnly = await pat.callTool({ name: 'profile_pat_only_read', arguments: { x: 1 } });
    expect((patOnly.structuredContent as any).error.code).toBe('VALIDATION_FAILED');

    const oauth = await clientOf('oauth');
    for (const name of ['profile_payment_take', 'profile_pat_only_read']) {
      await expect(oauth.callTool({ name, arguments: {} })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringContaining(`Unknown tool: ${name}`),
      });
    }
  });
});
