/**
 * The glucose domain's synced tables (readings, raw sensor data, sensors). Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md). A push obeys the routes' bounds (issue 47; glucose.schema.ts):
 * readings 10..1000 mg/dL, raw samples of a sensor 1 or more at -20..60 °C, and a sensor's
 * calibration slope above 0 (the columns' bounds are inclusive: the slope's is in `check`).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncIssue } from '../../platform/synced-tables.ts';

/** The sensor payload route's longest serial number. */
const SERIAL_MAX = 64;

/** A sensor as the payload route takes it: a positive slope, a serial number of at most 64 characters. */
function checkSensor(r: Readonly<Record<string, unknown>>): SyncIssue[] {
  const issues: SyncIssue[] = [];
  if ((r.calibration_slope as number) <= 0)
    issues.push({ wire: 'calibration_slope', msg: 'Input should be greater than 0' });
  if (typeof r.serial_number === 'string' && r.serial_number.length > SERIAL_MAX)
    issues.push({ wire: 'serial_number', msg: `At most ${SERIAL_MAX} characters` });
  return issues;
}
import { glucosePushed } from './glucose.arrivals.ts';

export const GLUCOSE_SYNCED_TABLES = [
  // Glucose (docs/glucose.md). Ids: the phone's, or `g:<user>:<sensor>:<ms>` for readings the server
  // stored from batches; (sensor_id, timestamp) is a reading's identity (a second record with the same
  // identity fails the push with 409 duplicate_record). processing_version stays server-side.
  defineSyncedTable({
    table: 'glucose_readings',
    sqlTable: 'glucose_readings',
    model: 'GlucoseReading',
    since: 3,
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    // fresh readings: the predicted-low check is queued once the push has committed (issue 33)
    onStored: glucosePushed,
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
  }),
  defineSyncedTable({
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
  }),
  defineSyncedTable({
    table: 'glucose_sensors',
    sqlTable: 'glucose_sensors',
    model: 'GlucoseSensor',
    since: 3,
    readScope: 'health:glucose:read',
    writeScope: 'health:logs:write',
    check: checkSensor,
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
  }),
];
