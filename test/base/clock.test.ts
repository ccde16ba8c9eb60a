/**
 * Issue 48, the one clock: the server reads the time only through src/base/clock.ts (a lint rule
 * forbids any other read), so a test that sets it moves the whole server's "now".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../src/base/clock.ts';
import { loadConfig } from '../../src/base/config.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();

afterEach(() => clock.set(null));

describe('the one clock', () => {
  it('is set to a moment and runs on from there; null gives the wall clock back', () => {
    const at = Date.parse('2031-12-31T22:59:30Z');
    clock.set('2031-12-31T22:59:30Z');
    const first = clock.ms();
    expect(first).toBeGreaterThanOrEqual(at);
    expect(first - at).toBeLessThan(60_000);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(first);
    clock.set(null);
    expect(Math.abs(clock.ms() - Date.now())).toBeLessThan(60_000);
    expect(() => clock.set('not a time')).toThrow(/not an ISO date-time/);
  });

  it("moves the server's now: a default trends window ends at the set moment", async () => {
    clock.set('2031-03-30T00:59:30+01:00');
    const { token } = await seedUser(app);
    const res = await rest(app, 'GET', '/api/glucose/trends', { token });
    expect(res.status).toBe(200);
    expect(res.body.end).toMatch(/^2031-03-29T23:5\d/);
  });

  it('starts at CLOCK_AT when the app is created; a CLOCK_AT that is no date-time is refused', async () => {
    expect(() => loadConfig({ CLOCK_AT: 'tomorrow' })).toThrow(/CLOCK_AT/);
    const other = await startTestApp({ CLOCK_AT: '2030-12-31T23:59:30+01:00' });
    const ms = clock.ms() - Date.parse('2030-12-31T23:59:30+01:00');
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(ms).toBeLessThan(60_000);
    await other.close();
  });
});
