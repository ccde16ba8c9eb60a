/** Goals of the read API (/api/v1): list, progress, set by metric, clear by metric. */
import type { RestRoute } from '../route.ts';

export const goalRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/goals', operation: 'goals', tag: 'goals' },
  { method: 'GET', path: '/api/v1/goals/progress', operation: 'goalProgress', tag: 'goals' },
  { method: 'PUT', path: '/api/v1/goals/{metric}', operation: 'setGoal', tag: 'goals' },
  { method: 'DELETE', path: '/api/v1/goals/{metric}', operation: 'clearGoal', tag: 'goals' },
];
