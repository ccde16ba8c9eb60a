/**
 * SQL snippets between ms since the epoch (what the wire and the sync clock count in) and the
 * database's timestamps. Plain SQL, so every layer that writes a statement may use them.
 */
import { Prisma } from '../generated/prisma/client.ts';

/** SQL for a `timestamp(3)` (UTC, no time zone) from ms since the epoch, bound as a parameter. */
export const msValue = (ms: number): Prisma.Sql =>
  Prisma.sql`(to_timestamp(${ms}::float8 / 1000.0) AT TIME ZONE 'UTC')`;
/**
 * The same from a positional parameter (`$3`), for statements built from a registry of tables
 * (sync): fixed statements use msValue.
 */
export const msParam = (n: string): string =>
  `(to_timestamp(${n}::float8 / 1000.0) AT TIME ZONE 'UTC')`;
/** SQL for a `timestamptz` from a parameter holding ms since the epoch. */
export const msParamTz = (n: string): string => `to_timestamp(${n}::float8 / 1000.0)`;
/** SQL for ms since the epoch of a timestamp column (either kind). */
export const msOf = (col: string): string => `round(extract(epoch from ${col}) * 1000)::float8`;

/**
 * Local days as instants, for statements over many people each in their own zone: from a relation
 * `people(user_id, zone, from_at timestamptz, to_at timestamptz)` the rows `(user_id, d text,
 * day_from timestamptz, day_to timestamptz)`, each of the person's local days of the window (at most
 * `days`), cut to the window. The zone is applied once a day, not once a sample, so that a lateral
 * subquery finds a day's samples by an index range.
 * NOTE: the day count is what the planner sees (generate_series of constants is estimated exactly):
 * an estimate of a thousand rows a person made PostgreSQL compile the statement with JIT, which cost
 * ten times the statement's own work.
 */
export function localDayRangesSql(people: Prisma.Sql, days: number): Prisma.Sql {
  return Prisma.sql`
    SELECT p.user_id, dd.day::text AS d,
           greatest(p.from_at, dd.day::timestamp AT TIME ZONE p.zone) AS day_from,
           least(p.to_at, (dd.day + 1)::timestamp AT TIME ZONE p.zone) AS day_to
      FROM ${people} p
      CROSS JOIN generate_series(0, ${days}::int - 1) AS k
      CROSS JOIN LATERAL (SELECT (p.from_at AT TIME ZONE p.zone)::date + k AS day) dd
     WHERE dd.day::timestamp AT TIME ZONE p.zone < p.to_at`;
}

/**
 * The width, in minutes, of the buckets that sum the samples of [from, to) (health_metric_buckets,
 * glucose_buckets): hourly when both ends are whole UTC hours, else 15 minutes (every zone's
 * midnight falls on a 15-minute edge). `from` and `to` name timestamptz expressions.
 */
export const bucketMinutesSql = (from: string, to: string): Prisma.Sql => {
  const onHour = (x: string): string =>
    `date_bin('1 hour', ${x}, TIMESTAMPTZ '2000-01-01 00:00:00+00') = ${x}`;
  return Prisma.raw(`(CASE WHEN ${onHour(from)} AND ${onHour(to)} THEN 60 ELSE 15 END)`);
};

const HOUR_MS = 3_600_000;
/** bucketMinutesSql for instants known before the statement. */
export const bucketMinutes = (from: Date, to: Date): 15 | 60 =>
  from.getTime() % HOUR_MS === 0 && to.getTime() % HOUR_MS === 0 ? 60 : 15;
