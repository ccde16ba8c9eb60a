/**
 * The health archive's side of the Apple Health importer (issue 16): the rows the parser collects
 * for every element of the export (columnar, so a batch of 5,000 records is 13 arrays and no
 * per-record object), and the bulk SQL that stores them. Each table has a natural UNIQUE key and
 * every insert is `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING`, so importing the
 * same export twice stores nothing twice.
 */
import { createHash } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';

type Db = Pick<Context, 'prisma'>;

/**
 * Runs one statement and answers the rows it wrote: Prisma's `$executeRaw` (prismaExecute), or the
 * importer's own connection on PostgreSQL (health.apple-store.ts).
 */
export type ExecuteSql = (sql: Prisma.Sql) => Promise<number>;

export const prismaExecute =
  (db: Db): ExecuteSql =>
  (sql) =>
    db.prisma.$executeRaw(sql);

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

/** The archive workout id: the same workout of the same person always gets the same id. */
export function archiveWorkoutId(userId: number, w: ArchiveWorkoutIn): string {
  const key = [userId, w.activityType, w.start, w.end, w.sourceName].join('\u001f');
  return `haw_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

/** The ECG recording id: one recording per person and recorded date. */
export function archiveEcgId(userId: number, recordedAt: Date): string {
  const key = `${userId}\u001f${recordedAt.toISOString()}`;
  return `hae_${createHash('sha256').update(key).digest('hex').slice(0, 32)}`;
}

const ts = (column: string): Prisma.Sql =>
  Prisma.raw(`(${column}::timestamptz AT TIME ZONE 'UTC')`);

/** Stores a batch of records; answers how many were new. */
export async function storeArchiveRecords(
  execute: ExecuteSql,
  userId: number,
  c: ArchiveRecordColumns,
): Promise<number> {
  if (c.length === 0) return 0;
  return execute(Prisma.sql`
INSERT INTO health_archive_records (user_id, kind, type, value, value_text, unit, start_at, end_at,
  created_at_source, source_name, source_version, device, metadata, workout_id)
SELECT ${userId}::int, u.kind, u.type, u.value, u.value_text, u.unit, ${ts('u.s')}, ${ts('u.e')},
       ${ts('u.c')}, u.source_name, u.source_version, u.device, u.metadata::jsonb, u.workout_id
FROM unnest(${c.kind}::text[], ${c.type}::text[], ${c.value}::float8[], ${c.valueText}::text[],
            ${c.unit}::text[], ${c.start}::text[], ${c.end}::text[], ${c.created}::text[],
            ${c.sourceName}::text[], ${c.sourceVersion}::text[], ${c.device}::text[],
            ${c.metadata}::text[], ${c.workoutId}::text[])
  AS u(kind, type, value, value_text, unit, s, e, c, source_name, source_version, device, metadata, workout_id)
ON CONFLICT DO NOTHING`);
}

/** Stores workouts (and their events and inline points); answers how many of each were new. */
export async function storeArchiveWorkouts(
  execute: ExecuteSql,
  userId: number,
  workouts: ArchiveWorkoutIn[],
): Promise<{ workouts: number; events: number; points: number }> {
  if (workouts.length === 0) return { workouts: 0, events: 0, points: 0 };
  const ids = workouts.map((w) => archiveWorkoutId(userId, w));
  const col = <T>(f: (w: ArchiveWorkoutIn) => T): T[] => workouts.map(f);
  const inserted = await execute(Prisma.sql`
INSERT INTO health_archive_workouts (id, user_id, activity_type, start_at, end_at, duration_minutes,
  distance_m, energy_kcal, source_name, source_version, device, metadata, statistics)
SELECT u.id, ${userId}::int, u.activity_type, ${ts('u.s')}, ${ts('u.e')}, u.minutes, u.metres, u.kcal,
       u.source_name, u.source_version, u.device, u.metadata::jsonb, u.statistics::jsonb
FROM unnest(${ids}::text[], ${col((w) => w.activityType)}::text[], ${col((w) => w.start)}::text[],
            ${col((w) => w.end)}::text[], ${col((w) => w.durationMinutes)}::float8[],
            ${col((w) => w.distanceM)}::float8[], ${col((w) => w.energyKcal)}::float8[],
            ${col((w) => w.sourceName)}::text[], ${col((w) => w.sourceVersion)}::text[],
            ${col((w) => w.device)}::text[],
            ${col((w) => (w.metadata ? JSON.stringify(w.metadata) : null))}::text[],
            ${col((w) => (w.statistics.length ? JSON.stringify(w.statistics) : null))}::text[])
  AS u(id, activity_type, s, e, minutes, metres, kcal, source_name, source_version, device, metadata, statistics)
ON CONFLICT DO NOTHING`);
  const events = new ArchiveRecordColumns();
  workouts.forEach((w, i) => {
    for (const e of w.events) pushRecord(events, { ...e, workoutId: ids[i] });
  });
  const pointIds: string[] = [];
  const seqs: number[] = [];
  const points: RoutePointIn[] = [];
  workouts.forEach((w, i) =>
    w.points.forEach((p, seq) => {
      pointIds.push(ids[i]);
      seqs.push(seq);
      points.push(p);
    }),
  );
  const [storedEvents, storedPoints] = await Promise.all([
    storeArchiveRecords(execute, userId, events),
    storeRoutePointRows(execute, userId, pointIds, seqs, points),
  ]);
  return { workouts: inserted, events: storedEvents, points: storedPoints };
}

/** Stores route points of a workout numbered from `firstSeq`; answers how many were new. */
export function storeRoutePoints(
  execute: ExecuteSql,
  userId: number,
  workoutId: string,
  firstSeq: number,
  points: RoutePointIn[],
): Promise<number> {
  return storeRoutePointRows(
    execute,
    userId,
    points.map(() => workoutId),
    points.map((_p, i) => firstSeq + i),
    points,
  );
}

/** Stores route points of any workouts in one statement (workoutIds[i] and seqs[i] go with points[i]). */
async function storeRoutePointRows(
  execute: ExecuteSql,
  userId: number,
  workoutIds: string[],
  seqs: number[],
  points: RoutePointIn[],
): Promise<number> {
  if (points.length === 0) return 0;
  const col = <T>(f: (p: RoutePointIn) => T): T[] => points.map(f);
  return execute(Prisma.sql`
INSERT INTO health_archive_route_points (workout_id, seq, user_id, at, lat, lon, elevation, speed, course, h_acc, v_acc)
SELECT u.workout_id, u.seq, ${userId}::int, ${ts('u.at')}, u.lat, u.lon, u.elevation, u.speed, u.course, u.h_acc, u.v_acc
FROM unnest(${workoutIds}::text[], ${seqs}::int[], ${col((p) => p.at)}::text[], ${col((p) => p.lat)}::float8[],
            ${col((p) => p.lon)}::float8[], ${col((p) => p.elevation)}::float8[], ${col((p) => p.speed)}::float8[],
            ${col((p) => p.course)}::float8[], ${col((p) => p.hAcc)}::float8[], ${col((p) => p.vAcc)}::float8[])
  AS u(workout_id, seq, at, lat, lon, elevation, speed, course, h_acc, v_acc)
ON CONFLICT DO NOTHING`);
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

/** Stores one ECG recording; answers 1 when new, 0 when already stored. */
export async function storeEcgRecording(
  db: Db,
  userId: number,
  r: EcgRecordingIn,
): Promise<number> {
  return db.prisma.$executeRaw`
INSERT INTO health_archive_ecg (id, user_id, recorded_at, classification, symptoms, software_version,
  device, sample_rate_hz, lead, unit, header, samples, file_name)
VALUES (${archiveEcgId(userId, r.recordedAt)}, ${userId}::int, ${r.recordedAt}, ${r.classification},
  ${r.symptoms}, ${r.softwareVersion}, ${r.device}, ${r.sampleRateHz}, ${r.lead}, ${r.unit},
  ${JSON.stringify(r.header)}::jsonb, ${r.samples}::real[], ${r.fileName})
ON CONFLICT DO NOTHING`;
}
