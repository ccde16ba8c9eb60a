/**
 * Seeders of the person's health data for the goals, snoring and home tests (issue 16): rows
 * written straight into the synced tables, at times relative to today (UTC, the default zone).
 */
import { randomBytes } from 'node:crypto';
import type { TestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

export const rand = (): string => randomBytes(8).toString('hex');
const DAY = 86_400_000;

/** Midnight UTC of today + `days` (negative: before), plus `hours`. */
export function dayAt(days: number, hours = 0): Date {
  const now = clock.now();
  return new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) +
      days * DAY +
      hours * 3_600_000,
  );
}

/** YYYY-MM-DD of today + `days` (UTC). */
export const dateOf = (days: number): string => dayAt(days).toISOString().slice(0, 10);

export async function seedMetric(
  app: TestApp,
  userId: number,
  metricType: string,
  value: number,
  at: Date,
  source = 'watch',
): Promise<void> {
  await app.db.prisma.healthMetric.create({
    data: { id: rand(), userId, metricType, value, unit: '', timestamp: at, source },
  });
}

export async function seedSleep(
  app: TestApp,
  userId: number,
  stage: string,
  startAt: Date,
  endAt: Date,
): Promise<void> {
  await app.db.prisma.sleepSample.create({
    data: { id: rand(), userId, stage, startAt, endAt, source: 'watch' },
  });
}

export async function seedGlucose(
  app: TestApp,
  userId: number,
  valueMgDl: number,
  timestamp: Date,
): Promise<void> {
  await app.db.prisma.glucoseReading.create({
    data: { id: rand(), userId, valueMgDl, timestamp, source: 'cgm' },
  });
}
