/**
 * Factories for the inputs of scores and insights: glucose, metrics, sleep and workouts through the
 * real REST imports, meals straight into the meals table (its API is built separately), and the
 * real Hall 2018 CGM trace of test/fixtures/cgm.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { StatPoint } from '../../src/domains/glucose/glucose.stats.ts';
import type { TestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

/** The 1,846 readings of Hall 2018 subject 1636-69-001 (CC BY 4.0), local times read as UTC. */
export function hallTrace(): StatPoint[] {
  const lines = readFileSync(
    new URL('../fixtures/cgm/hall2018-one-subject.csv', import.meta.url),
    'utf8',
  )
    .trim()
    .split('\n')
    .slice(1);
  return lines.map((l) => {
    const [, time, gl] = l.split(',');
    return { timestamp: new Date(`${time.replace(' ', 'T')}Z`), valueMgDl: Number(gl) };
  });
}

/** Stores readings (sensor 1) through POST /api/glucose/readings/batch. */
export async function seedGlucose(
  app: TestApp,
  token: string,
  points: readonly StatPoint[],
): Promise<void> {
  const body = points.map((p) => ({
    sensor_id: 1,
    timestamp: p.timestamp.toISOString(),
    value_mg_dl: p.valueMgDl,
  }));
  const res = await rest(app, 'POST', '/api/glucose/readings/batch', { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export interface MetricIn {
  metric_type: string;
  value: number;
  timestamp: string;
  source?: string;
}

/** Stores point-in-time metrics through POST /api/health/platform/import. */
export async function seedMetrics(app: TestApp, token: string, samples: MetricIn[]): Promise<void> {
  const res = await rest(app, 'POST', '/api/health/platform/import', { token, body: { samples } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export interface IntervalsIn {
  sleep?: { stage: string; start_at: string; end_at: string; source?: string }[];
  workouts?: { activity_type: string; start_at: string; end_at: string; energy_kcal?: number }[];
}

/** Stores sleep and workout intervals through POST /api/health/platform/import/batch. */
export async function seedIntervals(app: TestApp, token: string, body: IntervalsIn): Promise<void> {
  const res = await rest(app, 'POST', '/api/health/platform/import/batch', {
    token,
    body: { sleep: [], workouts: [], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export interface MealIn {
  eatenAt: Date;
  kcal?: number;
  proteinG?: number;
  carbsG?: number;
  fatG?: number;
  fiberG?: number;
  sugarG?: number;
  deletedAt?: Date | null;
}

/** Meals with their totals, written to the meals table directly. */
export async function seedMeals(app: TestApp, userId: number, meals: MealIn[]): Promise<void> {
  await app.db.prisma.meal.createMany({
    data: meals.map((m) => ({ id: randomUUID(), userId, ...m })),
  });
}

/** A phone's sync push of one table's changes (created, updated, deleted ids); expects 200. */
export async function pushTable(
  app: TestApp,
  token: string,
  table: string,
  changes: { created?: unknown[]; updated?: unknown[]; deleted?: string[] },
): Promise<void> {
  const res = await rest(app, 'POST', '/api/sync/push', {
    token,
    body: {
      changes: { [table]: { created: [], updated: [], deleted: [], ...changes } },
      last_pulled_at: clock.ms(),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The instant yesterday's local day began in Asia/Kolkata (UTC+05:30 all year, no DST). */
export function kolkataYesterdayStart(): number {
  const IST = 5.5 * 3_600_000;
  const local = new Date(clock.ms() + IST);
  const today = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) - IST;
  return today - 86_400_000;
}
