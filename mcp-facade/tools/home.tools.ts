/** Home: today's headline, next actions, streaks and morning review (summaries of the person's data). */
import type { McpTool } from '../tool.ts';

const scopes = ['health:summary:read'] as const;

export const homeTools: McpTool[] = [
  {
    name: 'home_headline_read',
    title: "Read today's headline",
    operation: 'homeHeadline',
    scopes,
    kind: 'read',
  },
  {
    name: 'get_home_next_actions',
    title: 'List the next actions',
    operation: 'homeNextActions',
    scopes,
    kind: 'read',
  },
  {
    name: 'home_streak_read',
    title: 'Read the streaks',
    operation: 'homeStreak',
    scopes,
    kind: 'read',
  },
  {
    name: 'morning_review_read',
    title: 'Read the morning review',
    operation: 'morningReview',
    scopes,
    kind: 'read',
  },
];
