/**
 * Workouts for agents (issue 16): a keyset page of the person's workouts (filters: activity type and
 * local date range), one workout with the heart rate recorded during it (aggregates and a series of
 * at most SERIES_POINTS points, averaged per time slice in SQL), and one workout against the
 * person's previous workouts of the same type. Another person's workout id answers NOT_FOUND.
 */
import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.ts';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import type { WorkoutSampleView } from './health.service.ts';

export const WORKOUTS_PAGE_DEFAULT = 25;
export const WORKOUTS_PAGE_MAX = 100;
/** Points of a workout's heart-rate series at most (each the mean of a slice of the workout). */
export const SERIES_POINTS = 60;
export const COMPARE_DEFAULT = 5;
export const COMPARE_MAX = 50;

const NOT_FOUND_NEXT = 'workouts_list answers the ids of your workouts';

export interface WorkoutTotalsView {
  count: number;
  minutes: number;
  energyKcal: number | null;
  distanceM: number | null;
  activityTypes: string[];
}

/** The workouts that started within a local range (the day summary's workouts). One aggregate. */
export async function workoutTotalsOn(
  ctx: AuthedContext,
  range: { start: Date; end: Date },
): Promise<WorkoutTotalsView> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const [row] = await ctx.prisma.$queryRaw<
    {
      count: number;
      minutes: number;
      energy: number | null;
      distance: number | null;
      types: string[] | null;
    }[]
  >`
    SELECT count(*)::int AS count, coalesce(round(sum(duration_minutes)::numeric, 1), 0)::float8 AS minutes,
           round(sum(energy_kcal)::numeric, 1)::float8 AS energy, round(sum(distance_m)::numeric, 1)::float8 AS distance,
           array_agg(DISTINCT activity_type) AS types
    FROM workout_samples
    WHERE user_id = ${readerUserId(ctx)}::int AND deleted_at IS NULL
      AND start_at >= (${range.start.toISOString()}::timestamptz AT TIME ZONE 'UTC')
      AND start_at < (${range.end.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
  return {
    count: row?.count ?? 0,
    minutes: row?.minutes ?? 0,
    energyKcal: row?.energy ?? null,
    distanceM: row?.distance ?? null,
    activityTypes: (row?.types ?? []).filter((t) => t !== null).sort(),
  };
}

/** Activity types a bucket of the range summary names at most (most minutes first). */
export const BUCKET_ACTIVITY_TYPES_MAX = 10;

/** The workouts that started in one bucket (a local day, week or month) of a range. */
export interface WorkoutBucketTotalsView extends WorkoutTotalsView {
  /** the local date the bucket starts on (a Monday for weeks, the 1st for months) */
  bucket: LocalDate;
}

/**
 * The workouts that started in [start, end), totalled per local day, week or month in `zone` (the
 * range summary's workouts): one GROUP BY, whatever the number of workouts. Buckets without a
 * workout have no row; each names at most BUCKET_ACTIVITY_TYPES_MAX activity types.
 */
export async function workoutTotalsByBucket(
  ctx: AuthedContext,
  options: { start: Date; end: Date; zone: string; interval: 'day' | 'week' | 'month' },
): Promise<WorkoutBucketTotalsView[]> {
  const { start, end, zone, interval } = options;
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.$queryRaw<
    {
      bucket: string;
      count: number;
      minutes: number;
      energy: number | null;
      distance: number | null;
      types: string[];
    }[]
  >`
    WITH per_type AS (
      SELECT date_trunc(${interval}, (start_at AT TIME ZONE 'UTC') AT TIME ZONE ${zone}) AS bucket,
             activity_type, count(*) AS n, sum(duration_minutes) AS minutes,
             sum(energy_kcal) AS energy, sum(distance_m) AS distance
      FROM workout_samples
      WHERE user_id = ${readerUserId(ctx)}::int AND deleted_at IS NULL
        AND start_at >= (${start.toISOString()}::timestamptz AT TIME ZONE 'UTC')
        AND start_at < (${end.toISOString()}::timestamptz AT TIME ZONE 'UTC')
      GROUP BY 1, 2
    )
    SELECT to_char(bucket, 'YYYY-MM-DD') AS bucket, sum(n)::int AS count,
           coalesce(round(sum(minutes)::numeric, 1), 0)::float8 AS minutes,
           round(sum(energy)::numeric, 1)::float8 AS energy,
           round(sum(distance)::numeric, 1)::float8 AS distance,
           (array_agg(activity_type ORDER BY minutes DESC NULLS LAST, activity_type))[1:${BUCKET_ACTIVITY_TYPES_MAX}::int] AS types
    FROM per_type
    GROUP BY bucket
    ORDER BY bucket`;
  return rows.map((r) => ({
    bucket: r.bucket,
    count: r.count,
    minutes: r.minutes,
    energyKcal: r.energy,
    distanceM: r.distance,
    activityTypes: r.types,
  }));
}

export interface WorkoutPageOptions {
  /** first local date (inclusive) the workouts started on; absent: no lower bound */
  from?: LocalDate | null;
  /** last local date (inclusive); absent: no upper bound */
  to?: LocalDate | null;
  /** only this activity type (e.g. running) */
  activityType?: string | null;
  limit: number;
  /** nextCursor of the previous page */
  cursor?: string | null;
}

export interface WorkoutPageView {
  timezone: string;
  items: WorkoutSampleView[];
  nextCursor: string | null;
}

const WorkoutCursor = z.tuple([z.number().int(), z.string().min(1).max(100)]);

function decodeWorkoutCursor(text: string): { at: Date; id: string } {
  try {
    const parsed = WorkoutCursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString()));
    if (parsed.success && Number.isFinite(new Date(parsed.data[0]).getTime()))
      return { at: new Date(parsed.data[0]), id: parsed.data[1] };
  } catch {
    // not base64url JSON: refused below
  }
  throw validationError([
    {
      loc: ['cursor'],
      msg: 'not a cursor of this list: pass next_cursor of the previous page',
      type: 'value_error',
    },
  ]);
}

const viewOf = (r: {
  id: string;
  activityType: string;
  startAt: Date;
  endAt: Date;
  durationMinutes: number;
  energyKcal: number | null;
  distanceM: number | null;
  source: string;
}): WorkoutSampleView => ({
  id: r.id,
  activityType: r.activityType,
  startAt: r.startAt,
  endAt: r.endAt,
  durationMinutes: r.durationMinutes,
  energyKcal: r.energyKcal,
  distanceM: r.distanceM,
  source: r.source,
});

/** The person's workouts, newest first (start desc, id), a keyset page at a time. One query. */
export async function healthWorkoutPage(
  ctx: AuthedContext,
  options: WorkoutPageOptions,
): Promise<WorkoutPageView> {
  const zone = await personZone(ctx);
  if (options.from && options.to && options.from > options.to)
    throw validationError([
      { loc: ['to'], msg: 'to must not be before from', type: 'value_error' },
    ]);
  const after = options.cursor ? decodeWorkoutCursor(options.cursor) : null;
  const startAt: Prisma.DateTimeFilter = {};
  if (options.from) startAt.gte = localTime(options.from, 0, zone);
  if (options.to) startAt.lt = localTime(addDays(options.to, 1), 0, zone);
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.workoutSample.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      ...(options.activityType ? { activityType: options.activityType } : {}),
      startAt,
      ...(after
        ? { OR: [{ startAt: { lt: after.at } }, { startAt: after.at, id: { gt: after.id } }] }
        : {}),
    },
    orderBy: [{ startAt: 'desc' }, { id: 'asc' }],
    take: options.limit + 1,
  });
  const items = rows.slice(0, options.limit).map(viewOf);
  const last = items.at(-1);
  const nextCursor =
    rows.length > options.limit && last
      ? Buffer.from(JSON.stringify([last.startAt.getTime(), last.id])).toString('base64url')
      : null;
  return { timezone: zone, items, nextCursor };
}

export interface HeartRatePointView {
  /** the start of the slice */
  at: Date;
  /** mean bpm over the slice */
  avg: number;
  max: number;
}

export interface WorkoutHeartRateView {
  count: number;
  avg: number;
  min: number;
  max: number;
  /** at most SERIES_POINTS points, oldest first (each the mean of one slice of the workout) */
  series: HeartRatePointView[];
}

export interface WorkoutDetailView extends WorkoutSampleView {
  /** heart_rate samples taken during the workout; null without any */
  heartRate: WorkoutHeartRateView | null;
}

/** The person's live workout `id`, or NOT_FOUND (another person's id included). */
async function ownWorkout(ctx: AuthedContext, id: string) {
  // NOTE: ownership: another person's workout is NOT_FOUND, never its data.
  const row = await ctx.prisma.workoutSample.findFirst({
    where: { id, userId: readerUserId(ctx), deletedAt: null },
  });
  if (!row) throw appError('NOT_FOUND', `Workout not found: ${NOT_FOUND_NEXT}`);
  return row;
}

const between = (start: Date, end: Date): Prisma.Sql => Prisma.sql`
  "timestamp" >= (${start.toISOString()}::timestamptz AT TIME ZONE 'UTC')
  AND "timestamp" <= (${end.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/** A workout with the heart rate during it (aggregates and a downsampled series, in SQL). */
export async function healthWorkout(
  ctx: AuthedContext,
  options: { id: string },
): Promise<WorkoutDetailView> {
  const w = await ownWorkout(ctx, options.id);
  const userId = readerUserId(ctx);
  const sliceMs = Math.max(
    1000,
    Math.ceil((w.endAt.getTime() - w.startAt.getTime()) / SERIES_POINTS),
  );
  const [points, [agg]] = await Promise.all([
    ctx.prisma.$queryRaw<{ slice: number; avg: number; max: number }[]>`
      SELECT floor(extract(epoch FROM "timestamp" - (${w.startAt.toISOString()}::timestamptz AT TIME ZONE 'UTC')) * 1000 / ${sliceMs})::int AS slice,
             round(avg(value)::numeric, 1)::float8 AS avg, max(value)::float8 AS max
      FROM health_metrics
      WHERE user_id = ${userId}::int AND metric_type = 'heart_rate' AND deleted_at IS NULL
        AND ${between(w.startAt, w.endAt)}
      GROUP BY 1 ORDER BY 1 LIMIT ${SERIES_POINTS + 1}`,
    ctx.prisma.$queryRaw<{ count: number; avg: number | null; min: number; max: number }[]>`
      SELECT count(*)::int AS count, round(avg(value)::numeric, 1)::float8 AS avg,
             min(value)::float8 AS min, max(value)::float8 AS max
      FROM health_metrics
      WHERE user_id = ${userId}::int AND metric_type = 'heart_rate' AND deleted_at IS NULL
        AND ${between(w.startAt, w.endAt)}`,
  ]);
  return {
    ...viewOf(w),
    heartRate:
      agg && agg.count > 0 && agg.avg !== null
        ? {
            count: agg.count,
            avg: agg.avg,
            min: agg.min,
            max: agg.max,
            series: points.slice(0, SERIES_POINTS).map((p) => ({
              at: new Date(w.startAt.getTime() + Math.min(p.slice, SERIES_POINTS - 1) * sliceMs),
              avg: p.avg,
              max: p.max,
            })),
          }
        : null,
  };
}

export interface ComparedWorkoutView {
  id: string;
  activityType: string;
  startAt: Date;
  durationMinutes: number;
  energyKcal: number | null;
  distanceM: number | null;
  /** mean heart rate during it (heart_rate samples), null without any */
  avgHeartRate: number | null;
}

export interface WorkoutFiguresView {
  durationMinutes: number | null;
  energyKcal: number | null;
  distanceM: number | null;
  avgHeartRate: number | null;
}

export interface WorkoutComparisonView {
  workout: ComparedWorkoutView;
  /** the previous workouts of the same type, newest first */
  previous: ComparedWorkoutView[];
  /** the means of `previous` (each over the workouts that have the figure) */
  baseline: WorkoutFiguresView;
  /** workout minus baseline, per figure; null where either side lacks it */
  deltas: WorkoutFiguresView;
}

export interface WorkoutComparisonOptions {
  id: string;
  /** how many previous workouts of the same type to compare with */
  previous: number;
}

interface ComparedRow {
  id: string;
  activity_type: string;
  start_at: Date;
  duration_minutes: number;
  energy_kcal: number | null;
  distance_m: number | null;
  avg_hr: number | null;
}

const r1 = (x: number): number => Math.round(x * 10) / 10;

function meanOf(xs: (number | null)[]): number | null {
  const has = xs.filter((x): x is number => x !== null);
  return has.length ? r1(has.reduce((a, b) => a + b, 0) / has.length) : null;
}

const delta = (a: number | null, b: number | null): number | null =>
  a === null || b === null ? null : r1(a - b);

/**
 * The workout against the person's previous `previous` workouts of the same activity type (those
 * that started before it): duration, energy, distance and mean heart rate, their means and deltas.
 * One query for all of them (heart rate per workout by a LATERAL aggregate on the metric index).
 */
export async function healthWorkoutComparison(
  ctx: AuthedContext,
  options: WorkoutComparisonOptions,
): Promise<WorkoutComparisonView> {
  const w = await ownWorkout(ctx, options.id);
  const userId = readerUserId(ctx);
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.$queryRaw<ComparedRow[]>`
    SELECT w.id, w.activity_type, w.start_at, w.duration_minutes, w.energy_kcal, w.distance_m,
           round(hr.avg::numeric, 1)::float8 AS avg_hr
    FROM workout_samples w
    LEFT JOIN LATERAL (
      SELECT avg(m.value) AS avg FROM health_metrics m
      WHERE m.user_id = ${userId}::int AND m.metric_type = 'heart_rate' AND m.deleted_at IS NULL
        AND m."timestamp" >= w.start_at AND m."timestamp" <= w.end_at
    ) hr ON true
    WHERE w.user_id = ${userId}::int AND w.deleted_at IS NULL
      AND (w.id = ${w.id}
           OR (w.activity_type = ${w.activityType}
               AND (w.start_at < ${w.startAt.toISOString()}::timestamptz AT TIME ZONE 'UTC')))
    ORDER BY (w.id = ${w.id}) DESC, w.start_at DESC, w.id
    LIMIT ${options.previous + 1}`;
  const shaped = rows.map(
    (r): ComparedWorkoutView => ({
      id: r.id,
      activityType: r.activity_type,
      startAt: r.start_at,
      durationMinutes: r1(r.duration_minutes),
      energyKcal: r.energy_kcal,
      distanceM: r.distance_m,
      avgHeartRate: r.avg_hr,
    }),
  );
  const [workout, ...previous] = shaped;
  const baseline: WorkoutFiguresView = {
    durationMinutes: meanOf(previous.map((p) => p.durationMinutes)),
    energyKcal: meanOf(previous.map((p) => p.energyKcal)),
    distanceM: meanOf(previous.map((p) => p.distanceM)),
    avgHeartRate: meanOf(previous.map((p) => p.avgHeartRate)),
  };
  return {
    workout,
    previous,
    baseline,
    deltas: {
      durationMinutes: delta(workout.durationMinutes, baseline.durationMinutes),
      energyKcal: delta(workout.energyKcal, baseline.energyKcal),
      distanceM: delta(workout.distanceM, baseline.distanceM),
      avgHeartRate: delta(workout.avgHeartRate, baseline.avgHeartRate),
    },
  };
}
