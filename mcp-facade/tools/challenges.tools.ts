/** Challenges between friends (people who share a circle): invite, accept, check in, standings. */
import type { McpTool } from '../tool.ts';

export const challengeTools: McpTool[] = [
  {
    name: 'challenges_challenge_accept',
    title: 'Accept a challenge invitation',
    operation: 'acceptChallenge',
    scopes: ['community:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'challenges_challenge_cancel',
    title: 'Cancel a challenge I created',
    operation: 'cancelChallenge',
    scopes: ['community:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'challenges_challenge_checkin',
    title: 'Check in a habit challenge day',
    operation: 'checkinChallenge',
    scopes: ['community:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'challenges_challenge_decline',
    title: 'Decline a challenge invitation',
    operation: 'declineChallenge',
    scopes: ['community:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'challenges_challenge_create',
    title: 'Challenge friends',
    operation: 'createChallenge',
    scopes: ['community:write'],
    kind: 'shares',
  },
  {
    name: 'challenges_friends_read',
    title: 'List friends to challenge',
    operation: 'challengeFriends',
    scopes: ['community:read'],
    kind: 'read',
  },
  {
    name: 'challenges_list',
    title: 'List my challenges',
    operation: 'challenges',
    scopes: ['community:read'],
    kind: 'read',
  },
  {
    name: 'challenge_read',
    title: 'Read a challenge and its standings',
    operation: 'challenge',
    scopes: ['community:read'],
    kind: 'read',
  },
];

/** The circle's challenge (the spec lists these two in the community family). */
export const circleChallengeTools: McpTool[] = [
  {
    name: 'community_challenge_set',
    title: "Set a circle's challenge",
    operation: 'setCircleChallenge',
    scopes: ['community:write'],
    kind: 'write',
  },
  {
    name: 'community_challenge_end',
    title: "End a circle's challenge",
    operation: 'endCircleChallenge',
    scopes: ['community:write'],
    kind: 'deletes',
  },
];
