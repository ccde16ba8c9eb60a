/**
 * Discovery (issue 33) through MCP and REST: the seven tools with their scopes, observations (add,
 * list, delete, bounds, local times, another person's id), the signals read with coverage, a run
 * from start to findings over constructed data (a planted next-day effect), not enough data with
 * what is missing, one open run at a time, explorations, and runs taken back after a crash.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import {
  checkStaleDiscoveryRuns,
  resumeDiscoveryRuns,
} from '../../src/domains/discovery/discovery.worker.ts';
import type { DiscoveryWorkerDeps } from '../../src/domains/discovery/discovery.worker.ts';
import { addDays, localDateOf } from '../../src/platform/local-dates.ts';
import { seedMeals } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { seededRandom } from '../fixtures/seeded-random.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const db = app.db.prisma;
const ALL = ['discovery:read', 'discovery:write', 'insights:write'];
const ZONE = 'Europe/Berlin';

async function person(scopes: string[] = ALL, timezone = ZONE) {
  const u = await seedUser(app);
  await db.user.update({ where: { id: u.user.id }, data: { timezone } });
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { id: u.user.id, token: u.token, pat, client: await mcpClient(app, pat) };
}
type Person = Awaited<ReturnType<typeof person>>;

const sc = (r: any): any => r.structuredContent;
let seq = 0;
const CREATES = ['discovery_observation_add', 'discovery_run_start', 'discovery_explore_start'];
/** callTool with a fresh idempotency key for the tools that create an entry. */
const call = (client: Person['client'], name: string, args: Record<string, unknown> = {}) =>
  callTool(
    client,
    name,
    CREATES.includes(name) ? { idempotency_key: `disc-${clock.ms()}-${++seq}`, ...args } : args,
  );
const errorOf = (r: any): any => (r.isError ? sc(r).error : undefined);

/** Noon of local day `date` in Berlin (within a minute or two of UTC+1/+2 is enough here). */
const berlinNoon = (date: string): Date => new Date(`${date}T11:00:00Z`);

/**
 * Constructed data (not a real person): `days` local days ending yesterday, CGM readings every
 * 30 minutes around a daily level, and the observation "late dinner" (with the day's last meal at
 * 21:30 instead of 18:30) on a random half of the days; the day after a late dinner the level is
 * `effect` mg/dL higher.
 */
async function plant(p: Person, days: number, effect: number, seed = 7): Promise<string[]> {
  const rand = seededRandom(seed); // mulberry32: the same constructed data every run
  const yesterday = addDays(localDateOf(clock.now(), ZONE), -1);
  const dates = Array.from({ length: days }, (_, i) => addDays(yesterday, -(days - 1 - i)));
  const late = dates.map(() => rand() < 0.5);
  const readings: { id: string; t: Date; v: number }[] = [];
  dates.forEach((date, i) => {
    const level = 105 + (rand() - 0.5) * 16 + (i > 0 && late[i - 1] ? effect : 0);
    const start = new Date(`${date}T00:00:00+01:00`).getTime();
    for (let k = 0; k < 48; k++) {
      const v = Math.round(level + (rand() - 0.5) * 20);
      readings.push({ id: `dr-${p.id}-${i}-${k}`, t: new Date(start + k * 1_800_000 + 60_000), v });
    }
  });
  await db.glucoseReading.createMany({
    data: readings.map((r) => ({
      id: r.id,
      userId: p.id,
      sensorId: 1,
      timestamp: r.t,
      valueMgDl: r.v,
      source: 'cgm',
    })),
  });
  // the day's last meal: 21:30 on a late-dinner day, 18:30 otherwise (Berlin, UTC+1 in winter)
  await seedMeals(
    app,
    p.id,
    dates.map((date, i) => ({
      eatenAt: new Date(`${date}T${late[i] ? '21:30' : '18:30'}:00+01:00`),
      kcal: 700,
      carbsG: 80,
    })),
  );
  await db.discoveryObservation.createMany({
    data: dates
      .filter((_, i) => late[i])
      .map((date) => ({ userId: p.id, observedAt: berlinNoon(date), label: 'late dinner' })),
  });
  return dates;
}

/** Reads the run until it is done or failed (the worker runs in this process). */
async function finished(p: Person, runId: string): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const view = sc(await call(p.client, 'discovery_hypotheses_read', { run_id: runId }));
    if (view.run.status === 'done' || view.run.status === 'failed') return view;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`run ${runId} did not finish`);
}

describe('discovery tools and scopes', () => {
  it('lists the seven tools and binds each to its scope', async () => {
    const reader = await person(['discovery:read']);
    const both = await person();
    const listed = async (p: Person) =>
      (await p.client.listTools()).tools
        .map((t) => t.name)
        .filter((n) => n.startsWith('discovery_'))
        .sort();
    expect(await listed(reader)).toEqual([
      'discovery_hypotheses_read',
      'discovery_observations_read',
      'discovery_signals_read',
    ]);
    expect(await listed(both)).toEqual([
      'discovery_explore_start',
      'discovery_hypotheses_read',
      'discovery_observation_add',
      'discovery_observation_delete',
      'discovery_observations_read',
      'discovery_run_start',
      'discovery_signals_read',
    ]);
    expect(errorOf(await call(reader.client, 'discovery_observations_read', {}))).toBeUndefined();
    const refused = await call(reader.client, 'discovery_observation_add', { label: 'x' });
    expect(refused.isError).toBe(true);
    expect(errorOf(await call(reader.client, 'discovery_run_start', {}))).toBeDefined();
    // REST: the read routes need discovery:read
    const other = await person(['profile:read']);
    expect((await rest(app, 'GET', '/api/v1/discovery/signals', { token: other.pat })).status).toBe(
      403,
    );
    expect(
      (await rest(app, 'GET', '/api/v1/discovery/signals', { token: reader.pat })).status,
    ).toBe(200);
  });
});

describe('observations', () => {
  it('adds with a normalised label in local time, lists newest first with labels, deletes with confirmation', async () => {
    const p = await person();
    const yesterday = addDays(localDateOf(clock.now(), ZONE), -1);
    const added = sc(
      await call(p.client, 'discovery_observation_add', {
        label: '  Coffee   after 3 PM ',
        observed_at: `${yesterday}T15:30:00`,
        intensity: 4,
      }),
    );
    expect(added).toMatchObject({
      label: 'coffee after 3 pm',
      intensity: 4,
      date: yesterday,
      time_zone: ZONE,
    });
    // 15:30 in Berlin is 14:30 or 13:30 UTC, never 15:30 UTC
    expect(new Date(added.observed_at).getUTCHours()).toBeLessThan(15);
    sc(await call(p.client, 'discovery_observation_add', { label: 'headache' }));
    const list = sc(await call(p.client, 'discovery_observations_read', {}));
    expect(list.observations.map((o: any) => o.label)).toEqual(['headache', 'coffee after 3 pm']);
    expect(list.labels).toEqual([
      { label: 'coffee after 3 pm', count: 1 },
      { label: 'headache', count: 1 },
    ]);
    const only = sc(await call(p.client, 'discovery_observations_read', { label: 'HEADACHE' }));
    expect(only.observations).toHaveLength(1);
    const rest1 = await rest(app, 'GET', '/api/v1/discovery/observations', { token: p.pat });
    expect(rest1.status).toBe(200);
    expect(rest1.body.observations).toHaveLength(2);

    const unconfirmed = await call(p.client, 'discovery_observation_delete', { id: added.id });
    expect(errorOf(unconfirmed).code).toBe('CONFIRMATION_REQUIRED');
    const deleted = sc(
      await call(p.client, 'discovery_observation_delete', { id: added.id, confirm: true }),
    );
    expect(deleted.id).toBe(added.id);
    const again = await call(p.client, 'discovery_observation_delete', {
      id: added.id,
      confirm: true,
    });
    expect(errorOf(again).code).toBe('NOT_FOUND');
  });

  it("refuses bad input (422) and another person's observation (404)", async () => {
    const p = await person();
    const q = await person();
    for (const args of [
      { label: '' },
      { label: 'x'.repeat(61) },
      { label: 'ok', intensity: 0 },
      { label: 'ok', intensity: 6 },
      { label: 'ok', note: 'n'.repeat(281) },
      { label: 'ok', observed_at: new Date(clock.ms() + 86_400_000).toISOString() },
    ]) {
      expect(errorOf(await call(p.client, 'discovery_observation_add', args)).code).toBe(
        'VALIDATION_FAILED',
      );
    }
    const mine = sc(await call(p.client, 'discovery_observation_add', { label: 'tired' }));
    const theirs = await call(q.client, 'discovery_observation_delete', {
      id: mine.id,
      confirm: true,
    });
    expect(errorOf(theirs).code).toBe('NOT_FOUND');
    expect(sc(await call(q.client, 'discovery_observations_read', {})).observations).toEqual([]);
  });
});

describe('signals', () => {
  it('answers the series the data supports with coverage, and the catalogue without data', async () => {
    const p = await person();
    await plant(p, 20, 0);
    const view = sc(await call(p.client, 'discovery_signals_read', { days: 30 }));
    expect(view.time_zone).toBe(ZONE);
    const mean = view.signals.find((s: any) => s.key === 'glucose_mean');
    expect(mean).toMatchObject({ domain: 'glucose', days: 20, coverage_pct: 66.7 });
    const late = view.signals.find((s: any) => s.key === 'observation:late dinner');
    expect(late).toBeDefined();
    expect(view.missing).toContain('steps');
    const viaRest = await rest(app, 'GET', '/api/v1/discovery/signals?days=30', { token: p.pat });
    expect(viaRest.body.signals).toEqual(view.signals);
    expect(errorOf(await call(p.client, 'discovery_signals_read', { days: 13 })).code).toBe(
      'VALIDATION_FAILED',
    );
  });
});

describe('a run', () => {
  it('finds a planted next-day association, in words that name no cause, with a ready experiment', async () => {
    const p = await person();
    await plant(p, 60, 30);
    const started = sc(await call(p.client, 'discovery_run_start', { days: 60 }));
    expect(started).toMatchObject({ kind: 'run', status: 'queued', time_zone: ZONE });
    const view = await finished(p, started.id);
    expect(view.run.status).toBe('done');
    expect(view.run.found).toBeGreaterThan(0);
    const hit = view.hypotheses.find(
      (h: any) =>
        h.driver === 'observation:late dinner' && h.outcome === 'glucose_mean' && h.lag === 1,
    );
    expect(hit).toBeDefined();
    expect(hit).toMatchObject({ significant: true, direction: 'higher' });
    expect(hit.ci_low).toBeLessThan(30);
    expect(hit.ci_high).toBeGreaterThan(30);
    expect(hit.q).toBeLessThanOrEqual(0.1);
    expect(hit.n).toBeGreaterThanOrEqual(14);
    for (const h of view.hypotheses) {
      expect(h.statement).toMatch(/associated with/);
      expect(h.statement).not.toMatch(/cause/i);
    }
    // the late last meal goes with it too, and proposes an experiment a person can start as is
    const meal = view.hypotheses.find(
      (h: any) => h.driver === 'last_meal_hour' && h.outcome === 'glucose_mean' && h.lag === 1,
    );
    expect(meal).toMatchObject({ significant: true, direction: 'higher' });
    expect(meal.experiment).toMatchObject({ meal_type: 'dinner' });
    const started2 = await call(p.client, 'insights_experiment_start', {
      ...Object.fromEntries(Object.entries(meal.experiment).filter(([, v]) => v !== null)),
      idempotency_key: `experiment-${p.id}`,
    });
    expect(errorOf(started2)).toBeUndefined();
    // the same day (lag 0) carries no planted effect: not found
    expect(
      view.hypotheses.some(
        (h: any) =>
          h.driver === 'observation:late dinner' && h.outcome === 'glucose_mean' && h.lag === 0,
      ),
    ).toBe(false);
    // REST answers the same run; another person gets 404
    const viaRest = await rest(app, 'GET', `/api/v1/discovery/runs/${started.id}`, {
      token: p.pat,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.hypotheses).toEqual(view.hypotheses);
    const q = await person();
    expect(
      (await rest(app, 'GET', `/api/v1/discovery/runs/${started.id}`, { token: q.pat })).status,
    ).toBe(404);
    expect(
      errorOf(await call(q.client, 'discovery_hypotheses_read', { run_id: started.id })).code,
    ).toBe('NOT_FOUND');
    // the graph shows the latest run's findings
    const graph = await gql(
      app,
      'query { me { discoveryFindings(first: 50) { nodes { driver outcome lag } } discoveryObservations(first: 5) { nodes { label } } } }',
      { token: p.token },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.me.discoveryFindings.nodes).toHaveLength(view.run.found);
    expect(graph.body.data.me.discoveryObservations.nodes[0].label).toBe('late dinner');
  });

  it('says what is missing where there is not enough data', async () => {
    const p = await person();
    await plant(p, 10, 0, 3);
    const started = sc(await call(p.client, 'discovery_run_start', {}));
    const view = await finished(p, started.id);
    expect(view.run).toMatchObject({ status: 'done', found: 0, pairs_tested: 0 });
    const all = sc(
      await call(p.client, 'discovery_hypotheses_read', { run_id: started.id, include: 'all' }),
    );
    expect(all.hypotheses.length).toBeGreaterThan(0);
    for (const h of all.hypotheses) {
      expect(h.effect).toBeNull();
      expect(h.not_enough_data).toMatch(/14/);
    }
  });

  it('allows one open run at a time (409 with its id) and explores only a known signal', async () => {
    const p = await person();
    const open = await db.discoveryRun.create({
      data: { userId: p.id, kind: 'run', fromDate: '2026-01-01', toDate: '2026-03-31', zone: ZONE },
    });
    const second = errorOf(await call(p.client, 'discovery_run_start', {}));
    expect(second).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'run_in_progress', run_id: open.id },
    });
    await db.discoveryRun.update({ where: { id: open.id }, data: { status: 'failed' } });
    const unknown = errorOf(
      await call(p.client, 'discovery_explore_start', { signal: 'mood_of_cat' }),
    );
    expect(unknown.code).toBe('VALIDATION_FAILED');
    expect(unknown.message).toMatch(/discovery_signals_read/);
    await plant(p, 30, 0, 11);
    const explore = sc(
      await call(p.client, 'discovery_explore_start', { signal: 'glucose_mean', days: 30 }),
    );
    expect(explore).toMatchObject({ kind: 'explore', focus: 'glucose_mean' });
    const view = await finished(p, explore.id);
    const all = sc(
      await call(p.client, 'discovery_hypotheses_read', {
        run_id: explore.id,
        include: 'all',
        limit: 100,
      }),
    );
    expect(view.run.status).toBe('done');
    const lags = new Set(all.hypotheses.map((h: any) => h.lag));
    expect([...lags].sort()).toEqual([0, 1, 2, 3]);
    for (const h of all.hypotheses) expect([h.driver, h.outcome]).toContain('glucose_mean');
  });
});

describe('runs left behind', () => {
  const deps = (): DiscoveryWorkerDeps => ({
    ...app.deps,
    log: createLogger('silent'),
    singleProcess: false,
  });

  it('queues again a run whose process died, fails one out of starts, and finishes the queued one', async () => {
    const p = await person();
    await plant(p, 20, 0, 5);
    const run = (attempts: number, minutesAgo: number) => ({
      userId: p.id,
      kind: 'run',
      fromDate: addDays(localDateOf(clock.now(), ZONE), -20),
      toDate: addDays(localDateOf(clock.now(), ZONE), -1),
      zone: ZONE,
      status: 'running',
      attempts,
      heartbeatAt: new Date(clock.ms() - minutesAgo * 60_000),
    });
    const orphan = await db.discoveryRun.create({ data: run(1, 10) });
    const givenUp = await db.discoveryRun.create({ data: run(3, 10) });
    const live = await db.discoveryRun.create({ data: run(1, 0.5) });
    expect(await checkStaleDiscoveryRuns(deps(), clock.now())).toBe(1);
    const failed = await db.discoveryRun.findUniqueOrThrow({ where: { id: givenUp.id } });
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/discovery_run_start/);
    expect((await db.discoveryRun.findUniqueOrThrow({ where: { id: live.id } })).status).toBe(
      'running',
    );
    const view = await finished(p, orphan.id);
    expect(view.run.status).toBe('done');
    // at start, a single process takes back every running run
    await db.discoveryRun.update({ where: { id: live.id }, data: { status: 'running' } });
    await resumeDiscoveryRuns({ ...deps(), singleProcess: true });
    expect((await finished(p, live.id)).run.status).toBe('done');
  });
});
