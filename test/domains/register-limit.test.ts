/**
 * Issue 29, item 9: accounts created with a password are limited per client IP
 * (SIGNUPS_PER_IP_PER_HOUR, then 429 with Retry-After), on every door of the `register` mutation
 * (REST POST /api/auth/register and GraphQL), counted together. Every attempt counts, an address
 * that is taken too (so the limit also bounds probing for accounts); input refused by validation
 * does not.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, gql, rest } from '../harness/clients.ts';

const LIMIT = 3;
const app = await startTestApp({ SIGNUPS_PER_IP_PER_HOUR: String(LIMIT) });
// with TEST_REDIS_URL, count in Redis from the first sign-up (not in the fallback until it connects)
await app.limitStore.ready();

let seq = 0;
const newAddress = (): string => `signup${++seq}.${process.pid}@example.com`;

const register = (ip: Record<string, string>, email = newAddress()) =>
  rest(app, 'POST', '/api/auth/register', {
    body: { email, password: 'long enough' },
    headers: ip,
  });

const REGISTER = 'mutation ($input: RegisterInput!) { register(input: $input) { id } }';

describe('sign-ups per client IP (issue 29)', () => {
  it('defaults to 10 per hour', () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), DATA_DIR: '/tmp/hdp-test/data' });
    expect(config.SIGNUPS_PER_IP_PER_HOUR).toBe(10);
  });

  it('answers 429 with Retry-After beyond SIGNUPS_PER_IP_PER_HOUR from one IP; another IP still signs up', async () => {
    const ip = fromNewIp();
    for (let i = 0; i < LIMIT; i++)
      expect((await register(ip)).status, `sign-up ${i + 1}`).toBe(200);
    const email = newAddress();
    const over = await register(ip, email);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ detail: { code: 'rate_limited' } });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await app.db.prisma.user.count({ where: { email } })).toBe(0);
    expect((await register(fromNewIp())).status).toBe(200);
  });

  it('counts GraphQL and REST sign-ups together', async () => {
    const ip = fromNewIp();
    for (let i = 0; i < LIMIT; i++) {
      const res = await gql(app, REGISTER, {
        variables: { input: { email: newAddress(), password: 'long enough' } },
        headers: ip,
      });
      expect(res.body.errors, `sign-up ${i + 1}`).toBeUndefined();
    }
    expect((await register(ip)).status).toBe(429);
    const over = await gql(app, REGISTER, {
      variables: { input: { email: newAddress(), password: 'long enough' } },
      headers: ip,
    });
    expect(over.body.errors).toMatchObject([
      { extensions: { code: 'RATE_LIMITED', detail: { code: 'rate_limited' } } },
    ]);
    expect(over.body.errors[0].extensions.retryAfter).toBeGreaterThan(0);
  });

  it('counts an attempt on a taken address, not input refused by validation', async () => {
    const ip = fromNewIp();
    const taken = newAddress();
    expect((await register(ip, taken)).status).toBe(200);
    expect((await register(ip, taken)).status).toBe(409);
    const invalid = await rest(app, 'POST', '/api/auth/register', {
      body: { email: 'not-an-email', password: 'short' },
      headers: ip,
    });
    expect(invalid.status).toBe(422);
    expect((await register(ip)).status).toBe(200);
    expect((await register(ip)).status).toBe(429);
  });
});
