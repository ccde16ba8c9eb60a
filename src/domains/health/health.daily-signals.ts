/**
 * Per-day figures of a person's health samples that discovery's signals need beyond
 * health.daily.ts (issue 33): the day's mean heart rate variability and resting heart rate, and
 * the night's detail (asleep and in-bed minutes, bedtime). Computed in SQL, one statement per
 * source whatever the range's length, never by loading samples (a year of per-minute heart rate is
 * half a million rows; only the HRV and resting-rate samples are read, by their index).
 *
 * Rules: HRV (ms) and resting heart rate (bpm) are the means of the day's live samples of any
 * source. A night is counted as in health.daily.ts: the intervals that end between 18:00 of the
 * day before and 18:00 of the day belong to the night ending that morning. Asleep minutes are the
 * union of its asleep stages (asleep, core, deep, rem; overlaps once); in-bed minutes the union of
 * all its intervals (in bed, awake and asleep), answered only when the night has an in-bed or
 * awake interval (else efficiency would be 100% by construction); bedtime is the local start of
 * its first asleep interval in hours from midnight of the day before (23.5 is 23:30, 24.5 is 00:30).
 *
 * NOTE: the caller decides whose data is read: `userId` is bound as given (discovery's run passes
 * the person it was started for). The zone and dates are bound parameters too.
 */
import type { Db, DbTx } from '../../db/client.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { addDays, dayBounds, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

/** Whose days, in which zone, over which local dates. */
export interface DailyHealthSignalsOptions {
  /** whose samples: the caller decides (see the header's NOTE) */
  userId: number;
  /** the IANA zone the days are counted in */
  zone: string;
  /** first local date (inclusive) */
  from: LocalDate;
  /** last local date (inclusive) */
  to: LocalDate;
}

/** One local day's vitals; null where the day has no sample of that kind. */
export interface DailyVitalsView {
  date: LocalDate;
  hrvMs: number | null;
  restingHeartRateBpm: number | null;
}

/** One night (named by the local date it ends on). */
export interface DailySleepDetailView {
  date: LocalDate;
  /** union of the asleep stages, minutes */
  asleepMinutes: number | null;
  /** union of every interval of the night, minutes; null without an in-bed or awake interval */
  inBedMinutes: number | null;
  /** local hour of the first asleep interval, from midnight of the day before (24.5: 00:30) */
  bedtimeHour: number | null;
}

const utc = (d: Date): Prisma.Sql =>
  Prisma.sql`(${d.toISOString()}::timestamptz AT TIME ZONE 'UTC')`;

/** The mean HRV and resting heart rate of each local day from..to that has such samples. */
export async function dailyVitalsOf(
  db: Db | DbTx,
  options: DailyHealthSignalsOptions,
): Promise<DailyVitalsView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  const rows = await db.$queryRaw<{ d: string; hrv: number | null; rhr: number | null }[]>`
    SELECT ((("timestamp" AT TIME ZONE 'UTC') AT TIME ZONE ${options.zone}::text)::date)::text AS d,
           (avg(value) FILTER (WHERE metric_type = 'hrv'))::float8 AS hrv,
           (avg(value) FILTER (WHERE metric_type = 'resting_heart_rate'))::float8 AS rhr
      FROM health_metrics
     WHERE user_id = ${options.userId}::int AND deleted_at IS NULL
       AND metric_type IN ('hrv', 'resting_heart_rate')
       AND "timestamp" >= ${utc(start)} AND "timestamp" < ${utc(end)}
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ date: r.d, hrvMs: r.hrv, restingHeartRateBpm: r.rhr }));
}

/** Asleep and in-bed minutes and bedtime of each night ending on a local date from..to. */
export async function dailySleepDetailOf(
  db: Db | DbTx,
  options: DailyHealthSignalsOptions,
): Promise<DailySleepDetailView[]> {
  const { zone } = options;
  const start = localTime(addDays(options.from, -1), 18, zone);
  const end = localTime(options.to, 18, zone);
  const rows = await db.$queryRaw<
    { d: string; asleep: number | null; bed: number | null; bedtime: number | null }[]
  >`
    WITH s AS (
      SELECT ((((end_at AT TIME ZONE 'UTC') AT TIME ZONE ${zone}::text) + interval '6 hours')::date) AS d,
             start_at, end_at, stage IN ('asleep', 'core', 'deep', 'rem') AS asleep
        FROM sleep_samples
       WHERE user_id = ${options.userId}::int AND deleted_at IS NULL AND end_at > start_at
         AND end_at >= ${utc(start)} AND end_at < ${utc(end)}),
    x AS (SELECT d, 'asleep' AS k, start_at, end_at FROM s WHERE asleep
          UNION ALL SELECT d, 'bed', start_at, end_at FROM s),
    a AS (SELECT d, k, start_at, end_at,
                 max(end_at) OVER (PARTITION BY d, k ORDER BY start_at, end_at
                                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
            FROM x),
    g AS (SELECT d, k, start_at, end_at,
                 sum(CASE WHEN prev_end >= start_at THEN 0 ELSE 1 END)
                   OVER (PARTITION BY d, k ORDER BY start_at, end_at) AS grp
            FROM a),
    i AS (SELECT d, k, min(start_at) AS st, max(end_at) AS en FROM g GROUP BY d, k, grp),
    n AS (SELECT d,
                 sum(extract(epoch FROM (en - st)) / 60) FILTER (WHERE k = 'asleep') AS asleep,
                 sum(extract(epoch FROM (en - st)) / 60) FILTER (WHERE k = 'bed') AS bed,
                 min(st) FILTER (WHERE k = 'asleep') AS first_asleep
            FROM i GROUP BY d),
    o AS (SELECT d, bool_or(NOT asleep) AS other FROM s GROUP BY d)
    SELECT n.d::text AS d, n.asleep::float8 AS asleep,
           (CASE WHEN o.other THEN n.bed END)::float8 AS bed,
           (extract(epoch FROM (((n.first_asleep AT TIME ZONE 'UTC') AT TIME ZONE ${zone}::text)
                                 - (n.d - 1)::timestamp)) / 3600)::float8 AS bedtime
      FROM n JOIN o ON o.d = n.d
     WHERE n.d >= ${options.from}::date AND n.d <= ${options.to}::date
     ORDER BY 1`;
  return rows.map((r) => ({
    date: r.d,
    asleepMinutes: r.asleep,
    inBedMinutes: r.bed,
    bedtimeHour: r.bedtime,
  }));
}
