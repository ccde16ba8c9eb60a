/**
 * Home (issue 16): home_headline_read, get_home_next_actions, home_streak_read and
 * morning_review_read through MCP and /api/v1/home, one test per rule of src/domains/home/README.md.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { dateOf, dayAt, rand, seedGlucose, seedMetric, seedSleep } from './goals.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

async function person() {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
  return { ...u, client: await mcpClient(app, pat) };
}

const setGoal = (token: string, metric: string, body: Record<string, unknown>) =>
  rest(app, 'PUT', `/api/v1/goals/${metric}`, { token, body });
const synced = (userId: number, at: Date | null) =>
  app.db.prisma.user.update({ where: { id: userId }, data: { phoneLastSyncAt: at } });

describe('home_headline_read', () => {
  it('says last night’s sleep and the goals met, with the numbers behind it', async () => {
    const p = await person();
    await seedSleep(app, p.user.id, 'asleep', dayAt(-1, 23), dayAt(0, 6));
    await seedMetric(app, p.user.id, 'steps', 12_000, dayAt(0, 0.5));
    await setGoal(p.token, 'steps', { target: 10_000 });
    await setGoal(p.token, 'sleep_minutes', { target: 480 });
    const res = await rest(app, 'GET', '/api/v1/home/headline', { token: p.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      date: dateOf(0),
      sentence: 'You slept 7 h 0 min, 1 of 2 goals met so far.',
      sleep_minutes_last_night: 420,
      steps_today: 12_000,
      goals_met: 1,
      goals_total: 2,
      recovery_score: null,
    });
    const mcp = await callTool(p.client, 'home_headline_read');
    expect((mcp.structuredContent as any).sentence).toBe(res.body.sentence);
  });

  it('says so when no sleep is recorded and no goal is set', async () => {
    const p = await person();
    const res = await callTool(p.client, 'home_headline_read');
    expect((res.structuredContent as any).sentence).toBe('No sleep recorded last night.');
  });

  it('needs health:summary:read', async () => {
    const u = await seedUser(app);
    const pat = await seedPersonalToken(app, u.user.id, ['goals:read']);
    for (const path of ['headline', 'next-actions', 'streak', 'morning-review']) {
      expect((await rest(app, 'GET', `/api/v1/home/${path}`, { token: pat })).status).toBe(403);
    }
    const client = await mcpClient(app, pat);
    expect((await callTool(client, 'morning_review_read')).isError).toBe(true);
  });
});

describe('get_home_next_actions', () => {
  it('ranks sync_phone, log_weight and set_goal for a new person', async () => {
    const p = await person();
    const res = await callTool(p.client, 'get_home_next_actions');
    const actions = (res.structuredContent as any).actions;
    expect(actions.map((a: any) => [a.rank, a.kind])).toEqual([
      [1, 'sync_phone'],
      [2, 'log_weight'],
      [3, 'set_goal'],
    ]);
    expect(actions[0].reason).toMatch(/never synced/);
  });

  it('puts a goal behind first once the phone synced and a weight is recent', async () => {
    const p = await person();
    await synced(p.user.id, clock.now());
    await seedMetric(app, p.user.id, 'body_weight', 70, new Date(clock.ms() - 2 * 86_400_000));
    await setGoal(p.token, 'sleep_minutes', { target: 480 });
    await setGoal(p.token, 'exercise_minutes', { target: 30 });
    await seedSleep(app, p.user.id, 'asleep', dayAt(-1, 23), dayAt(0, 5));
    const res = await rest(app, 'GET', '/api/v1/home/next-actions', { token: p.token });
    expect(res.body.actions.map((a: any) => [a.kind, a.metric])).toEqual([
      ['goal_behind', 'sleep_minutes'],
      ['goal_no_data', 'exercise_minutes'],
    ]);
    expect(res.body.actions[0].reason).toBe('360 of 480 min today (75%)');
    const one = await rest(app, 'GET', '/api/v1/home/next-actions?limit=1', { token: p.token });
    expect(one.body.actions).toHaveLength(1);
  });

  it('names a stale sync and a stale weight with their age', async () => {
    const p = await person();
    await synced(p.user.id, new Date(clock.ms() - 30 * 3_600_000));
    await seedMetric(app, p.user.id, 'body_weight', 70, new Date(clock.ms() - 9.5 * 86_400_000));
    const res = await rest(app, 'GET', '/api/v1/home/next-actions', { token: p.token });
    expect(res.body.actions[0]).toMatchObject({
      kind: 'sync_phone',
      reason: expect.stringMatching(/30 h ago/),
    });
    expect(res.body.actions[1]).toMatchObject({
      kind: 'log_weight',
      reason: 'No body weight in 9 days',
    });
  });

  it('bounds limit to 1..10 (422)', async () => {
    const p = await person();
    for (const q of ['limit=0', 'limit=11', 'limit=x']) {
      expect(
        (await rest(app, 'GET', `/api/v1/home/next-actions?${q}`, { token: p.token })).status,
      ).toBe(422);
    }
    expect((await callTool(p.client, 'get_home_next_actions', { limit: 50 })).isError).toBe(true);
  });
});

describe('home_streak_read', () => {
  it('counts days meeting every daily goal up to yesterday, and days with data up to today', async () => {
    const p = await person();
    await setGoal(p.token, 'steps', { target: 1000 });
    await setGoal(p.token, 'exercise_minutes', { target: 600, period: 'week' }); // weekly: not checked
    for (const d of [-1, -2, -3]) await seedMetric(app, p.user.id, 'steps', 1500, dayAt(d, 12));
    await seedMetric(app, p.user.id, 'steps', 500, dayAt(-4, 12)); // missed: ends the streak
    await seedMetric(app, p.user.id, 'steps', 1500, dayAt(-5, 12));
    await seedGlucose(app, p.user.id, 110, dayAt(0, 0.1)); // today has data, but no steps yet
    const res = await rest(app, 'GET', '/api/v1/home/streak', { token: p.token });
    expect(res.body).toMatchObject({
      date: dateOf(0),
      window_days: 90,
      daily_goals: 1,
      goals: { days: 3, includes_today: false },
      logging: { days: 6, includes_today: true },
    });
    await seedMetric(app, p.user.id, 'steps', 2000, dayAt(0, 0.2));
    const mcp = (await callTool(p.client, 'home_streak_read')).structuredContent as any;
    expect(mcp.goals).toEqual({ days: 4, includes_today: true });
  });

  it('has no goals streak without daily goals', async () => {
    const p = await person();
    await seedMetric(app, p.user.id, 'steps', 1500, dayAt(-1, 12));
    const res = await rest(app, 'GET', '/api/v1/home/streak', { token: p.token });
    expect(res.body).toMatchObject({
      daily_goals: 0,
      goals: { days: 0, includes_today: false },
      logging: { days: 1, includes_today: false },
    });
  });
});

describe('morning_review_read', () => {
  it('reviews last night: sleep, snoring, overnight glucose between bedtime and wake time, scores', async () => {
    const p = await person();
    const me = p.user.id;
    await seedSleep(app, me, 'core', dayAt(-1, 23), dayAt(0, 3));
    await seedSleep(app, me, 'rem', dayAt(0, 3), dayAt(0, 6));
    await seedGlucose(app, me, 100, dayAt(0, 2));
    await seedGlucose(app, me, 60, dayAt(0, 4));
    await seedGlucose(app, me, 300, dayAt(0, 7)); // after waking: not overnight
    await app.db.prisma.snoreNight.create({
      data: {
        id: rand(),
        userId: me,
        startedAt: dayAt(-1, 23),
        endedAt: dayAt(0, 6),
        snoringMinutes: 35,
        episodes: 4,
      },
    });
    const res = await rest(app, 'GET', '/api/v1/home/morning-review', { token: p.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      date: dateOf(0),
      asleep_minutes: 420,
      bedtime: dayAt(-1, 23).toISOString(),
      wake_time: dayAt(0, 6).toISOString(),
      snoring: { snoring_minutes: 35, episodes: 4, night_date: dateOf(0) },
      glucose_window_start: dayAt(-1, 23).toISOString(),
      glucose: {
        readings: 2,
        mean_mg_dl: 80,
        min_mg_dl: 60,
        max_mg_dl: 100,
        below_range_pct: 50,
        in_range_pct: 50,
      },
      sleep_score: { score: expect.any(Number), reason: null },
      recovery_score: { score: null, reason: expect.any(String) },
    });
    const mcp = (await callTool(p.client, 'morning_review_read')).structuredContent as any;
    expect(mcp.asleep_minutes).toBe(420);
  });

  it('falls back to 00:00..06:00 for glucose without a recorded sleep', async () => {
    const p = await person();
    await seedGlucose(app, p.user.id, 120, dayAt(0, 5));
    await seedGlucose(app, p.user.id, 120, dayAt(0, 6.5));
    const res = await rest(app, 'GET', '/api/v1/home/morning-review', { token: p.token });
    expect(res.body).toMatchObject({
      asleep_minutes: null,
      bedtime: null,
      snoring: null,
      glucose_window_start: dayAt(0, 0).toISOString(),
      glucose_window_end: dayAt(0, 6).toISOString(),
      glucose: { readings: 1, in_range_pct: 100 },
      sleep_score: { score: null, reason: 'no_sleep_data' },
    });
  });
});
