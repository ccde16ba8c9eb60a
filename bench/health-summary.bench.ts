/**
 * health_summary_range over a year of a heavy user (issue 16 goal: <= 3x the raw aggregate SQL), in
 * one process (one PGlite, or BENCH_DATABASE_URL's PostgreSQL). One account with a year of samples
 * seeded by bulk SQL (generate_series): heart rate twice a minute, steps and active energy every
 * minute, HRV and respiratory rate hourly, resting heart rate and body weight daily (SAMPLES, about
 * 2.1 million). Then, per case, GET /api/v1/health/summary/range through the real HTTP server (auth,
 * REST facade, GraphQL, the service's zone read and aggregate) against the same GROUP BY run raw on
 * the same database (metricAggregateSql, the service's own SQL). Prints p50/p95 of RUNS runs (default
 * 10) after a warm-up, the ratio of the medians and the top of the raw query's plan.
 */
import { Prisma } from '../src/generated/prisma/client.ts';
import { metricAggregateSql } from '../src/domains/health/health.summary.ts';
import { METRIC_TYPES } from '../src/domains/health/health.constants.ts';
import { localTime } from '../src/platform/local-dates.ts';
import { round, startInProcessApp, time } from './in-process.ts';
import { percentile } from './stats.ts';

const RUNS = Number(process.env.RUNS ?? 10);
const MINUTES = Number(process.env.MINUTES ?? 525_600); // one year
const ZONE = 'Europe/Berlin';
const bench = await startInProcessApp('health-summary');
const { db, json } = bench;
const { id: userId, headers } = await bench.newUser();
await db.prisma.user.update({ where: { id: userId }, data: { timezone: ZONE } });

const last = new Date();
last.setUTCHours(0, 0, 0, 0);
const first = new Date(last.getTime() - MINUTES * 60_000);
const seedStarted = performance.now();
// per minute: heart rate at :00 and :30, steps, active energy; hourly: hrv, respiratory rate; daily:
// resting heart rate, body weight. Ids are unique text; one statement per shape, no per-row round trip.
const seed = async (
  type: string,
  unit: string,
  everySeconds: number,
  count: number,
  value: string,
): Promise<void> => {
  await db.prisma.$executeRawUnsafe(
    `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
     SELECT 'hm_bench_' || $2 || '_' || g, $1::int, $2, ${value}, $3,
            ($4::timestamptz AT TIME ZONE 'UTC') + make_interval(secs => g * $5::int), 'Watch', now()
     FROM generate_series(0, $6::int - 1) AS g`,
    userId,
    type,
    unit,
    first.toISOString(),
    everySeconds,
    count,
  );
};
await seed('heart_rate', 'bpm', 30, MINUTES * 2, '60 + (g % 60)');
await seed('steps', 'count', 60, MINUTES, '(g % 120)');
await seed('active_energy', 'kcal', 60, MINUTES, '0.5 + (g % 7) / 10.0');
await seed('hrv', 'ms', 3600, MINUTES / 60, '30 + (g % 40)');
await seed('respiratory_rate', 'breaths/min', 3600, MINUTES / 60, '12 + (g % 6)');
await seed('resting_heart_rate', 'bpm', 86_400, MINUTES / 1440, '50 + (g % 12)');
await seed('body_weight', 'kg', 86_400, MINUTES / 1440, '80 - (g % 30) / 10.0');
await db.prisma.$executeRawUnsafe('ANALYZE health_metrics');
const [{ n: samples }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
  'SELECT count(*)::int AS n FROM health_metrics WHERE user_id = $1',
  userId,
);
const seedSeconds = round((performance.now() - seedStarted) / 1000);

const to = new Date(last.getTime() - 86_400_000).toISOString().slice(0, 10);
const from = new Date(last.getTime() - 365 * 86_400_000).toISOString().slice(0, 10);
const CASES = [
  { name: 'year_by_week_all', interval: 'week' as const, metricTypes: [...METRIC_TYPES] },
  { name: 'year_by_month_all', interval: 'month' as const, metricTypes: [...METRIC_TYPES] },
  { name: 'year_by_day_heart_rate', interval: 'day' as const, metricTypes: ['heart_rate'] },
];

const raw = (c: (typeof CASES)[number]) =>
  metricAggregateSql({
    userId,
    zone: ZONE,
    interval: c.interval,
    start: localTime(from, 0, ZONE),
    end: localTime(new Date(Date.parse(to) + 86_400_000).toISOString().slice(0, 10), 0, ZONE),
    metricTypes: c.metricTypes,
    withSources: false,
  });

const results: Record<string, unknown> = {};
try {
  for (const c of CASES) {
    const path =
      `/api/v1/health/summary/range?from=${from}&to=${to}&interval=${c.interval}` +
      `&metric_types=${c.metricTypes.join(',')}`;
    const api: number[] = [];
    const sql: number[] = [];
    for (let run = 0; run < RUNS + 1; run++) {
      let rows = 0;
      const a = await time(async () => {
        rows = (await json(path, { headers })).rows.length;
      });
      let rawRows = 0;
      const r = await time(async () => {
        rawRows = (await db.prisma.$queryRaw<unknown[]>(raw(c))).length;
      });
      if (rows !== rawRows || rows === 0) throw new Error(`${c.name}: ${rows} rows vs ${rawRows}`);
      if (run === 0) continue; // warm-up
      api.push(a);
      sql.push(r);
    }
    const plan = await db.prisma.$queryRaw<{ 'QUERY PLAN': string }[]>(
      Prisma.sql`EXPLAIN ${raw(c)}`,
    );
    const p50 = percentile(api, 50);
    const rawP50 = percentile(sql, 50);
    results[c.name] = {
      api_p50_ms: round(p50),
      api_p95_ms: round(percentile(api, 95)),
      raw_p50_ms: round(rawP50),
      raw_p95_ms: round(percentile(sql, 95)),
      ratio_p50: round(p50 / rawP50, 2),
      plan: plan
        .map((p) => p['QUERY PLAN'].trim())
        .filter((l) => /Scan|Aggregate/.test(l))
        .map((l) => l.replace(/\s+\(cost=.*$/, ''))
        .slice(0, 4),
    };
  }
  console.log(
    JSON.stringify({
      bench: 'health-summary',
      database: db.target.kind,
      samples,
      seed_s: seedSeconds,
      from,
      to,
      runs: RUNS,
      ...results,
      goal: 'api <= 3x raw',
    }),
  );
} finally {
  await bench.close();
}
