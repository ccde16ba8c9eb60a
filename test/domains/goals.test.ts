/**
 * Goals (issue 16): goals_list_read, goals_progress_read, goals_goal_set, goals_goal_clear through
 * MCP and their /api/v1/goals routes: upsert by metric, bounds, scopes, another person's goals,
 * and the progress rules of src/domains/goals/README.md (hydration from the logs domain too).
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { dateOf, dayAt, seedGlucose, seedMetric, seedSleep } from './goals.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

async function person(scopes: string[] = ['goals:read', 'goals:write']) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { ...u, pat, client: await mcpClient(app, pat) };
}

const setGoal = (token: string, metric: string, body: Record<string, unknown>) =>
  rest(app, 'PUT', `/api/v1/goals/${metric}`, { token, body });

describe('goals_goal_set and goals_list_read', () => {
  it('upserts by metric: setting twice leaves one goal with the last values', async () => {
    const p = await person();
    const first = await callTool(p.client, 'goals_goal_set', { metric: 'steps', target: 8000 });
    expect(first.isError).toBeFalsy();
    const again = await callTool(p.client, 'goals_goal_set', { metric: 'steps', target: 8000 });
    expect((again.structuredContent as any).id).toBe((first.structuredContent as any).id);
    const changed = await setGoal(p.token, 'steps', { target: 9000, direction: 'at_least' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      metric: 'steps',
      target: 9000,
      period: 'day',
      unit: 'count',
    });
    const listed = await callTool(p.client, 'goals_list_read');
    expect((listed.structuredContent as any).result ?? listed.structuredContent).toBeDefined();
    const rows = await rest(app, 'GET', '/api/v1/goals', { token: p.token });
    expect(rows.body).toHaveLength(1);
    expect(rows.body[0]).toMatchObject({ metric: 'steps', target: 9000 });
    expect(await app.db.prisma.goal.count({ where: { userId: p.user.id } })).toBe(1);
  });

  it('refuses targets outside the metric bounds and unknown metrics (422, isError)', async () => {
    const p = await person();
    expect((await setGoal(p.token, 'steps', { target: 50 })).status).toBe(422);
    expect((await setGoal(p.token, 'steps', { target: 500_000 })).status).toBe(422);
    expect((await setGoal(p.token, 'steps', { target: 500_000, period: 'week' })).status).toBe(200);
    expect((await setGoal(p.token, 'caffeine_mg', { target: 200 })).status).toBe(422);
    expect((await setGoal(p.token, 'sleep_minutes', { target: 480, period: 'month' })).status).toBe(
      422,
    );
    expect((await setGoal(p.token, 'body_weight', { target: 1e308 })).status).toBe(422);
    const bad = await callTool(p.client, 'goals_goal_set', {
      metric: 'glucose_time_in_range',
      target: 101,
    });
    expect(bad.isError).toBe(true);
  });

  it('needs goals:write to set and goals:read to list', async () => {
    const reader = await person(['goals:read']);
    expect((await setGoal(reader.pat, 'steps', { target: 8000 })).status).toBe(403);
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('goals_list_read');
    expect(names).not.toContain('goals_goal_set');
    const other = await person(['health:summary:read']);
    expect((await rest(app, 'GET', '/api/v1/goals', { token: other.pat })).status).toBe(403);
    expect((await callTool(other.client, 'goals_list_read')).isError).toBe(true);
  });
});

describe('goals_goal_clear', () => {
  it('asks for confirmation, tombstones the goal, then answers 404', async () => {
    const p = await person();
    await setGoal(p.token, 'sleep_minutes', { target: 420 });
    expect(
      (await callTool(p.client, 'goals_goal_clear', { metric: 'sleep_minutes' })).isError,
    ).toBe(true);
    const cleared = await callTool(p.client, 'goals_goal_clear', {
      metric: 'sleep_minutes',
      confirm: true,
    });
    expect(cleared.isError).toBeFalsy();
    const row = await app.db.prisma.goal.findFirstOrThrow({ where: { userId: p.user.id } });
    expect(row.deletedAt).not.toBeNull();
    expect((await rest(app, 'GET', '/api/v1/goals', { token: p.token })).body).toEqual([]);
    const again = await rest(app, 'DELETE', '/api/v1/goals/sleep_minutes', { token: p.token });
    expect(again.status).toBe(404);
  });

  it("never reaches another person's goal (404)", async () => {
    const owner = await person();
    const other = await person();
    await setGoal(owner.token, 'steps', { target: 8000 });
    expect((await rest(app, 'DELETE', '/api/v1/goals/steps', { token: other.token })).status).toBe(
      404,
    );
    const res = await callTool(other.client, 'goals_goal_clear', {
      metric: 'steps',
      confirm: true,
    });
    expect(res.isError).toBe(true);
    expect((await rest(app, 'GET', '/api/v1/goals', { token: owner.token })).body).toHaveLength(1);
    expect((await rest(app, 'GET', '/api/v1/goals', { token: other.token })).body).toEqual([]);
  });
});

describe('goals_progress_read', () => {
  it('computes each rule: largest source, past periods, union of sleep, last weight, time in range', async () => {
    const p = await person();
    const me = p.user.id;
    for (const [metric, body] of [
      ['steps', { target: 10_000 }],
      ['sleep_minutes', { target: 480 }],
      ['body_weight', { target: 75, direction: 'at_most' }],
      ['glucose_time_in_range', { target: 70 }],
    ] as const) {
      expect((await setGoal(p.token, metric, body)).status).toBe(200);
    }
    // steps today: two sources, the larger (12,000) counts; yesterday 8,000 (missed)
    await seedMetric(app, me, 'steps', 7000, dayAt(0, 0.1), 'watch');
    await seedMetric(app, me, 'steps', 5000, dayAt(0, 0.2), 'watch');
    await seedMetric(app, me, 'steps', 9000, dayAt(0, 0.3), 'phone');
    await seedMetric(app, me, 'steps', 8000, dayAt(-1, 12), 'watch');
    // last night: core 23:00-03:00 and deep 02:00-05:00 overlap: 6 h asleep, awake not counted
    await seedSleep(app, me, 'core', dayAt(-1, 23), dayAt(0, 3));
    await seedSleep(app, me, 'deep', dayAt(0, 2), dayAt(0, 5));
    await seedSleep(app, me, 'awake', dayAt(0, 5), dayAt(0, 5.5));
    // weight: the last of the day counts
    await seedMetric(app, me, 'body_weight', 74, dayAt(0, 0.1));
    await seedMetric(app, me, 'body_weight', 80, dayAt(0, 0.2));
    // glucose: 3 of 4 readings in 70..180
    for (const [v, h] of [
      [100, 0.1],
      [150, 0.2],
      [70, 0.3],
      [250, 0.4],
    ]) {
      await seedGlucose(app, me, v, dayAt(0, h));
    }
    const res = await rest(app, 'GET', '/api/v1/goals/progress?periods=2', { token: p.token });
    expect(res.status).toBe(200);
    expect(res.body.date).toBe(dateOf(0));
    const by = Object.fromEntries(res.body.goals.map((g: any) => [g.goal.metric, g.periods]));
    expect(by.steps[0]).toMatchObject({
      start: dateOf(0),
      current: true,
      value: 12_000,
      percent: 120,
      met: true,
      status: 'met',
    });
    expect(by.steps[1]).toMatchObject({
      start: dateOf(-1),
      current: false,
      value: 8000,
      met: false,
      status: 'missed',
    });
    expect(by.sleep_minutes[0]).toMatchObject({ value: 360, met: false, status: 'behind' });
    expect(by.sleep_minutes[1]).toMatchObject({ value: null, status: 'no_data' });
    expect(by.body_weight[0]).toMatchObject({ value: 80, met: false, status: 'behind' });
    expect(by.glucose_time_in_range[0]).toMatchObject({ value: 75, met: true, status: 'met' });

    const mcp = await callTool(p.client, 'goals_progress_read', { metric: 'steps' });
    const sc = mcp.structuredContent as any;
    expect(sc.goals).toHaveLength(1);
    expect(sc.goals[0].periods[0].value).toBe(12_000);
    expect(sc.meta).toHaveProperty('phone_last_sync_at');
  });

  it('sums a weekly goal over Monday..Sunday and paces the current period', async () => {
    const p = await person();
    await setGoal(p.token, 'exercise_minutes', { target: 150, period: 'week' });
    const res = await rest(app, 'GET', '/api/v1/goals/progress', { token: p.token });
    const period = res.body.goals[0].periods[0];
    const start = new Date(`${period.start}T00:00:00Z`);
    expect(start.getUTCDay()).toBe(1);
    expect(period.end).toBe(new Date(start.getTime() + 6 * 86_400_000).toISOString().slice(0, 10));
    expect(period.status).toBe('no_data');
    await app.db.prisma.workoutSample.create({
      data: {
        id: `w-${p.user.id}`,
        userId: p.user.id,
        activityType: 'running',
        startAt: start,
        endAt: new Date(start.getTime() + 3_600_000 * 3),
        durationMinutes: 180,
      },
    });
    const after = await rest(app, 'GET', '/api/v1/goals/progress', { token: p.token });
    expect(after.body.goals[0].periods[0]).toMatchObject({ value: 180, met: true, status: 'met' });
  });

  it('bounds periods to 1..12 and metric to the list (422)', async () => {
    const p = await person();
    for (const q of ['periods=13', 'periods=0', 'metric=caffeine_mg', 'periods=abc']) {
      expect(
        (await rest(app, 'GET', `/api/v1/goals/progress?${q}`, { token: p.token })).status,
      ).toBe(422);
    }
    expect((await callTool(p.client, 'goals_progress_read', { periods: 99 })).isError).toBe(true);
  });
});

describe('hydration goals', () => {
  const TOKYO_MS = 9 * 3_600_000; // Asia/Tokyo is UTC+9 all year
  /** The instant of local Tokyo time `hours` into today + `days` (Tokyo's today, not UTC's). */
  const tokyo = (days: number, hours: number): Date => {
    const local = new Date(clock.ms() + TOKYO_MS);
    const midnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
    return new Date(midnight - TOKYO_MS + days * 86_400_000 + hours * 3_600_000);
  };
  const tokyoDate = (days: number): string =>
    new Date(tokyo(days, 0).getTime() + TOKYO_MS).toISOString().slice(0, 10);
  const drink = (token: string, ml: number, at: Date) =>
    rest(app, 'POST', '/api/v1/health/logs/hydration', {
      token,
      body: { ml, logged_at: at.toISOString() },
    });

  it("sums the day's logged hydration in the person's zone, without deleted entries or other kinds", async () => {
    const p = await person(['goals:read', 'goals:write', 'health:logs:write']);
    const zoned = await rest(app, 'PATCH', '/api/auth/me', {
      token: p.token,
      body: { timezone: 'Asia/Tokyo' },
    });
    expect(zoned.status).toBe(200);
    const set = await callTool(p.client, 'goals_goal_set', { metric: 'hydration', target: 2000 });
    expect(set.structuredContent).toMatchObject({ metric: 'hydration', unit: 'ml', target: 2000 });
    // 00:30 and 23:30 local fall on one UTC day but on two Tokyo days
    expect((await drink(p.token, 500, tokyo(0, 0.5))).status).toBe(201);
    expect((await drink(p.token, 1600, tokyo(0, 8))).status).toBe(201);
    expect((await drink(p.token, 700, tokyo(-1, 23.5))).status).toBe(201);
    const deleted = await drink(p.token, 3000, tokyo(0, 1));
    const del = await rest(app, 'DELETE', `/api/v1/health/logs/${deleted.body.id}`, {
      token: p.token,
    });
    expect(del.status).toBe(200);
    const custom = await rest(app, 'POST', '/api/v1/health/logs/custom-metrics', {
      token: p.token,
      body: { name: 'water', value: 2500, unit: 'ml', logged_at: tokyo(0, 3).toISOString() },
    });
    expect(custom.status).toBe(201);
    const other = await person(['health:logs:write']);
    await drink(other.token, 4000, tokyo(0, 2));

    const res = await rest(app, 'GET', '/api/v1/goals/progress?periods=2&metric=hydration', {
      token: p.token,
    });
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('Asia/Tokyo');
    expect(res.body.date).toBe(tokyoDate(0));
    expect(res.body.goals[0].goal).toMatchObject({ metric: 'hydration', unit: 'ml' });
    expect(res.body.goals[0].periods).toMatchObject([
      { start: tokyoDate(0), value: 2100, percent: 105, met: true, status: 'met' },
      { start: tokyoDate(-1), value: 700, percent: 35, met: false, status: 'missed' },
    ]);
    const mcp = await callTool(p.client, 'goals_progress_read', { metric: 'hydration' });
    expect((mcp.structuredContent as any).goals[0].periods[0]).toMatchObject({ value: 2100 });
  });

  it('sums a week of hydration and bounds targets to 100..10000 ml a day, 7 times that a week', async () => {
    const p = await person(['goals:read', 'goals:write', 'health:logs:write']);
    expect((await setGoal(p.token, 'hydration', { target: 99 })).status).toBe(422);
    expect((await setGoal(p.token, 'hydration', { target: 10_001 })).status).toBe(422);
    expect((await setGoal(p.token, 'hydration', { target: 70_001, period: 'week' })).status).toBe(
      422,
    );
    expect((await setGoal(p.token, 'hydration', { target: 70_000, period: 'week' })).status).toBe(
      200,
    );
    const week = await rest(app, 'GET', '/api/v1/goals/progress', { token: p.token });
    const monday = new Date(`${week.body.goals[0].periods[0].start}T00:00:00Z`);
    expect(week.body.goals[0].periods[0].status).toBe('no_data');
    await drink(p.token, 1000, new Date(monday.getTime() + 10 * 3_600_000));
    await drink(p.token, 1500, new Date(monday.getTime() + 11 * 3_600_000));
    const after = await rest(app, 'GET', '/api/v1/goals/progress', { token: p.token });
    expect(after.body.goals[0].periods[0]).toMatchObject({ value: 2500, met: false });
  });
});
