/** The health archive of the read API (/api/v1/health/archive): the whole Apple Health export (issue 16). */
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
];
