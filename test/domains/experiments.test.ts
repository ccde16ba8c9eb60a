/**
 * n-of-1 experiments (issue 17): insights_experiment_start, insights_experiment_control,
 * insights_experiments_read through MCP and /api/v1/experiments through REST.
 *
 * The result is tested on a real CGM trace (Hall 2018 subject 1636-69-001, CC BY 4.0,
 * test/fixtures/cgm): its three full days 2015-03-30..04-01 are stored twice, shifted to the three
 * days before the experiment's start (control) and the three days from it (intervention), so
 * both periods carry the same real glucose. Meals are planted at 08:00, 13:00 and 19:00 of each
 * day with a CONSTRUCTED response curve added to the trace after each meal: a triangle peaking
 * 45 minutes after the meal and back at 105 minutes, +70 mg/dL in the control period and +35 in
 * the intervention period. The smaller planted rise must give the negative effect size computed
 * by hand from the pure responses (medium: the real trace's own spread is large).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { comparePeriods, hedgesG } from '../../src/domains/experiments/experiments.result.ts';
import { glucoseResponse } from '../../src/domains/nutrition/nutrition.response.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { hallTrace, seedGlucose } from '../factories/insights.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const MIN = 60_000;
const DAY = 86_400_000;
const SCOPES = ['insights:read', 'insights:write'];

async function person(scopes: string[] = SCOPES) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { ...u, pat, client: await mcpClient(app, pat) };
}

let keys = 0;
const key = (): string => `experiment-key-${++keys}-${clock.ms()}`;
const out = (r: any): any => r.structuredContent;

/** The start of the intervention: midnight UTC three days ago (its three days are all past). */
const START = Math.floor(clock.ms() / DAY) * DAY - 3 * DAY;
const BLOCK_FROM = Date.UTC(2015, 2, 30);
const MEAL_HOURS = [8, 13, 19];
const TYPES = ['breakfast', 'lunch', 'dinner'];

/** The constructed meal curve: +peak at 45 min, back to 0 at 105 min. */
const planted = (minutes: number, peak: number): number =>
  minutes <= 0 || minutes >= 105
    ? 0
    : minutes <= 45
      ? (peak * minutes) / 45
      : peak - (peak * (minutes - 45)) / 60;

interface PlantedMeal {
  at: number;
  type: string;
  peak: number;
}

/** The meals of both periods: 3 a day, control (+70) before START, intervention (+35) after. */
function plantedMeals(): PlantedMeal[] {
  const meals: PlantedMeal[] = [];
  for (let d = -3; d < 3; d++) {
    MEAL_HOURS.forEach((h, i) => {
      meals.push({ at: START + d * DAY + h * 60 * MIN, type: TYPES[i], peak: d < 0 ? 70 : 35 });
    });
  }
  return meals;
}

/** The real 3 days shifted to both periods, with each meal's constructed curve added. */
function plantedTrace(meals: readonly PlantedMeal[]): { t: number; v: number }[] {
  const block = hallTrace().filter(
    (p) => p.timestamp.getTime() >= BLOCK_FROM && p.timestamp.getTime() < BLOCK_FROM + 3 * DAY,
  );
  const out: { t: number; v: number }[] = [];
  for (const shift of [START - 3 * DAY - BLOCK_FROM, START - BLOCK_FROM]) {
    for (const p of block) {
      const t = p.timestamp.getTime() + shift;
      let v = p.valueMgDl;
      for (const m of meals) v += planted((t - m.at) / MIN, m.peak);
      out.push({ t, v: Math.round(v) });
    }
  }
  return out.sort((a, b) => a.t - b.t);
}

async function seedPlanted(userId: number, token: string): Promise<{ t: number; v: number }[]> {
  const meals = plantedMeals();
  const trace = plantedTrace(meals);
  await seedGlucose(
    app,
    token,
    trace.map((s) => ({ timestamp: new Date(s.t), valueMgDl: s.v })),
  );
  await app.db.prisma.meal.createMany({
    data: meals.map((m) => ({
      id: randomUUID(),
      userId,
      eatenAt: new Date(m.at),
      mealType: m.type,
      mealName: `${m.type} ${new Date(m.at).toISOString().slice(0, 10)}`,
      carbsG: 60,
    })),
  });
  return trace;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs: number[]): number =>
  xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1);

describe('insights_experiments_read: the result on a real trace with planted meals', () => {
  it('gives the expected negative effect when the intervention period has smaller responses', async () => {
    const p = await person();
    const trace = await seedPlanted(p.user.id, p.token);
    const started = await callTool(p.client, 'insights_experiment_start', {
      idempotency_key: key(),
      name: 'Walk after meals',
      intervention: 'a 10-minute walk after each meal',
      baseline_days: 3,
      intervention_days: 3,
      start_at: new Date(START).toISOString(),
    });
    expect(started.isError, JSON.stringify(out(started))).toBeFalsy();
    const e = out(started);
    expect(e.status).toBe('completed');

    // the expected figures, from the pure response of each planted meal on the same samples
    const iaucs: Record<'c' | 'i', number[]> = { c: [], i: [] };
    for (const m of plantedMeals()) {
      const r = glucoseResponse(trace, m.at).response;
      if (r) iaucs[m.at < START ? 'c' : 'i'].push(r.iaucMgDlMin);
    }
    expect(iaucs.c.length).toBeGreaterThanOrEqual(5);
    expect(iaucs.i.length).toBeGreaterThanOrEqual(5);
    const n = iaucs.c.length + iaucs.i.length;
    const pooled = Math.sqrt(
      ((iaucs.i.length - 1) * variance(iaucs.i) + (iaucs.c.length - 1) * variance(iaucs.c)) /
        (n - 2),
    );
    const g = ((1 - 3 / (4 * n - 9)) * (mean(iaucs.i) - mean(iaucs.c))) / pooled;

    const result = e.result;
    expect(result.verdict).toBe('lower');
    // the real trace's own meal-to-meal spread (SD about 2,200..2,700 mg/dL x min) is larger than
    // the planted difference (1,838), so the effect is medium (g about -0.6), not large
    expect(result.magnitude).toBe('medium');
    expect(result.control.meals).toBe(9);
    expect(result.intervention.meals).toBe(9);
    expect(result.control.meals_with_response).toBe(iaucs.c.length);
    expect(result.intervention.meals_with_response).toBe(iaucs.i.length);
    expect(result.control.mean_iauc_mg_dl_min).toBe(Math.round(mean(iaucs.c)));
    expect(result.effect_size_iauc).toBeCloseTo(g, 3);
    expect(result.effect_size_iauc).toBeLessThan(-0.5);
    expect(result.effect_size_iauc).toBeGreaterThan(-0.8);
    // the planted rises differ by 35 mg/dL; the real trace moves them a little
    expect(result.rise_difference_mg_dl).toBeLessThan(-20);
    expect(result.effect_size_rise).toBeLessThan(-0.5);
    // the planted triangles' areas differ by 105 x 35 / 2 = 1838 mg/dL x min
    expect(result.iauc_difference_mg_dl_min).toBeLessThan(-1200);
    expect(result.message).toMatch(/lower/);

    // the same through REST, list and one
    const listed = await rest(app, 'GET', '/api/v1/experiments', { token: p.pat });
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1);
    expect(listed.body[0].result.effect_size_iauc).toBe(result.effect_size_iauc);
    const one = await rest(app, 'GET', `/api/v1/experiments/${e.id}`, { token: p.pat });
    expect(one.status).toBe(200);
    expect(one.body.result).toEqual(result);
  });

  it('says not_enough_data when a period has fewer than 5 meals with a response (dinners only)', async () => {
    const p = await person();
    await seedPlanted(p.user.id, p.token);
    const started = await callTool(p.client, 'insights_experiment_start', {
      idempotency_key: key(),
      name: 'Walk after dinner',
      intervention: 'a 10-minute walk after dinner',
      meal_type: 'dinner',
      baseline_days: 3,
      intervention_days: 3,
      start_at: new Date(START).toISOString(),
    });
    const result = out(started).result;
    expect(result.verdict).toBe('not_enough_data');
    expect(result.control.meals).toBe(3);
    expect(result.intervention.meals).toBe(3);
    expect(result.effect_size_iauc).toBeNull();
    expect(result.iauc_difference_mg_dl_min).toBeNull();
    expect(result.min_meals_per_period).toBe(5);
    expect(result.message).toMatch(/at least 5/);
  });

  it('says not_enough_data with meals but no glucose readings', async () => {
    const p = await person();
    await app.db.prisma.meal.createMany({
      data: plantedMeals().map((m) => ({
        id: randomUUID(),
        userId: p.user.id,
        eatenAt: new Date(m.at),
      })),
    });
    const started = await callTool(p.client, 'insights_experiment_start', {
      idempotency_key: key(),
      name: 'No sensor',
      intervention: 'walk',
      baseline_days: 3,
      intervention_days: 3,
      start_at: new Date(START).toISOString(),
    });
    const result = out(started).result;
    expect(result.verdict).toBe('not_enough_data');
    expect(result.control.meals).toBe(9);
    expect(result.control.meals_with_response).toBe(0);
    expect(result.control.mean_iauc_mg_dl_min).toBeNull();
  });
});

describe('hedgesG and comparePeriods (pure)', () => {
  it("computes Hedges' g by hand: means 2 and 4, SDs 1, J = 1 - 3/15 = 0.8, g = 1.6", () => {
    expect(hedgesG([1, 2, 3], [3, 4, 5])).toBeCloseTo(1.6, 10);
    expect(hedgesG([3, 4, 5], [1, 2, 3])).toBeCloseTo(-1.6, 10);
    expect(hedgesG([1], [3, 4])).toBeNull();
    expect(hedgesG([2, 2], [2, 2])).toBeNull();
  });

  it('says not_enough_data under 5 meals with a response, or with no spread at all', () => {
    const five = { meals: 5, iaucs: [1, 2, 3, 4, 5], rises: [1, 2, 3, 4, 5] };
    const four = { meals: 6, iaucs: [1, 2, 3, 4], rises: [1, 2, 3, 4] };
    expect(comparePeriods(five, four).verdict).toBe('not_enough_data');
    expect(comparePeriods(four, five).effectSizeIauc).toBeNull();
    const flat = { meals: 5, iaucs: [3, 3, 3, 3, 3], rises: [1, 1, 1, 1, 1] };
    expect(comparePeriods(flat, flat).verdict).toBe('not_enough_data');
    const same = comparePeriods(five, { ...five, iaucs: [1.1, 2, 3, 4, 5] });
    expect(same.verdict).toBe('no_clear_difference');
    expect(same.magnitude).toBe('negligible');
  });
});

describe('insights_experiment_start', () => {
  it('replays the same experiment for the same idempotency key', async () => {
    const p = await person();
    const args = {
      idempotency_key: key(),
      name: 'Vinegar',
      intervention: 'a spoon of vinegar before lunch',
      meal_type: 'lunch',
      baseline_days: 7,
      intervention_days: 14,
    };
    const a = out(await callTool(p.client, 'insights_experiment_start', args));
    const b = out(await callTool(p.client, 'insights_experiment_start', args));
    expect(b.id).toBe(a.id);
    expect(a).toMatchObject({ status: 'active', meal_type: 'lunch', intervention_days: 14 });
    expect(await app.db.prisma.experiment.count({ where: { userId: p.user.id } })).toBe(1);
  });

  it('refuses out-of-bounds lengths, meal types, texts and start dates', async () => {
    const p = await person();
    const base = { name: 'x', intervention: 'y', baseline_days: 7, intervention_days: 7 };
    const bad: Record<string, unknown>[] = [
      { baseline_days: 2 },
      { intervention_days: 61 },
      { meal_type: 'brunch' },
      { name: 'n'.repeat(121) },
      { name: '   ' },
      { intervention: 'i'.repeat(1001) },
      { start_at: new Date(clock.ms() - 61 * DAY).toISOString() },
      { start_at: new Date(clock.ms() + 15 * DAY).toISOString() },
      { baseline_days: 1e12 },
    ];
    for (const change of bad) {
      const r = await callTool(p.client, 'insights_experiment_start', {
        idempotency_key: key(),
        ...base,
        ...change,
      });
      expect(r.isError, JSON.stringify(change)).toBe(true);
      expect(['VALIDATION_FAILED']).toContain(out(r).error.code);
    }
    expect(await app.db.prisma.experiment.count({ where: { userId: p.user.id } })).toBe(0);
  });

  it('allows at most 3 running experiments (CONFLICT too_many_experiments)', async () => {
    const p = await person();
    const start = (name: string) =>
      callTool(p.client, 'insights_experiment_start', {
        idempotency_key: key(),
        name,
        intervention: 'something',
        baseline_days: 7,
        intervention_days: 14,
      });
    const ids = [];
    for (const name of ['a', 'b', 'c']) ids.push(out(await start(name)).id);
    const fourth = await start('d');
    expect(fourth.isError).toBe(true);
    expect(out(fourth).error).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'too_many_experiments', max: 3 },
    });
    // an abandoned one no longer counts
    await callTool(p.client, 'insights_experiment_control', { id: ids[0], action: 'abandon' });
    expect((await start('d')).isError).toBeFalsy();
  });
});

describe('insights_experiment_control', () => {
  it('pauses, resumes, stops; repeats change nothing; an ended one answers CONFLICT', async () => {
    const p = await person();
    const e = out(
      await callTool(p.client, 'insights_experiment_start', {
        idempotency_key: key(),
        name: 'Walk',
        intervention: 'walk after dinner',
        meal_type: 'dinner',
        baseline_days: 14,
        intervention_days: 14,
      }),
    );
    const control = async (action: string) =>
      callTool(p.client, 'insights_experiment_control', { id: e.id, action });
    const paused = out(await control('pause'));
    expect(paused.status).toBe('paused');
    expect(paused.paused_at).not.toBeNull();
    expect(out(await control('pause')).paused_at).toBe(paused.paused_at);
    const resumed = out(await control('resume'));
    expect(resumed).toMatchObject({ status: 'active', paused_at: null });
    expect(out(await control('resume')).status).toBe('active');
    const row = await app.db.prisma.experiment.findUniqueOrThrow({ where: { id: e.id } });
    expect(JSON.parse(row.pauses)).toHaveLength(1);
    const stopped = out(await control('stop'));
    expect(stopped.status).toBe('stopped');
    expect(stopped.ended_at).not.toBeNull();
    expect(out(await control('stop')).ended_at).toBe(stopped.ended_at);
    for (const action of ['pause', 'resume', 'abandon']) {
      const r = await control(action);
      expect(r.isError).toBe(true);
      expect(out(r).error).toMatchObject({
        code: 'CONFLICT',
        detail: { code: 'experiment_ended', status: 'stopped' },
      });
    }
    const bad = await control('explode');
    expect(out(bad).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('qualifying meals', () => {
  it('leaves out the meals eaten while paused and after a stop, and other meal types', async () => {
    const p = await person();
    const meal = (at: number, mealType = 'dinner') =>
      app.db.prisma.meal.create({
        data: { id: randomUUID(), userId: p.user.id, eatenAt: new Date(at), mealType },
      });
    const e = out(
      await callTool(p.client, 'insights_experiment_start', {
        idempotency_key: key(),
        name: 'Walk',
        intervention: 'walk after dinner',
        meal_type: 'dinner',
        baseline_days: 3,
        intervention_days: 3,
        start_at: new Date(clock.ms() - DAY).toISOString(),
      }),
    );
    await meal(clock.ms() - 2 * DAY); // control
    await meal(clock.ms() - 60 * MIN); // intervention
    await meal(clock.ms() - 50 * MIN, 'lunch'); // another type
    const control = async (action: string) =>
      out(await callTool(p.client, 'insights_experiment_control', { id: e.id, action })).result;
    await control('pause');
    await new Promise((r) => setTimeout(r, 5));
    await meal(clock.ms() - 1); // while paused (the pause began at least 4 ms before)
    await new Promise((r) => setTimeout(r, 5));
    expect((await control('pause')).intervention.meals).toBe(1);
    expect((await control('resume')).intervention.meals).toBe(1);
    await new Promise((r) => setTimeout(r, 5));
    await meal(clock.ms() - 1); // after resuming
    const stopped = await control('stop');
    expect(stopped.control.meals).toBe(1);
    expect(stopped.intervention.meals).toBe(2);
    await meal(clock.ms()); // after the stop
    await new Promise((r) => setTimeout(r, 5));
    const read = await rest(app, 'GET', `/api/v1/experiments/${e.id}`, { token: p.pat });
    expect(read.body.result.intervention.meals).toBe(2);
    expect(read.body.result.verdict).toBe('not_enough_data');
  });
});

describe('ownership and scopes', () => {
  it("answers 404 for another person's experiment (REST and MCP), and lists only one's own", async () => {
    const owner = await person();
    const other = await person();
    const e = out(
      await callTool(owner.client, 'insights_experiment_start', {
        idempotency_key: key(),
        name: 'Mine',
        intervention: 'walk',
        baseline_days: 7,
        intervention_days: 7,
      }),
    );
    expect(
      (await rest(app, 'GET', `/api/v1/experiments/${e.id}`, { token: other.pat })).status,
    ).toBe(404);
    const ctl = await callTool(other.client, 'insights_experiment_control', {
      id: e.id,
      action: 'stop',
    });
    expect(out(ctl).error.code).toBe('NOT_FOUND');
    expect((await rest(app, 'GET', '/api/v1/experiments', { token: other.pat })).body).toEqual([]);
    const unknown = await rest(app, 'GET', `/api/v1/experiments/${'x'.repeat(65)}`, {
      token: owner.pat,
    });
    expect(unknown.status).toBe(422);
  });

  it('needs insights:read to read and insights:write to start or control', async () => {
    const reader = await person(['insights:read']);
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('insights_experiments_read');
    expect(names).not.toContain('insights_experiment_start');
    expect(names).not.toContain('insights_experiment_control');
    const refused = await callTool(reader.client, 'insights_experiment_start', {
      idempotency_key: key(),
      name: 'x',
      intervention: 'y',
      baseline_days: 7,
      intervention_days: 7,
    });
    expect(out(refused).error.code).toBe('INSUFFICIENT_SCOPE');
    expect((await callTool(reader.client, 'insights_experiments_read')).isError).toBeFalsy();
    const nobody = await person(['health:nutrition:read']);
    expect((await rest(app, 'GET', '/api/v1/experiments', { token: nobody.pat })).status).toBe(403);
    expect(out(await callTool(nobody.client, 'insights_experiments_read')).error.code).toBe(
      'INSUFFICIENT_SCOPE',
    );
  });
});
