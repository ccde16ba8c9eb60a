/** Home of the read API (/api/v1/home): headline, next actions, streaks, morning review. */
import type { RestRoute } from '../route.ts';

export const homeRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/home/headline', operation: 'homeHeadline', tag: 'home' },
  {
    method: 'GET',
    path: '/api/v1/home/next-actions',
    operation: 'homeNextActions',
    tag: 'home',
  },
  { method: 'GET', path: '/api/v1/home/streak', operation: 'homeStreak', tag: 'home' },
  {
    method: 'GET',
    path: '/api/v1/home/morning-review',
    operation: 'morningReview',
    tag: 'home',
  },
];
