/** Health-store import and reads (docs/spec/rest-api.md, "Health-store import and reads"). */
import type { RestRoute } from '../route.ts';

/**
 * The imports' body limits, from their worst case: MAX_IMPORT_SAMPLES (10,000, health.service.ts)
 * samples with every text at its longest and written as \uXXXX escapes (6 bytes per UTF-16 unit:
 * what an ASCII-only JSON writer such as Python's json.dumps sends for "Apple Watch de Anaïs"),
 * numbers and times at their longest, pretty-printed with 4 spaces. A metric sample: source 200
 * units = 1,200 bytes, 1,425 in all; a workout (longer than a sleep sample): activity_type 100,
 * source 200 and source_id 200 units = 3,000 bytes, 3,351 in all. Rounded up to 1,500 and 3,500
 * bytes; test/domains/sync-wire.test.ts posts both worst cases.
 */
const IMPORT_SAMPLES = 10_000;
const METRIC_SAMPLE_MAX_BYTES = 1_500;
const INTERVAL_SAMPLE_MAX_BYTES = 3_500;
const METRICS_BODY_LIMIT = `${Math.ceil((IMPORT_SAMPLES * METRIC_SAMPLE_MAX_BYTES) / 2 ** 20)}mb`; // 15mb
const INTERVALS_BODY_LIMIT = `${Math.ceil((IMPORT_SAMPLES * INTERVAL_SAMPLE_MAX_BYTES) / 2 ** 20)}mb`; // 34mb

export const healthRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/health/platform/import/batch',
    operation: 'importHealthIntervals',
    body: 'input',
    bodyLimit: INTERVALS_BODY_LIMIT,
    tag: 'health',
  },
  {
    method: 'POST',
    path: '/api/health/platform/import',
    operation: 'importHealthMetrics',
    body: 'input',
    bodyLimit: METRICS_BODY_LIMIT,
    tag: 'health',
  },
  { method: 'GET', path: '/api/health/sleep', operation: 'healthSleep', tag: 'health' },
  {
    method: 'POST',
    path: '/api/health/workouts/insight',
    operation: 'workoutInsight',
    body: 'input',
    tag: 'health',
  },
  { method: 'GET', path: '/api/health/workouts', operation: 'healthWorkouts', tag: 'health' },
  { method: 'GET', path: '/api/health/metrics', operation: 'healthMetrics', tag: 'health' },
  // the read API (/api/v1/health): summaries, workouts and nights (issue 16)
  { method: 'GET', path: '/api/v1/health/summary', operation: 'healthDaySummary', tag: 'health' },
  {
    method: 'GET',
    path: '/api/v1/health/summary/range',
    operation: 'healthRangeSummary',
    tag: 'health',
  },
  { method: 'GET', path: '/api/v1/health/catalog', operation: 'healthCatalog', tag: 'health' },
  {
    method: 'GET',
    path: '/api/v1/health/activity',
    operation: 'healthActivityTrend',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/workouts',
    operation: 'healthWorkoutPage',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/workouts/{workout_id}',
    operation: 'healthWorkout',
    rename: { workout_id: 'id' },
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/workouts/{workout_id}/comparison',
    operation: 'healthWorkoutComparison',
    rename: { workout_id: 'id' },
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/sleep/nights',
    operation: 'healthSleepNights',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/sleep/nights/{date}',
    operation: 'healthSleepNight',
    tag: 'health',
  },
];
