/**
 * Scores: daily scores 0..100 with their components (docs/scores.md). The derived-score tools run
 * one operation with the `kind` and `order=desc` the spec fixes for each, and each says which score
 * it reads.
 */
import type { McpTool } from '../tool.ts';

const scope = ['health:summary:read'] as const;
const ofKind = (name: string, kind: string, title: string, description: string): McpTool => ({
  name,
  title,
  description,
  operation: 'scores',
  scopes: scope,
  kind: 'read',
  fixed: { kind, order: 'desc' },
});

export const scoreTools: McpTool[] = [
  {
    name: 'get_scores',
    title: "Read a day's scores",
    operation: 'insightScore',
    scopes: scope,
    kind: 'read',
  },
  {
    name: 'get_scores_days',
    title: 'Read every score of each day',
    operation: 'scoreDays',
    scopes: scope,
    kind: 'read',
  },
  ofKind(
    'activity_score_read',
    'activity',
    'Read the daily activity score',
    'Reads the activity score of each day (steps, energy, exercise minutes), newest first.',
  ),
  ofKind(
    'sleep_score_read',
    'sleep',
    'Read the daily sleep score',
    'Reads the sleep score of each day (time asleep, efficiency, deep and REM), newest first.',
  ),
  ofKind(
    'glucose_score_read',
    'glucose',
    'Read the daily glucose score',
    'Reads the glucose score of each day (time in 70-180 mg/dL, variability), newest first: weeks at a glance.',
  ),
  ofKind(
    'recovery_score_read',
    'recovery',
    'Read the daily recovery score',
    'Reads the recovery score of each day (HRV and resting heart rate vs baseline), newest first.',
  ),
  ofKind(
    'daily_nutrition_score_read',
    'nutrition',
    'Read the daily nutrition score',
    'Reads the nutrition score of each day (protein, fibre and sugar of logged meals), newest first.',
  ),
  {
    ...ofKind(
      'bp_trends_read',
      'blood_pressure',
      'Read the daily blood-pressure score',
      'Reads the blood_pressure score of each day (mean pressure vs ACC/AHA thresholds), newest first.',
    ),
    scopes: ['health:metrics:read', 'health:summary:read'],
  },
  {
    ...ofKind(
      'sun_today_read',
      'sun',
      "Read today's sun score",
      "Reads today's sun score (sun minutes vs a 15-60 minute target); from and to read earlier days.",
    ),
    fixed: { kind: 'sun', order: 'desc', days: 1 },
  },
];
