/** What other domains use of community: who is in which circle (challenges: friends and circles). */
export {
  circleMembers,
  circleOwnerId,
  circlesOf,
  friendIds,
  isCircleMember,
  shareACircle,
} from './community.members.ts';
export type { CircleMemberRow, PersonCircleRow } from './community.members.ts';
