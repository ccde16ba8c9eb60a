/**
 * The person's log entries summarised per local day in SQL: hydration (ml) summed per day of the
 * person's zone (goals), the day's logged weights (health's activity and body-composition trend),
 * and every kind per day with blood pressure for discovery's signals (issue 33, dailyLogSignalsOf).
 * NOTE: ownership. Every read is of readerUserId(ctx), a bound parameter; the zone is bound too;
 * dailyLogSignalsOf reads the id its caller passes (the caller decides whose data is read).
 */
import { readerUserId } from '../../auth/principal.ts';
import type { Db, DbTx } from '../../db/client.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, dayBounds, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

export interface DailyHydrationView {
  date: LocalDate;
  /** the day's live hydration entries summed, ml */
  ml: number;
  entries: number;
}

/** Hydration of each local day from..to that has live entries (tombstones are not counted). */
export async function dailyHydration(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string },
): Promise<DailyHydrationView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  const rows = await ctx.prisma.$queryRaw<{ d: string; ml: number; n: number }[]>`
    SELECT ((logged_at AT TIME ZONE ${options.zone}::text)::date)::text AS d,
           coalesce(sum(value), 0)::float8 AS ml, count(*)::int AS n
      FROM log_entries
     WHERE user_id = ${readerUserId(ctx)}::int AND kind = 'hydration' AND deleted_at IS NULL
       AND logged_at >= ${start.toISOString()}::timestamptz AND logged_at < ${end.toISOString()}::timestamptz
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({ date: r.d, ml: r.ml, entries: r.n }));
}

export interface DailyWeightView {
  date: LocalDate;
  /** the day's last logged weight, kg, when it was logged and by what (phone, manual or mcp) */
  lastKg: number;
  lastAt: Date;
  lastSource: string;
  minKg: number;
  maxKg: number;
  /** live weight entries that day */
  entries: number;
}

/** The logged weights of each local day from..to that has live weight entries, oldest first. */
export async function dailyWeights(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string },
): Promise<DailyWeightView[]> {
  const start = dayBounds(options.from, options.zone).start;
  const end = dayBounds(options.to, options.zone).end;
  // a person logs a few weights a day, so the ordered aggregates sort next to nothing
  const rows = await ctx.prisma.$queryRaw<
    {
      d: string;
      last: number;
      last_at: Date;
      source: string;
      min: number;
      max: number;
      n: number;
    }[]
  >`
    SELECT ((logged_at AT TIME ZONE ${options.zone}::text)::date)::text AS d,
           (array_agg(value ORDER BY logged_at DESC, id DESC))[1]::float8 AS last,
           max(logged_at) AS last_at,
           (array_agg(source ORDER BY logged_at DESC, id DESC))[1] AS source,
           min(value)::float8 AS min, max(value)::float8 AS max, count(*)::int AS n
      FROM log_entries
     WHERE user_id = ${readerUserId(ctx)}::int AND kind = 'weight' AND deleted_at IS NULL
       AND value IS NOT NULL
       AND logged_at >= ${start.toISOString()}::timestamptz AND logged_at < ${end.toISOString()}::timestamptz
     GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => ({
    date: r.d,
    lastKg: r.last,
    lastAt: new Date(r.last_at),
    lastSource: r.source,
    minKg: r.min,
    maxKg: r.max,
    entries: r.n,
  }));
}

/** The kinds whose entries are told apart by name in dailyLogSignalsOf (one series per name). */
const NAMED_KINDS = ['custom_metric', 'sleep_factor'];
/**
 * The kinds logged as events (a day without one is a day without it), whose first day
 * dailyLogSignalsOf answers so that a reader can count the days without.
 */
const EVENT_KINDS = ['medication', 'nicotine', 'sleep_factor', 'sun_session'];

/** One (local day, kind, name) of live log entries. */
export interface DailyLogEntryView {
  date: LocalDate;
  kind: string;
  /** lower-cased trimmed name for custom metrics and sleep factors; null for the other kinds */
  name: string | null;
  entries: number;
  /** the values summed, their mean and the day's last; null when no entry had a value */
  sum: number | null;
  mean: number | null;
  last: number | null;
  /** duration minutes summed (sun sessions); null when none had one */
  minutes: number | null;
  /** a unit the entries carry (custom metrics: the person's own) */
  unit: string | null;
}

/** The first local day (ever, up to the range's end) of an event kind (and name). */
export interface FirstLogView {
  kind: string;
  name: string | null;
  first: LocalDate;
}

/** One local day's blood-pressure readings, means in mmHg. */
export interface DailyBloodPressureView {
  date: LocalDate;
  readings: number;
  systolic: number;
  diastolic: number;
}

/** What dailyLogSignalsOf answers: one list per statement. */
export interface DailyLogSignalsView {
  entries: DailyLogEntryView[];
  firsts: FirstLogView[];
  bloodPressure: DailyBloodPressureView[];
}

/** The SQL of an entry's local day: a sleep factor counts for the night ending that morning. */
const entryDay = (zone: string): Prisma.Sql => Prisma.sql`
  (((logged_at AT TIME ZONE ${zone}::text)
    + CASE WHEN kind = 'sleep_factor' THEN interval '6 hours' ELSE interval '0 hours' END)::date)`;
const entryName = Prisma.sql`(CASE WHEN kind = ANY(${NAMED_KINDS}::text[]) THEN lower(btrim(name)) END)`;

/**
 * Live log entries and blood-pressure readings per local day from..to, for discovery's signals
 * (issue 33), in three statements whatever the range's length: per (day, kind, name) the count,
 * sum, mean, last value, minutes and unit; the first day of each event kind (medication, nicotine,
 * sleep factor by name, sun session) up to the range's end; blood pressure's daily means. A sleep
 * factor logged from 18:00 of the day before to 18:00 counts for that day (the night ending that
 * morning, as health counts sleep); every other entry for the local day it was logged.
 * NOTE: the caller decides whose data is read: `userId` is bound as given (discovery's run passes
 * the person it was started for); never an id from a request unchecked.
 */
export async function dailyLogSignalsOf(
  db: Db | DbTx,
  options: { userId: number; zone: string; from: LocalDate; to: LocalDate },
): Promise<DailyLogSignalsView> {
  const { zone, userId } = options;
  const start = localTime(addDays(options.from, -1), 18, zone).toISOString();
  const dayStart = dayBounds(options.from, zone).start.toISOString();
  const end = dayBounds(options.to, zone).end.toISOString();
  type EntryRow = Omit<DailyLogEntryView, 'date'> & { d: string };
  const [entries, firsts, bp] = await Promise.all([
    db.$queryRaw<EntryRow[]>`
      SELECT d::text AS d, kind, nm AS name, count(*)::int AS entries, sum(value)::float8 AS sum,
             avg(value)::float8 AS mean,
             ((array_agg(value ORDER BY logged_at DESC, id DESC)
                FILTER (WHERE value IS NOT NULL))[1])::float8 AS last,
             sum(duration_minutes)::float8 AS minutes, max(unit) AS unit
        FROM (SELECT ${entryDay(zone)} AS d, kind, ${entryName} AS nm, value, duration_minutes,
                     unit, logged_at, id
                FROM log_entries
               WHERE user_id = ${userId}::int AND deleted_at IS NULL
                 AND logged_at >= ${start}::timestamptz AND logged_at < ${end}::timestamptz) e
       WHERE d >= ${options.from}::date AND d <= ${options.to}::date
       GROUP BY d, kind, nm ORDER BY d, kind, nm`,
    db.$queryRaw<{ kind: string; name: string | null; first: string }[]>`
      SELECT kind, ${entryName} AS name, (min(${entryDay(zone)}))::text AS first
        FROM log_entries
       WHERE user_id = ${userId}::int AND deleted_at IS NULL AND kind = ANY(${EVENT_KINDS}::text[])
         AND logged_at < ${end}::timestamptz
       GROUP BY 1, 2`,
    db.$queryRaw<{ d: string; n: number; sys: number; dia: number }[]>`
      SELECT ((measured_at AT TIME ZONE ${zone}::text)::date)::text AS d, count(*)::int AS n,
             avg(systolic)::float8 AS sys, avg(diastolic)::float8 AS dia
        FROM blood_pressure_readings
       WHERE user_id = ${userId}::int AND deleted_at IS NULL
         AND measured_at >= ${dayStart}::timestamptz AND measured_at < ${end}::timestamptz
       GROUP BY 1 ORDER BY 1`,
  ]);
  return {
    entries: entries.map(({ d, ...r }) => ({ date: d, ...r })),
    firsts,
    bloodPressure: bp.map((r) => ({
      date: r.d,
      readings: r.n,
      systolic: r.sys,
      diastolic: r.dia,
    })),
  };
}
