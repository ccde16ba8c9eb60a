/**
 * The health domain's synced tables: the health-store samples a phone imports. Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import { METRIC_TYPES, SLEEP_STAGES } from './health.constants.ts';

export const HEALTH_SYNCED_TABLES = [
  // Health-store samples (docs/decisions.md, issue 4): the phone imports them and keeps them.
  defineSyncedTable({
    table: 'health_metrics',
    sqlTable: 'health_metrics',
    model: 'HealthMetric',
    since: 3,
    readScope: 'health:metrics:read',
    writeScope: 'health:logs:write',
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
