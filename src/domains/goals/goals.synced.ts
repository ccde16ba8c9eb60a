/**
 * The goals domain's synced table. Declared with defineSyncedTable (src/platform/synced-
 * tables.ts); the sync domain lists them and carries them (src/domains/sync/README.md). A pushed
 * goal obeys goals_goal_set's rule (issue 47): its target within its metric's bounds for its
 * period (goalTargetIssue), not only within the bounds of every metric.
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import {
  GOAL_DIRECTIONS,
  GOAL_METRICS,
  GOAL_PERIODS,
  GOAL_TARGET_MAX,
  GOAL_TARGET_MIN,
  goalTargetIssue,
} from './goals.metrics.ts';
import type { GoalMetric, GoalPeriod } from './goals.metrics.ts';

export const GOALS_SYNCED_TABLES = [
  // Goals (issue 16): one active goal per metric (the API upserts by metric; README of goals).
  defineSyncedTable({
    table: 'goals',
    sqlTable: 'goals',
    model: 'Goal',
    since: 5,
    readScope: 'goals:read',
    writeScope: 'goals:write',
    check: (r) => {
      const msg = goalTargetIssue(
        r.metric as GoalMetric,
        r.period as GoalPeriod,
        r.target as number,
      );
      return msg ? [{ wire: 'target', msg }] : [];
    },
    columns: [
      {
        wire: 'metric',
        db: 'metric',
        type: 'text',
        notNull: true,
        required: true,
        oneOf: GOAL_METRICS,
      },
      {
        wire: 'target',
        db: 'target',
        type: 'float',
        notNull: true,
        required: true,
        min: GOAL_TARGET_MIN,
        max: GOAL_TARGET_MAX,
      },
      {
        wire: 'period',
        db: 'period',
        type: 'text',
        notNull: true,
        default: 'day',
        oneOf: GOAL_PERIODS,
      },
      {
        wire: 'direction',
        db: 'direction',
        type: 'text',
        notNull: true,
        default: 'at_least',
        oneOf: GOAL_DIRECTIONS,
      },
    ],
  }),
];
