/**
 * Issue 10, security item 5: the HTTP edge of POST /api/mcp. JSON-RPC batches are refused (one
 * message per counted POST), the `Host` must be a configured name (DNS rebinding), a present
 * `Origin` must be allowed, and a 401 says `error="invalid_token"` when a bearer was presented.
 * Host headers are sent with node:http: fetch always sends the address it connects to.
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp, testConfig } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import type { JsonResponse } from '../harness/clients.ts';
import { mcpPost, rpc } from '../harness/mcp.ts';
import { MCP_PATH } from '../../mcp-facade/server.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

async function tokenFor(
  scopes: Scope[],
): Promise<{ token: string; userId: number; login: string }> {
  const { user, token: login } = await seedUser(app);
  return { token: await seedPersonalToken(app, user.id, scopes), userId: user.id, login };
}

interface RawPostOptions {
  /** the Host header (default: the address connected to; Node's server answers 400 without one) */
  host?: string;
  headers?: Record<string, string>;
  token?: string;
}

/** POST /api/mcp with a chosen Host header (fetch cannot set one). */
function rawPost(
  target: TestApp,
  body: unknown,
  options: RawPostOptions = {},
): Promise<JsonResponse> {
  const url = new URL(MCP_PATH, target.baseUrl);
  const payload = JSON.stringify(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'content-length': String(Buffer.byteLength(payload)),
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON: keep the text
          }
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('JSON-RPC batches', () => {
  it('refuses a batch of 70 tools/call with 400 Invalid Request and runs none of them (issue 10)', async () => {
    const { token, userId } = await tokenFor(['profile:read', 'profile:write']);
    const before = await app.db.prisma.user.findUniqueOrThrow({
      where: { id: userId },
      select: { name: true },
    });
    const batch = Array.from({ length: 70 }, (_, i) =>
      rpc('tools/call', { name: 'update_profile', arguments: { name: `Batch ${i}` } }),
    );
    const res = await mcpPost(app, batch, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Invalid Request: JSON-RPC batches are not supported; send one message per POST',
      },
      id: null,
    });
    const after = await app.db.prisma.user.findUniqueOrThrow({
      where: { id: userId },
      select: { name: true },
    });
    expect(after.name).toBe(before.name);
  });

  it('refuses a batch of one message too, and still serves the same message sent alone', async () => {
    const { token } = await tokenFor(['profile:read']);
    const call = rpc('tools/call', { name: 'get_profile', arguments: {} });
    const batched = await mcpPost(app, [call], { token });
    expect(batched.status).toBe(400);
    expect(batched.body).toMatchObject({ error: { code: -32600 }, id: null });
    const single = await mcpPost(app, call, { token });
    expect(single.status).toBe(200);
    expect(single.body.result.structuredContent).toHaveProperty('email');
  });
});

describe('Host (DNS rebinding)', () => {
  const list = rpc('tools/list');

  it('answers 403 to a Host that is not configured, with or without a port (issue 10)', async () => {
    const { token } = await tokenFor(['profile:read']);
    const port = new URL(app.baseUrl).port;
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      '127.0.0.1.evil.example',
      'localhost.',
    ]) {
      const res = await rawPost(app, list, { token, host });
      expect(res.status, host).toBe(403);
      expect(res.body, host).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Host not allowed' },
        id: null,
      });
    }
  });

  it('answers 403 to a rebound page whose Origin matches its own Host (issue 10)', async () => {
    const { token } = await tokenFor(['profile:read']);
    const port = new URL(app.baseUrl).port;
    const res = await rawPost(app, list, {
      token,
      host: `evil.example:${port}`,
      headers: { origin: `http://evil.example:${port}` },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { message: 'Host not allowed' } });
  });

  it('answers 403 to a malformed or overlong Host without echoing it', async () => {
    const { token } = await tokenFor(['profile:read']);
    for (const host of [
      'evil.example/x@127.0.0.1',
      '127.0.0.1@evil.example',
      `${'a'.repeat(5000)}.example`,
    ]) {
      const res = await rawPost(app, list, { token, host });
      expect(res.status, host.slice(0, 40)).toBe(403);
      expect(JSON.stringify(res.body).length).toBeLessThan(120);
    }
  });

  it('serves the loopback names on any port, and checks Host before authentication and method', async () => {
    const { token } = await tokenFor(['profile:read']);
    const port = new URL(app.baseUrl).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      'LocalHost',
      '[::1]:8000',
      '127.0.0.1',
    ]) {
      const res = await rawPost(app, list, { token, host });
      expect(res.status, host).toBe(200);
      expect(res.body.result.tools.map((t: { name: string }) => t.name)).toContain('get_profile');
    }
    expect((await rawPost(app, list, { host: 'evil.example' })).status).toBe(403); // no token: still 403
  });

  describe('with PUBLIC_URL and MCP_ALLOWED_HOSTS', async () => {
    const configured = await startTestApp({
      PUBLIC_URL: 'https://health.example.com',
      MCP_ALLOWED_HOSTS: 'mcp.internal, [fd00::1]',
      MCP_ALLOWED_ORIGINS: 'https://assistant.example.org',
    });

    it("serves PUBLIC_URL's host and the configured names, and still refuses others", async () => {
      const { user } = await seedUser(configured);
      const token = await seedPersonalToken(configured, user.id, ['profile:read']);
      for (const host of [
        'health.example.com',
        'health.example.com:443',
        'mcp.internal:8080',
        '[fd00::1]',
        'localhost',
      ]) {
        expect((await rawPost(configured, list, { token, host })).status, host).toBe(200);
      }
      for (const host of ['evil.example', 'example.com', 'internal']) {
        expect((await rawPost(configured, list, { token, host })).status, host).toBe(403);
      }
    });

    it('serves the PUBLIC_URL origin and MCP_ALLOWED_ORIGINS, and refuses a foreign Origin', async () => {
      const { user } = await seedUser(configured);
      const token = await seedPersonalToken(configured, user.id, ['profile:read']);
      const host = 'health.example.com';
      for (const origin of ['https://health.example.com', 'https://assistant.example.org']) {
        expect(
          (await rawPost(configured, list, { token, host, headers: { origin } })).status,
          origin,
        ).toBe(200);
      }
      for (const origin of [
        'https://evil.example',
        'http://health.example.com.evil.example',
        'null',
      ]) {
        const res = await rawPost(configured, list, { token, host, headers: { origin } });
        expect(res.status, origin).toBe(403);
        expect(res.body).toMatchObject({ error: { message: 'Origin not allowed' } });
      }
    });
  });
});

describe('Origin', () => {
  const list = rpc('tools/list');

  it('answers 403 to a foreign Origin on an allowed Host, before authentication', async () => {
    const { token } = await tokenFor(['profile:read']);
    for (const options of [{ token }, {}]) {
      const res = await mcpPost(app, list, {
        ...options,
        headers: { origin: 'https://evil.example' },
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Origin not allowed' },
        id: null,
      });
    }
  });

  it('serves its own origin and pages on this machine', async () => {
    const { token } = await tokenFor(['profile:read']);
    for (const origin of [app.baseUrl, 'http://localhost:5173', 'http://[::1]:3000']) {
      expect((await mcpPost(app, list, { token, headers: { origin } })).status, origin).toBe(200);
    }
  });
});

describe('401 answers', () => {
  const list = rpc('tools/list');

  it('say WWW-Authenticate: Bearer without error when no bearer was presented', async () => {
    const { userId } = await tokenFor(['profile:read']);
    const web = await seedWebSession(app, userId);
    const attempts: Record<string, string>[] = [
      {},
      { cookie: web.cookie, 'x-csrf-token': web.csrf },
      { authorization: 'Basic dTpw' },
    ];
    for (const headers of attempts) {
      const res = await mcpPost(app, list, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Not authenticated' },
        id: null,
      });
    }
  });

  it('say error="invalid_token" for an unknown, revoked or expired personal token or a login token (issue 10)', async () => {
    const revoked = await tokenFor(['profile:read']);
    await app.db.prisma.personalToken.updateMany({
      where: { userId: revoked.userId },
      data: { revokedAt: clock.now() },
    });
    const expired = await tokenFor(['profile:read']);
    await app.db.prisma.personalToken.updateMany({
      where: { userId: expired.userId },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const cases: Record<string, string> = {
      unknown: 'hdp_pat_not-a-real-token',
      revoked: revoked.token,
      expired: expired.token,
      'login token': revoked.login,
      garbage: 'not a token',
    };
    for (const [label, token] of Object.entries(cases)) {
      const res = await mcpPost(app, list, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status, label).toBe(401);
      expect(res.headers.get('www-authenticate'), label).toBe('Bearer error="invalid_token"');
      expect(res.body, label).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Invalid token: send an active personal token',
          data: { code: 'invalid_token' },
        },
        id: null,
      });
    }
  });
});

describe('MCP_ALLOWED_HOSTS', () => {
  it('reads host names (lower case, IPv6 in brackets) and defaults to none', () => {
    expect(testConfig().mcpAllowedHosts).toEqual([]);
    expect(
      testConfig({ MCP_ALLOWED_HOSTS: 'MCP.Example.com, [fd00::1],localhost' }).mcpAllowedHosts,
    ).toEqual(['mcp.example.com', '[fd00::1]', 'localhost']);
  });

  it('stops start on an entry with a scheme, port or path', () => {
    for (const entry of [
      'https://mcp.example.com',
      'mcp.example.com:8443',
      'mcp.example.com/mcp',
      'fd00::1',
      'a b',
    ]) {
      expect(() => testConfig({ MCP_ALLOWED_HOSTS: entry }), entry).toThrow(
        /MCP_ALLOWED_HOSTS: .* is not a host name/,
      );
    }
  });
});
