/**
 * A challenge's standings and winner(s) in ONE SQL statement (issue 32; README.md "Scoring"): the
 * participants' windows (each their own local days) as a `people` relation, the metric's per-day
 * figures from the owning domain's fragment (health: steps, active energy, exercise, sleep;
 * glucose: time in range) or the challenge's own check-ins, then points per day, totals, rank and
 * the winner flag.
 *
 * NOTE: privacy. Only the accepted participants the caller passes are read. Each row carries the
 * person's figures (points, day figures): the caller (`detailOf`) withholds them from a viewer the
 * person does not share the metric with (README.md "Who sees what"), so never answer these rows
 * as they are.
 */
import { dailyTimeInRangeSql } from '../glucose/index.ts';
import { dailyValuesSql } from '../health/index.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db, DbTx } from '../../db/client.ts';
import { addDays, dayBounds, localTime } from '../../platform/local-dates.ts';
import type { ChallengeMetric, ChallengeScoring } from './challenges.rules.ts';
import { DAILY_POINTS_CAP, SLEEP_POINTS_CAP, SLEEP_TOTAL_DAILY_MAX } from './challenges.rules.ts';

/** One accepted participant: their zone and the daily goal scored against (floored). */
export interface StandingsPerson {
  userId: number;
  zone: string;
  goal: number;
}

export interface StandingsOptions {
  /** the challenge (its check-ins for a habit challenge) */
  challengeId: string;
  metric: ChallengeMetric;
  scoring: ChallengeScoring;
  /** the first local day, YYYY-MM-DD */
  startDate: string;
  days: number;
  /** when the challenge stopped early (ended or cancelled): nothing after it counts */
  stoppedAt: Date | null;
  /** the last local day has ended for everyone (or it stopped): the leaders win */
  finished: boolean;
  people: StandingsPerson[];
}

/** One day of a participant: the day's figure (the metric's unit) and the points it made. */
export interface DayFigure {
  /** the participant's local day, YYYY-MM-DD */
  date: string;
  /** the day's figure as measured (sleep above the cap included), 1 decimal */
  figure: number;
  /** the points the day made (rounded) */
  points: number;
  /** the figure includes typed values */
  typed: boolean;
}

/** One participant's row of the standings. */
export interface StandingRow {
  userId: number;
  points: number;
  /**
   * the person's own figure over the challenge: the day figures summed (steps, kcal, minutes,
   * check-ins), for time in range their mean; null without a day of data
   */
  figure: number | null;
  /** the days with a figure, in date order */
  dailyFigures: DayFigure[];
  /** days with a figure (or a check-in) */
  daysCounted: number;
  /** days whose figure includes typed values */
  typedDays: number;
  /** 1 for the leaders (ties share a rank) */
  rank: number;
  winner: boolean;
}

const PEOPLE = Prisma.raw('people');

const earlier = (a: Date, b: Date | null): Date => (b && b < a ? b : a);

/** The `people` relation: each participant's windows in their own zone, cut at stoppedAt. */
function peopleSql(options: StandingsOptions): Prisma.Sql {
  const last = addDays(options.startDate, options.days - 1);
  const cols = { ids: [] as number[], zones: [] as string[], goals: [] as number[] };
  const times = {
    from: [] as string[],
    to: [] as string[],
    sf: [] as string[],
    st: [] as string[],
  };
  for (const p of options.people) {
    cols.ids.push(p.userId);
    cols.zones.push(p.zone);
    cols.goals.push(p.goal);
    times.from.push(dayBounds(options.startDate, p.zone).start.toISOString());
    times.to.push(earlier(dayBounds(last, p.zone).end, options.stoppedAt).toISOString());
    times.sf.push(localTime(addDays(options.startDate, -1), 18, p.zone).toISOString());
    times.st.push(earlier(localTime(last, 18, p.zone), options.stoppedAt).toISOString());
  }
  return Prisma.sql`SELECT * FROM unnest(${cols.ids}::int[], ${cols.zones}::text[],
      ${cols.goals}::float8[], ${times.from}::timestamptz[], ${times.to}::timestamptz[],
      ${times.sf}::timestamptz[], ${times.st}::timestamptz[])
    AS p(user_id, zone, goal, from_at, to_at, sleep_from_at, sleep_to_at)`;
}

/** The per-day rows `(user_id, d, v, typed)` of the challenge's metric. */
function daysSql(options: StandingsOptions): Prisma.Sql {
  switch (options.metric) {
    case 'habit':
      return Prisma.sql`
        SELECT c.user_id, c.date AS d, 1::float8 AS v, false AS typed
          FROM challenge_checkins c JOIN ${PEOPLE} p ON p.user_id = c.user_id
         WHERE c.challenge_id = ${options.challengeId}
           AND c.created_at < coalesce(${options.stoppedAt?.toISOString() ?? null}::timestamptz, 'infinity')`;
    case 'glucose_time_in_range':
      return dailyTimeInRangeSql(PEOPLE, options.days);
    default:
      return dailyValuesSql(options.metric, PEOPLE, options.days);
  }
}

/**
 * A day's points: % of one's own goal capped (sleep at 100: the goal itself), the day's amount
 * (a night at most 8 h), or 1 a check-in; a person without a day of data (the LEFT JOIN's NULL
 * row) scores 0, never LEAST's answer to a NULL (the cap).
 */
function pointsSql(scoring: ChallengeScoring, metric: ChallengeMetric): Prisma.Sql {
  const sleep = metric === 'sleep_minutes';
  const cap = sleep ? SLEEP_POINTS_CAP : DAILY_POINTS_CAP;
  const points =
    scoring === 'goal_percent'
      ? Prisma.sql`least(${cap}::float8, floor(100 * d.v / nullif(p.goal, 0)))`
      : scoring === 'total'
        ? sleep
          ? Prisma.sql`least(${SLEEP_TOTAL_DAILY_MAX}::float8, d.v)`
          : Prisma.sql`d.v`
        : Prisma.sql`1`;
  return Prisma.sql`CASE WHEN d.v IS NULL THEN 0 ELSE coalesce(${points}, 0) END`;
}

/** The person's figure over the challenge: a percentage is averaged, an amount summed. */
const figureSql = (metric: ChallengeMetric): Prisma.Sql =>
  metric === 'glucose_time_in_range' ? Prisma.sql`avg(d.v)` : Prisma.sql`sum(d.v)`;

/** The whole statement (exported for the benchmark's EXPLAIN and timing). */
export function standingsSql(options: StandingsOptions): Prisma.Sql {
  const points = pointsSql(options.scoring, options.metric);
  return Prisma.sql`
    WITH people AS (${peopleSql(options)}),
    days AS (${daysSql(options)}),
    totals AS (
      SELECT p.user_id, round(coalesce(sum(${points}), 0))::int AS points,
             round(${figureSql(options.metric)}::numeric, 1)::float8 AS figure,
             coalesce(jsonb_agg(jsonb_build_object('date', d.d,
                 'figure', round(d.v::numeric, 1), 'points', round(${points})::int,
                 'typed', coalesce(d.typed, false)) ORDER BY d.d)
               FILTER (WHERE d.d IS NOT NULL), '[]'::jsonb) AS daily_figures,
             count(d.d)::int AS days_counted, (count(*) FILTER (WHERE d.typed))::int AS typed_days
        FROM people p LEFT JOIN days d ON d.user_id = p.user_id
       GROUP BY p.user_id),
    ranked AS (SELECT *, rank() OVER (ORDER BY points DESC)::int AS rank FROM totals)
    SELECT user_id, points, figure, daily_figures, days_counted, typed_days, rank,
           (${options.finished}::boolean AND rank = 1 AND points > 0) AS winner
      FROM ranked ORDER BY rank, user_id`;
}

/** The standings, leaders first (an empty list without participants). */
export async function computeStandings(
  db: Db | DbTx,
  options: StandingsOptions,
): Promise<StandingRow[]> {
  if (!options.people.length) return [];
  const rows = await db.$queryRaw<
    {
      user_id: number;
      points: number;
      figure: number | null;
      daily_figures: { date: string; figure: number; points: number; typed: boolean }[];
      days_counted: number;
      typed_days: number;
      rank: number;
      winner: boolean;
    }[]
  >(standingsSql(options));
  return rows.map((r) => ({
    userId: r.user_id,
    points: r.points,
    figure: r.figure,
    dailyFigures: r.daily_figures.map((f) => ({ ...f, figure: Number(f.figure) })),
    daysCounted: r.days_counted,
    typedDays: r.typed_days,
    rank: r.rank,
    winner: r.winner,
  }));
}
