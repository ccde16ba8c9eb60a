/**
 * Dynamic client registration on the OAuth host (RFC 7591; docs/mcp-oauth.md sections 6 and 12,
 * increment 5, first half): the redirect-URI policy (unit and over HTTP), auth methods, the secret
 * shown once and stored as its sha256, grant and response types, the name length, the 16 kB body
 * limit, 20 registrations per IP per hour, and hostile bodies that must never give a 5xx.
 * Every test names its own client IP (X-Forwarded-For; TRUST_PROXY is loopback) so the per-IP
 * limit counts only its own registrations.
 */
import { createHash } from 'node:crypto';
import { OAuthClientInformationFullSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import { checkRedirectUris, redirectUriIssue } from '../../src/domains/oauth/index.ts';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();
let ipCounter = 0;
/** A fresh client IP per call site (10.13.x.y). */
function freshIp(): string {
  ipCounter++;
  return `10.13.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

/** POST /oauth/register; answers the status and the parsed body (or the text). */
async function register(
  body: unknown,
  options: { ip?: string; raw?: string; contentType?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await app.mcpFetch('/oauth/register', {
    method: 'POST',
    headers: {
      'content-type': options.contentType ?? 'application/json',
      'x-forwarded-for': options.ip ?? freshIp(),
    },
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex');

const ACCEPTED = [
  'https://client.example/callback',
  'https://client.example:8443/cb?x=1',
  'http://127.0.0.1:33418/callback',
  'http://[::1]:8080/cb',
  'http://localhost:3000/callback',
  'http://LOCALHOST/cb',
  'com.example.app:/oauth2redirect',
  'cursor://anysphere.cursor-retrieval/oauth/callback',
];

const REFUSED: [string, string][] = [
  ['https://client.example/cb#frag', 'fragment'],
  ['https://user:pw@client.example/cb', 'user information'],
  ['https://user@client.example/cb', 'user information'],
  ['http://client.example/cb', 'http is allowed only'],
  ['http://192.168.1.10/cb', 'http is allowed only'],
  ['http://127.0.0.2/cb', 'http is allowed only'],
  ['file:///etc/passwd', 'file'],
  ['blob:https://client.example/x', 'blob'],
  ['about:blank', 'about'],
  ['ftp://client.example/cb', 'ftp'],
  ['ws://localhost/cb', 'ws'],
  ['wss://client.example/cb', 'wss'],
  ['intent://cb#Intent;end', 'fragment'],
  ['intent://cb', 'intent'],
  ['chrome://settings', 'chrome'],
  ['not a url', 'whitespace'],
  ['/relative/cb', 'absolute'],
];

describe('the redirect-URI policy (unit)', () => {
  it.each(ACCEPTED)('allows %s', (uri) => {
    expect(redirectUriIssue(uri)).toBeNull();
  });

  it.each(REFUSED)('refuses %s (%s)', (uri, why) => {
    expect(redirectUriIssue(uri)).toContain(why);
  });

  it('needs 1 to 10 URIs', () => {
    expect(() => checkRedirectUris([])).toThrow(/at least one/);
    expect(() => checkRedirectUris('https://a.example/cb')).toThrow(/at least one/);
    const eleven = Array.from({ length: 11 }, (_, i) => `https://a.example/cb${i}`);
    expect(() => checkRedirectUris(eleven)).toThrow(/at most 10/);
    expect(checkRedirectUris(eleven.slice(0, 10))).toHaveLength(10);
    expect(() => checkRedirectUris(['https://a.example/cb', 'javascript:alert(1)'])).toThrow(
      /not an absolute URL|javascript/,
    );
  });
});

describe('POST /oauth/register: redirect URIs', () => {
  it.each(ACCEPTED)('registers %s', async (uri) => {
    const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });

  it.each(REFUSED)('refuses %s with 400', async (uri) => {
    const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
    expect(res.status).toBe(400);
    expect(['invalid_redirect_uri', 'invalid_client_metadata']).toContain(res.body.error);
    expect(typeof res.body.error_description).toBe('string');
  });

  it('refuses browser schemes the SDK refuses itself (javascript, data, vbscript)', async () => {
    for (const uri of ['javascript:alert(1)', 'data:text/html,hi', 'vbscript:x']) {
      const res = await register({ redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(res.status, uri).toBe(400);
      expect(res.body.error, uri).toBe('invalid_client_metadata');
    }
  });

  it('names invalid_redirect_uri for our policy, and refuses none, or more than 10', async () => {
    const http = await register({ redirect_uris: ['http://evil.example/cb'] });
    expect(http.body.error).toBe('invalid_redirect_uri');
    expect(http.body.error_description).toMatch(/127\.0\.0\.1/);
    expect((await register({ redirect_uris: [] })).body.error).toBe('invalid_redirect_uri');
    expect((await register({})).body.error).toBe('invalid_client_metadata');
    const eleven = Array.from({ length: 11 }, (_, i) => `https://a.example/cb${i}`);
    const many = await register({ redirect_uris: eleven });
    expect(many.status).toBe(400);
    expect(many.body.error).toBe('invalid_redirect_uri');
  });
});

describe('POST /oauth/register: auth methods', () => {
  it('a public client (none) gets no secret', async () => {
    const res = await register({
      redirect_uris: ['http://127.0.0.1:9000/cb'],
      token_endpoint_auth_method: 'none',
      client_name: 'Public app',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(OAuthClientInformationFullSchema.safeParse(res.body).success).toBe(true);
    expect(res.body).not.toHaveProperty('client_secret');
    expect(res.body).not.toHaveProperty('client_secret_expires_at');
    expect(res.body).toMatchObject({
      token_endpoint_auth_method: 'none',
      client_name: 'Public app',
    });
    const row = await app.db.prisma.oAuthClient.findUniqueOrThrow({
      where: { id: res.body.client_id as string },
    });
    expect(row).toMatchObject({
      kind: 'dcr',
      authMethod: 'none',
      secretHash: null,
      name: 'Public app',
    });
  });

  it.each([['client_secret_post'], [undefined]])(
    'a confidential client (%s) sees its secret once; the row keeps only its sha256',
    async (method) => {
      const res = await register({
        redirect_uris: ['https://client.example/cb'],
        ...(method ? { token_endpoint_auth_method: method } : {}),
      });
      expect(res.status).toBe(201);
      const secret = res.body.client_secret as string;
      expect(secret).toMatch(/^hdp_ocs_[A-Za-z0-9_-]{43}$/);
      expect(res.body.client_secret_expires_at).toBe(0);
      expect(res.body.token_endpoint_auth_method).toBe('client_secret_post');
      expect(res.body.client_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof res.body.client_id_issued_at).toBe('number');
      const row = await app.db.prisma.oAuthClient.findUniqueOrThrow({
        where: { id: res.body.client_id as string },
      });
      expect(row.secretHash).toBe(sha256(secret));
      expect(row.authMethod).toBe('client_secret_post');
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row)).not.toContain(secret.slice('hdp_ocs_'.length));
    },
  );

  it('getClient never returns a secret', async () => {
    const { getClient } = await import('../../src/domains/oauth/index.ts');
    const res = await register({ redirect_uris: ['https://client.example/cb'] });
    const client = await getClient(app.db.prisma, res.body.client_id as string);
    expect(client).toBeDefined();
    expect(client).not.toHaveProperty('client_secret');
    expect(client).toMatchObject({
      client_id: res.body.client_id,
      redirect_uris: ['https://client.example/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(await getClient(app.db.prisma, 'no-such-client')).toBeUndefined();
    expect(await getClient(app.db.prisma, 'a\0b')).toBeUndefined();
  });

  it.each(['client_secret_basic', 'private_key_jwt', 'tls_client_auth', ''])(
    'refuses the auth method %j, naming both supported ones',
    async (method) => {
      const res = await register({
        redirect_uris: ['https://client.example/cb'],
        token_endpoint_auth_method: method,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
      expect(res.body.error_description).toContain('none');
      expect(res.body.error_description).toContain('client_secret_post');
    },
  );
});

describe('POST /oauth/register: other metadata', () => {
  const base = { redirect_uris: ['https://client.example/cb'], token_endpoint_auth_method: 'none' };

  it('accepts authorization_code and refresh_token grants and the code response type', async () => {
    const res = await register({
      ...base,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
  });

  it.each([
    [{ grant_types: ['client_credentials'] }, 'grant_types'],
    [{ grant_types: ['authorization_code', 'implicit'] }, 'grant_types'],
    [{ grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] }, 'grant_types'],
    [{ response_types: ['token'] }, 'response_types'],
    [{ response_types: ['code', 'id_token'] }, 'response_types'],
  ])('refuses %j', async (extra, field) => {
    const res = await register({ ...base, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toContain(field);
  });

  it('takes a client_name of 100 characters, not 101', async () => {
    expect((await register({ ...base, client_name: 'n'.repeat(100) })).status).toBe(201);
    const long = await register({ ...base, client_name: 'n'.repeat(101) });
    expect(long.status).toBe(400);
    expect(long.body.error).toBe('invalid_client_metadata');
    expect(long.body.error_description).toContain('client_name');
  });

  it('drops unknown fields and key material, and answers no secret of its own', async () => {
    const res = await register({
      ...base,
      application_type: 'native',
      jwks: { keys: [] },
      software_statement: 'x.y.z',
      client_secret: 'chosen-by-client',
    });
    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('application_type');
    expect(res.body).not.toHaveProperty('jwks');
    expect(res.body).not.toHaveProperty('software_statement');
    expect(res.body).not.toHaveProperty('client_secret');
  });

  it('answers 405 to other methods and CORS preflight', async () => {
    expect((await app.mcpFetch('/oauth/register')).status).toBe(405);
    const pre = await app.mcpFetch('/oauth/register', {
      method: 'OPTIONS',
      headers: { origin: 'https://client.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('POST /oauth/register: hostile input', () => {
  const base = { redirect_uris: ['https://client.example/cb'], token_endpoint_auth_method: 'none' };

  it('refuses a body over 16 kB without a 5xx', async () => {
    const res = await register({ ...base, client_uri: `https://a.example/${'x'.repeat(17_000)}` });
    expect([400, 413]).toContain(res.status);
    expect(res.body.error).toBeDefined();
  });

  it('never answers 5xx to non-JSON, NUL bytes, lone surrogates or deep nesting', async () => {
    const deep = `{"redirect_uris":["https://a.example/cb"],"jwks":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const cases: { raw: string; contentType?: string; accepted?: true }[] = [
      { raw: 'not json' },
      { raw: '{"redirect_uris": [' },
      { raw: 'null' },
      { raw: '[]' },
      { raw: '"a string"' },
      {
        raw: 'redirect_uris=https://a.example/cb',
        contentType: 'application/x-www-form-urlencoded',
      },
      { raw: '<xml/>', contentType: 'text/xml' },
      { raw: '', contentType: 'application/json' },
      { raw: JSON.stringify({ ...base, client_name: 'a\0b' }) },
      { raw: JSON.stringify({ ...base, software_id: 'a\0b' }) },
      { raw: JSON.stringify({ ...base, contacts: ['x\0@y'] }) },
      { raw: JSON.stringify({ ...base, redirect_uris: ['https://a.example/c\0b'] }) },
      { raw: JSON.stringify({ ...base, client_name: 'a\ud800b' }) },
      { raw: JSON.stringify({ ...base, scope: 'x\udc00' }) },
      { raw: deep },
      { raw: JSON.stringify({ ...base, redirect_uris: [{ nested: true }] }) },
      { raw: JSON.stringify({ ...base, client_name: 42 }) },
      { raw: JSON.stringify({ ...base, grant_types: 'authorization_code' }) },
      // prototype keys are plain unknown fields: dropped, the client registered
      {
        raw: `{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"none","__proto__":{"admin":true},"constructor":1}`,
        accepted: true,
      },
    ];
    for (const c of cases) {
      const res = await register(undefined, c);
      if (c.accepted) {
        expect(res.status, c.raw.slice(0, 80)).toBe(201);
        expect(res.body).not.toHaveProperty('admin');
        expect(res.body).not.toHaveProperty('constructor');
        continue;
      }
      expect(res.status, c.raw.slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(res.status, c.raw.slice(0, 80)).toBeLessThan(500);
      expect(res.body.error, c.raw.slice(0, 80)).toBeDefined();
    }
  });
});

describe('POST /oauth/register: limit', () => {
  it('answers 429 to the 21st registration from one IP within an hour, not to another IP', async () => {
    const ip = freshIp();
    const body = {
      redirect_uris: ['https://client.example/cb'],
      token_endpoint_auth_method: 'none',
    };
    for (let i = 0; i < 20; i++)
      expect((await register(body, { ip })).status, `#${i + 1}`).toBe(201);
    const limited = await register(body, { ip });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('too_many_requests');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await register(body)).status).toBe(201);
  });
});
