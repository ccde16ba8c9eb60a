/**
 * GET /metrics (issue 18): Prometheus counters move with REST, GraphQL and MCP calls under bounded
 * labels (route templates, tool and persisted operation names), a refusal by a limit counts, only
 * operators may read it (METRICS_TOKEN's bearer, else a direct loopback connection), and nothing
 * secret or personal appears in it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI } from '../fakes/openai.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';

const app = await startTestApp();

async function scrape(
  target: TestApp = app,
  headers: Record<string, string> = {},
): Promise<string> {
  const res = await target.fetch('/metrics', { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

/** The value of the sample `name` whose labels include `labels` (0 when there is none). */
function sample(text: string, name: string, labels: Record<string, string>): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const m = line.match(/^(\w+)(?:\{(.*)\})? (\S+)$/);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += Number(m[3]);
  }
  return total;
}

/** How much `name{labels}` moved while `act` ran. */
async function delta(
  name: string,
  labels: Record<string, string>,
  act: () => Promise<unknown>,
  target: TestApp = app,
): Promise<number> {
  const before = sample(await scrape(target), name, labels);
  await act();
  return sample(await scrape(target), name, labels) - before;
}

describe('GET /metrics', () => {
  it('serves the process metrics in Prometheus text format', async () => {
    const text = await scrape();
    for (const name of [
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_gc_duration_seconds',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });

  it('reports the PostgreSQL pool (nothing on PGlite: one in-process connection)', async () => {
    await app.fetch('/readyz');
    const text = await scrape();
    for (const name of [
      'db_pool_connections',
      'db_pool_idle_connections',
      'db_pool_waiting_requests',
    ])
      expect(text).toContain(`# TYPE ${name} gauge`);
    const open = sample(text, 'db_pool_connections', {});
    if (app.db.target.kind === 'pg') expect(open).toBeGreaterThan(0);
    else expect(open).toBe(0);
  });

  it('counts REST requests by route template, never the raw URL', async () => {
    const { token } = await seedUser(app);
    const auth = { authorization: `Bearer ${token}` };
    const me = { method: 'GET', route: '/api/auth/me', status: '200' };
    expect(
      await delta('http_requests_total', me, () => app.fetch('/api/auth/me', { headers: auth })),
    ).toBe(1);
    expect(
      await delta('http_request_duration_seconds_count', me, () =>
        app.fetch('/api/auth/me', { headers: auth }),
      ),
    ).toBe(1);
    const one = { method: 'GET', route: '/api/v1/experiments/{experiment_id}', status: '404' };
    expect(
      await delta('http_requests_total', one, () =>
        app.fetch('/api/v1/experiments/918273645', { headers: auth }),
      ),
    ).toBe(1);
    const unknown = { method: 'GET', route: 'other', status: '404' };
    expect(
      await delta('http_requests_total', unknown, () => app.fetch('/no/such/path/5551234')),
    ).toBe(1);
    const text = await scrape();
    expect(text).not.toContain('918273645');
    expect(text).not.toContain('5551234');
  });

  it('counts a persisted GraphQL operation by its manifest name, any other document as anonymous', async () => {
    const { token } = await seedUser(app);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const sha256Hash = app.operations.byName.get('me')!.id;
    const persisted = () =>
      app.fetch('/graphql', {
        method: 'POST',
        headers,
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash } } }),
      });
    expect(await delta('graphql_operations_total', { operation: 'me' }, persisted)).toBe(1);
    const http = { method: 'POST', route: 'graphql', status: '200' };
    expect(await delta('http_requests_total', http, persisted)).toBe(1);
    const adHoc = () =>
      app.fetch('/graphql', {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: 'query ClientChosenName7431 { __typename }' }),
      });
    expect(await delta('graphql_operations_total', { operation: 'anonymous' }, adHoc)).toBe(1);
    expect(await scrape()).not.toContain('ClientChosenName7431');
  });

  it('counts MCP tool calls by tool and outcome, and the POSTs under the mcp route', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(app, await seedPersonalToken(app, user.id, ['profile:read']));
    const ok = { tool: 'get_profile', outcome: 'ok' };
    expect(await delta('mcp_tool_calls_total', ok, () => callTool(client, 'get_profile'))).toBe(1);
    expect(
      await delta('mcp_tool_call_duration_seconds_count', { tool: 'get_profile' }, () =>
        callTool(client, 'get_profile'),
      ),
    ).toBe(1);
    const refused = { tool: 'update_profile', outcome: 'insufficient_scope' };
    expect(
      await delta('mcp_tool_calls_total', refused, () =>
        callTool(client, 'update_profile', { name: 'x' }),
      ),
    ).toBe(1);
    expect(
      sample(await scrape(), 'http_requests_total', { route: 'mcp', method: 'POST' }),
    ).toBeGreaterThan(0);
  });

  it('counts a 429 in rate_limit_hits_total under the limit name', async () => {
    const app = await startTestApp({
      MCP_CALLS_PER_MINUTE: '4',
      LOGIN_FAILURES_PER_15_MINUTES: '2',
    });
    const { user } = await seedUser(app);
    const token = await seedPersonalToken(app, user.id, ['profile:read']);
    const minute = { limit: 'mcp:minute' };
    const moved = await delta(
      'rate_limit_hits_total',
      minute,
      async () => {
        for (let i = 0; i < 4; i++)
          expect((await mcpPost(app, rpc('tools/list'), { token })).status).toBe(200);
        expect((await mcpPost(app, rpc('tools/list'), { token })).status).toBe(429);
      },
      app,
    );
    expect(moved).toBe(1);

    const { user: person } = await seedUser(app);
    const login = () =>
      app.fetch('/api/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: person.email, password: 'not the password' }),
      });
    const throttled = await delta(
      'rate_limit_hits_total',
      { limit: 'auth:login-fail' },
      async () => {
        expect((await login()).status).toBe(401);
        expect((await login()).status).toBe(401);
        expect((await login()).status).toBe(429);
      },
      app,
    );
    expect(throttled).toBe(1);
  });

  it('holds no token, email or user id', async () => {
    const { user, token } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['profile:read']);
    await app.fetch('/api/auth/me', { headers: { authorization: `Bearer ${token}` } });
    await callTool(await mcpClient(app, pat), 'get_profile');
    const text = await scrape();
    for (const secret of [token, pat, user.email, user.email.split('@')[0]])
      expect(text).not.toContain(secret);
    const labelNames = new Set([...text.matchAll(/[{,](\w+)="/g)].map((m) => m[1]));
    for (const name of labelNames)
      expect(['user', 'user_id', 'email', 'token']).not.toContain(name);
    const labelValues = [...text.matchAll(/="([^"]*)"/g)].map((m) => m[1]);
    expect(labelValues).not.toContain(String(user.id));
  });
});

describe('the AI ledger', async () => {
  const fake = await startFakeOpenAI();
  afterAll(() => fake.close());
  const ai = await startTestApp({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.url,
    MEALS_SUGGEST_NAME_DAILY_CAP: '1',
  });

  it('counts model calls, tokens and cost as the ledger records them, and a spent cap as a limit hit', async () => {
    const { token } = await seedUser(ai);
    const suggest = () =>
      ai.fetch('/api/meals/suggest_name', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ items: [{ name: 'rice', grams: 150 }], hour: 13 }),
      });
    const feature = { feature: 'meal_suggest_name' };
    const before = await scrape(ai);
    fake.reply({ name: 'Rice bowl' });
    expect((await suggest()).status).toBe(200);
    const after = await scrape(ai);
    const moved = (name: string, labels: Record<string, string>): number =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved('ai_calls_total', { ...feature, outcome: 'ok', cached: 'false' })).toBe(1);
    expect(moved('ai_tokens_total', { ...feature, direction: 'in' })).toBeGreaterThan(0);
    expect(moved('ai_tokens_total', { ...feature, direction: 'out' })).toBeGreaterThan(0);
    expect(moved('ai_cost_usd_total', feature)).toBeGreaterThan(0);
    const cap = { limit: 'ai:meals_suggest_name' };
    expect(
      await delta(
        'rate_limit_hits_total',
        cap,
        async () => {
          expect((await suggest()).status).toBe(429);
        },
        ai,
      ),
    ).toBe(1);
  });
});

describe('who may read /metrics', () => {
  it('answers a direct loopback connection without a token, never a proxied request', async () => {
    expect((await app.fetch('/metrics')).status).toBe(200);
    const proxied = await app.fetch('/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.status).toBe(403);
    expect(await proxied.text()).not.toContain('http_requests_total');
    const forwarded = await app.fetch('/metrics', { headers: { forwarded: 'for=203.0.113.9' } });
    expect(forwarded.status).toBe(403);
    expect((await app.fetch('/metrics', { method: 'POST' })).status).toBe(405);
  });

  it("asks for METRICS_TOKEN's bearer when it is set, even on loopback", async () => {
    const secret = 'metrics-token-0123456789abcdef';
    const guarded = await startTestApp({ METRICS_TOKEN: secret });
    const none = await guarded.fetch('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const wrong = await guarded.fetch('/metrics', {
      headers: { authorization: 'Bearer metrics-token-0123456789abcdeX' },
    });
    expect(wrong.status).toBe(401);
    const short = await guarded.fetch('/metrics', { headers: { authorization: 'Bearer x' } });
    expect(short.status).toBe(401);
    const text = await scrape(guarded, { authorization: `Bearer ${secret}` });
    expect(text).toContain('http_requests_total');
    expect(text).not.toContain(secret);
  });
});
