/**
 * Scores: daily scores 0..100 with their components (docs/scores.md). The derived-score tools run
 * one operation with the `kind` and `order=desc` the spec fixes for each.
 */
import type { McpTool } from '../tool.ts';

const scope = ['health:summary:read'] as const;
const ofKind = (name: string, kind: string): McpTool => ({
  name,
  operation: 'ListScores',
  scopes: scope,
  kind: 'read',
  fixed: { kind, order: 'desc' },
});

export const scoreTools: McpTool[] = [
  { name: 'get_scores', operation: 'GetScores', scopes: scope, kind: 'read' },
  { name: 'get_scores_days', operation: 'GetScoresDays', scopes: scope, kind: 'read' },
  ofKind('activity_score_read', 'activity'),
  ofKind('sleep_score_read', 'sleep'),
  ofKind('glucose_score_read', 'glucose'),
  ofKind('recovery_score_read', 'recovery'),
  ofKind('daily_nutrition_score_read', 'nutrition'),
];
