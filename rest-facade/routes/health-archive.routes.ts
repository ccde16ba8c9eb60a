/**
 * The health archive of the read API (/api/v1/health/archive): the whole Apple Health export
 * (issue 16), and the phone's upload of its export.zip with the import's progress (issue 30).
 */
import type { RestRoute } from '../route.ts';

export const healthArchiveRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/health/archive/coverage',
    operation: 'healthArchiveCoverage',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/samples',
    operation: 'healthArchiveSamples',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/events',
    operation: 'healthArchiveEvents',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/workouts',
    operation: 'healthArchiveWorkouts',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/workouts/{workout_id}/series',
    operation: 'healthArchiveWorkoutSeries',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/workouts/{workout_id}/route',
    operation: 'healthArchiveRoute',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/ecg',
    operation: 'healthArchiveEcg',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/ecg/{ecg_id}',
    operation: 'healthArchiveEcg',
    tag: 'health',
  },
  {
    method: 'POST',
    path: '/api/v1/health/archive/import',
    operation: 'importHealthArchive',
    responder: 'upload',
    headers: { 'idempotency-key': 'idempotencyKey' },
    status: 202,
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/imports',
    operation: 'healthArchiveImports',
    tag: 'health',
  },
  {
    method: 'GET',
    path: '/api/v1/health/archive/imports/{import_id}',
    operation: 'healthArchiveImport',
    rename: { import_id: 'id' },
    tag: 'health',
  },
];
