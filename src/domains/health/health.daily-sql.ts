/**
 * Per-person, per-local-day figures as SQL fragments that another domain's statement composes
 * (challenges' standings: many people, each in their own zone, in one statement). The rules are
 * those of health.daily.ts (src/domains/goals/README.md): steps and active energy summed per
 * source, the largest source is the day's figure; exercise minutes are the workouts starting that
 * day; sleep minutes are the union of the asleep stages of the night ending that morning.
 *
 * A fragment reads from a relation the caller names (`people`), one row per person:
 * `user_id int, zone text, from_at timestamptz, to_at timestamptz` (the first local day's start
 * and the last one's end, or earlier) and `sleep_from_at, sleep_to_at timestamptz` (18:00 before
 * the first day .. 18:00 of the last). It answers rows `(user_id int, d text, v float8,
 * typed boolean)`: the local date, the figure, and whether the figure includes typed values.
 *
 * NOTE: the caller decides whose days are read (the people relation); these fragments bind no
 * user themselves. Only fixed identifiers are interpolated (the relation's name is a constant of
 * the caller, the metric a closed list).
 */
import { bucketMinutesSql, localDayRangesSql } from '../../db/sql-time.ts';
import { Prisma } from '../../generated/prisma/client.ts';

/** Sources that mark values a person typed rather than a device measured (see README.md). */
export const TYPED_SOURCES = ['manual', 'mcp'] as const;

/** The metrics of dailyValuesSql. */
export const DAILY_SQL_METRICS = [
  'steps',
  'active_energy',
  'exercise_minutes',
  'sleep_minutes',
] as const;
export type DailySqlMetric = (typeof DAILY_SQL_METRICS)[number];

const typedSql = (col: string): Prisma.Sql =>
  Prisma.sql`${Prisma.raw(col)} IN (${Prisma.join([...TYPED_SOURCES])})`;

/** Local date (text) of a UTC timestamp column in the person's zone, shifted by hours. */
const localDay = (col: string, shiftHours = 0): Prisma.Sql =>
  Prisma.raw(
    `(((((${col} AT TIME ZONE 'UTC') AT TIME ZONE p.zone) + interval '${shiftHours} hours')::date)::text)`,
  );

/**
 * Cumulative samples (steps, active energy): per day the largest source's total. Each day's
 * buckets (health_metric_buckets, kept by triggers on health_metrics) are summed by source in a
 * lateral subquery: one primary-key range (user, metric, width, bucket) a day; hourly buckets for
 * a day that starts and ends on whole UTC hours, else the 15-minute ones.
 */
function cumulativeSql(metricType: string, people: Prisma.Sql, days: number): Prisma.Sql {
  return Prisma.sql`
    SELECT DISTINCT ON (b.user_id, b.d) b.user_id, b.d, x.total AS v, x.typed
      FROM (${localDayRangesSql(people, days)}) b
      CROSS JOIN LATERAL (
        SELECT m.source, sum(m.total)::float8 AS total, ${typedSql('m.source')} AS typed
          FROM health_metric_buckets m
         WHERE m.user_id = b.user_id AND m.metric_type = ${metricType}
           AND m.minutes = ${bucketMinutesSql('b.day_from', 'b.day_to')}
           AND m.bucket >= (b.day_from AT TIME ZONE 'UTC')
           AND m.bucket < (b.day_to AT TIME ZONE 'UTC')
         GROUP BY m.source) x
     ORDER BY b.user_id, b.d, x.total DESC, x.typed`;
}

/** Exercise minutes: the workouts that started that day. */
function workoutSql(people: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    SELECT p.user_id, ${localDay('w.start_at')} AS d, sum(w.duration_minutes)::float8 AS v,
           bool_or(${typedSql('w.source')}) AS typed
      FROM ${people} p
      JOIN workout_samples w ON w.user_id = p.user_id AND w.deleted_at IS NULL
       AND w.start_at >= (p.from_at AT TIME ZONE 'UTC') AND w.start_at < (p.to_at AT TIME ZONE 'UTC')
     GROUP BY 1, 2`;
}

/** Sleep minutes: the union of the asleep intervals of the night ending that day. */
function sleepSql(people: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    SELECT user_id, d, sum(extract(epoch FROM (en - st)) / 60)::float8 AS v, bool_or(typed) AS typed
      FROM (SELECT user_id, d, min(start_at) AS st, max(end_at) AS en, bool_or(typed) AS typed
              FROM (SELECT user_id, d, start_at, end_at, typed,
                           sum(CASE WHEN prev_end >= start_at THEN 0 ELSE 1 END)
                             OVER (PARTITION BY user_id, d ORDER BY start_at, end_at) AS grp
                      FROM (SELECT p.user_id, ${localDay('s.end_at', 6)} AS d, s.start_at, s.end_at,
                                   ${typedSql('s.source')} AS typed,
                                   max(s.end_at) OVER (PARTITION BY p.user_id, ${localDay('s.end_at', 6)}
                                     ORDER BY s.start_at, s.end_at
                                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                              FROM ${people} p
                              JOIN sleep_samples s ON s.user_id = p.user_id AND s.deleted_at IS NULL
                               AND s.end_at > s.start_at
                               AND s.stage IN ('asleep', 'core', 'deep', 'rem')
                               AND s.end_at >= (p.sleep_from_at AT TIME ZONE 'UTC')
                               AND s.end_at < (p.sleep_to_at AT TIME ZONE 'UTC')) a) g
             GROUP BY user_id, d, grp) i
     GROUP BY user_id, d`;
}

/**
 * The rows `(user_id, d, v, typed)` of a metric for everyone of the `people` relation (see the
 * header), each day in that person's zone; `days` bounds the local days of a person's window.
 */
export function dailyValuesSql(
  metric: DailySqlMetric,
  people: Prisma.Sql,
  days: number,
): Prisma.Sql {
  switch (metric) {
    case 'steps':
    case 'active_energy':
      return cumulativeSql(metric, people, days);
    case 'exercise_minutes':
      return workoutSql(people);
    case 'sleep_minutes':
      return sleepSql(people);
  }
}
