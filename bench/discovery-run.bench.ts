/**
 * A discovery run over a year of one heavy user (issue 33 goal: <= 10 s on PostgreSQL with peak
 * memory growth <= 100 MB). One scratch database (a fresh database on BENCH_DATABASE_URL's or
 * TEST_DATABASE_URL's PostgreSQL server, dropped afterwards unless BENCH_KEEP; else one PGlite in
 * a temp dir), seeded with bulk SQL: per-minute steps, active energy and heart rate (two sources
 * for steps), hourly HRV, a resting rate and a weight a day, nightly sleep stages, a workout a
 * day, 5-minute CGM, 3-4 meals a day, a few log entries of each kind a day, a blood-pressure
 * reading a day, room readings every 5 minutes and observations.
 *
 * Measured over 366 local days in Europe/Berlin (two DST changes), RUNS runs (default 5) after a
 * warm-up each, the process's RSS sampled every 5 ms from a garbage collection before each run
 * (node --expose-gc): the baseline, loadSignals alone (every
 * series a per-local-day SQL aggregate), and the whole run as the worker does it
 * (runDiscoveryJob: claim, signals, every pair at lags 0 and 1, Benjamini-Hochberg, the findings
 * stored). Prints one JSON line: medians and maxima, the run/load ratio, the peak RSS and heap
 * growth, the pairs tested and found, and whether the goal is met.
 * `npm run bench:discovery` (BENCH_DATABASE_URL=postgres://... for PostgreSQL).
 */
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { loadSignals } from '../src/domains/discovery/discovery.signals.ts';
import { runDiscoveryJob } from '../src/domains/discovery/discovery.worker.ts';
import { createLogger } from '../src/base/logger.ts';
import type { DailySeries } from '../src/domains/discovery/discovery.types.ts';
import { addDays, dayBounds, localDateOf } from '../src/platform/local-dates.ts';
import { round, time } from './in-process.ts';
import { scratchDatabase } from './scratch.ts';
import { median } from './stats.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const DAYS = 366;
const ZONE = 'Europe/Berlin';
const GOAL_S = 10;
const GOAL_MB = 100;
const MB = 1024 * 1024;
const scratch = await scratchDatabase('discovery');
const db = await openDatabase({
  url: scratch.url,
  dataDir: scratch.url ? null : path.join(scratch.dir, 'db'),
});

/** Runs one seeding statement: $1 the window's start, $2 the user, $3 the window's minutes. */
const seedSql = (sql: string, start: Date, userId: number, minutes: number): Promise<number> =>
  db.prisma.$executeRawUnsafe(sql, start.toISOString(), userId, minutes);

/** Per-minute health samples, hourly HRV, a resting rate and a weight a day. */
const HEALTH_SQL = [
  `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
   SELECT 'm' || t.k || '_' || g, $2, t.k, t.base + (g * 37 % 97) * t.step, t.unit,
          ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(mins => g), t.src, now()
     FROM generate_series(0, $3::int - 1) AS g,
          (VALUES ('steps', 0::float8, 1::float8, 'count', 'Watch'),
                  ('active_energy', 0.5, 0.05, 'kcal', 'Watch'),
                  ('heart_rate', 55, 0.8, 'bpm', 'Watch')) AS t(k, base, step, unit, src)`,
  `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
   SELECT 'p_' || g, $2, 'steps', (g * 31 % 60), 'count',
          ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(mins => g), 'Phone', now()
     FROM generate_series(0, $3::int - 1, 3) AS g`,
  `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
   SELECT 'h' || t.k || '_' || g, $2, t.k, t.base + (g * 13 % 11), t.unit,
          ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(mins => g), 'Watch', now()
     FROM (VALUES ('hrv', 60, 35::float8, 'ms'), ('resting_heart_rate', 1440, 52, 'bpm'),
                  ('body_weight', 1440, 75, 'kg')) AS t(k, every, base, unit),
          LATERAL generate_series(0, $3::int - 1, t.every) AS g`,
  `INSERT INTO sleep_samples (id, user_id, stage, start_at, end_at, source, server_updated_at)
   SELECT 's' || s.stage || s.a || '_' || d, $2, s.stage,
          ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(days => d, mins => 1320 + s.a + d % 45),
          ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(days => d, mins => 1320 + s.b + d % 45),
          'Watch', now()
     FROM generate_series(0, $3::int / 1440 - 2) AS d,
          (VALUES ('in_bed', 0, 540), ('core', 20, 200), ('deep', 200, 290), ('awake', 290, 300),
                  ('core', 300, 420), ('rem', 420, 520)) AS s(stage, a, b)`,
  `INSERT INTO workout_samples (id, user_id, activity_type, start_at, end_at, duration_minutes, source, server_updated_at)
   SELECT 'w_' || d, $2, 'running', ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(days => d, hours => 17),
          ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(days => d, hours => 17, mins => 20 + d % 40),
          20 + d % 40, 'Watch', now()
     FROM generate_series(0, $3::int / 1440 - 1) AS d`,
];

/** CGM, meals, logs, blood pressure, room readings, observations. */
const OTHER_SQL = [
  `INSERT INTO glucose_readings (id, user_id, "timestamp", value_mg_dl, source)
   SELECT 'g_' || g, $2, $1::timestamptz + make_interval(mins => g), 70 + (g * 7 % 150), 'cgm'
     FROM generate_series(0, $3::int - 1, 5) AS g`,
  `INSERT INTO meals (id, user_id, meal_type, eaten_at, source, kcal, carbs_g, sugar_g)
   SELECT 'meal_' || d || '_' || m.h, $2, m.t, $1::timestamptz + make_interval(days => d, hours => m.h),
          'phone', 600, 40 + d % 50, 5 + d % 20
     FROM generate_series(0, $3::int / 1440 - 1) AS d,
          (VALUES (6, 'breakfast'), (11, 'lunch'), (15, 'snack'), (19, 'dinner')) AS m(h, t)
    WHERE m.h <> 15 OR d % 2 = 0`,
  `INSERT INTO log_entries (id, user_id, kind, name, value, unit, duration_minutes, logged_at, source)
   SELECT 'l_' || d || '_' || e.n, $2, e.kind, e.name, e.v + d % 5, e.unit, e.dur,
          $1::timestamptz + make_interval(days => d, hours => e.h), 'phone'
     FROM generate_series(0, $3::int / 1440 - 1) AS d,
          (VALUES (1, 'hydration', NULL, 250, 'ml', NULL, 8), (2, 'hydration', NULL, 500, 'ml', NULL, 13),
                  (3, 'hydration', NULL, 300, 'ml', NULL, 18), (4, 'nicotine', 'snus', 1, 'units', NULL, 10),
                  (5, 'medication', 'metformin', NULL, NULL, NULL, 7), (6, 'weight', NULL, 74, 'kg', NULL, 6),
                  (7, 'custom_metric', 'mood', 3, 'score', NULL, 20), (8, 'sun_session', NULL, 3, 'uv_index', 25, 12),
                  (9, 'sleep_factor', 'alcohol', NULL, NULL, NULL, 21),
                  (10, 'sleep_factor', 'late screen', NULL, NULL, NULL, 22))
            AS e(n, kind, name, v, unit, dur, h)
    WHERE e.kind <> 'sleep_factor' OR d % (e.n - 7) = 0`,
  `INSERT INTO blood_pressure_readings (id, user_id, systolic, diastolic, measured_at, source)
   SELECT 'bp_' || d, $2, 115 + d % 20, 75 + d % 10, $1::timestamptz + make_interval(days => d, hours => 7), 'phone'
     FROM generate_series(0, $3::int / 1440 - 1) AS d`,
  `INSERT INTO monitor_readings (user_id, serial_number, recorded_at, temperature, humidity, co2, pm25)
   SELECT $2, 'bench-room', ($1::timestamptz AT TIME ZONE 'UTC') + make_interval(mins => g),
          18 + (g % 1440) / 240.0, 40, 450 + (g * 11 % 900), 5
     FROM generate_series(0, $3::int - 1, 5) AS g`,
  `INSERT INTO discovery_observations (id, user_id, observed_at, label, intensity)
   SELECT 'o_' || d, $2, $1::timestamptz + make_interval(days => d, hours => 16),
          (ARRAY['headache', 'stressful day', 'low energy', 'bloated'])[1 + d % 4],
          CASE WHEN d % 3 = 0 THEN NULL ELSE 1 + d % 5 END
     FROM generate_series(0, $3::int / 1440 - 1) AS d
    WHERE d % 3 <> 1`,
];

const ANALYZED = [
  'health_metrics',
  'health_metric_buckets',
  'sleep_samples',
  'workout_samples',
  'glucose_readings',
  'meals',
  'log_entries',
  'blood_pressure_readings',
  'monitor_readings',
  'discovery_observations',
];

/** The heavy user and their year (and a few days either side): their id and the seeding time. */
async function seed(start: Date, end: Date): Promise<{ userId: number; seconds: number }> {
  const t = performance.now();
  const user = await db.prisma.user.create({
    data: { email: `bench.discovery.${Date.now()}@example.com`, timezone: ZONE },
  });
  const minutes = Math.floor((end.getTime() - start.getTime()) / 60_000);
  for (const sql of [...HEALTH_SQL, ...OTHER_SQL]) await seedSql(sql, start, user.id, minutes);
  for (const table of ANALYZED) await db.prisma.$executeRawUnsafe(`ANALYZE ${table}`);
  return { userId: user.id, seconds: round((performance.now() - t) / 1000) };
}

/** Samples the process's RSS and heap every 5 ms while `fn` runs; answers the peaks. */
async function peaks<T>(fn: () => Promise<T>): Promise<{ result: T; rss: number; heap: number }> {
  let rss = 0;
  let heap = 0;
  const sample = (): void => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  };
  const timer = setInterval(sample, 5);
  try {
    sample();
    const result = await fn();
    sample();
    return { result, rss, heap };
  } finally {
    clearInterval(timer);
  }
}

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * A warm-up and RUNS timed runs of `fn`; their times and each run's peak memory growth over the
 * memory at its start, after a full garbage collection where node runs with --expose-gc (the npm
 * script does), so a run is not charged with the garbage of the one before.
 */
async function measure<T>(fn: () => Promise<T>): Promise<{
  last: T;
  p50_ms: number;
  max_ms: number;
  peak_rss_growth_mb: number;
  peak_heap_growth_mb: number;
}> {
  const runs: number[] = [];
  let rssGrowth = 0;
  let heapGrowth = 0;
  let last: T | undefined;
  for (let run = 0; run < RUNS + 1; run++) {
    gc?.();
    const base = process.memoryUsage();
    const { rss, heap } = await peaks(async () => {
      const ms = await time(async () => {
        last = await fn();
      });
      if (run > 0) runs.push(ms);
    });
    if (run === 0) continue;
    rssGrowth = Math.max(rssGrowth, rss - base.rss);
    heapGrowth = Math.max(heapGrowth, heap - base.heapUsed);
  }
  return {
    last: last as T,
    p50_ms: round(median(runs)),
    max_ms: round(Math.max(...runs)),
    peak_rss_growth_mb: round(rssGrowth / MB),
    peak_heap_growth_mb: round(heapGrowth / MB),
  };
}

/** One whole run as the worker does it, on a new run row; answers its counts. */
async function wholeRun(userId: number, from: string, to: string) {
  const run = await db.prisma.discoveryRun.create({
    data: { userId, kind: 'run', fromDate: from, toDate: to, zone: ZONE },
  });
  await runDiscoveryJob(
    { prisma: db.prisma, log: createLogger('warn') },
    run.id,
    new AbortController().signal,
  );
  const done = await db.prisma.discoveryRun.findUniqueOrThrow({ where: { id: run.id } });
  if (done.status !== 'done') throw new Error(`run ${done.status}: ${done.error}`);
  return { tested: done.pairsTested, skipped: done.pairsSkipped, found: done.found };
}

try {
  const to = addDays(localDateOf(new Date(), ZONE), -1);
  const from = addDays(to, -(DAYS - 1));
  const seedFrom = dayBounds(addDays(from, -3), 'UTC').start;
  const seedTo = dayBounds(addDays(to, 2), 'UTC').end;
  const { userId, seconds } = await seed(seedFrom, seedTo);
  const counts = await db.prisma.$queryRawUnsafe<{ t: string; n: number }[]>(
    `SELECT 'health_metrics' AS t, count(*)::int AS n FROM health_metrics
     UNION ALL SELECT 'glucose_readings', count(*)::int FROM glucose_readings
     UNION ALL SELECT 'monitor_readings', count(*)::int FROM monitor_readings
     UNION ALL SELECT 'meals', count(*)::int FROM meals
     UNION ALL SELECT 'log_entries', count(*)::int FROM log_entries`,
  );
  const load = await measure(() => loadSignals(db.prisma, { userId, zone: ZONE, from, to }));
  const run = await measure(() => wholeRun(userId, from, to));
  const series: DailySeries[] = load.last;
  console.log(
    JSON.stringify({
      bench: 'discovery-run',
      database: db.target.kind,
      days: DAYS,
      zone: ZONE,
      rows: Object.fromEntries(counts.map((c) => [c.t, c.n])),
      seed_s: seconds,
      runs: RUNS,
      gc_before_each_run: gc !== undefined,
      series: series.length,
      series_days: Object.fromEntries(series.map((s) => [s.key, s.values.size])),
      load_signals: { ...load, last: undefined },
      whole_run: { ...run, last: undefined, pairs: run.last },
      ratio_run_to_load: round(run.p50_ms / load.p50_ms, 2),
      goal: `a run over ${DAYS} days <= ${GOAL_S} s and peak RSS growth <= ${GOAL_MB} MB on PostgreSQL`,
      met:
        db.target.kind === 'pg'
          ? run.max_ms <= GOAL_S * 1000 && run.peak_rss_growth_mb <= GOAL_MB
          : null,
    }),
  );
} finally {
  await db.close();
  await scratch.drop();
}
