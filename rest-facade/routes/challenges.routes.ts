/** Challenges read routes (/api/v1/challenges/...): the list, one challenge's standings, friends. */
import type { RestRoute } from '../route.ts';

// NOTE: /friends comes before /{challenge_id}, which would otherwise take "friends" as an id.
export const challengeRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/challenges', operation: 'challenges', tag: 'challenges' },
  {
    method: 'GET',
    path: '/api/v1/challenges/friends',
    operation: 'challengeFriends',
    tag: 'challenges',
  },
  {
    method: 'GET',
    path: '/api/v1/challenges/{challenge_id}',
    operation: 'challenge',
    tag: 'challenges',
  },
];
