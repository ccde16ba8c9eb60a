/** Insights through the real stack: REST routes, MCP score tools, time zones, view-as, limits. */
import { describe, expect, it } from 'vitest';
import { scoreTools } from '../../mcp-facade/tools/scores.tools.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import {
  hallTrace,
  seedGlucose,
  seedIntervals,
  seedMeals,
  seedMetrics,
} from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const DAY_MS = 86_400_000;
/** A UTC date n days before today. */
const utcDate = (daysAgo: number): string =>
  new Date(clock.ms() - daysAgo * DAY_MS).toISOString().slice(0, 10);
const iso = (date: string, time: string): string => `${date}T${time}Z`;

/** A complete UTC day of data: 288 readings at 120, 8 h asleep, 10,000 steps, 30 min workout, a balanced day of meals, HRV at baseline. */
async function seedFullDay(person: SeededUser, date: string): Promise<void> {
  const start = Date.parse(iso(date, '00:00:00'));
  await seedGlucose(
    app,
    person.token,
    Array.from({ length: 288 }, (_, i) => ({
      timestamp: new Date(start + i * 300_000),
      valueMgDl: 120,
    })),
  );
  const before = new Date(start - DAY_MS).toISOString().slice(0, 10);
  await seedIntervals(app, person.token, {
    sleep: [{ stage: 'asleep', start_at: iso(before, '23:00:00'), end_at: iso(date, '07:00:00') }],
    workouts: [
      { activity_type: 'running', start_at: iso(date, '08:00:00'), end_at: iso(date, '08:30:00') },
    ],
  });
  const history = Array.from({ length: 5 }, (_, i) =>
    new Date(start - (i + 1) * DAY_MS + 6 * 3_600_000).toISOString(),
  );
  await seedMetrics(app, person.token, [
    { metric_type: 'steps', value: 10_000, timestamp: iso(date, '12:00:00') },
    { metric_type: 'active_energy', value: 500, timestamp: iso(date, '12:00:00') },
    { metric_type: 'hrv', value: 50, timestamp: iso(date, '06:00:00') },
    ...history.map((timestamp) => ({ metric_type: 'hrv', value: 50, timestamp })),
  ]);
  await seedMeals(app, person.user.id, [
    { eatenAt: new Date(iso(date, '12:00:00')), kcal: 2000, proteinG: 100, fiberG: 28, sugarG: 50 },
    // deleted meals do not count
    { eatenAt: new Date(iso(date, '13:00:00')), kcal: 2000, sugarG: 500, deletedAt: clock.now() },
  ]);
}

describe('GET /api/insights/* auth', () => {
  it('answers 401 without a credential on every route', async () => {
    for (const path of [
      '/api/insights/score',
      '/api/insights/suggestions',
      '/api/insights/predictive-alerts',
      '/api/insights/cards',
    ]) {
      const res = await rest(app, 'GET', path);
      expect(res.status, path).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    }
  });
});

describe('GET /api/insights/score', () => {
  it('answers every score of a complete day, computed from its glucose, sleep, activity, recovery and meals', async () => {
    const person = await seedUser(app);
    const date = utcDate(1);
    await seedFullDay(person, date);
    const res = await rest(app, 'GET', `/api/insights/score?date=${date}`, { token: person.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      date,
      timezone: 'UTC',
      overall: { kind: 'overall', score: Math.round(0.85 * 100 + 0.15 * 75), reason: null },
      glucose: { kind: 'glucose', date, score: 100, reason: null },
      sleep: { score: 100 },
      activity: { score: 100 },
      recovery: { score: 75 },
      nutrition: { score: 100 },
    });
    expect(res.body.glucose.components[0]).toEqual({
      name: 'time_in_range',
      value: 100,
      unit: '%',
      reference: 100,
      score: 100,
      weight: 0.6,
    });
    expect(res.body.recovery.components[0]).toMatchObject({
      name: 'hrv',
      value: 50,
      reference: 50,
      score: 75,
    });
    expect(res.body.overall.components.map((c: any) => [c.name, c.score])).toEqual([
      ['glucose', 100],
      ['sleep', 100],
      ['activity', 100],
      ['recovery', 75],
      ['nutrition', 100],
    ]);
  });

  it('answers null scores with reasons for a day without data, and today by default', async () => {
    const { token } = await seedUser(app);
    const res = await rest(app, 'GET', '/api/insights/score', { token });
    expect(res.status).toBe(200);
    expect(res.body.date).toBe(utcDate(0));
    expect(
      Object.fromEntries(
        ['overall', 'glucose', 'sleep', 'activity', 'recovery', 'nutrition'].map((k) => [
          k,
          [res.body[k].score, res.body[k].reason],
        ]),
      ),
    ).toEqual({
      overall: [null, 'no_scores'],
      glucose: [null, 'no_glucose_data'],
      sleep: [null, 'no_sleep_data'],
      activity: [null, 'no_activity_data'],
      recovery: [null, 'no_recovery_data'],
      nutrition: [null, 'no_meals'],
    });
  });

  it("uses the account's time zone for today and for day boundaries", async () => {
    const person = await seedUser(app);
    const zone = 'Pacific/Kiritimati'; // UTC+14: its day starts at 10:00 UTC the day before
    expect(
      (await rest(app, 'PATCH', '/api/auth/me', { token: person.token, body: { timezone: zone } }))
        .status,
    ).toBe(200);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(clock.now());
    const res = await rest(app, 'GET', '/api/insights/score', { token: person.token });
    expect(res.body).toMatchObject({ date: today, timezone: zone });
    const date = '2026-01-10';
    await seedMeals(app, person.user.id, [
      { eatenAt: new Date('2026-01-09T10:30:00Z'), kcal: 1000, proteinG: 50 }, // 00:30 on the 10th there
      { eatenAt: new Date('2026-01-10T10:30:00Z'), kcal: 1000, proteinG: 0 }, // the 11th there
    ]);
    const day = await rest(app, 'GET', `/api/insights/score?date=${date}`, { token: person.token });
    expect(day.body.nutrition.components[0]).toMatchObject({
      name: 'protein_energy_pct',
      value: 20,
    });
  });

  it('answers 422 at the query parameter for a date that is not YYYY-MM-DD', async () => {
    const { token } = await seedUser(app);
    for (const date of ['2026-02-30', 'yesterday', '2026-1-5']) {
      const res = await rest(app, 'GET', `/api/insights/score?date=${date}`, { token });
      expect(res.status, date).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'date']);
    }
  });

  it("never counts another person's data, and a grantee viewing as reads the owner's scores", async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const date = utcDate(1);
    await seedFullDay(owner, date);
    const own = await rest(app, 'GET', `/api/insights/score?date=${date}`, {
      token: grantee.token,
    });
    expect(own.body.overall).toMatchObject({ score: null, reason: 'no_scores' });
    await switchViewAs(app, grantee.token, await seedActiveGrant(app, owner, grantee));
    const viewed = await rest(app, 'GET', `/api/insights/score?date=${date}`, {
      token: grantee.token,
    });
    expect(viewed.body.glucose.score).toBe(100);
    for (const path of [
      '/api/insights/suggestions',
      '/api/insights/predictive-alerts',
      '/api/insights/cards',
    ]) {
      expect((await rest(app, 'GET', path, { token: grantee.token })).status, path).toBe(200);
    }
    const cards = await rest(app, 'GET', '/api/insights/cards', { token: grantee.token });
    expect(cards.body).toEqual([]); // the owner's data is from yesterday: no card for today
  });
});

/** The Hall 2018 fall of 2015-03-30 (140 -> 86 mg/dL in 25 minutes), moved to end now. */
function fallingNow(): { timestamp: Date; valueMgDl: number }[] {
  const trace = hallTrace();
  const end = Date.parse('2015-03-30T18:53:23Z');
  const shift = clock.ms() - 60_000 - end;
  return trace
    .filter((p) => p.timestamp.getTime() > end - 30 * 60_000 && p.timestamp.getTime() <= end)
    .map((p) => ({ timestamp: new Date(p.timestamp.getTime() + shift), valueMgDl: p.valueMgDl }));
}

describe('GET /api/insights/predictive-alerts and /api/insights/cards', () => {
  it('predicts a low from the last 30 minutes and shows it first among the cards', async () => {
    const { token } = await seedUser(app);
    expect(
      (await rest(app, 'GET', '/api/insights/predictive-alerts', { token })).body,
    ).toMatchObject({ alerts: [] });
    await seedGlucose(app, token, fallingNow());
    const res = await rest(app, 'GET', '/api/insights/predictive-alerts', { token });
    expect(res.status).toBe(200);
    expect(res.body.alerts).toEqual([
      expect.objectContaining({
        kind: 'predicted_low',
        threshold_mg_dl: 70,
        current_mg_dl: 86,
        readings_used: 6,
      }),
    ]);
    expect(Date.parse(res.body.generated_at)).toBeGreaterThan(clock.ms() - 60_000);
    const cards = await rest(app, 'GET', '/api/insights/cards', { token });
    expect(cards.status).toBe(200);
    expect(cards.body[0]).toMatchObject({
      kind: 'alert',
      priority: 1,
      date: utcDate(0),
      title: 'Low glucose ahead',
    });
  });

  it('shows a score card for each score of today', async () => {
    const person = await seedUser(app);
    await seedMeals(app, person.user.id, [
      { eatenAt: clock.now(), kcal: 600, proteinG: 30, fiberG: 9, sugarG: 15 },
    ]);
    const cards = await rest(app, 'GET', '/api/insights/cards', { token: person.token });
    expect(cards.body).toEqual([
      {
        id: `score:nutrition:${utcDate(0)}`,
        kind: 'score',
        priority: 3,
        date: utcDate(0),
        time_zone: 'UTC',
        title: 'Nutrition score 100',
        body: expect.any(String),
        score: 100,
      },
    ]);
  });
});

describe('GET /api/insights/suggestions', () => {
  it('answers the rules that fire: a short night last night, nothing for a person without data', async () => {
    const person = await seedUser(app);
    expect(
      (await rest(app, 'GET', '/api/insights/suggestions', { token: person.token })).body,
    ).toEqual({
      date: utcDate(0),
      timezone: 'UTC',
      suggestions: [],
    });
    const today = utcDate(0);
    const end = new Date(Math.min(clock.ms(), Date.parse(iso(today, '06:00:00'))));
    await seedIntervals(app, person.token, {
      sleep: [
        {
          stage: 'asleep',
          start_at: new Date(end.getTime() - 5 * 3_600_000).toISOString(),
          end_at: end.toISOString(),
        },
      ],
    });
    const res = await rest(app, 'GET', '/api/insights/suggestions', { token: person.token });
    expect(res.body.suggestions).toEqual([
      expect.objectContaining({
        code: 'sleep_more',
        category: 'sleep',
        priority: 2,
        value: 5,
        unit: 'h',
        threshold: 7,
      }),
    ]);
  });
});

describe('MCP score tools', () => {
  async function client(person: SeededUser, scopes = ['health:summary:read'] as const) {
    return mcpClient(app, await seedPersonalToken(app, person.user.id, [...scopes]));
  }

  it('lists the nine tools, the derived ones without kind or order', async () => {
    const person = await seedUser(app);
    const tools = (await (await client(person)).listTools()).tools;
    const eight = [
      'activity_score_read',
      'daily_nutrition_score_read',
      'get_scores',
      'get_scores_days',
      'glucose_score_read',
      'recovery_score_read',
      'sleep_score_read',
      'sun_today_read',
    ];
    // bp_trends_read needs health:metrics:read too, so a health:summary:read token does not see it
    expect(scoreTools.map((t) => t.name).sort()).toEqual(['bp_trends_read', ...eight].sort());
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(eight));
    expect(names).not.toContain('bp_trends_read');
    const derived = tools.find((t) => t.name === 'sleep_score_read')!;
    expect(Object.keys(derived.inputSchema.properties ?? {}).sort()).toEqual([
      'cursor',
      'days',
      'from',
      'limit',
      'to',
    ]);
    expect(derived.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("get_scores answers today's scores (or a date's) with health meta", async () => {
    const person = await seedUser(app);
    const date = utcDate(1);
    await seedFullDay(person, date);
    const c = await client(person);
    const today = await callTool(c, 'get_scores');
    // seedFullDay uploads a glucose batch and a health import: the phone synced (issue 11)
    expect(today.structuredContent).toMatchObject({
      date: utcDate(0),
      overall: { reason: 'no_scores' },
      meta: { phone_last_sync_at: expect.any(String) },
    });
    const day = await callTool(c, 'get_scores', { date });
    expect(day.structuredContent).toMatchObject({
      date,
      overall: { score: 96 },
      glucose: { score: 100 },
    });
  });

  it('get_scores_days answers each day of a range, newest first by default', async () => {
    const person = await seedUser(app);
    await seedFullDay(person, utcDate(2));
    const c = await client(person);
    const week = (await callTool(c, 'get_scores_days')).structuredContent as any;
    expect(week.items.map((d: any) => d.date)).toEqual([0, 1, 2, 3, 4, 5, 6].map(utcDate));
    expect(week.items.map((d: any) => d.glucose.score)).toEqual([
      null,
      null,
      100,
      null,
      null,
      null,
      null,
    ]);
    expect(week.meta).toEqual({ phone_last_sync_at: expect.any(String) });
    const asc = (
      await callTool(c, 'get_scores_days', { from: utcDate(3), to: utcDate(1), order: 'asc' })
    ).structuredContent as any;
    expect(asc.items.map((d: any) => [d.date, d.sleep.score])).toEqual([
      [utcDate(3), null],
      [utcDate(2), 100],
      [utcDate(1), null],
    ]);
    const limited = (await callTool(c, 'get_scores_days', { days: 30, limit: 2 }))
      .structuredContent as any;
    expect(limited.items.map((d: any) => d.date)).toEqual([utcDate(0), utcDate(1)]);
  });

  it('refuses ranges beyond 90 days, from after to, and bad days, limit or order', async () => {
    const person = await seedUser(app);
    const c = await client(person);
    const cases: [Record<string, unknown>, string][] = [
      [{ days: 0 }, 'days'],
      [{ days: 91 }, 'days'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 91 }, 'limit'],
      [{ order: 'up' }, 'order'],
      [{ from: '2026-01-02', to: '2026-01-01' }, 'from'],
      [{ from: '2025-01-01', to: '2025-04-01' }, 'from'], // 91 days
      [{ to: '2025-13-01' }, 'to'],
    ];
    for (const [args, loc] of cases) {
      const res = await callTool(c, 'get_scores_days', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect((res.structuredContent as any).error).toMatchObject({
        code: 'VALIDATION_FAILED',
        detail: [{ loc: [loc] }],
      });
    }
    // 90 days of every score is larger than one page (issue 11): read them by next_cursor
    const allPages = async (args: Record<string, unknown>): Promise<unknown[]> => {
      const items: unknown[] = [];
      for (let cursor: string | undefined, pages = 0; pages < 20; pages++) {
        const page = (
          await callTool(c, 'get_scores_days', { ...args, ...(cursor ? { cursor } : {}) })
        ).structuredContent as any;
        items.push(...page.items);
        cursor = page.next_cursor;
        if (!cursor) break;
      }
      return items;
    };
    expect(await allPages({ from: '2025-01-01', to: '2025-03-31' })).toHaveLength(90);
    expect(await allPages({ days: 90 })).toHaveLength(90);
  });

  it('the derived tools answer their fixed kind, newest first, and refuse kind or order from the caller', async () => {
    const person = await seedUser(app);
    await seedFullDay(person, utcDate(1));
    const c = await client(person);
    const expected: Record<string, string> = {
      activity_score_read: 'activity',
      sleep_score_read: 'sleep',
      glucose_score_read: 'glucose',
      recovery_score_read: 'recovery',
      daily_nutrition_score_read: 'nutrition',
    };
    for (const [tool, kind] of Object.entries(expected)) {
      const res = (await callTool(c, tool, { days: 3 })).structuredContent as any;
      expect(
        res.items.map((s: any) => [s.kind, s.date]),
        tool,
      ).toEqual([utcDate(0), utcDate(1), utcDate(2)].map((d) => [kind, d]));
      expect(res.items[1].score, tool).not.toBeNull();
      expect(res.meta, tool).toEqual({ phone_last_sync_at: expect.any(String) });
      const refused = await callTool(c, tool, { kind: 'sleep' });
      expect((refused.structuredContent as any).error, tool).toMatchObject({
        code: 'VALIDATION_FAILED',
        detail: [{ loc: ['kind'], type: 'extra_forbidden' }],
      });
    }
    expect((await callTool(c, 'glucose_score_read', { order: 'asc' })).isError).toBe(true);
  });

  it('refuses a token without health:summary:read', async () => {
    const person = await seedUser(app);
    const c = await client(person, ['health:glucose:read'] as never);
    const res = await callTool(c, 'get_scores');
    expect((res.structuredContent as any).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'health:summary:read' },
    });
  });
});
