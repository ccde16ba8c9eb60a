/**
 * What other domains use of community: who is in which circle and what each shares with whom
 * (challenges: friends, circles, and whose figures a viewer sees).
 */
export {
  circleMembers,
  circleOwnerId,
  circlesOf,
  friendIds,
  isCircleMember,
  shareACircle,
  sharesWithViewer,
} from './community.members.ts';
export type { CircleMemberRow, PersonCircleRow } from './community.members.ts';
