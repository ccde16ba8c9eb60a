/**
 * The weekly digest (issue 17) through the real stack: insights_digest_read and
 * GET /api/v1/insights/digest on the real Hall 2018 trace (test/fixtures/cgm) moved into the last
 * complete week: time in range and mean against the week before, the glucose score's days, the
 * week's insights by kind and status, local weeks in the person's zone, bounds and scopes.
 */
import { describe, expect, it } from 'vitest';
import { hallTrace, seedGlucose } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const DAY = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const todayMs = Date.parse(`${dateOf(clock.ms())}T00:00:00Z`);
/** The Monday (UTC) of the last complete week. */
const lastMonday = (() => {
  const d = todayMs - 7 * DAY;
  return d - ((new Date(d).getUTCDay() + 6) % 7) * DAY;
})();
const r1 = (v: number) => Math.round(v * 10) / 10;

async function person(scopes: string[] = ['insights:read']) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { ...u, pat, client: await mcpClient(app, pat) };
}

/** Hall 2018 subject 1636-69-001, 2015-03-29..2015-04-02, moved so 2015-03-30 00:00 is lastMonday. */
function traceInLastWeek() {
  const from = Date.parse('2015-03-29T00:00:00Z');
  const shift = lastMonday - Date.parse('2015-03-30T00:00:00Z');
  return hallTrace()
    .filter((p) => p.timestamp.getTime() >= from)
    .map((p) => ({ timestamp: new Date(p.timestamp.getTime() + shift), valueMgDl: p.valueMgDl }));
}

function stats(values: number[]) {
  const inRange = values.filter((v) => v >= 70 && v <= 180).length;
  return {
    n: values.length,
    tir: r1((100 * inRange) / values.length),
    mean: r1(values.reduce((a, b) => a + b, 0) / values.length),
  };
}

describe('insights_digest_read (GET /api/v1/insights/digest)', () => {
  it('summarises the last complete week of the real trace against the week before, each figure with its source', async () => {
    const p = await person();
    const trace = traceInLastWeek();
    await seedGlucose(app, p.token, trace);
    const inWeek = (start: number) =>
      trace
        .filter((x) => x.timestamp.getTime() >= start && x.timestamp.getTime() < start + 7 * DAY)
        .map((x) => x.valueMgDl);
    const cur = stats(inWeek(lastMonday));
    const prev = stats(inWeek(lastMonday - 7 * DAY));
    expect([cur.n, prev.n]).toEqual([997, 95]);
    const res = await rest(app, 'GET', '/api/v1/insights/digest', { token: p.pat });
    expect(res.status).toBe(200);
    const d = res.body;
    expect(d).toMatchObject({
      week_start: dateOf(lastMonday),
      week_end: dateOf(lastMonday + 6 * DAY),
      previous_week_start: dateOf(lastMonday - 7 * DAY),
      timezone: 'UTC',
      complete: true,
    });
    expect(d.glucose).toMatchObject({
      readings: cur.n,
      previous_readings: prev.n,
      time_in_range_pct: cur.tir,
      previous_time_in_range_pct: prev.tir,
      time_in_range_change: r1(cur.tir - prev.tir),
      mean_mg_dl: cur.mean,
      previous_mean_mg_dl: prev.mean,
      mean_change: r1(cur.mean - prev.mean),
    });
    expect(d.glucose.source).toContain(`glucose_readings ${dateOf(lastMonday)}..`);
    expect(d.glucose.source).toContain(`${cur.n} rows`);
    // 252, 278, 287 and 180 readings: 4 days over the glucose score's coverage; 95 the week before: none
    const glucose = d.scores.find((s: any) => s.kind === 'glucose');
    expect(glucose).toMatchObject({
      days: 4,
      previous_days: 0,
      previous_average: null,
      change: null,
    });
    expect(glucose.average).toBeGreaterThan(0);
    expect(glucose.source).toContain('4 of 7 days');
    expect(d.scores.map((s: any) => s.kind)).toEqual([
      'overall',
      'glucose',
      'sleep',
      'activity',
      'recovery',
      'nutrition',
    ]);
    expect(d.insights).toMatchObject({ total: 0, by_kind: [], by_status: [], top: [] });
    // any date of the week reads the same week; MCP answers the same
    const mid = await rest(
      app,
      'GET',
      `/api/v1/insights/digest?week=${dateOf(lastMonday + 3 * DAY)}`,
      { token: p.pat },
    );
    expect(mid.body).toEqual(d);
    const viaMcp = await callTool(p.client, 'insights_digest_read', {
      week: dateOf(lastMonday + 6 * DAY),
    });
    expect(viaMcp.isError).toBeFalsy();
    expect(viaMcp.structuredContent).toEqual(d);
  });

  it("counts the week's insights by kind and status and shows the most urgent ones that are not dismissed", async () => {
    const p = await person();
    const date = dateOf(lastMonday + DAY);
    const make = (rule: string, kind: string, priority: number, status: string, day = date) =>
      app.db.prisma.insight.create({
        data: {
          userId: p.user.id,
          kind,
          rule,
          subject: day,
          date: day,
          priority,
          status,
          title: rule,
          body: 'constructed for the test',
          source: { rule, window: { start: day, end: day }, inputs: [], summary: 'constructed' },
        },
      });
    await make('predicted_low', 'alert', 1, 'dismissed');
    const trend = await make('time_in_range_trend', 'trend', 2, 'seen');
    const score = await make('score_sleep', 'score', 3, 'unseen');
    await make('sleep_more', 'suggestion', 2, 'answered');
    await make('score_glucose', 'score', 3, 'unseen', dateOf(lastMonday - DAY)); // the week before
    const res = await callTool(p.client, 'insights_digest_read');
    const ins = (res.structuredContent as any).insights;
    expect(ins.total).toBe(4);
    expect(ins.by_kind).toEqual([
      { key: 'alert', count: 1 },
      { key: 'score', count: 1 },
      { key: 'suggestion', count: 1 },
      { key: 'trend', count: 1 },
    ]);
    expect(ins.by_status).toEqual([
      { key: 'answered', count: 1 },
      { key: 'dismissed', count: 1 },
      { key: 'seen', count: 1 },
      { key: 'unseen', count: 1 },
    ]);
    expect(ins.top.map((i: any) => i.rule)).toEqual([
      'sleep_more',
      'time_in_range_trend',
      'score_sleep',
    ]);
    expect(ins.top[1].id).toBe(trend.id);
    expect(ins.top[2].id).toBe(score.id);
    expect(ins.source).toContain('4 rows');
  });

  it("takes the week in the person's zone", async () => {
    const p = await person();
    const zoned = await rest(app, 'PATCH', '/api/auth/me', {
      token: p.token,
      body: { timezone: 'Pacific/Kiritimati' },
    });
    expect(zoned.status).toBe(200);
    // Sunday 12:00 UTC before lastMonday is Monday 02:00 at UTC+14: in the week there, not in UTC
    await seedGlucose(app, p.token, [
      { timestamp: new Date(lastMonday - 12 * 3_600_000), valueMgDl: 100 },
    ]);
    const res = await rest(app, 'GET', `/api/v1/insights/digest?week=${dateOf(lastMonday)}`, {
      token: p.pat,
    });
    expect(res.body).toMatchObject({
      timezone: 'Pacific/Kiritimati',
      week_start: dateOf(lastMonday),
      glucose: { readings: 1, previous_readings: 0, time_in_range_pct: 100 },
    });
    const other = await person();
    const utc = await rest(app, 'GET', `/api/v1/insights/digest?week=${dateOf(lastMonday)}`, {
      token: other.pat,
    });
    expect(utc.body.glucose.readings).toBe(0);
  });

  it('refuses a week that is no date, before 2000 or in the future (422), without insights:read (403) or a credential (401)', async () => {
    const p = await person();
    for (const week of ['last', '2026-02-30', '1999-12-27', dateOf(todayMs + 8 * DAY)]) {
      const res = await rest(app, 'GET', `/api/v1/insights/digest?week=${week}`, {
        token: p.pat,
      });
      expect(res.status, week).toBe(422);
    }
    const bad = await callTool(p.client, 'insights_digest_read', { week: 'x'.repeat(5000) });
    expect((bad.structuredContent as any).error.code).toBe('VALIDATION_FAILED');
    const noScope = await person(['health:summary:read']);
    expect((await rest(app, 'GET', '/api/v1/insights/digest', { token: noScope.pat })).status).toBe(
      403,
    );
    expect((await rest(app, 'GET', '/api/v1/insights/digest')).status).toBe(401);
  });
});
