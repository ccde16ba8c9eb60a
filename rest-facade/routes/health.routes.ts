/** Health-store import and reads (docs/spec/rest-api.md, "Health-store import and reads"). */
import type { RestRoute } from '../route.ts';

export const healthRoutes: RestRoute[] = [
  { method: 'POST', path: '/api/health/platform/import/batch', operation: 'ImportHealthIntervals', body: 'input', tag: 'health' },
  { method: 'POST', path: '/api/health/platform/import', operation: 'ImportHealthMetrics', body: 'input', tag: 'health' },
  { method: 'GET', path: '/api/health/sleep', operation: 'ListSleep', tag: 'health' },
  { method: 'GET', path: '/api/health/workouts', operation: 'ListWorkouts', tag: 'health' },
  { method: 'GET', path: '/api/health/metrics', operation: 'ListHealthMetrics', tag: 'health' },
];
