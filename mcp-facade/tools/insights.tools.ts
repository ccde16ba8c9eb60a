/** Insights (issue 17): the recorded insights (list, read, answer, dismiss, mark seen) and the weekly digest. */
import type { McpTool } from '../tool.ts';

export const insightTools: McpTool[] = [
  {
    name: 'insights_list',
    title: "List the person's insights",
    operation: 'insights',
    scopes: ['insights:read'],
    kind: 'read',
  },
  {
    name: 'insight_read',
    title: 'Read one insight',
    operation: 'insight',
    scopes: ['insights:read'],
    kind: 'read',
  },
  {
    name: 'insights_digest_read',
    title: 'Read the weekly insights digest',
    operation: 'insightsDigest',
    scopes: ['insights:read'],
    kind: 'read',
  },
  {
    name: 'insights_card_answer',
    title: "Answer an insight's question",
    operation: 'answerInsightCard',
    scopes: ['insights:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'insights_card_dismiss',
    title: 'Dismiss an insight',
    operation: 'dismissInsightCard',
    scopes: ['insights:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'insights_seen_mark',
    title: 'Mark insights seen',
    operation: 'markInsightsSeen',
    scopes: ['insights:write'],
    kind: 'write',
    idempotent: true,
  },
];
