/** Community read routes (/api/v1/community/...): circles, a member's shared view, nudges, mutes. */
import type { RestRoute } from '../route.ts';

export const communityRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/community/circles',
    operation: 'communityCircles',
    tag: 'community',
  },
  {
    method: 'GET',
    path: '/api/v1/community/circles/{circle_id}',
    operation: 'communityCircle',
    tag: 'community',
  },
  {
    method: 'GET',
    path: '/api/v1/community/circles/{circle_id}/members/{user_id}',
    operation: 'communityMemberView',
    tag: 'community',
  },
  {
    method: 'GET',
    path: '/api/v1/community/nudges',
    operation: 'communityNudges',
    tag: 'community',
  },
  {
    method: 'POST',
    path: '/api/v1/community/mutes/{user_id}',
    operation: 'muteCommunityMember',
    tag: 'community',
  },
  {
    method: 'DELETE',
    path: '/api/v1/community/mutes/{user_id}',
    operation: 'unmuteCommunityMember',
    tag: 'community',
  },
];
