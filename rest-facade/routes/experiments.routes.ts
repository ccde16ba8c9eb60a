/** Experiments of the read API (/api/v1): the person's n-of-1 experiments and one with its result. */
import type { RestRoute } from '../route.ts';

export const experimentRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/experiments', operation: 'experiments', tag: 'experiments' },
  {
    method: 'GET',
    path: '/api/v1/experiments/{experiment_id}',
    operation: 'experiment',
    rename: { experiment_id: 'id' },
    tag: 'experiments',
  },
];
