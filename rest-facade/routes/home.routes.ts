/** Home of the read API (/api/v1/home): headline, next actions, streaks, morning review. */
import type { RestRoute } from '../route.ts';

export const homeRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/home/headline', operation: 'GetHomeHeadline', tag: 'home' },
  {
    method: 'GET',
    path: '/api/v1/home/next-actions',
    operation: 'GetHomeNextActions',
    tag: 'home',
  },
  { method: 'GET', path: '/api/v1/home/streak', operation: 'GetHomeStreak', tag: 'home' },
  {
    method: 'GET',
    path: '/api/v1/home/morning-review',
    operation: 'GetMorningReview',
    tag: 'home',
  },
];
