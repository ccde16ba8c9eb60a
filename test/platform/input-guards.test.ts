/**
 * Issue 10: hostile input at the doors (REST, /graphql), each class refused with a clear 4xx in the
 * documented shape, and authentication before validation. The fuzz test (test/fuzz/) sends the
 * same classes to every route and tool; these tests pin the exact answers.
 */
import { describe, expect, it } from 'vitest';
import {
  jsonTextTooDeep,
  MAX_JSON_DEPTH,
  unsafeInputIssues,
} from '../../src/platform/input-guards.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { mcpPost, rpc } from '../harness/mcp.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';

describe('input guards (pure)', () => {
  it('measures JSON nesting on the raw text, ignoring brackets inside strings', () => {
    const deep = (n: number) => Buffer.from('['.repeat(n) + ']'.repeat(n));
    expect(jsonTextTooDeep(deep(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(deep(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTextTooDeep(Buffer.from(JSON.stringify({ a: '['.repeat(500) + '\\"[' })))).toBe(
      false,
    );
  });

  it('finds NUL characters in strings and keys, located by path', () => {
    expect(unsafeInputIssues({ input: { items: [{ name: 'a\0b' }], ['k\0']: 1 } })).toEqual([
      { loc: ['input', 'k\0'], msg: expect.stringContaining('NUL'), type: 'string_nul' },
      {
        loc: ['input', 'items', 0, 'name'],
        msg: expect.stringContaining('NUL'),
        type: 'string_nul',
      },
    ]);
  });

  it('refuses parsed values nested deeper than the limit without recursing', () => {
    let v: unknown = 1;
    for (let i = 0; i < 100_000; i++) v = [v];
    expect(unsafeInputIssues({ changes: v })).toEqual([
      { loc: ['changes'], msg: expect.stringContaining('64'), type: 'too_deep' },
    ]);
  });
});

describe('REST: hostile input', async () => {
  const app = await startTestApp();
  const { token } = await seedUser(app);

  it('answers 422 at the field for NUL characters in a JSON body, a query string and a path', async () => {
    const body = await rest(app, 'PATCH', '/api/auth/me', { token, body: { name: 'Ann\u0000' } });
    expect(body.status).toBe(422);
    expect(body.body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_nul' });

    const query = await rest(app, 'GET', '/api/foods/search?q=ap%00ple', { token });
    expect(query.status).toBe(422);
    expect(query.body.detail[0]).toMatchObject({ loc: ['query', 'q'], type: 'string_nul' });

    const path = await rest(app, 'POST', '/api/auth/sessions/abc%00/revoke', { token });
    expect(path.status).toBe(422);
    expect(path.body.detail[0]).toMatchObject({ loc: ['path', 'sid'], type: 'string_nul' });
  });

  it('refuses a body nested 20,000 levels deep before parsing it (422 json_invalid)', async () => {
    for (const path of ['/api/auth/login', '/api/glucose/readings/batch', '/api/sync/push']) {
      const res = await app.fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: '['.repeat(20_000),
      });
      expect(res.status, path).toBe(422);
      expect((await res.json()).detail[0]).toMatchObject({
        loc: ['body'],
        type: 'json_invalid',
        msg: expect.stringContaining('64'),
      });
    }
  });

  it('answers malformed JSON with 422 json_invalid, as FastAPI does', async () => {
    const res = await app.fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(res.status).toBe(422);
    expect((await res.json()).detail).toEqual([
      { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' },
    ]);
  });

  it('answers 415 with detail for an unsupported charset', async () => {
    const res = await app.fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=bogus' },
      body: '{"email":"a@example.com","password":"x"}',
    });
    expect(res.status).toBe(415);
    expect((await res.json()).detail).toMatch(/charset/);
  });

  it('answers 400 or 404, never 500, for malformed percent-encoding in a path', async () => {
    for (const bad of ['%C0%AE', '%uff0e%uff0e', '%ED%A0%80', '%', '%E0%A4%A']) {
      const res = await app.fetch(`/api/auth/sessions/${bad}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect([400, 404], bad).toContain(res.status);
      expect(await res.json(), bad).toHaveProperty('detail');
    }
  });

  it('answers 422 at the field for a lone surrogate, which PostgreSQL cannot store', async () => {
    const res = await rest(app, 'PATCH', '/api/auth/me', {
      token,
      body: { goals: ['ok', '\ud800'] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'goals', 1], type: 'string_unicode' });
  });

  it('refuses dates beyond year 9999 with 422, not 500', async () => {
    const pull = await rest(app, 'GET', '/api/sync/pull?last_pulled_at=1e20', { token });
    expect(pull.status).toBe(422);
    expect(pull.body.detail[0].loc).toEqual(['query', 'last_pulled_at']);
    const pushed = await rest(app, 'POST', '/api/sync/push', {
      token,
      body: {
        changes: {
          journal_entries: {
            created: [{ id: 'j1', body: 'x', happened_at: 1e20 }],
            updated: [],
            deleted: [],
          },
        },
        last_pulled_at: null,
      },
    });
    expect(pushed.status).toBe(422);
    const trends = await rest(
      app,
      'GET',
      '/api/glucose/trends?end_date=%2B275760-09-13T00:00:00.000Z',
      { token },
    );
    expect(trends.status).toBe(422);
    expect(trends.body.detail[0].loc).toEqual(['query', 'end_date']);

    const res = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { value: 100, timestamp: '+275760-09-13T00:00:00.000Z' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'timestamp']);
  });

  it('keeps error answers small: long input echoed to ~100 characters, at most 21 issues', async () => {
    const huge = 'x'.repeat(65_000);
    const one = await app.fetch('/api/v1/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'n', scopes: [huge] }),
    });
    expect(one.status).toBe(422);
    expect((await one.text()).length).toBeLessThan(4_000);

    const many = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: 'n', scopes: Array.from({ length: 1_000 }, (_, i) => `bad:${i}`) },
    });
    expect(many.status).toBe(422);
    expect(many.body.detail).toHaveLength(21);
    expect(many.body.detail[20]).toMatchObject({
      msg: '980 more errors not shown',
      type: 'too_many_errors',
    });
    expect(JSON.stringify(many.body).length).toBeLessThan(32_000);
  });
});

describe('REST: authentication before validation', async () => {
  const app = await startTestApp();

  it('answers 401 to an unauthenticated request whatever its body or parameters', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', '/api/glucose/readings', { value: 'not a number' }],
      ['GET', '/api/glucose/readings?limit=0&since_hours=-1', undefined],
      ['POST', '/api/v1/tokens', { scopes: ['nope'] }],
      ['PATCH', '/api/meals/not-an-id', { items: 'x' }],
      ['POST', '/api/sync/push', { changes: 5 }],
    ];
    for (const [method, path, body] of cases) {
      const res = await rest(app, method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('still validates public routes for anonymous callers', async () => {
    const res = await rest(app, 'GET', '/api/foods/search?q=a');
    expect(res.status).toBe(422);
  });
});

describe('GraphQL: credentials and hostile input at the HTTP level', async () => {
  const app = await startTestApp();
  const { token, sessionId } = await seedUser(app);

  it('answers HTTP 401 with WWW-Authenticate for an unknown, revoked or malformed bearer', async () => {
    const revoked = await seedUser(app);
    await rest(app, 'POST', `/api/auth/sessions/${revoked.sessionId}/revoke`, {
      token: revoked.token,
    });
    for (const bad of ['not-a-jwt', 'hdp_pat_unknown', revoked.token]) {
      const res = await gql(app, '{ foodStats { total } }', { token: bad });
      expect(res.status, bad.slice(0, 12)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      expect(res.body.data ?? null).toBeNull();
    }
  });

  it('keeps public fields open without a credential, and serves a valid one', async () => {
    expect((await gql(app, '{ foodStats { total } }')).status).toBe(200);
    const me = await gql(app, '{ me { id } }', { token });
    expect(me.status).toBe(200);
    expect(me.body.errors).toBeUndefined();
    expect(sessionId).toBeTruthy();
  });

  it('refuses NUL characters and runaway nesting in variables and documents', async () => {
    const nul = await gql(app, 'query($q: String!) { foodSearch(q: $q) { total } }', {
      variables: { q: 'ab\u0000' },
    });
    expect(nul.body.errors[0].extensions).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['q'], type: 'string_nul' }],
    });

    const deepVars = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"query":"query($c: JSON!) { __typename }","variables":{"c":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
    });
    expect(deepVars.status).toBeLessThan(500);
    expect((await deepVars.json()).errors[0].message).toMatch(/64/);

    const deepDoc = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ ${'me { '.repeat(5_000)}${'}'.repeat(5_001)}` }),
    });
    expect(deepDoc.status).toBe(400);
  });
});

describe('MCP: hostile input', async () => {
  const app = await startTestApp();
  const { user } = await seedUser(app);
  const pat = await seedPersonalToken(app, user.id, ['profile:read', 'profile:write']);
  const call = (args: unknown) => rpc('tools/call', { name: 'update_profile', arguments: args });

  it('answers a NUL character in an argument with an error result located at the argument', async () => {
    const res = await mcpPost(app, call({ name: 'Ann\u0000' }), { token: pat });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error.detail[0]).toMatchObject({
      loc: ['name'],
      type: 'string_nul',
    });
  });

  it('checks the facade arguments too: a NUL in an idempotency_key is an error result, not INTERNAL', async () => {
    const res = await mcpPost(
      app,
      rpc('tools/call', {
        name: 'update_profile',
        arguments: { name: 'Ann', idempotency_key: 'key\u0000key' },
      }),
      { token: pat },
    );
    expect(res.body.result.structuredContent.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['idempotency_key'], type: 'string_nul' }],
    });
  });

  it('answers arguments that are not an object with -32602 Invalid params, saying what to send', async () => {
    for (const args of [null, [], 'name=Ann', 5]) {
      const res = await mcpPost(
        app,
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'update_profile', arguments: args },
        },
        { token: pat },
      );
      expect(res.body, JSON.stringify(args)).toMatchObject({
        id: 7,
        error: { code: -32602, message: expect.stringContaining('arguments must be an object') },
      });
    }
    const params = await mcpPost(
      app,
      { jsonrpc: '2.0', id: 8, method: 'tools/list', params: 'all' },
      { token: pat },
    );
    expect(params.body).toMatchObject({ id: 8, error: { code: -32602 } });
  });

  it("answers any params that fail the SDK's own request schema with -32602 naming the field", async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['tools/call', { name: 1.5, arguments: {} }, 'params.name'],
      ['tools/list', { cursor: true }, 'params.cursor'],
      ['initialize', { protocolVersion: { a: 'b' }, capabilities: {}, clientInfo: {} }, 'params.'],
      ['initialize', { protocolVersion: '2025-06-18', capabilities: 5, clientInfo: {} }, 'params.'],
    ];
    for (const [method, params, at] of cases) {
      const res = await mcpPost(app, { jsonrpc: '2.0', id: 9, method, params }, { token: pat });
      expect(res.body, JSON.stringify(params)).toMatchObject({
        id: 9,
        error: { code: -32602, message: expect.stringContaining(`Invalid params: ${at}`) },
      });
    }
  });

  it('refuses a body nested 20,000 levels deep with 400 Invalid Request', async () => {
    const res = await mcpPost(
      app,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_profile","arguments":{"name":${'['.repeat(20_000)}}}}`,
      { token: pat },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: -32600, message: expect.stringContaining('64') });
  });

  it('answers 415 in the JSON-RPC shape for an unsupported charset', async () => {
    const res = await mcpPost(app, call({ name: 'Ann' }), {
      token: pat,
      headers: { 'content-type': 'application/json; charset=bogus' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error.message).toMatch(/charset/);
  });
});
