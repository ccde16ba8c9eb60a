/**
 * The goals' closed lists (constants only, no I/O): the metrics a goal may track with their unit and
 * the bounds of a target, periods and directions. The sync registry imports these to check pushed
 * goals, so this file imports nothing.
 */

/** Metrics a goal may track (README.md: where each one's daily value comes from). */
export const GOAL_METRICS = [
  'steps',
  'active_energy',
  'exercise_minutes',
  'sleep_minutes',
  'body_weight',
  'glucose_time_in_range',
  'hydration',
] as const;
export type GoalMetric = (typeof GOAL_METRICS)[number];

export const GOAL_PERIODS = ['day', 'week'] as const;
export type GoalPeriod = (typeof GOAL_PERIODS)[number];

export const GOAL_DIRECTIONS = ['at_least', 'at_most'] as const;
export type GoalDirection = (typeof GOAL_DIRECTIONS)[number];

export interface GoalMetricRule {
  unit: string;
  /** bounds of a daily target (a weekly target of a summed metric may be up to 7 x max) */
  min: number;
  max: number;
  /** how a week's value is made from its days: summed, averaged over days with data, or the last */
  week: 'sum' | 'mean' | 'last' | 'whole';
}

/** Unit, target bounds and weekly rule of each metric. */
export const GOAL_METRIC_RULES: Record<GoalMetric, GoalMetricRule> = {
  steps: { unit: 'count', min: 100, max: 100_000, week: 'sum' },
  active_energy: { unit: 'kcal', min: 10, max: 10_000, week: 'sum' },
  exercise_minutes: { unit: 'min', min: 1, max: 1_440, week: 'sum' },
  sleep_minutes: { unit: 'min', min: 60, max: 1_440, week: 'mean' },
  body_weight: { unit: 'kg', min: 20, max: 400, week: 'last' },
  glucose_time_in_range: { unit: '%', min: 1, max: 100, week: 'whole' },
  hydration: { unit: 'ml', min: 100, max: 10_000, week: 'sum' },
};

/** The largest target of a metric for a period. */
export function targetMax(metric: GoalMetric, period: GoalPeriod): number {
  const rule = GOAL_METRIC_RULES[metric];
  return period === 'week' && rule.week === 'sum' ? rule.max * 7 : rule.max;
}

/**
 * Why `target` cannot be the goal of a metric for a period, or null: within the metric's bounds (a
 * weekly target of a summed metric up to 7 x its daily maximum). The tools and a sync push both ask.
 */
export function goalTargetIssue(
  metric: GoalMetric,
  period: GoalPeriod,
  target: number,
): string | null {
  const rule = GOAL_METRIC_RULES[metric];
  const max = targetMax(metric, period);
  return target < rule.min || target > max
    ? `a ${period === 'day' ? 'daily' : `${period}ly`} ${metric} target is ${rule.min}..${max} ${rule.unit}`
    : null;
}

/** Every target bound across metrics and periods (the sync push checks a goal against these). */
export const GOAL_TARGET_MIN = 1;
export const GOAL_TARGET_MAX = 700_000;
