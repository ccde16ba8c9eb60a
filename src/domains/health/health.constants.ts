/**
 * The health domain's closed lists: metric types with their units, and sleep stages, and the rule
 * of an interval. Constants and pure functions only (no I/O, no imports), so that the sync registry
 * (src/domains/sync/sync.tables.ts) can check pushed rows against them without importing the
 * health service.
 */

/** The point-in-time metric types, closed list (the GraphQL enum HealthMetricType). */
export const METRIC_TYPES = [
  'hrv',
  'resting_heart_rate',
  'steps',
  'active_energy',
  'body_weight',
  'respiratory_rate',
  'heart_rate',
] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** The unit each metric type is stored in. */
export const METRIC_UNITS: Record<MetricType, string> = {
  hrv: 'ms',
  resting_heart_rate: 'bpm',
  steps: 'count',
  active_energy: 'kcal',
  body_weight: 'kg',
  respiratory_rate: 'breaths/min',
  heart_rate: 'bpm',
};

/** Sleep stages, closed list (the GraphQL enum SleepStage). */
export const SLEEP_STAGES = ['in_bed', 'asleep', 'core', 'deep', 'rem', 'awake'] as const;
export type SleepStage = (typeof SLEEP_STAGES)[number];

/** An interval's end comes no earlier than its start (sleep, workouts: the imports and a sync push). */
export const INTERVAL_ISSUE = 'end must not be before start';

/** Why an interval (ms) cannot be stored, or null. */
export function intervalIssue(startMs: number, endMs: number): string | null {
  return endMs >= startMs ? null : INTERVAL_ISSUE;
}
