/**
 * The goal test of issue 13: the MCP SDK's own client, given only `<mcpUrl>/mcp`, discovers the
 * host, registers itself (or names its metadata document), sends the person to consent with PKCE,
 * exchanges the code, lists and calls tools, and refreshes by itself when its access token ends.
 * The person's approval is scripted (approveAt: the consent form posted as a browser would).
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
import { sha256 } from '../../src/auth/credentials.ts';
import { startFakeClientMetadata } from '../fakes/client-metadata.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { consent } from '../harness/oauth.ts';
import { clock } from '../../src/base/clock.ts';

const REDIRECT = 'http://127.0.0.1:7/callback';
const fake = await startFakeClientMetadata();
const app = await startTestApp({}, { clientMetadataDial: fake.dial });

/** An OAuthClientProvider as a desktop MCP client keeps it, whose "browser" is the scripted consent. */
class ScriptedClient implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  /** the redirect the consent answered (code, state, iss) */
  returned: URL | undefined;
  redirects = 0;

  constructor(
    private readonly on: TestApp,
    private readonly person: { email: string; password: string },
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK flow client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.redirects += 1;
    this.returned = await consent(this.on, {
      ...this.person,
      authorizeUrl: url.href,
      families: ['read'],
    });
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** Connects as a stock client does: the first connect asks the person, finishAuth, connect again. */
async function connectWithConsent(provider: ScriptedClient): Promise<Client> {
  const url = new URL(`${app.mcpUrl}/mcp`);
  const first = new Client({ name: 'sdk-flow', version: '1.0.0' });
  await expect(
    first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider })),
  ).rejects.toThrow(UnauthorizedError);
  const code = provider.returned?.searchParams.get('code');
  expect(code, String(provider.returned)).toMatch(/^hdp_oac_/);
  expect(provider.returned?.searchParams.get('iss')).toBe(app.mcpUrl);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(code!);
  const client = new Client({ name: 'sdk-flow', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('a stock MCP client with only the /mcp URL', () => {
  it('registers, asks the person, lists and calls tools, and refreshes by itself', async () => {
    const person = await seedUser(app, { name: 'Flow Person' });
    const provider = new ScriptedClient(app, {
      email: person.user.email,
      password: person.password,
    });
    const client = await connectWithConsent(provider);
    expect(provider.redirects).toBe(1);
    expect(provider.info?.client_id).toMatch(/^[0-9a-f-]{36}$/);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('get_profile');
    // only what reading grants: no writing tool, and never a payment
    expect(names).not.toContain('nutrition_meal_log');
    expect(tools.every((t) => !/pay/.test(t.name))).toBe(true);

    const profile = await client.callTool({ name: 'get_profile', arguments: {} });
    expect(profile.isError).toBeFalsy();
    expect(JSON.stringify(profile.content)).toContain('Flow Person');

    // the access token ends: the client refreshes with its refresh token, without the person
    const before = provider.saved!;
    await app.db.prisma.oAuthToken.updateMany({
      where: { tokenHash: sha256(before.access_token) },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const again = await client.callTool({ name: 'get_profile', arguments: {} });
    expect(again.isError).toBeFalsy();
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    expect(provider.redirects).toBe(1);
    await client.close();
  });

  it('connects with a client ID metadata document instead of registering', async () => {
    const path = '/sdk-flow/client.json';
    const clientId = fake.clientId(path);
    fake.serve(path, {
      body: {
        client_id: clientId,
        client_name: 'Metadata document client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      cacheControl: 'max-age=600',
    });
    const person = await seedUser(app);
    const provider = new ScriptedClient(
      app,
      { email: person.user.email, password: person.password },
      clientId,
    );
    const client = await connectWithConsent(provider);
    expect(provider.info?.client_id).toBe(clientId);
    expect((await client.callTool({ name: 'get_profile', arguments: {} })).isError).toBeFalsy();
    // fetched once, then served from the cache (authorize, token and the refresh all needed it)
    expect(fake.fetches(path)).toBe(1);
    const connection = await app.db.prisma.oAuthConnection.findFirstOrThrow({
      where: { userId: person.user.id },
    });
    expect(connection.clientName).toBe('Metadata document client');
    await client.close();
  });
});
