/**
 * Health-store imports (point-in-time metrics; sleep and workout intervals) and their reads.
 * Imports are hot bulk paths: one parameterised `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO
 * NOTHING` per table, the same SQL on PGlite and PostgreSQL. Deduplication is a UNIQUE index, so
 * a retried import, or two overlapping imports in flight, never store a sample twice.
 * The importer CLI (scripts/import-apple-health.ts) feeds the same functions.
 */
import { createHash } from 'node:crypto';
import { readerUserId } from '../../auth/principal.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { msValue } from '../../db/sql-time.ts';
import { markPhoneSynced, syncedWrite } from '../../platform/sync-clock.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { METRIC_UNITS } from './health.constants.ts';
import type { MetricType } from './health.constants.ts';
import type { MetricSampleIn, SleepSampleIn, WorkoutSampleIn } from './health.samples.ts';
import { clock } from '../../base/clock.ts';

/** The most samples one import request may carry (larger exports are sent in several batches). */
export const MAX_IMPORT_SAMPLES = 10_000;

// NOTE: the sample shapes live in health.samples.ts, which the Apple export's reader (a worker
// thread that must not load the database) can import alone.
export type { MetricSampleIn, SleepSampleIn, WorkoutSampleIn } from './health.samples.ts';

export interface ImportMetricsOptions {
  /** the samples of this batch (at most MAX_IMPORT_SAMPLES) */
  samples: MetricSampleIn[];
}

export interface ImportIntervalsOptions {
  /** sleep intervals of this batch */
  sleep: SleepSampleIn[];
  /** workout intervals of this batch */
  workouts: WorkoutSampleIn[];
}

export interface ImportResult {
  /** samples stored by this request */
  inserted: number;
  /** samples already stored (by an earlier or a concurrent import, or twice in this batch) */
  skipped: number;
}

export interface BatchImportResult {
  sleep: ImportResult;
  workouts: ImportResult;
}

export interface HealthMetricView {
  id: string;
  metricType: string;
  value: number;
  unit: string;
  timestamp: Date;
  source: string;
}

export interface SleepSampleView {
  id: string;
  stage: string;
  startAt: Date;
  endAt: Date;
  durationMinutes: number;
  source: string;
}

export interface WorkoutSampleView {
  id: string;
  activityType: string;
  startAt: Date;
  endAt: Date;
  durationMinutes: number;
  energyKcal: number | null;
  distanceM: number | null;
  source: string;
}

type Db = Pick<Context, 'prisma'>;

/** A deterministic row id: the same sample always gets the same id (sync-friendly, idempotent). */
function rowId(prefix: string, ...parts: (string | number)[]): string {
  return `${prefix}_${createHash('sha256').update(parts.join('\u001f')).digest('hex').slice(0, 32)}`;
}

/** The row id of a metric sample (its dedupe key hashed); `ts` is the ISO time. */
export const metricRowId = (
  userId: number,
  ts: string,
  metricType: string,
  source: string,
): string => rowId('hm', userId, ts, metricType, source);

// NOTE: ON CONFLICT DO NOTHING without a target: the primary key (deterministic id) and every
// UNIQUE index (user, timestamp, metric_type, source) absorb duplicates, including those of a
// concurrent transaction, which waits on the index entry and then skips.
const insertMetricsSql = (
  userId: number,
  cols: [string[], string[], number[], string[], string[], string[]],
  ts: number,
): Prisma.Sql => Prisma.sql`
WITH ins AS (
  INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
  SELECT u.id, ${userId}::int, u.metric_type, u.value, u.unit, (u.ts::timestamptz AT TIME ZONE 'UTC'), u.source,
         ${msValue(ts)}
  FROM unnest(${cols[0]}::text[], ${cols[1]}::text[], ${cols[2]}::float8[], ${cols[3]}::text[],
              ${cols[4]}::text[], ${cols[5]}::text[])
    AS u(id, metric_type, value, unit, ts, source)
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT count(*)::int AS inserted FROM ins`;

/**
 * A bulk insert into a synced table: its statement for the account's change time `ts` (ms), which
 * answers one row `{ inserted }`. Run by runSyncedInsert here, or by the Apple Health importer on a
 * connection of its own (health.apple-store.ts).
 */
export type SyncedInsert = (ts: number) => Prisma.Sql;

/** Runs `insert` in a transaction that takes the account's sync clock; answers the rows inserted. */
async function runSyncedInsert(db: Db, userId: number, insert: SyncedInsert): Promise<number> {
  const rows = await syncedWrite(db.prisma, userId, (tx, ts) =>
    tx.$queryRaw<{ inserted: number }[]>(insert(ts)),
  );
  return Number(rows[0]?.inserted ?? 0);
}

/** The insert of metric samples of `userId` (deterministic ids, units of METRIC_UNITS). */
export function metricsInsert(userId: number, samples: MetricSampleIn[]): SyncedInsert {
  const ids: string[] = [];
  const types: string[] = [];
  const values: number[] = [];
  const units: string[] = [];
  const times: string[] = [];
  const sources: string[] = [];
  for (const s of samples) {
    const source = s.source ?? '';
    const ts = s.timestamp.toISOString();
    ids.push(metricRowId(userId, ts, s.metricType, source));
    types.push(s.metricType);
    values.push(s.value);
    units.push(METRIC_UNITS[s.metricType]);
    times.push(ts);
    sources.push(source);
  }
  return (ts) => insertMetricsSql(userId, [ids, types, values, units, times, sources], ts);
}

/**
 * Imports point-in-time metrics for `userId`. Used by the GraphQL field (the caller) and by the
 * importer CLI (the user it names).
 */
export async function importMetricsFor(
  db: Db,
  userId: number,
  options: ImportMetricsOptions,
): Promise<ImportResult> {
  const { samples } = options;
  if (samples.length === 0) return { inserted: 0, skipped: 0 };
  const inserted = await runSyncedInsert(db, userId, metricsInsert(userId, samples));
  return { inserted, skipped: samples.length - inserted };
}

const insertSleepSql = (userId: number, cols: (string | null)[][], ts: number): Prisma.Sql =>
  Prisma.sql`
WITH ins AS (
  INSERT INTO sleep_samples (id, user_id, stage, start_at, end_at, source, source_id, server_updated_at)
  SELECT u.id, ${userId}::int, u.stage, (u.s::timestamptz AT TIME ZONE 'UTC'), (u.e::timestamptz AT TIME ZONE 'UTC'),
         u.source, u.source_id, ${msValue(ts)}
  FROM unnest(${cols[0]}::text[], ${cols[1]}::text[], ${cols[2]}::text[], ${cols[3]}::text[],
              ${cols[4]}::text[], ${cols[5]}::text[])
    AS u(id, stage, s, e, source, source_id)
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT count(*)::int AS inserted FROM ins`;

const insertWorkoutsSql = (
  userId: number,
  text: string[][],
  nums: (number | null)[][],
  tail: (string | null)[][],
  ts: number,
): Prisma.Sql => Prisma.sql`
WITH ins AS (
  INSERT INTO workout_samples (id, user_id, activity_type, start_at, end_at, duration_minutes,
                               energy_kcal, distance_m, source, source_id, server_updated_at)
  SELECT u.id, ${userId}::int, u.activity_type, (u.s::timestamptz AT TIME ZONE 'UTC'),
         (u.e::timestamptz AT TIME ZONE 'UTC'), u.minutes, u.kcal, u.meters, u.source, u.source_id,
         ${msValue(ts)}
  FROM unnest(${text[0]}::text[], ${text[1]}::text[], ${text[2]}::text[], ${text[3]}::text[],
              ${nums[0]}::float8[], ${nums[1]}::float8[], ${nums[2]}::float8[],
              ${tail[0]}::text[], ${tail[1]}::text[])
    AS u(id, activity_type, s, e, minutes, kcal, meters, source, source_id)
  ON CONFLICT DO NOTHING
  RETURNING 1
)
SELECT count(*)::int AS inserted FROM ins`;

/** The insert of sleep intervals of `userId` (ids from the source's own id, else the interval). */
export function sleepInsert(userId: number, sleep: SleepSampleIn[]): SyncedInsert {
  const cols: string[][] = [[], [], [], [], [], []];
  for (const s of sleep) {
    const source = s.source ?? '';
    const start = s.startAt.toISOString();
    const end = s.endAt.toISOString();
    const id = s.sourceId
      ? rowId('sl', userId, 'id', s.sourceId)
      : rowId('sl', userId, s.stage, start, end, source);
    [id, s.stage, start, end, source, s.sourceId ?? null].forEach((v, i) =>
      cols[i].push(v as string),
    );
  }
  return (ts) => insertSleepSql(userId, cols, ts);
}

/** The insert of workout intervals of `userId` (ids from the source's own id, else the interval). */
export function workoutsInsert(userId: number, workouts: WorkoutSampleIn[]): SyncedInsert {
  const text: string[][] = [[], [], [], []];
  const nums: (number | null)[][] = [[], [], []];
  const tail: (string | null)[][] = [[], []];
  for (const w of workouts) {
    const source = w.source ?? '';
    const start = w.startAt.toISOString();
    const end = w.endAt.toISOString();
    const id = w.sourceId
      ? rowId('wo', userId, 'id', w.sourceId)
      : rowId('wo', userId, w.activityType, start, end, source);
    [id, w.activityType, start, end].forEach((v, i) => text[i].push(v));
    [
      (w.endAt.getTime() - w.startAt.getTime()) / 60_000,
      w.energyKcal ?? null,
      w.distanceM ?? null,
    ].forEach((v, i) => nums[i].push(v));
    [source, w.sourceId ?? null].forEach((v, i) => tail[i].push(v));
  }
  return (ts) => insertWorkoutsSql(userId, text, nums, tail, ts);
}

/**
 * Imports sleep and workout intervals for `userId`, each kind's insert run by `run` (in its own
 * synced transaction): Prisma here, the importer's own connection in health.apple-store.ts.
 */
export async function importIntervalsWith(
  run: (insert: SyncedInsert) => Promise<number>,
  userId: number,
  options: ImportIntervalsOptions,
): Promise<BatchImportResult> {
  const { sleep, workouts } = options;
  const sleepIn = sleep.length ? await run(sleepInsert(userId, sleep)) : 0;
  const workoutsIn = workouts.length ? await run(workoutsInsert(userId, workouts)) : 0;
  return {
    sleep: { inserted: sleepIn, skipped: sleep.length - sleepIn },
    workouts: { inserted: workoutsIn, skipped: workouts.length - workoutsIn },
  };
}

/** Imports sleep and workout intervals for `userId` (GraphQL field and importer CLI). */
export function importIntervalsFor(
  db: Db,
  userId: number,
  options: ImportIntervalsOptions,
): Promise<BatchImportResult> {
  return importIntervalsWith((insert) => runSyncedInsert(db, userId, insert), userId, options);
}

/** Imports point-in-time metrics for the caller (the phone's health store); marks the phone synced. */
export async function importHealthMetrics(
  ctx: AuthedContext,
  options: ImportMetricsOptions,
): Promise<ImportResult> {
  const result = await importMetricsFor(ctx, ctx.principal.userId, options);
  await markPhoneSynced(ctx.prisma, ctx.principal.userId);
  return result;
}

/** Imports sleep and workout intervals for the caller (the phone's health store); marks the phone synced. */
export async function importHealthIntervals(
  ctx: AuthedContext,
  options: ImportIntervalsOptions,
): Promise<BatchImportResult> {
  const result = await importIntervalsFor(ctx, ctx.principal.userId, options);
  await markPhoneSynced(ctx.prisma, ctx.principal.userId);
  return result;
}

export interface DataSubjectView {
  /** the person whose health data the credential reads */
  userId: number;
  name: string | null;
  /** true while the credential views another person's data through an access grant */
  viewingAs: boolean;
  /** when that person's phone last synced (a sync push, a batch, an import) */
  phoneLastSyncAt: Date | null;
}

/**
 * Whose health data the credential reads (the owner's while a grantee views as) and when that
 * person's phone last synced: the facts every health answer carries over MCP.
 */
export async function healthDataSubject(ctx: AuthedContext): Promise<DataSubjectView> {
  // NOTE: the person's data: the owner's row while viewing as a grantee, else the caller's own.
  const userId = readerUserId(ctx);
  const user = await ctx.prisma.user.findUnique({
    where: { id: userId },
    select: { name: true, phoneLastSyncAt: true },
  });
  return {
    userId,
    name: user?.name ?? null,
    viewingAs: userId !== ctx.principal.userId,
    phoneLastSyncAt: user?.phoneLastSyncAt ?? null,
  };
}

function since(days: number): Date {
  return new Date(clock.ms() - days * 86_400_000);
}

export interface SamplesBetweenOptions {
  /** first instant (inclusive) */
  start: Date;
  /** end instant (exclusive) */
  end: Date;
}

export interface MetricSamplesBetweenOptions extends SamplesBetweenOptions {
  /** the metric types to read */
  metricTypes: readonly MetricType[];
}

/** Live sleep intervals of the person that ended in [start, end), unordered. */
export async function sleepEndingBetween(
  ctx: AuthedContext,
  options: SamplesBetweenOptions,
): Promise<{ stage: string; startAt: Date; endAt: Date }[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  return sleepEndingBetweenOf(ctx, { ...options, userId: readerUserId(ctx) });
}

/**
 * sleepEndingBetween of a named person, for a domain that has already decided the caller may see
 * that person's sleep (community's member view). NOTE: never pass an id from the request unchecked.
 */
export async function sleepEndingBetweenOf(
  ctx: AuthedContext,
  options: SamplesBetweenOptions & { userId: number },
): Promise<{ stage: string; startAt: Date; endAt: Date }[]> {
  return ctx.prisma.sleepSample.findMany({
    where: {
      userId: options.userId,
      deletedAt: null,
      endAt: { gte: options.start, lt: options.end },
    },
    select: { stage: true, startAt: true, endAt: true },
  });
}

/** Live samples of the given metric types taken in [start, end), unordered. */
export async function metricSamplesBetween(
  ctx: AuthedContext,
  options: MetricSamplesBetweenOptions,
): Promise<{ metricType: string; value: number; timestamp: Date; source: string }[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  return ctx.prisma.healthMetric.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      metricType: { in: [...options.metricTypes] },
      timestamp: { gte: options.start, lt: options.end },
    },
    select: { metricType: true, value: true, timestamp: true, source: true },
  });
}

/** Live workouts of the person that started in [start, end), unordered. */
export async function workoutsStartingBetween(
  ctx: AuthedContext,
  options: SamplesBetweenOptions,
): Promise<{ startAt: Date; durationMinutes: number }[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  return ctx.prisma.workoutSample.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      startAt: { gte: options.start, lt: options.end },
    },
    select: { startAt: true, durationMinutes: true },
  });
}

export interface SamplePageOptions {
  /** how many days back from now */
  days: number;
  /** at most this many samples (a connection asks one more, to learn whether a next page follows); absent: all */
  limit?: number;
  /** the position to start after: the sort time (ms) and id of the previous page's last sample */
  after?: { at: number; id: string } | null;
}

export interface MetricPageOptions extends SamplePageOptions {
  /** only this metric; null or absent: every metric */
  metricType?: MetricType | null;
}

/** The keyset condition "after (at, id)" on a time column, in the order `dir` (id ascending within a time). */
function afterPosition<F extends string>(
  field: F,
  dir: 'asc' | 'desc',
  after: { at: number; id: string } | null | undefined,
): { OR?: Record<string, unknown>[] } {
  if (!after) return {};
  const at = new Date(after.at);
  return {
    OR: [
      { [field]: dir === 'asc' ? { gt: at } : { lt: at } },
      { [field]: at, id: { gt: after.id } },
    ],
  };
}

/**
 * Sleep intervals that ended in the last `days` days, oldest first (start, id): all of them (the
 * root field), or a page after a position (keyset; the dashboard graph's `sleep` connection). One query.
 */
export async function healthSleep(
  ctx: AuthedContext,
  options: SamplePageOptions,
): Promise<SleepSampleView[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.sleepSample.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      endAt: { gte: since(options.days) },
      ...afterPosition('startAt', 'asc', options.after),
    },
    orderBy: [{ startAt: 'asc' }, { id: 'asc' }],
    take: options.limit,
  });
  return rows.map((r) => ({
    id: r.id,
    stage: r.stage,
    startAt: r.startAt,
    endAt: r.endAt,
    durationMinutes: (r.endAt.getTime() - r.startAt.getTime()) / 60_000,
    source: r.source,
  }));
}

/**
 * Workouts that started in the last `days` days, newest first (start desc, id): all of them (the
 * root field), or a page after a position (keyset; the graph's `workouts` connection). One query.
 */
export async function healthWorkouts(
  ctx: AuthedContext,
  options: SamplePageOptions,
): Promise<WorkoutSampleView[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.workoutSample.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      startAt: { gte: since(options.days) },
      ...afterPosition('startAt', 'desc', options.after),
    },
    orderBy: [{ startAt: 'desc' }, { id: 'asc' }],
    take: options.limit,
  });
  return rows.map((r) => ({
    id: r.id,
    activityType: r.activityType,
    startAt: r.startAt,
    endAt: r.endAt,
    durationMinutes: r.durationMinutes,
    energyKcal: r.energyKcal,
    distanceM: r.distanceM,
    source: r.source,
  }));
}

/**
 * Metric samples of the last `days` days (one metric, or all), oldest first (timestamp, id): all of
 * them (the root field), or a page after a position (keyset; the graph's `metrics` connection).
 */
export async function healthMetrics(
  ctx: AuthedContext,
  options: MetricPageOptions,
): Promise<HealthMetricView[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  return ctx.prisma.healthMetric.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      ...(options.metricType ? { metricType: options.metricType } : {}),
      timestamp: { gte: since(options.days) },
      ...afterPosition('timestamp', 'asc', options.after),
    },
    orderBy: [{ timestamp: 'asc' }, { id: 'asc' }],
    take: options.limit,
    select: { id: true, metricType: true, value: true, unit: true, timestamp: true, source: true },
  });
}
