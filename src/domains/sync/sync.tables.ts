/**
 * The registry of synced tables: what the WatermelonDB sync protocol (GET /api/sync/pull,
 * POST /api/sync/push) carries, one row per table. Adding a table is one row here plus its model
 * (see README.md for the column convention every synced table follows).
 *
 * NOTE: the names here are spliced into SQL text (they are never taken from a request); the
 * registry test checks that every name is a plain lowercase identifier.
 *
 * NOTE: each table's `readScope` and `writeScope` are the scopes its own routes and tools require:
 * sync must never hand a personal token rows the read routes refuse it, nor take writes the write
 * routes refuse (login sessions hold every scope, so they sync every table).
 */
import type { Scope } from '../../auth/scopes.ts';
import { METRIC_TYPES, SLEEP_STAGES } from '../health/index.ts';
import { ANY_DURATION, ANY_VALUE, DIASTOLIC, LOG_KINDS, PULSE, SYSTOLIC } from '../logs/index.ts';
import {
  GOAL_DIRECTIONS,
  GOAL_METRICS,
  GOAL_PERIODS,
  GOAL_TARGET_MAX,
  GOAL_TARGET_MIN,
} from '../goals/index.ts';

/**
 * How a wire value is stored: `timestamp_ms` is a number of ms on the wire, TIMESTAMP(3) (UTC) in the
 * database; `timestamptz_ms` likewise for a TIMESTAMPTZ column.
 */
export type SyncedColumnType =
  | 'text'
  | 'int'
  | 'float'
  | 'bool'
  | 'timestamp_ms'
  | 'timestamptz_ms';

export interface SyncedColumn {
  /** wire name (snake_case, as the phone's WatermelonDB schema names it) */
  wire: string;
  /** database column name */
  db: string;
  type: SyncedColumnType;
  /** sync schema version that added the column (defaults to the table's) */
  since?: number;
  /** a NOT NULL column: a null text is stored as '' (WatermelonDB's value for an empty string), any other null is refused (422) */
  notNull?: boolean;
  /** a created record must carry the column (422 otherwise) */
  required?: boolean;
  /** stored when a created record leaves the column out */
  default?: string | number | boolean;
  /** bounds of a number (inclusive) */
  min?: number;
  max?: number;
  /** the allowed values of a text */
  oneOf?: readonly string[];
}

export interface SyncedTable {
  /** wire table name (the WatermelonDB table) */
  table: string;
  /** SQL table (the Prisma model's @@map) */
  sqlTable: string;
  /** Prisma model, for readers of the registry */
  model: string;
  /** sync schema version that added the table */
  since: number;
  /** the scope that pulls and lists the table's rows: the one its read routes and tools require */
  readScope: Scope;
  /** the scope that pushes records of the table: the one its write routes and tools require */
  writeScope: Scope;
  columns: readonly SyncedColumn[];
}

/** The sync schema version this server speaks; bump it with every table or column added below. */
export const SYNC_SCHEMA_VERSION = 6;

/** The six amounts a meal (its totals) and a meal item carry, kcal and grams. */
const MEAL_NUTRIENT_COLUMNS: readonly SyncedColumn[] = [
  'kcal',
  'protein_g',
  'carbs_g',
  'fat_g',
  'fiber_g',
  'sugar_g',
].map((name) => ({ wire: name, db: name, type: 'float', notNull: true, default: 0, min: 0 }));

/** Every synced table, in pull order. */
export const SYNCED_TABLES: readonly SyncedTable[] = [
  {
    table: 'journal_entries',
    sqlTable: 'journal_entries',
    model: 'JournalEntry',
    since: 1,
    // no read route of its own: the pull's entry scope; written like the logs tools (logs_entry_edit)
    readScope: 'health:summary:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'body', db: 'body', type: 'text', notNull: true },
      { wire: 'happened_at', db: 'happened_at', type: 'timestamp_ms' },
      { wire: 'mood', db: 'mood', type: 'int', since: 2 },
    ],
  },
  // Glucose (docs/glucose.md). Ids: the phone's, or `g:<user>:<sensor>:<ms>` for readings the server
  // stored from batches; (sensor_id, timestamp) is a reading's identity (a second record with the same
  // identity fails the push with 409 duplicate_record). processing_version stays server-side.
  {
    table: 'glucose_readings',
    sqlTable: 'glucose_readings',
    model: 'GlucoseReading',
    since: 3,
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'sensor_id', db: 'sensor_id', type: 'int', notNull: true, default: 0, min: 0 },
      { wire: 'timestamp', db: 'timestamp', type: 'timestamptz_ms', notNull: true, required: true },
      {
        wire: 'value_mg_dl',
        db: 'value_mg_dl',
        type: 'float',
        notNull: true,
        required: true,
        min: 10,
        max: 1000,
      },
      {
        wire: 'source',
        db: 'source',
        type: 'text',
        notNull: true,
        default: 'manual',
        oneOf: ['manual', 'cgm', 'sensor'],
      },
    ],
  },
  {
    table: 'raw_sensor_data',
    sqlTable: 'raw_sensor_data',
    model: 'RawSensorData',
    since: 3,
    // readings before calibration: glucose data, whichever route reads them
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'sensor_id', db: 'sensor_id', type: 'int', notNull: true, required: true, min: 1 },
      { wire: 'timestamp', db: 'timestamp', type: 'timestamptz_ms', notNull: true, required: true },
      { wire: 'raw_value', db: 'raw_value', type: 'float', notNull: true, required: true },
      { wire: 'temperature_c', db: 'temperature_c', type: 'float', min: -20, max: 60 },
    ],
  },
  {
    table: 'glucose_sensors',
    sqlTable: 'glucose_sensors',
    model: 'GlucoseSensor',
    since: 3,
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'sensor_id', db: 'sensor_id', type: 'int', notNull: true, required: true, min: 1 },
      { wire: 'serial_number', db: 'serial_number', type: 'text' },
      {
        wire: 'calibration_slope',
        db: 'calibration_slope',
        type: 'float',
        notNull: true,
        default: 1,
        min: 0,
        max: 1000,
      },
      {
        wire: 'calibration_intercept',
        db: 'calibration_intercept',
        type: 'float',
        notNull: true,
        default: 0,
        min: -1000,
        max: 1000,
      },
      { wire: 'started_at', db: 'started_at', type: 'timestamp_ms' },
      { wire: 'last_seen_at', db: 'last_seen_at', type: 'timestamp_ms' },
    ],
  },
  // Devices: sensor sessions sync; push tokens do not (a token belongs to whichever account signed in
  // on that phone last, so it moves between accounts, which a synced record never does).
  {
    table: 'sensor_sessions',
    sqlTable: 'sensor_sessions',
    model: 'SensorSession',
    since: 3,
    // the CGM sensors a phone wore: read like cgmSensors (sensors_cgm_status_read)
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'serial_number', db: 'serial_number', type: 'text', notNull: true, required: true },
      { wire: 'sensor_type', db: 'sensor_type', type: 'text' },
      { wire: 'started_at', db: 'started_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'expires_at', db: 'expires_at', type: 'timestamp_ms' },
      {
        wire: 'status',
        db: 'status',
        type: 'text',
        notNull: true,
        default: 'active',
        oneOf: ['active', 'unbound'],
      },
      { wire: 'unbound_at', db: 'unbound_at', type: 'timestamp_ms' },
    ],
  },
  // Health-store samples (docs/decisions.md, issue 4): the phone imports them and keeps them.
  {
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
  },
  {
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
  },
  {
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
  },
  // Meals (docs/meals.md).
  {
    // the photo (photo_key) is not synced: a pushed record must never name a stored file (docs/meals.md)
    table: 'meals',
    sqlTable: 'meals',
    model: 'Meal',
    since: 4,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'meal_name', db: 'meal_name', type: 'text' },
      {
        wire: 'meal_type',
        db: 'meal_type',
        type: 'text',
        oneOf: ['breakfast', 'lunch', 'dinner', 'snack'],
      },
      { wire: 'eaten_at', db: 'eaten_at', type: 'timestamptz_ms', notNull: true, required: true },
      { wire: 'note', db: 'note', type: 'text' },
      { wire: 'source', db: 'source', type: 'text', notNull: true, default: 'phone' },
      ...MEAL_NUTRIENT_COLUMNS,
    ],
  },
  {
    table: 'meal_items',
    sqlTable: 'meal_items',
    model: 'MealItem',
    since: 4,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'meal_id', db: 'meal_id', type: 'text', notNull: true, required: true },
      { wire: 'food_id', db: 'food_id', type: 'text' },
      { wire: 'name', db: 'name', type: 'text', notNull: true, required: true },
      {
        wire: 'grams',
        db: 'grams',
        type: 'float',
        notNull: true,
        required: true,
        min: 0,
        max: 5000,
      },
      { wire: 'portion', db: 'portion', type: 'text' },
      ...MEAL_NUTRIENT_COLUMNS,
    ],
  },
  // Saved meals and favorite foods (issue 17; docs/meals.md, "Saved meals and favorites"): a saved
  // meal's items are flat rows like meal_items; one favorite per person and food (a second record
  // with the same food fails the push with 409 duplicate_record).
  {
    table: 'saved_meals',
    sqlTable: 'saved_meals',
    model: 'SavedMeal',
    since: 6,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'name', db: 'name', type: 'text', notNull: true, required: true },
      {
        wire: 'meal_type',
        db: 'meal_type',
        type: 'text',
        oneOf: ['breakfast', 'lunch', 'dinner', 'snack'],
      },
      { wire: 'note', db: 'note', type: 'text' },
      ...MEAL_NUTRIENT_COLUMNS,
    ],
  },
  {
    table: 'saved_meal_items',
    sqlTable: 'saved_meal_items',
    model: 'SavedMealItem',
    since: 6,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'saved_meal_id', db: 'saved_meal_id', type: 'text', notNull: true, required: true },
      { wire: 'food_id', db: 'food_id', type: 'text' },
      { wire: 'name', db: 'name', type: 'text', notNull: true, required: true },
      {
        wire: 'grams',
        db: 'grams',
        type: 'float',
        notNull: true,
        required: true,
        min: 0,
        max: 5000,
      },
      { wire: 'portion', db: 'portion', type: 'text' },
      ...MEAL_NUTRIENT_COLUMNS,
    ],
  },
  {
    table: 'favorite_foods',
    sqlTable: 'favorite_foods',
    model: 'FavoriteFood',
    since: 6,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'food_id', db: 'food_id', type: 'text', notNull: true, required: true },
      { wire: 'name', db: 'name', type: 'text', notNull: true, default: '' },
    ],
  },
  // Blood pressure and logs (src/domains/logs/README.md). A push checks each column's bounds; the
  // rules across columns (diastolic below systolic, a kind's own bounds) hold for the server's
  // tools only (docs/decisions.md, issue 16).
  {
    table: 'blood_pressure_readings',
    sqlTable: 'blood_pressure_readings',
    model: 'BloodPressureReading',
    since: 5,
    readScope: 'health:metrics:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'systolic', db: 'systolic', type: 'int', notNull: true, required: true, ...SYSTOLIC },
      {
        wire: 'diastolic',
        db: 'diastolic',
        type: 'int',
        notNull: true,
        required: true,
        ...DIASTOLIC,
      },
      { wire: 'pulse', db: 'pulse', type: 'int', ...PULSE },
      {
        wire: 'measured_at',
        db: 'measured_at',
        type: 'timestamptz_ms',
        notNull: true,
        required: true,
      },
      { wire: 'source', db: 'source', type: 'text', notNull: true, default: 'phone' },
      { wire: 'note', db: 'note', type: 'text' },
    ],
  },
  {
    table: 'log_entries',
    sqlTable: 'log_entries',
    model: 'LogEntry',
    since: 5,
    readScope: 'health:metrics:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'kind', db: 'kind', type: 'text', notNull: true, required: true, oneOf: LOG_KINDS },
      { wire: 'name', db: 'name', type: 'text' },
      { wire: 'value', db: 'value', type: 'float', ...ANY_VALUE },
      { wire: 'unit', db: 'unit', type: 'text' },
      { wire: 'dose', db: 'dose', type: 'text' },
      { wire: 'duration_minutes', db: 'duration_minutes', type: 'float', ...ANY_DURATION },
      { wire: 'logged_at', db: 'logged_at', type: 'timestamptz_ms', notNull: true, required: true },
      { wire: 'note', db: 'note', type: 'text' },
      { wire: 'source', db: 'source', type: 'text', notNull: true, default: 'phone' },
    ],
  },
  // Goals (issue 16): one active goal per metric (the API upserts by metric; README of goals).
  {
    table: 'goals',
    sqlTable: 'goals',
    model: 'Goal',
    since: 5,
    readScope: 'goals:read',
    writeScope: 'goals:write',
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
  },
  // Snoring nights (issue 16): the phone measures and pushes them; audio clips are uploaded apart
  // (a pushed record never names a stored file).
  {
    table: 'snore_nights',
    sqlTable: 'snore_nights',
    model: 'SnoreNight',
    since: 5,
    readScope: 'health:sleep:read',
    writeScope: 'health:logs:write',
    columns: [
      { wire: 'started_at', db: 'started_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'ended_at', db: 'ended_at', type: 'timestamp_ms', notNull: true, required: true },
      {
        wire: 'snoring_minutes',
        db: 'snoring_minutes',
        type: 'float',
        notNull: true,
        default: 0,
        min: 0,
        max: 1440,
      },
      { wire: 'snoring_percent', db: 'snoring_percent', type: 'float', min: 0, max: 100 },
      { wire: 'loudness_mean_db', db: 'loudness_mean_db', type: 'float', min: 0, max: 150 },
      { wire: 'loudness_max_db', db: 'loudness_max_db', type: 'float', min: 0, max: 150 },
      {
        wire: 'episodes',
        db: 'episodes',
        type: 'int',
        notNull: true,
        default: 0,
        min: 0,
        max: 10000,
      },
      { wire: 'source', db: 'source', type: 'text', notNull: true },
    ],
  },
];

/** The registry row of a wire table name, or undefined. */
export function syncedTable(name: string): SyncedTable | undefined {
  return SYNCED_TABLES.find((t) => t.table === name);
}

/** The newest schema version among the table and its columns. */
export function tableChangedSince(t: SyncedTable): number {
  return Math.max(t.since, ...t.columns.map((c) => c.since ?? t.since));
}

/** True when the table, or one of its columns, came in a schema version after `from`, up to `to`. */
export function tableChangedBetween(t: SyncedTable, from: number, to: number): boolean {
  return [t.since, ...t.columns.map((c) => c.since ?? t.since)].some((v) => v > from && v <= to);
}
