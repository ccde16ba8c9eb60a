/**
 * The person's glucose summarised in SQL for goals and home (issue 16): time in range per local
 * day, and a summary of a window (the night). In range is the consensus 70..180 mg/dL. Per-day
 * figures count from glucose_buckets (kept by triggers on glucose_readings, README.md), a window's
 * summary from the readings. Discovery's daily signals (issue 33: mean, CV, time in range, fasting
 * value per day) group the readings themselves (dailyGlucoseStatsOf).
 * NOTE: ownership. Every read is of readerUserId(ctx), a bound parameter; the zone is bound too;
 * the *Of functions read the id their caller passes (the caller decides whose data is read).
 */
import { readerUserId } from '../../auth/principal.ts';
import { bucketMinutes, bucketMinutesSql, localDayRangesSql } from '../../db/sql-time.ts';
import type { Db, DbTx } from '../../db/client.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { dayBounds } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

/** The range counted "in range", mg/dL. */
export const TIME_IN_RANGE_MG_DL = { low: 70, high: 180 } as const;

export interface DailyGlucoseView {
  date: LocalDate;
  readings: number;
  /** readings within 70..180 mg/dL */
  inRange: number;
  /** share of the day's readings within 70..180 mg/dL, percent (one decimal) */
  inRangePct: number;
}

export interface GlucoseWindowView {
  readings: number;
  meanMgDl: number | null;
  minMgDl: number | null;
  maxMgDl: number | null;
  /** percent of readings within, below and above 70..180 mg/dL (null without readings) */
  inRangePct: number | null;
  belowRangePct: number | null;
  aboveRangePct: number | null;
}

const round1 = (v: number | null): number | null => (v === null ? null : Math.round(v * 10) / 10);

/** Time in range of each local day from..to that has readings. */
export async function dailyTimeInRange(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string },
): Promise<DailyGlucoseView[]> {
  return dailyTimeInRangeOf(ctx, { ...options, userId: readerUserId(ctx) });
}

/**
 * dailyTimeInRange of a named person, for a domain that has already decided the caller may see
 * that person's daily time in range (community's member view checks membership and the member's
 * chosen shares). NOTE: never pass an id from the request unchecked.
 */
export async function dailyTimeInRangeOf(
  ctx: AuthedContext,
  options: { userId: number; from: LocalDate; to: LocalDate; zone: string },
): Promise<DailyGlucoseView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  const rows = await ctx.prisma.$queryRaw<{ d: string; n: number; in_range: number }[]>`
    SELECT ((bucket AT TIME ZONE ${options.zone}::text)::date)::text AS d, sum(readings)::int AS n,
           sum(in_range)::int AS in_range
      FROM glucose_buckets
     WHERE user_id = ${options.userId}::int AND minutes = ${bucketMinutes(start, end)}::int
       AND bucket >= ${start.toISOString()}::timestamptz AND bucket < ${end.toISOString()}::timestamptz
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({
    date: r.d,
    readings: r.n,
    inRange: r.in_range,
    inRangePct: round1((100 * r.in_range) / r.n) ?? 0,
  }));
}

/** Summary of the readings taken in [start, end). */
export async function glucoseWindow(
  ctx: AuthedContext,
  options: { start: Date; end: Date },
): Promise<GlucoseWindowView> {
  const [r] = await ctx.prisma.$queryRaw<
    {
      n: number;
      mean: number | null;
      min: number | null;
      max: number | null;
      in_range: number;
      below: number;
      above: number;
    }[]
  >`SELECT count(*)::int AS n, avg(value_mg_dl)::float8 AS mean, min(value_mg_dl)::float8 AS min,
           max(value_mg_dl)::float8 AS max,
           (count(*) FILTER (WHERE value_mg_dl BETWEEN ${TIME_IN_RANGE_MG_DL.low}::float8 AND ${TIME_IN_RANGE_MG_DL.high}::float8))::int AS in_range,
           (count(*) FILTER (WHERE value_mg_dl < ${TIME_IN_RANGE_MG_DL.low}::float8))::int AS below,
           (count(*) FILTER (WHERE value_mg_dl > ${TIME_IN_RANGE_MG_DL.high}::float8))::int AS above
      FROM glucose_readings
     WHERE user_id = ${readerUserId(ctx)}::int AND deleted_at IS NULL
       AND "timestamp" >= ${options.start.toISOString()}::timestamptz AND "timestamp" < ${options.end.toISOString()}::timestamptz`;
  const pct = (k: number) => (r.n ? round1((100 * k) / r.n) : null);
  return {
    readings: r.n,
    meanMgDl: round1(r.mean),
    minMgDl: r.min,
    maxMgDl: r.max,
    inRangePct: pct(r.in_range),
    belowRangePct: pct(r.below),
    aboveRangePct: pct(r.above),
  };
}

/**
 * Time in range per person and local day as a fragment another domain's statement composes
 * (challenges' standings): reads a `people` relation (`user_id int, zone text, from_at
 * timestamptz, to_at timestamptz`, see health.daily-sql.ts) and answers rows
 * `(user_id, d, v, typed)`: v the percent of the day's readings within 70..180 mg/dL, typed when
 * a reading of the day was entered by hand (source 'manual').
 * NOTE: the caller decides whose readings are read (the people relation).
 */
export function dailyTimeInRangeSql(people: Prisma.Sql, days: number): Prisma.Sql {
  return Prisma.sql`
    SELECT b.user_id, b.d, x.v, x.typed
      FROM (${localDayRangesSql(people, days)}) b
      CROSS JOIN LATERAL (
        SELECT (100.0 * sum(g.in_range) / sum(g.readings))::float8 AS v, sum(g.manual) > 0 AS typed
          FROM glucose_buckets g
         WHERE g.user_id = b.user_id AND g.minutes = ${bucketMinutesSql('b.day_from', 'b.day_to')}
           AND g.bucket >= b.day_from AND g.bucket < b.day_to
        HAVING sum(g.readings) > 0) x`;
}

/** One local day's glucose figures (discovery's signals, issue 33). */
export interface DailyGlucoseStatsView {
  date: LocalDate;
  /** live readings of the day */
  readings: number;
  meanMgDl: number;
  /** sample standard deviation over mean, percent; null with fewer than 2 readings */
  cvPct: number | null;
  /** share of the day's readings within 70..180 mg/dL, percent */
  inRangePct: number;
  /** mean of the readings taken 05:00..07:00 local (end exclusive); null without one */
  fastingMgDl: number | null;
}

/**
 * Per local day from..to that has live readings: mean, coefficient of variation, time in range
 * and the fasting value (mean of 05:00..07:00 local), in one statement over the readings (a year
 * of 5-minute CGM is about 105,000 rows, grouped in SQL; no reading is loaded). Every source
 * counts (CGM, sensor, manual). NOTE: the caller decides whose data is read: `userId` is bound as
 * given (discovery's run passes the person it was started for); never an id from a request
 * unchecked.
 */
export async function dailyGlucoseStatsOf(
  db: Db | DbTx,
  options: { userId: number; zone: string; from: LocalDate; to: LocalDate },
): Promise<DailyGlucoseStatsView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  const rows = await db.$queryRaw<
    { d: string; n: number; mean: number; sd: number | null; tir: number; fasting: number | null }[]
  >`
    SELECT d::text AS d, count(*)::int AS n, avg(v)::float8 AS mean, stddev_samp(v)::float8 AS sd,
           (100.0 * count(*) FILTER (WHERE v BETWEEN ${TIME_IN_RANGE_MG_DL.low}::float8
                                              AND ${TIME_IN_RANGE_MG_DL.high}::float8)
                  / count(*))::float8 AS tir,
           (avg(v) FILTER (WHERE t >= time '05:00' AND t < time '07:00'))::float8 AS fasting
      FROM (SELECT ("timestamp" AT TIME ZONE ${options.zone}::text)::date AS d,
                   ("timestamp" AT TIME ZONE ${options.zone}::text)::time AS t, value_mg_dl AS v
              FROM glucose_readings
             WHERE user_id = ${options.userId}::int AND deleted_at IS NULL
               AND "timestamp" >= ${start.toISOString()}::timestamptz
               AND "timestamp" < ${end.toISOString()}::timestamptz) r
     GROUP BY d ORDER BY d`;
  return rows.map((r) => ({
    date: r.d,
    readings: r.n,
    meanMgDl: r.mean,
    cvPct: r.sd === null || r.mean === 0 ? null : (100 * r.sd) / r.mean,
    inRangePct: r.tir,
    fastingMgDl: r.fasting,
  }));
}
