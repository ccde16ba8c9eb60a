/**
 * Issue 30: everyday tasks as an AI agent does them, end to end through a stock MCP client on a person
 * in Europe/Berlin. Each task is what the issue saw an agent trip on; each asserts the whole answer
 * an agent would act on.
 */
import { describe, expect, it } from 'vitest';
import { instantOfLocal, isoWithOffset } from '../../src/platform/local-time.ts';
import { seedGlucose, seedIntervals } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const MIN = 60_000;
const ZONE = 'Europe/Berlin';

/** The Berlin date `days` days ago. */
function berlinDate(days: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(
    new Date(clock.ms() - days * 86_400_000),
  );
}

/** A person in Berlin with an MCP client holding `scopes`, and their login token. */
async function agentFor(scopes: string[]) {
  const seeded = await seedUser(app);
  await app.db.prisma.user.update({ where: { id: seeded.user.id }, data: { timezone: ZONE } });
  const pat = await seedPersonalToken(app, seeded.user.id, scopes as any);
  return { ...seeded, client: await mcpClient(app, pat) };
}

/** A triangle: flat at 100, up to 160 at 45 min, back to 100 at 90 min, flat after. */
const triangle = (m: number): number =>
  m <= 0 ? 100 : m <= 45 ? 100 + (60 * m) / 45 : m <= 90 ? 160 - (60 * (m - 45)) / 45 : 100;

describe('task 1: "I had porridge at eight; how did my glucose respond?"', () => {
  it('logs the meal at eight local time and reads its response', async () => {
    const agent = await agentFor(['health:nutrition:write', 'health:glucose:read']);
    const date = berlinDate(2);
    const eight = instantOfLocal(`${date}T08:00:00`, ZONE)!.getTime();
    await seedGlucose(
      app,
      agent.token,
      Array.from({ length: 73 }, (_, i) => ({
        timestamp: new Date(eight + (i * 5 - 60) * MIN),
        valueMgDl: triangle(i * 5 - 60),
      })),
    );
    // the agent writes the time as the person said it: no offset
    const logged = await callTool(agent.client, 'nutrition_meal_log', {
      idempotency_key: 'porridge-at-eight',
      meal_name: 'Porridge',
      meal_type: 'breakfast',
      eaten_at: `${date}T08:00:00`,
      items: [{ name: 'Oats', grams: 60, kcal: 230, carbs_g: 40 }],
    });
    expect(logged.isError, JSON.stringify(logged.structuredContent)).toBeFalsy();
    const meal = logged.structuredContent as any;
    expect(meal.eaten_at).toBe(isoWithOffset(new Date(eight), ZONE));
    const read = await callTool(agent.client, 'meal_glucose_response_read', { meal_id: meal.id });
    expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
    const [item] = (read.structuredContent as any).items;
    expect(item).toMatchObject({ meal_id: meal.id, meal_type: 'breakfast', reason: null });
    expect(item.response).toMatchObject({
      baseline_mg_dl: 100,
      peak_mg_dl: 160,
      rise_mg_dl: 60,
      time_to_peak_minutes: 45,
      iauc_mg_dl_min: 2700,
    });
  });
});

describe('task 2: "did I sleep better this week than last week?"', () => {
  it('compares fourteen nights, night by night in local days, in one call', async () => {
    const agent = await agentFor(['health:summary:read']);
    // fourteen nights ending on the last fourteen local days: 23:00 to 06:00 (7 h) in the first
    // week, 23:30 to 05:30 (6 h) in the second
    const sleep = Array.from({ length: 14 }, (_, i) => {
      const end = berlinDate(14 - i);
      const start = berlinDate(15 - i);
      const [from, to] = i < 7 ? ['23:00', '06:00'] : ['23:30', '05:30'];
      return {
        stage: 'asleep',
        start_at: instantOfLocal(`${start}T${from}`, ZONE)!.toISOString(),
        end_at: instantOfLocal(`${end}T${to}`, ZONE)!.toISOString(),
        source: 'Watch',
      };
    });
    await seedIntervals(app, agent.token, { sleep });
    const calls: string[] = [];
    const range = async (args: Record<string, unknown>) => {
      calls.push(JSON.stringify(args));
      const res = await callTool(agent.client, 'health_summary_range', args);
      expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
      return res.structuredContent as any;
    };
    const nights = await range({
      from: berlinDate(14),
      to: berlinDate(1),
      interval: 'day',
      metric_types: ['sleep'],
    });
    expect(nights.timezone).toBe(ZONE);
    expect(nights.sleep.map((n: any) => n.asleep_minutes)).toEqual([
      ...Array(7).fill(420),
      ...Array(7).fill(360),
    ]);
    expect(calls.length).toBeLessThanOrEqual(3);
  });
});

describe('task 3: "how does my glucose respond after breakfast?"', () => {
  it('lists only breakfasts, each with its local time and zone, in one call', async () => {
    const agent = await agentFor(['health:nutrition:write', 'health:glucose:read']);
    for (const [i, type] of (['breakfast', 'lunch', 'breakfast'] as const).entries()) {
      const logged = await callTool(agent.client, 'nutrition_meal_log', {
        idempotency_key: `meal-${i}-of-three`,
        meal_type: type,
        eaten_at: `${berlinDate(3 - i)}T${type === 'breakfast' ? '07:30' : '12:30'}:00`,
        items: [{ name: 'Bread', grams: 80, kcal: 200, carbs_g: 38 }],
      });
      expect(logged.isError, JSON.stringify(logged.structuredContent)).toBeFalsy();
    }
    const res = await callTool(agent.client, 'meal_glucose_response_read', {
      meal_type: 'breakfast',
    });
    expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
    const items = (res.structuredContent as any).items;
    expect(
      items.map((m: any) => [m.meal_type, m.eaten_at_local.slice(11, 16), m.time_zone]),
    ).toEqual([
      ['breakfast', '07:30', ZONE],
      ['breakfast', '07:30', ZONE],
    ]);
  });
});

describe('task 4: "what was my sleep score last night?"', () => {
  it('answers local dates with the zone they are in', async () => {
    const agent = await agentFor(['health:summary:read']);
    const night = {
      stage: 'asleep',
      start_at: instantOfLocal(`${berlinDate(2)}T23:00`, ZONE)!.toISOString(),
      end_at: instantOfLocal(`${berlinDate(1)}T06:30`, ZONE)!.toISOString(),
      source: 'Watch',
    };
    await seedIntervals(app, agent.token, { sleep: [night] });
    const res = await callTool(agent.client, 'sleep_score_read', {});
    expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
    const items = (res.structuredContent as any).items as any[];
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.time_zone).toBe(ZONE);
  });
});
