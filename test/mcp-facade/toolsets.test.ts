/**
 * Toolsets (issue 30 item 7): a client chooses the families of tools it wants in its MCP URL,
 * `/api/mcp?toolsets=glucose,nutrition` and the OAuth host's `/mcp?toolsets=...`. Tools outside the
 * chosen toolsets are neither listed nor callable (an Unknown tool error that says how to add the
 * toolset); `toolsets=all` or no parameter keeps every tool; an unknown name answers 400 listing
 * the valid ones. Through the SDK's own client, as a stock MCP client sees it.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_FAMILIES } from '../../mcp-facade/tools.ts';
import { OAUTH_SCOPES } from '../../src/auth/scope-families.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { consent } from '../harness/oauth.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';

const app = await startTestApp();
const oauthHost = { baseUrl: app.mcpUrl };

/** The family each shipped tool is listed under in mcp-facade/tools/ (the spec's families). */
const FAMILY = new Map(
  Object.entries(TOOL_FAMILIES).flatMap(([family, rows]) => rows.map((r) => [r.name, family])),
);
const FAMILIES = Object.keys(TOOL_FAMILIES).sort();

async function patFor(scopes: readonly Scope[] = SCOPES): Promise<string> {
  const { user } = await seedUser(app);
  return seedPersonalToken(app, user.id, [...scopes]);
}

const names = async (client: Client): Promise<string[]> =>
  (await client.listTools()).tools.map((t) => t.name);

/** The error a tools/call of `name` throws (a JSON-RPC error, not a tool result). */
async function callError(client: Client, name: string): Promise<McpError> {
  const error = await callTool(client, name).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, name).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('toolsets on /api/mcp (personal tokens)', () => {
  it('lists only the tools of the chosen toolsets, and every one of them the token may call', async () => {
    const token = await patFor();
    const all = await names(await mcpClient(app, token));
    const chosen = await names(
      await mcpClient(app, token, { path: '/api/mcp?toolsets=glucose,nutrition' }),
    );
    const expected = all.filter((n) => ['glucose', 'nutrition'].includes(FAMILY.get(n)!));
    expect(chosen).toEqual(expected);
    expect(chosen).toContain('get_glucose_readings');
    expect(chosen).toContain('nutrition_meal_log');
    expect(chosen.length).toBeGreaterThan(10);
    expect(chosen.length).toBeLessThan(all.length / 3);
  });

  it('keeps every tool for toolsets=all, for no toolsets parameter and when all is among the names', async () => {
    const token = await patFor();
    const all = await names(await mcpClient(app, token));
    expect(all.length).toBeGreaterThan(100);
    for (const path of ['/api/mcp?toolsets=all', '/api/mcp?toolsets=glucose,%20ALL']) {
      expect(await names(await mcpClient(app, token, { path })), path).toEqual(all);
    }
  });

  it('takes the parameter repeated, names in any case, spaces around them', async () => {
    const token = await patFor();
    const client = await mcpClient(app, token, {
      path: '/api/mcp?toolsets=%20Profile%20&toolsets=sessions',
    });
    const listed = await names(client);
    expect(listed).toContain('get_profile');
    expect(listed).toContain('sessions_list_read');
    expect(new Set(listed.map((n) => FAMILY.get(n)))).toEqual(new Set(['profile', 'sessions']));
  });

  it('still lists only what the scopes allow within the chosen toolsets', async () => {
    const token = await patFor(['profile:read', 'health:glucose:read']);
    const client = await mcpClient(app, token, { path: '/api/mcp?toolsets=profile' });
    expect(await names(client)).toEqual(['get_profile']);
  });

  it('refuses a call of a tool outside the chosen toolsets, saying how to add its toolset', async () => {
    const token = await patFor();
    const client = await mcpClient(app, token, { path: '/api/mcp?toolsets=glucose' });
    const error = await callError(client, 'get_profile');
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.message).toContain('Unknown tool: get_profile is in the toolset profile');
    expect(error.message).toContain('add profile to toolsets= in the MCP URL');
    // a name that is no tool at all reads as before
    expect((await callError(client, 'no_such_tool')).message).toMatch(
      /Unknown tool: no_such_tool$/,
    );
    // a tool of the chosen toolset runs
    const readings = await callTool(client, 'get_glucose_readings', {});
    expect(readings.isError).toBeFalsy();
  });

  it('tells the agent which toolsets it has in the instructions', async () => {
    const token = await patFor();
    const chosen = await mcpClient(app, token, { path: '/api/mcp?toolsets=nutrition,glucose' });
    expect(chosen.getInstructions()).toContain(
      'This connection offers the toolsets glucose, nutrition only',
    );
    expect((await mcpClient(app, token)).getInstructions()).not.toContain('toolsets');
  });

  it('answers an unknown toolset with 400 naming every valid toolset', async () => {
    const token = await patFor();
    const valid = ['all', ...FAMILIES];
    for (const query of ['toolsets=glucose,glucos', 'toolsets=', 'toolsets=,', 'toolsets=%20']) {
      const res = await mcpPost(app, rpc('tools/list'), { token, path: `/api/mcp?${query}` });
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: expect.stringContaining(`; the toolsets are ${valid.join(', ')}`),
          data: { code: 'unknown_toolset', toolsets: valid },
        },
        id: null,
      });
    }
    const res = await mcpPost(app, rpc('tools/list'), {
      token,
      path: '/api/mcp?toolsets=glucose,glucos',
    });
    expect(res.body.error.message).toMatch(/^Bad Request: unknown toolset glucos; /);
    // a stock client fails to connect, and its error carries the valid names
    await expect(mcpClient(app, token, { path: '/api/mcp?toolsets=horoscope' })).rejects.toThrow(
      /unknown toolset horoscope; the toolsets are all, access-grants, /,
    );
  });

  it('authenticates before it reads the toolsets', async () => {
    const res = await mcpPost(app, rpc('tools/list'), { path: '/api/mcp?toolsets=nope' });
    expect(res.status).toBe(401);
  });
});

describe('toolsets on the OAuth host /mcp', () => {
  it('lists and calls only the chosen toolsets, payment tools hidden as ever', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, [...OAUTH_SCOPES]);
    const client = await mcpClient(oauthHost, accessToken, {
      path: '/mcp?toolsets=orders,profile',
    });
    const listed = await names(client);
    expect(new Set(listed.map((n) => FAMILY.get(n)))).toEqual(new Set(['orders', 'profile']));
    expect(listed).toContain('get_profile');
    // payment tools stay hidden over OAuth: no toolset hint, the same Unknown tool as no tool
    expect(listed).not.toContain('orders_order_pay');
    expect((await callError(client, 'orders_order_pay')).message).toMatch(
      /Unknown tool: orders_order_pay$/,
    );
    // a tool of another toolset: named, with how to add it
    expect((await callError(client, 'get_glucose_readings')).message).toContain(
      'in the toolset glucose',
    );
    expect((await callTool(client, 'get_profile')).isError).toBeFalsy();
  });

  it('answers a tool outside the toolsets as unknown, not with a scope step-up', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, ['profile:read']);
    const res = await app.mcpFetch('/mcp?toolsets=profile', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${accessToken}`,
      },
      body: JSON.stringify(rpc('tools/call', { name: 'get_glucose_readings', arguments: {} })),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(ErrorCode.InvalidParams);
    expect(body.error.message).toContain('in the toolset glucose');
  });

  it('answers an unknown toolset with 400, and a request without a token with the 401 challenge', async () => {
    const { user } = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, user.id, ['profile:read']);
    const post = (token?: string) =>
      app.mcpFetch('/mcp?toolsets=nope', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(rpc('tools/list')),
      });
    const refused = await post(accessToken);
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: { data: { toolsets: string[] } } };
    expect(body.error.data.toolsets).toEqual(['all', ...FAMILIES]);
    const challenged = await post();
    expect(challenged.status).toBe(401);
    expect(challenged.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('lets a stock client discover, consent and connect with the toolsets URL', async () => {
    const person = await seedUser(app);
    const redirect = 'http://127.0.0.1:7/callback';
    const saved: { info?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier: string } = {
      verifier: '',
    };
    let returned: URL | undefined;
    const provider: OAuthClientProvider = {
      redirectUrl: redirect,
      clientMetadata: {
        client_name: 'Toolsets client',
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      } satisfies OAuthClientMetadata,
      clientInformation: () => saved.info,
      saveClientInformation: (info) => void (saved.info = info),
      tokens: () => saved.tokens,
      saveTokens: (tokens) => void (saved.tokens = tokens),
      redirectToAuthorization: async (url) => {
        returned = await consent(app, {
          email: person.user.email,
          password: person.password,
          authorizeUrl: url.href,
          families: ['read'],
        });
      },
      saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
      codeVerifier: () => saved.verifier,
    };
    const url = new URL(`${app.mcpUrl}/mcp?toolsets=profile`);
    const first = new Client({ name: 'toolsets-flow', version: '1.0.0' });
    await expect(
      first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider })),
    ).rejects.toThrow(UnauthorizedError);
    const code = returned?.searchParams.get('code');
    expect(code, String(returned)).toMatch(/^hdp_oac_/);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(code!);
    const client = new Client({ name: 'toolsets-flow', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(await names(client)).toEqual(['get_profile']);
    } finally {
      await client.close();
    }
  });
});
