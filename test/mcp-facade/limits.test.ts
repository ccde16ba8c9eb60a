import { describe, expect, it } from 'vitest';
import { createLimiter, createMcpLimits, nextUtcMidnight } from '../../src/platform/rate-limit.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp, testConfig } from '../harness/app.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

describe('limit configuration', () => {
  it('defaults to 60 calls per minute and 2,000 tool calls per UTC day per token', () => {
    const config = testConfig();
    expect(config.MCP_CALLS_PER_MINUTE).toBe(60);
    expect(config.MCP_CALLS_PER_DAY).toBe(2000);
    const limits = createMcpLimits(config);
    expect([limits.perMinute.limit, limits.perDay.limit]).toEqual([60, 2000]);
  });
});

describe('calls per minute (MCP_CALLS_PER_MINUTE=5)', async () => {
  const app = await startTestApp({ MCP_CALLS_PER_MINUTE: '5' });

  it('answers 429 with Retry-After and a JSON body once a token made its calls for the minute', async () => {
    const { user } = await seedUser(app);
    const token = await seedPersonalToken(app, user.id, ['profile:read']);
    const other = await seedPersonalToken(app, user.id, ['profile:read'], 'second token');
    for (let i = 0; i < 3; i++) expect((await mcpPost(app, rpc('tools/list'))).status).toBe(401); // not counted
    for (let i = 0; i < 5; i++)
      expect((await mcpPost(app, rpc('tools/list'), { token })).status).toBe(200);
    const over = await mcpPost(app, rpc('tools/call', { name: 'get_profile' }), { token });
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.headers.get('content-type')).toContain('application/json');
    expect(over.body).toMatchObject({
      jsonrpc: '2.0',
      error: {
        message: 'Too many calls: 5 per minute per token',
        data: { code: 'rate_limited', retry_after: retryAfter },
      },
    });
    expect((await mcpPost(app, rpc('tools/list'), { token: other })).status).toBe(200);
  });
});

describe('tool calls per UTC day (MCP_CALLS_PER_DAY=3)', async () => {
  const app = await startTestApp({ MCP_CALLS_PER_DAY: '3' });

  it('refuses tool calls beyond the cap with isError RATE_LIMITED naming the reset time', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(app, await seedPersonalToken(app, user.id, ['profile:read']));
    for (let i = 0; i < 4; i++) await client.listTools(); // tools/list does not count
    expect((await callTool(client, 'update_profile', { name: 'x' })).isError).toBe(true); // refused by scope: not counted
    for (let i = 0; i < 3; i++)
      expect((await callTool(client, 'get_profile')).isError, `call ${i + 1}`).toBeFalsy();

    const over = await callTool(client, 'get_profile');
    expect(over.isError).toBe(true);
    const resetAt = nextUtcMidnight(clock.now()).toISOString();
    const error = (over.structuredContent as any).error;
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      detail: { code: 'rate_limited', limit: 3, reset_at: resetAt },
    });
    expect(error.message).toBe(
      `Daily limit of 3 tool calls reached for this token; it resets at ${resetAt}`,
    );
    expect(error.retry_after).toBeGreaterThan(0);
    expect(error.retry_after).toBeLessThanOrEqual(86_400);

    const fresh = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['profile:read'], 'another token'),
    );
    expect((await callTool(fresh, 'get_profile')).isError).toBeFalsy();
  });
});

describe('createLimiter', () => {
  it('counts a UTC day and starts again at 00:00 UTC', async () => {
    const limiter = createLimiter({ name: `t-day-${clock.ms()}`, points: 2, window: 'utc-day' });
    const late = new Date('2025-06-30T23:59:58.500Z');
    expect((await limiter.take('k', late)).allowed).toBe(true);
    expect((await limiter.take('k', late)).remaining).toBe(0);
    const refused = await limiter.take('k', late);
    expect(refused).toMatchObject({
      allowed: false,
      remaining: 0,
      retryAfterSeconds: 2,
      resetAt: new Date('2025-07-01T00:00:00Z'),
    });
    expect((await limiter.take('k', new Date('2025-07-01T00:00:00.100Z'))).allowed).toBe(true);
  });

  it('counts per key within a minute', async () => {
    const limiter = createLimiter({ name: `t-minute-${clock.ms()}`, points: 1, window: 'minute' });
    expect((await limiter.take('a')).allowed).toBe(true);
    const refused = await limiter.take('a');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await limiter.take('b')).allowed).toBe(true);
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('createLimiter on Redis', () => {
  it('shares one count between replicas', async () => {
    const config = { ...testConfig(), MCP_CALLS_PER_MINUTE: 3 };
    const namespace = `test-${process.pid}-${clock.ms()}`;
    const a = createMcpLimits(config, { namespace });
    const b = createMcpLimits(config, { namespace });
    const key = 'pat:1';
    try {
      await Promise.all([a.ready(), b.ready()]);
      expect((await a.perMinute.take(key)).allowed).toBe(true);
      expect((await b.perMinute.take(key)).allowed).toBe(true);
      expect((await a.perMinute.take(key)).allowed).toBe(true);
      expect((await b.perMinute.take(key)).allowed).toBe(false);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
