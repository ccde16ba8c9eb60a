/**
 * The generic limits service (src/platform/limits.ts) and the documented defaults of the account
 * limits; with TEST_REDIS_URL, two app instances of one deployment (one database, one Redis) share
 * a limit, as replicas behind a load balancer must.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLimits } from '../../src/platform/limits.ts';
import { limitNamespace, nextUtcMidnight, openLimitStore } from '../../src/platform/rate-limit.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp, testConfig } from '../harness/app.ts';
import { fromNewIp } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

describe('createLimits', () => {
  const limits = createLimits({ store: openLimitStore(undefined), namespace: `t-${randomUUID()}` });
  const rule = { name: 'test:rule', points: 2, seconds: 60 };

  it("counts events per rule and key, and refuses past the rule's points with the seconds to wait", async () => {
    expect(await limits.take(rule, 'a')).toMatchObject({ allowed: true, remaining: 1, limit: 2 });
    expect((await limits.take(rule, 'a')).allowed).toBe(true);
    const refused = await limits.take(rule, 'a');
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect((await limits.take(rule, 'b')).allowed).toBe(true);
    expect((await limits.take({ ...rule, name: 'test:other' }, 'a')).allowed).toBe(true);
  });

  it('peeks without counting and forgets a key on reset', async () => {
    expect(await limits.peek(rule, 'c')).toMatchObject({ allowed: true, remaining: 2 });
    await limits.take(rule, 'c');
    await limits.take(rule, 'c');
    expect((await limits.peek(rule, 'c')).allowed).toBe(false);
    expect((await limits.peek(rule, 'c')).allowed).toBe(false);
    await limits.reset(rule, 'c');
    expect(await limits.peek(rule, 'c')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('gives one event back on refund, and counts a utc-day rule until the next 00:00 UTC', async () => {
    const daily = { name: 'test:daily', points: 1, seconds: 'utc-day' as const };
    expect((await limits.take(daily, 'd')).allowed).toBe(true);
    await limits.refund(daily, 'd'); // the counted thing did not happen
    expect((await limits.take(daily, 'd')).allowed).toBe(true);
    const refused = await limits.take(daily, 'd');
    expect(refused.allowed).toBe(false);
    expect(refused.resetAt).toEqual(nextUtcMidnight(clock.now()));
  });
});

describe('account limit defaults', () => {
  it('are the documented numbers', () => {
    expect(testConfig()).toMatchObject({
      EMAIL_CODE_TTL_MINUTES: 10,
      EMAIL_CODES_PER_ADDRESS_PER_HOUR: 5,
      EMAIL_CODES_PER_IP_PER_HOUR: 20,
      EMAIL_CODE_GUESSES_PER_DAY: 100,
      PASSWORD_RESET_TTL_MINUTES: 60,
      PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: 5,
      PASSWORD_RESETS_PER_IP_PER_HOUR: 20,
      LOGIN_FAILURES_PER_15_MINUTES: 10,
    });
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('limits on Redis', async () => {
  const smtp = await startFakeSmtp();
  const first = await startTestApp({ SMTP_URL: smtp.url });
  // a second replica of the same deployment: same database, same Redis
  const second = await startTestApp({ SMTP_URL: smtp.url }, { database: first.db });

  const email = `replicas.${process.pid}.${clock.ms()}@example.com`;

  it('are shared by two app instances of one deployment', async () => {
    await Promise.all([first.limitStore.ready(), second.limitStore.ready()]);
    const start = (target: typeof first) =>
      target.fetch('/api/auth/email/start', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...fromNewIp() },
        body: JSON.stringify({ email }),
      });
    for (const target of [first, second, first, second, first])
      expect((await start(target)).status).toBe(200);
    expect((await start(second)).status).toBe(429);
    expect((await start(first)).status).toBe(429);
  });

  it('keep their keys under the namespace of the database', async () => {
    const keys = await first.limitStore.redis!.keys(`*${email}`);
    expect(keys.length).toBe(1);
    expect(keys[0].startsWith(`${limitNamespace(first.db.target)}:auth:code:address`)).toBe(true);
  });
});
