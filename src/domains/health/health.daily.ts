/**
 * Per-day aggregates of the person's health samples, computed in SQL (never by loading every
 * sample): what goals, home and streaks need (issue 16). Days are local dates in the zone the
 * caller passes (the person's zone). One statement per source, whatever the range's length.
 *
 * Rules (src/domains/goals/README.md): a cumulative metric (steps, active energy) is summed per
 * source, then the largest source is the day's figure (a watch and a phone counting the same steps
 * are not added; insights' dailyTotal does the same); exercise minutes are the workouts that start
 * that day; sleep minutes are the union of the asleep stages (asleep, core, deep, rem) of the
 * intervals that end between 18:00 of the day before and 18:00 of the day (the night that ends that
 * morning, as insights' sleep score counts it), overlaps counted once; body weight is the last
 * measurement of the day.
 *
 * NOTE: ownership. Every read is of readerUserId(ctx) (the owner's data while a grantee views as),
 * a bound parameter; the zone is bound too. dailyHealthOf and dailyHealthFor read the id their
 * caller passes: the caller decides whose data is read.
 */
import { readerUserId } from '../../auth/principal.ts';
import { bucketMinutes } from '../../db/sql-time.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, dayBounds, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { METRIC_TYPES } from './health.constants.ts';
import type { MetricType } from './health.constants.ts';

/** One local day's figures; null where the day has no sample of that kind. */
export interface DailyHealthView {
  date: LocalDate;
  steps: number | null;
  activeEnergyKcal: number | null;
  exerciseMinutes: number | null;
  sleepMinutes: number | null;
  bodyWeightKg: number | null;
  /** samples of any kind stored for the day (metrics, workouts started, sleep ended) */
  samples: number;
}

export interface DailyHealthOptions {
  /** first local date (inclusive) */
  from: LocalDate;
  /** last local date (inclusive) */
  to: LocalDate;
  /** the IANA zone the days are counted in */
  zone: string;
}

const utc = (d: Date): Prisma.Sql =>
  Prisma.sql`(${d.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;
const localDay = (col: string, zone: string, shiftHours = 0): Prisma.Sql =>
  Prisma.sql`((((${Prisma.raw(col)} AT TIME ZONE 'UTC') AT TIME ZONE ${zone}::text) + make_interval(hours => ${shiftHours}::int))::date)::text`;

type DayRow = { d: string; v: number | null; n?: number };

/** What one dailyHealth call reads: whose samples, in which zone, over which UTC windows. */
interface DayBounds {
  /** readerUserId(ctx), bound into every statement */
  me: number;
  zone: string;
  /** start of the first day and end of the last (metrics, workouts) */
  start: Date;
  end: Date;
  /** 18:00 before the first day to 18:00 of the last (sleep, by the night's end) */
  sleepStart: Date;
  sleepEnd: Date;
}

/** The metric types summed per source (read from their 15-minute buckets). */
const CUMULATIVE: readonly MetricType[] = ['steps', 'active_energy'];
const POINT_TYPES: MetricType[] = METRIC_TYPES.filter((t) => !CUMULATIVE.includes(t));

/**
 * Per day and metric type: the largest source's total, and how many samples there are. Steps and
 * active energy come from health_metric_buckets (kept by triggers; local midnight is on a
 * 15-minute edge in every zone, and the hourly buckets serve a zone whose days start on whole
 * hours); the other types are only counted, from the samples, unless `counted` is false.
 */
function metricTotalsByDay(
  db: Db | DbTx,
  bounds: DayBounds,
  counted: boolean,
): Prisma.PrismaPromise<(DayRow & { metric_type: string })[]> {
  const points = counted
    ? Prisma.sql`
        UNION ALL
        SELECT ${localDay('"timestamp"', bounds.zone)} AS d, metric_type, source, NULL, count(*)
          FROM health_metrics
         WHERE user_id = ${bounds.me}::int AND deleted_at IS NULL AND metric_type = ANY(${POINT_TYPES}::text[])
           AND "timestamp" >= ${utc(bounds.start)} AND "timestamp" < ${utc(bounds.end)}
         GROUP BY 1, 2, 3`
    : Prisma.empty;
  return db.$queryRaw<(DayRow & { metric_type: string })[]>`
      SELECT d, metric_type, max(total)::float8 AS v, sum(n)::int AS n FROM (
        SELECT ${localDay('bucket', bounds.zone)} AS d, metric_type, source, sum(total) AS total, sum(samples) AS n
          FROM health_metric_buckets
         WHERE user_id = ${bounds.me}::int AND metric_type = ANY(${CUMULATIVE}::text[])
           AND minutes = ${bucketMinutes(bounds.start, bounds.end)}::int
           AND bucket >= ${utc(bounds.start)} AND bucket < ${utc(bounds.end)}
         GROUP BY 1, 2, 3
        ${points}) x
       GROUP BY d, metric_type`;
}

/** Per day: the last body weight measured. */
function lastWeightByDay(db: Db | DbTx, bounds: DayBounds): Prisma.PrismaPromise<DayRow[]> {
  return db.$queryRaw<DayRow[]>`
      SELECT DISTINCT ON (d) d, v FROM (
        SELECT ${localDay('"timestamp"', bounds.zone)} AS d, value::float8 AS v, "timestamp" AS at
          FROM health_metrics
         WHERE user_id = ${bounds.me}::int AND deleted_at IS NULL AND metric_type = 'body_weight'
           AND "timestamp" >= ${utc(bounds.start)} AND "timestamp" < ${utc(bounds.end)}) x
       ORDER BY d, at DESC`;
}

/** Per day: the minutes of the workouts that started that day, and how many there were. */
function workoutMinutesByDay(db: Db | DbTx, bounds: DayBounds): Prisma.PrismaPromise<DayRow[]> {
  return db.$queryRaw<DayRow[]>`
      SELECT ${localDay('start_at', bounds.zone)} AS d, sum(duration_minutes)::float8 AS v, count(*)::int AS n
        FROM workout_samples
       WHERE user_id = ${bounds.me}::int AND deleted_at IS NULL
         AND start_at >= ${utc(bounds.start)} AND start_at < ${utc(bounds.end)}
       GROUP BY 1`;
}

/** Per day: the asleep minutes of the night ending that day (overlaps once), and its samples. */
function sleepMinutesByDay(db: Db | DbTx, bounds: DayBounds): Prisma.PrismaPromise<DayRow[]> {
  return db.$queryRaw<DayRow[]>`
      WITH s AS (
        SELECT ${localDay('end_at', bounds.zone, 6)} AS d, start_at, end_at, stage
          FROM sleep_samples
         WHERE user_id = ${bounds.me}::int AND deleted_at IS NULL AND end_at > start_at
           AND end_at >= ${utc(bounds.sleepStart)} AND end_at < ${utc(bounds.sleepEnd)}),
      a AS (SELECT d, start_at, end_at,
                   max(end_at) OVER (PARTITION BY d ORDER BY start_at, end_at
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
              FROM s WHERE stage IN ('asleep', 'core', 'deep', 'rem')),
      g AS (SELECT d, start_at, end_at,
                   sum(CASE WHEN prev_end >= start_at THEN 0 ELSE 1 END)
                     OVER (PARTITION BY d ORDER BY start_at, end_at) AS grp
              FROM a),
      i AS (SELECT d, min(start_at) AS st, max(end_at) AS en FROM g GROUP BY d, grp),
      asleep AS (SELECT d, sum(extract(epoch FROM (en - st)) / 60)::float8 AS v FROM i GROUP BY d),
      counted AS (SELECT d, count(*)::int AS n FROM s GROUP BY d)
      SELECT counted.d, asleep.v, counted.n FROM counted LEFT JOIN asleep ON asleep.d = counted.d`;
}

/** The rows of the four statements, by what they hold. */
interface DayRows {
  totals: (DayRow & { metric_type: string })[];
  weights: DayRow[];
  workouts: DayRow[];
  sleep: DayRow[];
}

/** Puts the statements' rows together into one view per day that has any, sorted by date. */
function collectDays(options: DailyHealthOptions, rows: DayRows): DailyHealthView[] {
  const days = new Map<LocalDate, DailyHealthView>();
  const day = (d: LocalDate): DailyHealthView => {
    let v = days.get(d);
    if (!v) {
      v = {
        date: d,
        steps: null,
        activeEnergyKcal: null,
        exerciseMinutes: null,
        sleepMinutes: null,
        bodyWeightKg: null,
        samples: 0,
      };
      days.set(d, v);
    }
    return v;
  };
  for (const r of rows.totals) {
    const v = day(r.d);
    v.samples += Number(r.n ?? 0);
    if (r.metric_type === 'steps') v.steps = r.v;
    if (r.metric_type === 'active_energy') v.activeEnergyKcal = r.v;
  }
  for (const r of rows.weights) day(r.d).bodyWeightKg = r.v;
  for (const r of rows.workouts) {
    const v = day(r.d);
    v.exerciseMinutes = r.v;
    v.samples += Number(r.n ?? 0);
  }
  for (const r of rows.sleep) {
    if (r.d < options.from || r.d > options.to) continue;
    const v = day(r.d);
    v.sleepMinutes = r.v === null ? null : Math.round(r.v);
    v.samples += Number(r.n ?? 0);
  }
  return [...days.values()].sort((a, b) => a.date.localeCompare(b.date));
}

/** The figures of each local day from..to (days without any sample are left out). */
export async function dailyHealth(
  ctx: AuthedContext,
  options: DailyHealthOptions,
): Promise<DailyHealthView[]> {
  return dailyHealthOf(ctx, { ...options, userId: readerUserId(ctx) });
}

export interface DailyHealthOfOptions extends DailyHealthOptions {
  /** whose samples: the caller decides (community: a circle mate who shares these figures) */
  userId: number;
  /** false: skip the body weight statement (bodyWeightKg stays null); default true */
  bodyWeight?: boolean;
  /** false: do not count the point-in-time samples (heart rate, HRV...) in `samples`; default true */
  pointCounts?: boolean;
}

/**
 * dailyHealth of a named person, for a domain that has already decided the caller may see these
 * figures of that person (community's member view checks circle membership and the member's
 * chosen shares first). NOTE: never pass an id from the request without such a check.
 */
export async function dailyHealthOf(
  ctx: AuthedContext,
  options: DailyHealthOfOptions,
): Promise<DailyHealthView[]> {
  return dailyHealthFor(ctx.prisma, options);
}

/**
 * dailyHealthOf on a database client rather than a request's context: for work that runs outside
 * a request (discovery's background run reads a person's daily signals, issue 33). Same
 * statements, same rules. NOTE: the caller decides whose data is read: `userId` is bound as
 * given, so pass only the person a job was started for (or one a request has already checked).
 */
export async function dailyHealthFor(
  db: Db | DbTx,
  options: DailyHealthOfOptions,
): Promise<DailyHealthView[]> {
  const me = options.userId;
  const { zone } = options;
  const bounds: DayBounds = {
    me,
    zone,
    start: dayBounds(options.from, zone).start,
    end: dayBounds(options.to, zone).end,
    sleepStart: localTime(addDays(options.from, -1), 18, zone),
    sleepEnd: localTime(options.to, 18, zone),
  };
  const [totals, weights, workouts, sleep] = await Promise.all([
    metricTotalsByDay(db, bounds, options.pointCounts !== false),
    options.bodyWeight === false ? [] : lastWeightByDay(db, bounds),
    workoutMinutesByDay(db, bounds),
    sleepMinutesByDay(db, bounds),
  ]);
  return collectDays(options, { totals, weights, workouts, sleep });
}

/** When the person's latest live sample of a metric type was taken, or null. */
export async function lastMetricAt(ctx: AuthedContext, metricType: string): Promise<Date | null> {
  const row = await ctx.prisma.healthMetric.findFirst({
    where: { userId: readerUserId(ctx), deletedAt: null, metricType },
    orderBy: { timestamp: 'desc' },
    select: { timestamp: true },
  });
  return row?.timestamp ?? null;
}
