/**
 * The health domain's synced tables: the health-store samples a phone imports. Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md). A pushed sample obeys the imports' rules (issue 47): a metric in
 * its type's unit, an interval that ends no earlier than it starts, a workout no longer than its
 * interval (the imports derive its duration from it) with a named activity.
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncIssue } from '../../platform/synced-tables.ts';
import { intervalIssue, METRIC_TYPES, METRIC_UNITS, SLEEP_STAGES } from './health.constants.ts';
import type { MetricType } from './health.constants.ts';

type Row = Readonly<Record<string, unknown>>;

/** The imports' longest activity type. */
const ACTIVITY_MAX = 100;

/** A metric in its type's unit (the imports store METRIC_UNITS; a unit left out means that one). */
function checkMetric(r: Row): SyncIssue[] {
  const unit = METRIC_UNITS[r.metric_type as MetricType];
  return r.unit === '' || r.unit === unit
    ? []
    : [{ wire: 'unit', msg: `a ${String(r.metric_type)} sample is in ${unit}` }];
}

/** An interval that ends no earlier than it starts. */
function checkInterval(r: Row): SyncIssue[] {
  const msg = intervalIssue(r.start_at as number, r.end_at as number);
  return msg ? [{ wire: 'end_at', msg }] : [];
}

/** A workout: an interval, a named activity, a duration no longer than the interval. */
function checkWorkout(r: Row): SyncIssue[] {
  const issues = checkInterval(r);
  const activity = String(r.activity_type).trim();
  if (!activity || activity.length > ACTIVITY_MAX)
    issues.push({ wire: 'activity_type', msg: `1..${ACTIVITY_MAX} characters, not blank` });
  const minutes = ((r.end_at as number) - (r.start_at as number)) / 60_000;
  if (!issues.length && (r.duration_minutes as number) > minutes)
    issues.push({
      wire: 'duration_minutes',
      msg: `duration_minutes (${String(r.duration_minutes)}) is longer than the workout from start_at to end_at (${minutes} minutes)`,
    });
  return issues;
}

export const HEALTH_SYNCED_TABLES = [
  // Health-store samples (docs/decisions.md, issue 4): the phone imports them and keeps them.
  defineSyncedTable({
    table: 'health_metrics',
    sqlTable: 'health_metrics',
    model: 'HealthMetric',
    since: 3,
    readScope: 'health:metrics:read',
    writeScope: 'health:logs:write',
    check: checkMetric,
    columns: [
      {
        wire: 'metric_type',
        db: 'metric_type',
        type: 'text',
        notNull: true,
        required: true,
        oneOf: METRIC_TYPES,
      },
      {
        wire: 'value',
        db: 'value',
        type: 'float',
        notNull: true,
        required: true,
        min: 0,
        max: 1e6,
      },
      { wire: 'unit', db: 'unit', type: 'text', notNull: true },
      { wire: 'timestamp', db: 'timestamp', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'source', db: 'source', type: 'text', notNull: true },
    ],
  }),
  defineSyncedTable({
    table: 'sleep_samples',
    sqlTable: 'sleep_samples',
    model: 'SleepSample',
    since: 3,
    readScope: 'health:sleep:read',
    writeScope: 'health:logs:write',
    check: checkInterval,
    columns: [
      {
        wire: 'stage',
        db: 'stage',
        type: 'text',
        notNull: true,
        required: true,
        oneOf: SLEEP_STAGES,
      },
      { wire: 'start_at', db: 'start_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'end_at', db: 'end_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'source', db: 'source', type: 'text', notNull: true },
      { wire: 'source_id', db: 'source_id', type: 'text' },
    ],
  }),
  defineSyncedTable({
    table: 'workout_samples',
    sqlTable: 'workout_samples',
    model: 'WorkoutSample',
    since: 3,
    readScope: 'health:workouts:read',
    writeScope: 'health:logs:write',
    check: checkWorkout,
    columns: [
      { wire: 'activity_type', db: 'activity_type', type: 'text', notNull: true, required: true },
      { wire: 'start_at', db: 'start_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'end_at', db: 'end_at', type: 'timestamp_ms', notNull: true, required: true },
      {
        wire: 'duration_minutes',
        db: 'duration_minutes',
        type: 'float',
        notNull: true,
        required: true,
        min: 0,
      },
      { wire: 'energy_kcal', db: 'energy_kcal', type: 'float', min: 0 },
      { wire: 'distance_m', db: 'distance_m', type: 'float', min: 0 },
      { wire: 'source', db: 'source', type: 'text', notNull: true },
      { wire: 'source_id', db: 'source_id', type: 'text' },
    ],
  }),
];
