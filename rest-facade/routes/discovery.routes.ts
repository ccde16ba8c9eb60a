/** Discovery read routes (/api/v1/discovery/...): signals, observations, a run's findings. */
import type { RestRoute } from '../route.ts';

export const discoveryRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/discovery/signals',
    operation: 'discoverySignals',
    tag: 'discovery',
  },
  {
    method: 'GET',
    path: '/api/v1/discovery/observations',
    operation: 'discoveryObservations',
    tag: 'discovery',
  },
  {
    method: 'GET',
    path: '/api/v1/discovery/hypotheses',
    operation: 'discoveryHypotheses',
    tag: 'discovery',
  },
  {
    method: 'GET',
    path: '/api/v1/discovery/runs/{run_id}',
    operation: 'discoveryHypotheses',
    tag: 'discovery',
  },
];
