/**
 * The health archive's side of the Apple Health importer (issue 16): the bulk SQL that stores the
 * rows the reader collects (health.apple-records.ts). Each table has a natural UNIQUE key and
 * every insert is `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO NOTHING`, so importing the
 * same export twice stores nothing twice.
 */
import { createHash } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';
import { ArchiveRecordColumns, pushRecord } from './health.apple-records.ts';
import type { ArchiveWorkoutIn, EcgRecordingIn, RoutePointIn } from './health.apple-records.ts';

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
