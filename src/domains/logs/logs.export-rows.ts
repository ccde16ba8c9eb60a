/**
 * The person's blood-pressure readings and log entries for an export file (issue 30, the export
 * domain's background job), each by keyset on (time, id). The rows are declared here and read by
 * src/platform/export-rows.ts; the database writes the text (src/platform/export-text.ts); the
 * export domain reads it through index.ts.
 */
import { field, keysetExport } from '../../platform/export-rows.ts';
import type { ExportColumn, KeysetExport } from '../../platform/export-text.ts';

/** A logs table's live rows in the range by (time, id), the time the file's first field. */
const byTime = (table: string, time: string, columns: ExportColumn[]): KeysetExport =>
  keysetExport({
    table,
    time: { column: time, type: 'timestamptz' },
    columns: [field(time, 'time'), ...columns],
  });

/** Readings measured in the range: `measured_at,systolic,diastolic,pulse,note,source` (mmHg, bpm). */
export const bloodPressureExport: KeysetExport = byTime('blood_pressure_readings', 'measured_at', [
  field('systolic', 'number'),
  field('diastolic', 'number'),
  field('pulse', 'number', { nullable: true }),
  field('note', 'text', { nullable: true }),
  field('source', 'text'),
]);

/**
 * Entries of every kind (hydration, weight, medication, ...) logged in the range:
 * `logged_at,kind,name,value,unit,dose,duration_minutes,note,source`.
 */
export const logEntriesExport: KeysetExport = byTime('log_entries', 'logged_at', [
  field('kind', 'text'),
  field('name', 'text', { nullable: true }),
  field('value', 'number', { nullable: true }),
  field('unit', 'text', { nullable: true }),
  field('dose', 'text', { nullable: true }),
  field('duration_minutes', 'number', { nullable: true }),
  field('note', 'text', { nullable: true }),
  field('source', 'text'),
]);
