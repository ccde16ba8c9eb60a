/**
 * The logs domain's synced tables: blood pressure and log entries. Declared with defineSyncedTable
 * (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import { ANY_DURATION, ANY_VALUE, DIASTOLIC, LOG_KINDS, PULSE, SYSTOLIC } from './logs.kinds.ts';

export const LOGS_SYNCED_TABLES = [
  // Blood pressure and logs (src/domains/logs/README.md). A push checks each column's bounds; the
  // rules across columns (diastolic below systolic, a kind's own bounds) hold for the server's
  // tools only (docs/decisions.md, issue 16).
  defineSyncedTable({
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
  }),
  defineSyncedTable({
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
  }),
];
