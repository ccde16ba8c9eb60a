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
    operation: 'ImportHealthIntervals',
    body: 'input',
    bodyLimit: INTERVALS_BODY_LIMIT,
    tag: 'health',
  },
  {
    method: 'POST',
    path: '/api/health/platform/import',
    operation: 'ImportHealthMetrics',
    body: 'input',
    bodyLimit: METRICS_BODY_LIMIT,
    tag: 'health',
  },
  { method: 'GET', path: '/api/health/sleep', operation: 'ListSleep', tag: 'health' },
  {
    method: 'POST',
    path: '/api/health/workouts/insight',
    operation: 'WorkoutInsight',
    body: 'input',
    tag: 'health',
  },
  { method: 'GET', path: '/api/health/workouts', operation: 'ListWorkouts', tag: 'health' },
  { method: 'GET', path: '/api/health/metrics', operation: 'ListHealthMetrics', tag: 'health' },
  // the read API (/api/v1/health): summaries, workouts and nights (issue 16)
  { method: 'GET', path: '/api/v1/health/summary', operation: 'HealthDaySummary', tag: 'health' },
  {
    method: 'GET',
    path: '/api/v1/health/summary/range',
    operation: 'HealthRangeSummary',
    tag: 'health',
  },
  { method: 'GET', path: '/api/v1/health/catalog', operation: 'HealthCatalog', tag: 'health' },
  {
    method: 'GET',
    path: '/api/v1/health/activity',
    operation: 'HealthActivityTrend',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/workouts',
    operation: 'ListHealthWorkoutPage',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/workouts/{workout_id}',
    operation: 'HealthWorkoutDetail',
    rename: { workout_id: 'id' },
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/workouts/{workout_id}/comparison',
    operation: 'HealthWorkoutComparison',
    rename: { workout_id: 'id' },
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/sleep/nights',
    operation: 'ListSleepNights',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/sleep/nights/{date}',
    operation: 'HealthSleepStages',
    tag: 'health',
  },
];
