/**
 * The rows of an Apple Health export as the importer's reader collects them (issue 16): the
 * export's dates checked and read, a batch of records as columns (13 arrays and no per-record
 * object), workouts, route points and ECG recordings. No I/O and no database: the reader runs in a
 * worker thread (health.apple-read.job.ts) that must not load Prisma; health.apple-archive.ts
 * stores what this file describes.
 */

/** What an archive row is: a `<Record>` of a quantity or category type, or another element. */
export type ArchiveKind =
  | 'quantity'
  | 'category'
  | 'correlation'
  | 'workout_event'
  | 'activity_summary';

// NOTE: no capture groups: the importer checks three dates per record, and a match array each
// was a large share of its garbage.
const EXPORT_DATE =
  /^[1-9]\d{3}-(?:0[1-9]|1[0-2])-[0-3]\d (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d [+-]\d{4}$/;

const digits = (text: string, from: number, to: number): number => Number(text.slice(from, to));

/**
 * The export's date text (`2016-11-14 07:25:41 -0700`) when PostgreSQL reads it as a timestamptz
 * exactly as written, else null. Checked here so that one odd date never fails a whole batch;
 * days past the 28th are checked against the calendar.
 */
export function exportDateText(text: string | undefined): string | null {
  if (!text || !EXPORT_DATE.test(text)) return null;
  const day = digits(text, 8, 10);
  if (day === 0) return null;
  if (day > 28) {
    const last = new Date(Date.UTC(digits(text, 0, 4), digits(text, 5, 7), 0)).getUTCDate();
    if (day > last) return null;
  }
  return text;
}

/** Milliseconds since the epoch of an export date text that exportDateText accepted. */
export function exportDateMs(text: string): number {
  const minutes = digits(text, 21, 23) * 60 + digits(text, 23, 25);
  const offsetMs = (text.charCodeAt(20) === 45 ? -minutes : minutes) * 60_000;
  const local = Date.UTC(
    digits(text, 0, 4),
    digits(text, 5, 7) - 1,
    digits(text, 8, 10),
    digits(text, 11, 13),
    digits(text, 14, 16),
    digits(text, 17, 19),
  );
  return local - offsetMs;
}

/**
 * The UTC instant of an export date text that exportDateText accepted, in ISO form (a timestamp
 * column's input on COPY, which would ignore an offset written in the text).
 */
export function exportDateUtc(text: string): string {
  const iso = new Date(exportDateMs(text)).toISOString();
  // year 10000 (9999-12-31 with a negative offset) is written +010000-..., which PostgreSQL refuses
  return iso.startsWith('+') ? iso.slice(2) : iso;
}

/** Columns of a batch of archive records (one index = one record). */
export class ArchiveRecordColumns {
  kind: string[] = [];
  type: string[] = [];
  value: (number | null)[] = [];
  valueText: string[] = [];
  unit: (string | null)[] = [];
  start: string[] = [];
  end: string[] = [];
  created: (string | null)[] = [];
  sourceName: string[] = [];
  sourceVersion: (string | null)[] = [];
  device: (string | null)[] = [];
  metadata: (string | null)[] = [];
  workoutId: (string | null)[] = [];

  get length(): number {
    return this.type.length;
  }
}

export interface ArchiveRecordIn {
  kind: ArchiveKind;
  type: string;
  valueText: string;
  unit: string | null;
  /** export date texts, checked by exportDateText */
  start: string;
  end: string;
  created: string | null;
  sourceName: string;
  sourceVersion: string | null;
  device: string | null;
  metadata: Record<string, string> | null;
  workoutId?: string | null;
}

/** Appends one record to the columns. */
export function pushRecord(c: ArchiveRecordColumns, r: ArchiveRecordIn): void {
  c.kind.push(r.kind);
  c.type.push(r.type);
  const n = r.valueText === '' ? Number.NaN : Number(r.valueText);
  c.value.push(Number.isFinite(n) ? n : null);
  c.valueText.push(r.valueText);
  c.unit.push(r.unit);
  c.start.push(r.start);
  c.end.push(r.end);
  c.created.push(r.created);
  c.sourceName.push(r.sourceName);
  c.sourceVersion.push(r.sourceVersion);
  c.device.push(r.device);
  c.metadata.push(r.metadata ? JSON.stringify(r.metadata) : null);
  c.workoutId.push(r.workoutId ?? null);
}

/** One `<WorkoutStatistics>` as stored (the export's attributes). */
export type WorkoutStatisticIn = Record<string, string>;

/** One route point (GPX `<trkpt>` or inline `<Location>`); `at` is an ISO or export date text. */
export interface RoutePointIn {
  at: string;
  lat: number;
  lon: number;
  elevation: number | null;
  speed: number | null;
  course: number | null;
  hAcc: number | null;
  vAcc: number | null;
}

/** One `<Workout>` of the export with what it holds. */
export interface ArchiveWorkoutIn {
  activityType: string;
  start: string;
  end: string;
  durationMinutes: number | null;
  distanceM: number | null;
  energyKcal: number | null;
  sourceName: string;
  sourceVersion: string | null;
  device: string | null;
  metadata: Record<string, string> | null;
  statistics: WorkoutStatisticIn[];
  /** the workout events, as records of kind workout_event (their workoutId set on store) */
  events: ArchiveRecordIn[];
  /** route points given inline (older exports' `<Location>` elements) */
  points: RoutePointIn[];
  /** `<FileReference path>`s of its routes (GPX files of the export) */
  routeFiles: string[];
}

/** One ECG recording read from `electrocardiograms/*.csv`. */
export interface EcgRecordingIn {
  recordedAt: Date;
  classification: string | null;
  symptoms: string | null;
  softwareVersion: string | null;
  device: string | null;
  sampleRateHz: number;
  lead: string | null;
  unit: string | null;
  header: Record<string, string>;
  samples: number[];
  fileName: string;
}
