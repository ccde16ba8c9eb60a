/** The export domain's closed lists and limits (constants only). */

export const EXPORT_FORMATS = ['csv', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The kinds of data an export holds (issue 30), in file order: health metric samples, glucose
 * readings, sleep intervals, workouts, meals with their items and nutrients, blood-pressure
 * readings, and log entries (hydration, weight, medication, ...).
 */
export const EXPORT_KINDS = [
  'metrics',
  'glucose',
  'sleep',
  'workouts',
  'meals',
  'blood_pressure',
  'logs',
] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

export const EXPORT_INTERVALS = ['raw', 'hour', 'day'] as const;
export type ExportInterval = (typeof EXPORT_INTERVALS)[number];

/** queued -> running -> ready | failed; a running job interrupted by a restart goes back to queued. */
export const EXPORT_STATUSES = ['queued', 'running', 'ready', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** The longest range one export covers: five years (and a leap day). */
export const EXPORT_MAX_RANGE_DAYS = 5 * 365 + 2;
/** The earliest instant an export may start at. */
export const EXPORT_EARLIEST = new Date('2000-01-01T00:00:00Z');
/** Exports of one person queued or running at once. */
export const EXPORT_MAX_ACTIVE = 3;
/** Exports one person may start in 24 hours. */
export const EXPORT_MAX_PER_DAY = 20;
/** Times a job is started before a further interruption fails it. */
export const EXPORT_MAX_ATTEMPTS = 3;
/** A running job whose worker gave no sign of life for this long was orphaned (PostgreSQL). */
export const EXPORT_STALE_MS = 2 * 60_000;
/** How often a running app looks for such jobs (a crashed process's job need not wait a restart). */
export const EXPORT_STALE_CHECK_MS = 60_000;
/** The pg-boss queue of export jobs. */
export const EXPORT_QUEUE = 'health-export';
/** Jobs a page of the list answers by default and at most. */
export const EXPORT_LIST_DEFAULT = 20;
export const EXPORT_LIST_MAX = 50;
