/**
 * meal_glucose_response_read and its /api/v1/nutrition routes (issue 17): the response of one meal
 * and of the meals of a range (paged, newest first), null with the reason when the readings are
 * too sparse, another person's meal -> 404, scopes and bounds. The figures come from a constructed
 * triangle curve (known by hand) and from the real Hall 2018 trace (CC BY 4.0,
 * test/fixtures/cgm/README.md) compared with the pure function on the same readings.
 */
import { describe, expect, it } from 'vitest';
import { glucoseResponse } from '../../src/domains/nutrition/nutrition.response.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { hallTrace, seedGlucose, seedMeals } from '../factories/insights.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const MIN = 60_000;
/** A meal time two days ago, on the minute. */
const MEAL = Math.floor((clock.ms() - 2 * 86_400_000) / MIN) * MIN;

/** A triangle: flat at 100, up to 160 at 45 min, back to 100 at 90 min, flat after. */
const triangle = (m: number): number =>
  m <= 0 ? 100 : m <= 45 ? 100 + (60 * m) / 45 : m <= 90 ? 160 - (60 * (m - 45)) / 45 : 100;

/** 5-minute readings from `from` to `to` minutes around `at`. */
const curve = (at: number, from: number, to: number) =>
  Array.from({ length: (to - from) / 5 + 1 }, (_, i) => ({
    timestamp: new Date(at + (from + i * 5) * MIN),
    valueMgDl: triangle(from + i * 5),
  }));

async function person(scopes: string[] = ['health:glucose:read']) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { ...u, pat, client: await mcpClient(app, pat) };
}

async function mealIds(userId: number): Promise<string[]> {
  const rows = await app.db.prisma.meal.findMany({
    where: { userId },
    orderBy: { eatenAt: 'desc' },
  });
  return rows.map((r) => r.id);
}

const TRIANGLE_RESPONSE = {
  baseline_mg_dl: 100,
  peak_mg_dl: 160,
  rise_mg_dl: 60,
  time_to_peak_minutes: 45,
  iauc_mg_dl_min: 2700,
  return_to_baseline_minutes: 85,
  readings: 24,
};

/** The REST (snake_case) shape of a response computed by the pure function. */
const wire = (r: ReturnType<typeof glucoseResponse>['response']) =>
  r && {
    baseline_mg_dl: r.baselineMgDl,
    peak_mg_dl: r.peakMgDl,
    rise_mg_dl: r.riseMgDl,
    time_to_peak_minutes: r.timeToPeakMinutes,
    iauc_mg_dl_min: r.iaucMgDlMin,
    return_to_baseline_minutes: r.returnToBaselineMinutes,
    readings: r.readings,
  };

describe('meal_glucose_response_read: one meal', () => {
  it('answers the figures of a meal through MCP and GET /api/v1/nutrition/meals/{id}/glucose-response', async () => {
    const p = await person();
    await seedGlucose(app, p.token, curve(MEAL, -60, 300));
    await seedMeals(app, p.user.id, [{ eatenAt: new Date(MEAL) }]);
    const [id] = await mealIds(p.user.id);
    const viaRest = await rest(app, 'GET', `/api/v1/nutrition/meals/${id}/glucose-response`, {
      token: p.pat,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ meal_id: id, reason: null, response: TRIANGLE_RESPONSE });
    const viaMcp = await callTool(p.client, 'meal_glucose_response_read', { meal_id: id });
    expect(viaMcp.isError).toBeFalsy();
    const sc = viaMcp.structuredContent as any;
    expect(JSON.stringify(sc)).toMatch(/"iauc_?mg_?dl_?min":2700/i);
    expect(JSON.stringify(sc)).toContain(id);
  });

  it('answers null with the reason when the readings around the meal are too sparse', async () => {
    const p = await person();
    // readings every 40 minutes: a baseline of 1 reading
    await seedGlucose(
      app,
      p.token,
      curve(MEAL, -60, 300).filter((_, i) => i % 8 === 0),
    );
    await seedMeals(app, p.user.id, [{ eatenAt: new Date(MEAL) }]);
    const [id] = await mealIds(p.user.id);
    const res = await rest(app, 'GET', `/api/v1/nutrition/meals/${id}/glucose-response`, {
      token: p.pat,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ response: null, reason: 'no_baseline' });
  });

  it("answers 404 for another person's meal and for a deleted one", async () => {
    const owner = await person();
    await seedMeals(app, owner.user.id, [
      { eatenAt: new Date(MEAL) },
      { eatenAt: new Date(MEAL - 3_600_000), deletedAt: clock.now() },
    ]);
    const [theirs, deleted] = await mealIds(owner.user.id);
    const other = await person();
    const res = await rest(app, 'GET', `/api/v1/nutrition/meals/${theirs}/glucose-response`, {
      token: other.pat,
    });
    expect(res.status).toBe(404);
    const tool = await callTool(other.client, 'meal_glucose_response_read', { meal_id: theirs });
    expect(tool.isError).toBe(true);
    expect((tool.structuredContent as any).error.code).toBe('NOT_FOUND');
    const gone = await rest(app, 'GET', `/api/v1/nutrition/meals/${deleted}/glucose-response`, {
      token: owner.pat,
    });
    expect(gone.status).toBe(404);
  });

  it('refuses a meal id that is not a uuid (422)', async () => {
    const p = await person();
    const res = await rest(
      app,
      'GET',
      `/api/v1/nutrition/meals/${'x'.repeat(300)}/glucose-response`,
      {
        token: p.pat,
      },
    );
    expect(res.status).toBe(422);
    const tool = await callTool(p.client, 'meal_glucose_response_read', { meal_id: 'nope' });
    expect(tool.isError).toBe(true);
  });
});

describe('meal_glucose_response_read: a range', () => {
  it('pages the meals of a range newest first, each with its response, on a real trace', async () => {
    const p = await person();
    // the Hall 2018 subject's trace shifted to end an hour ago
    const trace = hallTrace();
    const shift = clock.ms() - 3_600_000 - trace[trace.length - 1].timestamp.getTime();
    // its last stretch of wear (the file holds two, a year apart)
    const points = trace
      .map((x) => ({ timestamp: new Date(x.timestamp.getTime() + shift), valueMgDl: x.valueMgDl }))
      .filter((x) => x.timestamp.getTime() > clock.ms() - 20 * 86_400_000);
    expect(points.length).toBeGreaterThan(1000);
    await seedGlucose(app, p.token, points);
    const start = points[0].timestamp.getTime();
    const step =
      Math.floor((points[points.length - 1].timestamp.getTime() - start) / 6 / MIN) * MIN;
    const times = [1, 2, 3, 4, 5].map((k) => start + k * step);
    expect(times[4]).toBeLessThan(clock.ms() - 5 * 3_600_000);
    await seedMeals(
      app,
      p.user.id,
      times.map((t) => ({ eatenAt: new Date(t) })),
    );
    const samples = points.map((x) => ({ t: x.timestamp.getTime(), v: x.valueMgDl }));
    const expected = [...times].reverse().map((t) => glucoseResponse(samples, t));
    const from = new Date(start).toISOString();
    const first = await rest(
      app,
      'GET',
      `/api/v1/nutrition/glucose-responses?from=${from}&limit=3`,
      {
        token: p.pat,
      },
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.items).toHaveLength(3);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.body.next_cursor);
    const second = await rest(
      app,
      'GET',
      `/api/v1/nutrition/glucose-responses?from=${from}&limit=3&cursor=${cursor}`,
      { token: p.pat },
    );
    expect(second.body.items).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    const items = [...first.body.items, ...second.body.items];
    expect(items.map((i: any) => Date.parse(i.eaten_at))).toEqual([...times].reverse());
    items.forEach((item: any, i: number) => {
      expect(item.response).toEqual(wire(expected[i].response));
      expect(item.reason).toEqual(expected[i].reason);
    });
    expect(items.filter((i: any) => i.response).length).toBeGreaterThan(0);
    const viaMcp = await callTool(p.client, 'meal_glucose_response_read', { from, limit: 5 });
    expect(viaMcp.isError).toBeFalsy();
    expect(JSON.stringify(viaMcp.structuredContent)).toContain(items[4].meal_id);
  });

  it('bounds limit, range, order and cursor (422), never a 5xx', async () => {
    const p = await person();
    const bad = [
      'limit=0',
      'limit=101',
      'from=2020-01-01T00:00:00Z&to=2021-06-01T00:00:00Z',
      'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
      'cursor=garbage',
      `cursor=${'9'.repeat(150)}`,
      'from=not-a-date',
      'from=0001-01-01T00:00:00Z&to=0001-01-20T00:00:00Z',
      'from=9999-12-20T00:00:00Z&to=9999-12-31T23:59:59Z',
    ];
    for (const q of bad) {
      const res = await rest(app, 'GET', `/api/v1/nutrition/glucose-responses?${q}`, {
        token: p.pat,
      });
      expect(res.status, q).toBe(422);
    }
    const tool = await callTool(p.client, 'meal_glucose_response_read', { limit: 1000 });
    expect(tool.isError).toBe(true);
  });

  it('needs health:glucose:read', async () => {
    const p = await person(['health:nutrition:read']);
    const res = await rest(app, 'GET', '/api/v1/nutrition/glucose-responses', { token: p.pat });
    expect(res.status).toBe(403);
    const names = (await p.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('meal_glucose_response_read');
    expect((await callTool(p.client, 'meal_glucose_response_read')).isError).toBe(true);
  });
});
