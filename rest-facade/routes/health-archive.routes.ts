/**
 * The health archive of the read API (/api/v1/health/archive): the whole Apple Health export
 * (issue 16), and the phone's upload of its export.zip with the import's progress (issue 30).
 */
import type { RestRoute } from '../route.ts';

export const healthArchiveRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/health/archive/coverage',
    operation: 'HealthArchiveCoverage',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/samples',
    operation: 'HealthArchiveSamples',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/events',
    operation: 'HealthArchiveEvents',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/workouts',
    operation: 'HealthArchiveWorkouts',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/workouts/{workout_id}/series',
    operation: 'HealthArchiveWorkoutSeries',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/workouts/{workout_id}/route',
    operation: 'HealthArchiveRoute',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/ecg',
    operation: 'HealthArchiveEcg',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/ecg/{ecg_id}',
    operation: 'HealthArchiveEcg',
    tag: 'health',
  },
  {
    method: 'POST',
    path: '/api/v1/health/archive/import',
    operation: 'ImportHealthArchive',
    responder: 'upload',
    headers: { 'idempotency-key': 'idempotencyKey' },
    status: 202,
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/imports',
    operation: 'HealthArchiveImports',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/imports/{import_id}',
    operation: 'HealthArchiveImport',
    rename: { import_id: 'id' },
    tag: 'health',
  },
];
