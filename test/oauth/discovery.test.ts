/**
 * The OAuth MCP host's discovery (issue 13, docs/mcp-oauth.md sections 3, 10 and 11): its own
 * listener; `/mcp` answers every call without an OAuth access token for it with the RFC 9728
 * challenge (tokens themselves: access-token.test.ts); the protected-resource metadata of `/mcp`;
 * the authorization-server metadata; JSON 404s; the Host check.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/client/auth.js';
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';

const app = await startTestApp();
const PRM_PATH = '/.well-known/oauth-protected-resource/mcp';
const AS_PATH = '/.well-known/oauth-authorization-server';
const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };

/** A request with a raw Host header (fetch does not let one choose it). */
function rawRequest(
  path: string,
  host: string,
  method = 'GET',
  on: TestApp = app,
): Promise<{ status: number; body: unknown }> {
  const { port } = on.oauthServer.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the OAuth host /mcp', () => {
  it('listens on its own port, apart from the main app', () => {
    expect(app.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(app.mcpUrl).port).not.toBe(new URL(app.baseUrl).port);
  });

  it('challenges a call without a bearer with the metadata URL, on every method', async () => {
    for (const method of ['POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']) {
      const res = await app.mcpFetch('/mcp', {
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: method === 'POST' ? JSON.stringify(list) : undefined,
      });
      expect(res.status, method).toBe(401);
      expect(res.headers.get('www-authenticate'), method).toBe(
        `Bearer resource_metadata="${app.mcpUrl}${PRM_PATH}"`,
      );
      expect(await res.json(), method).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Not authenticated' },
        id: null,
      });
    }
    const head = await app.mcpFetch('/mcp', { method: 'HEAD' });
    expect(head.status).toBe(401);
    expect(head.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${app.mcpUrl}${PRM_PATH}"`,
    );
  });

  it('answers a presented bearer that is no OAuth token for it, even an active personal token, with invalid_token', async () => {
    const { user } = await seedUser(app);
    const token = await seedPersonalToken(app, user.id, ['profile:read']);
    for (const bearer of [token, 'not-a-token', '']) {
      for (const method of ['POST', 'GET', 'DELETE']) {
        const res = await app.mcpFetch('/mcp', {
          method,
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: method === 'POST' ? JSON.stringify(list) : undefined,
        });
        expect(res.status, `${method} ${bearer}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe(
          `Bearer error="invalid_token", resource_metadata="${app.mcpUrl}${PRM_PATH}"`,
        );
        expect(await res.json()).toEqual({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: 'Invalid token: send an active OAuth access token',
            data: { code: 'invalid_token' },
          },
          id: null,
        });
      }
    }
  });

  it('is not the main app: /api/mcp and the rest are JSON 404s here, also for a browser', async () => {
    for (const path of ['/api/mcp', '/graphql', '/', '/oauth/other', '/mcp/x']) {
      const res = await app.mcpFetch(path, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await res.json(), path).toEqual({ detail: 'Not Found' });
    }
  });

  it('serves no OpenID or root resource documents (they would describe something else)', async () => {
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource',
      '/oauth/userinfo',
    ]) {
      const res = await app.mcpFetch(path);
      expect(res.status, path).toBe(404);
    }
    // the endpoints exist with their methods only
    expect((await app.mcpFetch('/oauth/register')).status).toBe(405);
    expect((await app.mcpFetch('/oauth/token')).status).toBe(405);
    expect((await app.mcpFetch('/oauth/revoke')).status).toBe(405);
  });

  it('answers 403 under a Host it does not serve (DNS-rebinding defence), on every path', async () => {
    const port = new URL(app.mcpUrl).port;
    for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.evil.example']) {
      const mcp = await rawRequest('/mcp', host, 'POST');
      expect(mcp.status, host).toBe(403);
      expect(mcp.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Host not allowed' },
        id: null,
      });
      const prm = await rawRequest(PRM_PATH, host);
      expect(prm.status, host).toBe(403);
      expect(prm.body).toEqual({ detail: 'Host not allowed' });
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, '[::1]']) {
      expect((await rawRequest(PRM_PATH, host)).status, host).toBe(200);
    }
  });

  it('answers with a request id, as the main app does', async () => {
    const res = await app.mcpFetch(PRM_PATH, { headers: { 'x-request-id': 'oauth-host-1' } });
    expect(res.headers.get('x-request-id')).toBe('oauth-host-1');
  });
});

describe('the protected-resource metadata of /mcp (RFC 9728)', () => {
  it('names the resource, this origin as its authorization server and the OAuth scopes', async () => {
    const res = await app.mcpFetch(PRM_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as Record<string, unknown>;
    expect(OAuthProtectedResourceMetadataSchema.safeParse(body).success).toBe(true);
    expect(body).toEqual({
      resource: `${app.mcpUrl}/mcp`,
      authorization_servers: [app.mcpUrl],
      scopes_supported: SCOPES.filter((s) => s !== 'orders:pay'),
      bearer_methods_supported: ['header'],
      resource_name: 'Health Platform',
    });
    expect(body.scopes_supported).not.toContain('orders:pay');
    expect(body.scopes_supported).toContain('health:glucose:read');
  });

  it('answers CORS preflight, and 405 to other methods', async () => {
    const pre = await app.mcpFetch(PRM_PATH, {
      method: 'OPTIONS',
      headers: { origin: 'https://client.example', 'access-control-request-method': 'GET' },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const post = await app.mcpFetch(PRM_PATH, { method: 'POST' });
    expect(post.status).toBe(405);
  });
});

describe('the authorization-server metadata (RFC 8414)', () => {
  it('advertises the /oauth endpoints, S256 only, both grants, public clients and metadata documents', async () => {
    const res = await app.mcpFetch(AS_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const body = (await res.json()) as Record<string, unknown>;
    expect(OAuthMetadataSchema.safeParse(body).success).toBe(true);
    expect(body).toEqual({
      issuer: app.mcpUrl,
      authorization_endpoint: `${app.mcpUrl}/oauth/authorize`,
      token_endpoint: `${app.mcpUrl}/oauth/token`,
      registration_endpoint: `${app.mcpUrl}/oauth/register`,
      revocation_endpoint: `${app.mcpUrl}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
      scopes_supported: SCOPES.filter((s) => s !== 'orders:pay'),
      client_id_metadata_document_supported: true,
    });
    expect((await app.mcpFetch(AS_PATH, { method: 'POST' })).status).toBe(405);
  });

  it('is what the SDK client discovers from /mcp alone', async () => {
    const prm = await discoverOAuthProtectedResourceMetadata(`${app.mcpUrl}/mcp`);
    expect(prm.authorization_servers).toEqual([app.mcpUrl]);
    const as = await discoverAuthorizationServerMetadata(prm.authorization_servers![0]);
    expect(as?.token_endpoint).toBe(`${app.mcpUrl}/oauth/token`);
    expect(as?.code_challenge_methods_supported).toEqual(['S256']);
  });
});

describe('MCP_PUBLIC_URL', () => {
  it('is the origin of the challenge, the resource and the issuer, and a Host it serves', async () => {
    const other = await startTestApp({
      MCP_PUBLIC_URL: 'https://mcp.example.com/',
      MCP_ALLOWED_HOSTS: 'mcp.internal',
    });
    expect(other.mcpUrl).toBe('https://mcp.example.com');
    const res = await other.mcpFetch('/mcp', { method: 'POST' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="https://mcp.example.com${PRM_PATH}"`,
    );
    const prm = (await (await other.mcpFetch(PRM_PATH)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://mcp.example.com'],
    });
    expect(OAuthProtectedResourceMetadataSchema.safeParse(prm).success).toBe(true);
    // the public host and MCP_ALLOWED_HOSTS are served; others are not
    for (const host of ['mcp.example.com', 'MCP.example.com:443', 'mcp.internal:8001', 'localhost'])
      expect((await rawRequest(PRM_PATH, host, 'GET', other)).status, host).toBe(200);
    for (const host of ['example.com', 'health.example.com'])
      expect((await rawRequest(PRM_PATH, host, 'GET', other)).status, host).toBe(403);
  });
});
