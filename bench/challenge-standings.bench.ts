/**
 * Standings of a 50-member circle challenge over 31 days (issue 32 goal: one SQL statement,
 * <= 50 ms p50 on PostgreSQL). One scratch database (a fresh database on BENCH_DATABASE_URL's or
 * TEST_DATABASE_URL's PostgreSQL server, dropped afterwards; else one PGlite in a temp dir).
 * 50 people in five zones, each with steps every 5 minutes from two sources (watch and phone,
 * ±10 days around the challenge, about 1.2 million samples), one workout a day and a CGM reading
 * every 5 minutes. Then, per
 * metric, the standings statement (challenges.standings.ts, goal_percent) against the plain
 * per-person daily aggregate of the same rows in one zone (the baseline: what any daily figure of
 * 50 people costs), timed alternately in the same run. Prints one JSON line: p50/p95 of RUNS runs
 * (default 20) after a warm-up, the ratio of the medians and the top of the statement's plan.
 */
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { Prisma } from '../src/generated/prisma/client.ts';
import { computeStandings, standingsSql } from '../src/domains/challenges/challenges.standings.ts';
import type { StandingsOptions } from '../src/domains/challenges/challenges.standings.ts';
import { addDays, dayBounds, localDateOf } from '../src/platform/local-dates.ts';
import { scratchDatabase } from './scratch.ts';
import { round, time } from './in-process.ts';
import { percentile } from './stats.ts';

const RUNS = Number(process.env.RUNS ?? 20);
const MEMBERS = 50;
const DAYS = 31;
const GOAL_P50_MS = 50;
/** seconds between two steps samples of one source (300: a heavy walker's phone and watch; 3600: hourly buckets) */
const EVERY_S = Number(process.env.EVERY_S ?? 300);
const ZONES = ['UTC', 'Europe/Berlin', 'Asia/Tokyo', 'America/Los_Angeles', 'Australia/Sydney'];
const scratch = await scratchDatabase('challenges');
const db = await openDatabase({
  url: scratch.url,
  dataDir: scratch.url ? null : path.join(scratch.dir, 'db'),
});

/** 50 people, their samples, ANALYZE: answers their ids and the seeding time. */
async function seed(start: Date, end: Date): Promise<{ ids: number[]; seconds: number }> {
  const t = performance.now();
  const ids: number[] = [];
  for (let i = 0; i < MEMBERS; i++) {
    const u = await db.prisma.user.create({
      data: { email: `bench${i}.${Date.now()}@example.com`, timezone: ZONES[i % ZONES.length] },
    });
    ids.push(u.id);
  }
  const every = EVERY_S;
  const count = Math.floor((end.getTime() - start.getTime()) / 1000 / every);
  for (const [source, scale] of [
    ['Watch', 1],
    ['Phone', 0.8],
  ] as const) {
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
       SELECT 'hm_' || u || '_' || $3 || '_' || g, u, 'steps', ((g * 7 + u) % 90) * $4::float8, 'count',
              ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(secs => g * ${every}), $3, now()
         FROM unnest($5::int[]) AS u, generate_series(0, $2::int - 1) AS g`,
      start.toISOString(),
      count,
      source,
      scale,
      ids,
    );
  }
  await db.prisma.$executeRawUnsafe(
    `INSERT INTO workout_samples (id, user_id, activity_type, start_at, end_at, duration_minutes, source, server_updated_at)
     SELECT 'w_' || u || '_' || g, u, 'running', ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(days => g, hours => 7),
            ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(days => g, hours => 8), 20 + (g + u) % 40, 'Watch', now()
       FROM unnest($2::int[]) AS u, generate_series(0, $3::int - 1) AS g`,
    start.toISOString(),
    ids,
    Math.floor((end.getTime() - start.getTime()) / 86_400_000),
  );
  // a CGM reading every 5 minutes (time in range)
  await db.prisma.$executeRawUnsafe(
    `INSERT INTO glucose_readings (id, user_id, "timestamp", value_mg_dl, source)
     SELECT 'g_' || u || '_' || g, u, $1::timestamptz + make_interval(secs => g * 300),
            60 + ((g * 13 + u) % 160), 'cgm'
       FROM unnest($2::int[]) AS u, generate_series(0, $3::int - 1) AS g`,
    start.toISOString(),
    ids,
    Math.floor((end.getTime() - start.getTime()) / 1000 / 300),
  );
  await db.prisma.$executeRawUnsafe('ANALYZE glucose_readings');
  await db.prisma.$executeRawUnsafe('ANALYZE glucose_buckets');
  await db.prisma.$executeRawUnsafe('ANALYZE health_metrics');
  await db.prisma.$executeRawUnsafe('ANALYZE health_metric_buckets');
  await db.prisma.$executeRawUnsafe('ANALYZE workout_samples');
  return { ids, seconds: round((performance.now() - t) / 1000) };
}

/** The baseline: the plain daily total per person and source of the same rows, in one zone. */
const baselineSql = (ids: number[], from: Date, to: Date): Prisma.Sql => Prisma.sql`
  SELECT user_id, ((("timestamp" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')::date)::text AS d, source, sum(value)::float8 AS v
    FROM health_metrics
   WHERE user_id = ANY(${ids}::int[]) AND metric_type = 'steps' AND deleted_at IS NULL
     AND "timestamp" >= (${from.toISOString()}::timestamptz AT TIME ZONE 'UTC')
     AND "timestamp" < (${to.toISOString()}::timestamptz AT TIME ZONE 'UTC')
   GROUP BY 1, 2, 3`;

/** p50/p95 of the statement and the baseline, timed alternately. */
async function measure(options: StandingsOptions, baseline: Prisma.Sql) {
  const s: number[] = [];
  const b: number[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    let rows = 0;
    const ts = await time(async () => {
      rows = (await computeStandings(db.prisma, options)).length;
    });
    const tb = await time(() => db.prisma.$queryRaw(baseline));
    if (rows !== MEMBERS) throw new Error(`${rows} standings rows, not ${MEMBERS}`);
    if (run === 0) continue;
    s.push(ts);
    b.push(tb);
  }
  const plan = await db.prisma.$queryRaw<{ 'QUERY PLAN': string }[]>(
    Prisma.sql`EXPLAIN ${standingsSql(options)}`,
  );
  return {
    standings_p50_ms: round(percentile(s, 50)),
    standings_p95_ms: round(percentile(s, 95)),
    baseline_p50_ms: round(percentile(b, 50)),
    ratio_p50: round(percentile(s, 50) / percentile(b, 50), 2),
    plan: plan
      .map((p) => p['QUERY PLAN'].trim())
      .filter((l) => /Scan|Join|Loop/.test(l))
      .map((l) => l.replace(/\s+\(cost=.*$/, ''))
      .slice(0, 4),
  };
}

try {
  const today = localDateOf(new Date(), 'UTC');
  const startDate = addDays(today, -DAYS - 1);
  const seedFrom = dayBounds(addDays(startDate, -10), 'UTC').start;
  const seedTo = dayBounds(today, 'UTC').end;
  const { ids, seconds } = await seed(seedFrom, seedTo);
  const people = ids.map((userId, i) => ({ userId, zone: ZONES[i % ZONES.length], goal: 8000 }));
  const base: Omit<StandingsOptions, 'metric'> = {
    challengeId: 'bench',
    scoring: 'goal_percent',
    startDate,
    days: DAYS,
    stoppedAt: null,
    finished: true,
    people,
  };
  const baseline = baselineSql(
    ids,
    dayBounds(startDate, 'UTC').start,
    dayBounds(addDays(startDate, DAYS - 1), 'UTC').end,
  );
  const [{ n: samples }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
    'SELECT count(*)::int AS n FROM health_metrics',
  );
  const steps = await measure({ ...base, metric: 'steps' }, baseline);
  const exercise = await measure({ ...base, metric: 'exercise_minutes' }, baseline);
  const timeInRange = await measure({ ...base, metric: 'glucose_time_in_range' }, baseline);
  console.log(
    JSON.stringify({
      bench: 'challenge-standings',
      database: db.target.kind,
      members: MEMBERS,
      days: DAYS,
      samples,
      seed_s: seconds,
      runs: RUNS,
      steps_every_s: EVERY_S,
      steps,
      exercise_minutes: exercise,
      glucose_time_in_range: timeInRange,
      goal: `standings p50 <= ${GOAL_P50_MS} ms on PostgreSQL (one statement)`,
      met: db.target.kind === 'pg' ? steps.standings_p50_ms <= GOAL_P50_MS : null,
    }),
  );
} finally {
  await db.close();
  await scratch.drop();
}
