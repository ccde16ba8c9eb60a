/**
 * A challenge's standings and winner(s) in ONE SQL statement (issue 32; README.md "Scoring"): the
 * participants' windows (each their own local days) as a `people` relation, the metric's per-day
 * figures from the owning domain's fragment (health: steps, active energy, exercise, sleep;
 * glucose: time in range) or the challenge's own check-ins, then points per day, totals, rank and
 * the winner flag.
 *
 * NOTE: privacy. Only the accepted participants the caller passes are read, and only points, day
 * counts and typed-day counts leave this statement (never a day's figure).
 */
import { dailyTimeInRangeSql } from '../glucose/index.ts';
import { dailyValuesSql } from '../health/index.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db, DbTx } from '../../db/client.ts';
import { addDays, dayBounds, localTime } from '../../platform/local-dates.ts';
import type { ChallengeMetric, ChallengeScoring } from './challenges.rules.ts';
import { DAILY_POINTS_CAP } from './challenges.rules.ts';

/** One accepted participant: their zone and the daily goal fixed when they joined. */
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

/** One participant's row of the standings. */
export interface StandingRow {
  userId: number;
  points: number;
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
 * A day's points: % of one's own goal capped, the day's amount, or 1 a check-in; a person without
 * a day of data (the LEFT JOIN's NULL row) scores 0, never LEAST's answer to a NULL (the cap).
 */
function pointsSql(scoring: ChallengeScoring): Prisma.Sql {
  const points =
    scoring === 'goal_percent'
      ? Prisma.sql`least(${DAILY_POINTS_CAP}::float8, floor(100 * d.v / nullif(p.goal, 0)))`
      : scoring === 'total'
        ? Prisma.sql`d.v`
        : Prisma.sql`1`;
  return Prisma.sql`CASE WHEN d.v IS NULL THEN 0 ELSE coalesce(${points}, 0) END`;
}

/** The whole statement (exported for the benchmark's EXPLAIN and timing). */
export function standingsSql(options: StandingsOptions): Prisma.Sql {
  return Prisma.sql`
    WITH people AS (${peopleSql(options)}),
    days AS (${daysSql(options)}),
    totals AS (
      SELECT p.user_id, round(coalesce(sum(${pointsSql(options.scoring)}), 0))::int AS points,
             count(d.d)::int AS days_counted, (count(*) FILTER (WHERE d.typed))::int AS typed_days
        FROM people p LEFT JOIN days d ON d.user_id = p.user_id
       GROUP BY p.user_id),
    ranked AS (SELECT *, rank() OVER (ORDER BY points DESC)::int AS rank FROM totals)
    SELECT user_id, points, days_counted, typed_days, rank,
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
      days_counted: number;
      typed_days: number;
      rank: number;
      winner: boolean;
    }[]
  >(standingsSql(options));
  return rows.map((r) => ({
    userId: r.user_id,
    points: r.points,
    daysCounted: r.days_counted,
    typedDays: r.typed_days,
    rank: r.rank,
    winner: r.winner,
  }));
}
