/**
 * The person's blood-pressure readings and log entries for an export file (issue 30, the export
 * domain's background job), each by keyset on (time, id). The database writes the text
 * (src/platform/export-text.ts); the export domain reads it through index.ts.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { inRange, keysetChunkText, rowText } from '../../platform/export-text.ts';
import type { ExportColumn, KeysetExport, TimeColumn } from '../../platform/export-text.ts';

const col = (name: string, kind: ExportColumn['kind'], nullable = false): ExportColumn => ({
  name,
  kind,
  sql: Prisma.raw(`c.${name}`),
  nullable,
});

const MEASURED_AT: TimeColumn = { sql: Prisma.sql`measured_at`, type: 'timestamptz' };
const BLOOD_PRESSURE_COLUMNS: ExportColumn[] = [
  col('measured_at', 'time'),
  col('systolic', 'number'),
  col('diastolic', 'number'),
  col('pulse', 'number', true),
  col('note', 'text', true),
  col('source', 'text'),
];

/** Readings measured in the range: `measured_at,systolic,diastolic,pulse,note,source` (mmHg, bpm). */
export const bloodPressureExport: KeysetExport = {
  columns: BLOOD_PRESSURE_COLUMNS,
  chunk(db, scope, after, limit, format) {
    return keysetChunkText(
      db,
      {
        table: 'blood_pressure_readings',
        where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
          AND ${inRange(MEASURED_AT, scope.from, scope.to)}`,
        key: [
          { column: 'measured_at', type: 'timestamptz' },
          { column: 'id', type: 'text' },
        ],
        line: rowText(format, BLOOD_PRESSURE_COLUMNS, scope.zone),
      },
      after,
      limit,
      format,
    );
  },
};

const LOGGED_AT: TimeColumn = { sql: Prisma.sql`logged_at`, type: 'timestamptz' };
const LOG_COLUMNS: ExportColumn[] = [
  col('logged_at', 'time'),
  col('kind', 'text'),
  col('name', 'text', true),
  col('value', 'number', true),
  col('unit', 'text', true),
  col('dose', 'text', true),
  col('duration_minutes', 'number', true),
  col('note', 'text', true),
  col('source', 'text'),
];

/**
 * Entries of every kind (hydration, weight, medication, ...) logged in the range:
 * `logged_at,kind,name,value,unit,dose,duration_minutes,note,source`.
 */
export const logEntriesExport: KeysetExport = {
  columns: LOG_COLUMNS,
  chunk(db, scope, after, limit, format) {
    return keysetChunkText(
      db,
      {
        table: 'log_entries',
        where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
          AND ${inRange(LOGGED_AT, scope.from, scope.to)}`,
        key: [
          { column: 'logged_at', type: 'timestamptz' },
          { column: 'id', type: 'text' },
        ],
        line: rowText(format, LOG_COLUMNS, scope.zone),
      },
      after,
      limit,
      format,
    );
  },
};
