/**
 * The logs domain's synced tables: blood pressure and log entries. Declared with defineSyncedTable
 * (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md). A push obeys the tools' rules (issue 47): each column's bounds,
 * and in `check` the rules across columns, with the tools' own functions (diastolic below
 * systolic, a kind's columns and bounds: kindIssues) and their time rule (1900 .. 24 h ahead).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncIssue } from '../../platform/synced-tables.ts';
import { kindIssues } from './logs.entries.ts';
import type { NewLogEntry } from './logs.entries.ts';
import {
  ANY_DURATION,
  ANY_VALUE,
  bloodPressureOrderIssue,
  DIASTOLIC,
  LOG_KINDS,
  loggedAtIssue,
  PULSE,
  SYSTOLIC,
} from './logs.kinds.ts';
import type { LogKind } from './logs.kinds.ts';

type Row = Readonly<Record<string, unknown>>;

/** The time column's issue under the tools' rule, if any. */
const timeIssues = (r: Row, wire: string): SyncIssue[] => {
  const msg = loggedAtIssue(r[wire] as number);
  return msg ? [{ wire, msg }] : [];
};

/** A reading as the tools accept it: diastolic below systolic, measured 1900 .. 24 h ahead. */
function checkReading(r: Row): SyncIssue[] {
  const order = bloodPressureOrderIssue(r.systolic as number, r.diastolic as number);
  return [...(order ? [{ wire: 'diastolic', msg: order }] : []), ...timeIssues(r, 'measured_at')];
}

/** The wire column of each field kindIssues reports. */
const ENTRY_WIRE: Record<string, string> = { durationMinutes: 'duration_minutes' };
/** A text as the tools read it: trimmed, blank is none. */
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** An entry as the tools accept it: its kind's columns and bounds (kindIssues), logged 1900 .. 24 h ahead. */
function checkEntry(r: Row): SyncIssue[] {
  const entry: NewLogEntry = {
    name: text(r.name),
    value: r.value as number | null,
    unit: text(r.unit),
    dose: text(r.dose),
    durationMinutes: r.duration_minutes as number | null,
  };
  const issues = kindIssues(r.kind as LogKind, entry).map((i) => {
    const field = String(i.loc[i.loc.length - 1]);
    return { wire: ENTRY_WIRE[field] ?? field, msg: i.msg };
  });
  return [...issues, ...timeIssues(r, 'logged_at')];
}

export const LOGS_SYNCED_TABLES = [
  // Blood pressure and logs (src/domains/logs/README.md). A push checks each column's bounds and
  // the tools' rules across columns (issue 47, reversing issue 16's "the server's tools only").
  defineSyncedTable({
    table: 'blood_pressure_readings',
    sqlTable: 'blood_pressure_readings',
    model: 'BloodPressureReading',
    since: 5,
    readScope: 'health:metrics:read',
    writeScope: 'health:logs:write',
    check: checkReading,
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
    check: checkEntry,
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
