/**
 * A person with a health record for the summary tests (issue 16): in Europe/Berlin, with metrics,
 * a night from two sources and workouts at known local times (test/domains/health-summary*.test.ts).
 */
import { importIntervalsFor, importMetricsFor } from '../../src/domains/health/health.service.ts';
import type { MetricType, SleepStage } from '../../src/domains/health/health.constants.ts';
import type { TestApp } from '../harness/app.ts';
import { seedUser } from './users.ts';
import type { SeededUser } from './users.ts';

/** Berlin is UTC+1 in early March 2025 (summer time starts on the 30th). */
export const at = (local: string): Date => new Date(`${local}+01:00`);

/**
 * A person in Europe/Berlin with: steps on the 10th (one at 00:30 local, on the 9th in UTC) and one
 * on the 11th at 00:15 local (the 10th in UTC); heart rate from two sources; two weights; a night
 * ending on the 10th from a watch and a phone; a run on the 10th with heart rate during it, and two
 * earlier runs and a ride.
 */
export async function seedHealthPerson(app: TestApp): Promise<SeededUser> {
  const person = await seedUser(app);
  await app.db.prisma.user.update({
    where: { id: person.user.id },
    data: { timezone: 'Europe/Berlin' },
  });
  const m = (metricType: MetricType, value: number, local: string, source = 'Watch') => ({
    metricType,
    value,
    timestamp: at(local),
    source,
  });
  await importMetricsFor(app.db, person.user.id, {
    samples: [
      m('steps', 1000, '2025-03-10T00:30:00', 'Phone'),
      m('steps', 2000, '2025-03-10T12:00:00'),
      m('steps', 500, '2025-03-10T23:30:00'),
      m('steps', 700, '2025-03-11T00:15:00'),
      m('steps', 4000, '2025-03-03T10:00:00'),
      m('heart_rate', 60, '2025-03-10T07:00:00'),
      m('heart_rate', 80, '2025-03-10T09:00:00'),
      m('heart_rate', 100, '2025-03-10T11:00:00', 'Phone'),
      m('heart_rate', 120, '2025-03-10T18:05:00'),
      m('heart_rate', 140, '2025-03-10T18:15:00'),
      m('heart_rate', 160, '2025-03-10T18:25:00'),
      m('heart_rate', 130, '2025-03-05T07:10:00'),
      m('body_weight', 80, '2025-03-10T08:00:00', 'Scale'),
      m('body_weight', 79.5, '2025-03-10T20:00:00', 'Scale'),
      m('body_weight', 81, '2025-03-03T08:00:00', 'Scale'),
      m('active_energy', 250.5, '2025-03-10T13:00:00'),
    ],
  });
  const s = (stage: string, start: string, end: string, source = 'Watch') => ({
    stage: stage as SleepStage,
    startAt: at(start),
    endAt: at(end),
    source,
  });
  const w = (activityType: string, start: string, end: string, kcal: number, meters: number) => ({
    activityType,
    startAt: at(start),
    endAt: at(end),
    energyKcal: kcal,
    distanceM: meters,
    source: 'Watch',
  });
  await importIntervalsFor(app.db, person.user.id, {
    sleep: [
      s('core', '2025-03-09T22:00:00', '2025-03-10T01:00:00'),
      s('deep', '2025-03-10T01:00:00', '2025-03-10T02:00:00'),
      s('rem', '2025-03-10T02:00:00', '2025-03-10T03:00:00'),
      s('awake', '2025-03-10T03:00:00', '2025-03-10T03:10:00'),
      s('core', '2025-03-10T03:10:00', '2025-03-10T06:00:00'),
      s('in_bed', '2025-03-09T21:30:00', '2025-03-10T06:30:00', 'Phone'),
      s('asleep', '2025-03-09T22:30:00', '2025-03-10T06:00:00', 'Phone'),
      s('asleep', '2025-03-08T23:00:00', '2025-03-09T07:00:00'),
    ],
    workouts: [
      w('running', '2025-03-10T18:00:00', '2025-03-10T18:30:00', 300, 5000),
      w('running', '2025-03-05T07:00:00', '2025-03-05T07:40:00', 400, 6000),
      w('running', '2025-03-01T07:00:00', '2025-03-01T07:40:00', 400, 6000),
      w('cycling', '2025-03-08T10:00:00', '2025-03-08T11:00:00', 500, 20000),
    ],
  });
  return person;
}
