/**
 * insights_digest_read of a heavy user (issue 17 goal: <= 200 ms p50 on PostgreSQL), in one process
 * (one PGlite, or BENCH_DATABASE_URL's PostgreSQL). One account with a year of CGM, a reading every
 * 5 minutes (DAYS, default 365: about 105,000 readings), and five recorded insights a day, seeded by
 * bulk SQL (generate_series). Then GET /api/v1/insights/digest (the last complete week, the default)
 * through the real HTTP server (auth, REST facade, GraphQL, the digest's aggregates and the two
 * weeks' daily scores) against the same-run baseline: the raw SQL aggregate of the week's readings
 * (the glucoseWindow statement of the glucose domain). Prints p50/p95 of RUNS runs (default 50)
 * after a warm-up and the ratio of the medians, as one JSON line.
 */
import { round, startInProcessApp, time } from './in-process.ts';
import { percentile } from './stats.ts';

const RUNS = Number(process.env.RUNS ?? 50);
const DAYS = Number(process.env.DAYS ?? 365);
const ZONE = 'Europe/Berlin';
const bench = await startInProcessApp('insights-digest');
const { db, json } = bench;
const { id: userId, headers } = await bench.newUser();
await db.prisma.user.update({ where: { id: userId }, data: { timezone: ZONE } });

const now = new Date();
const first = new Date(now.getTime() - DAYS * 86_400_000);
const seedStarted = performance.now();
// a reading every 5 minutes: a daily wave 80..200 mg/dL with a little noise (deterministic)
await db.prisma.$executeRawUnsafe(
  `INSERT INTO glucose_readings (id, user_id, sensor_id, "timestamp", value_mg_dl, source, server_updated_at)
   SELECT 'g:bench:' || g, $1::int, 1, $2::timestamptz + make_interval(mins => g * 5),
          140 + 60 * sin(g * 2 * pi() / 288) + (g % 7), 'cgm', now()
   FROM generate_series(0, $3::int - 1) AS g`,
  userId,
  first.toISOString(),
  DAYS * 288,
);
// five insights a day (one per rule), as the rules record them
await db.prisma.$executeRawUnsafe(
  `INSERT INTO insights (user_id, kind, rule, subject, date, priority, title, body, status, source)
   SELECT $1::int, k.kind, k.rule, d::text, d::text, k.priority, k.rule, 'bench',
          (ARRAY['unseen','seen','answered','dismissed'])[1 + (extract(doy FROM d)::int % 4)],
          jsonb_build_object('rule', k.rule, 'window', jsonb_build_object('start', d::text, 'end', d::text),
                             'inputs', '[]'::jsonb, 'summary', 'bench')
   FROM generate_series($2::date, $3::date, interval '1 day') AS s(d0), LATERAL (SELECT d0::date AS d) AS x,
        (VALUES ('alert','predicted_low',1), ('trend','time_in_range_trend',2), ('score','score_glucose',3),
                ('score','score_sleep',3), ('suggestion','walk_after_meals',2)) AS k(kind, rule, priority)`,
  userId,
  first.toISOString().slice(0, 10),
  now.toISOString().slice(0, 10),
);
await db.prisma.$executeRawUnsafe('ANALYZE glucose_readings');
await db.prisma.$executeRawUnsafe('ANALYZE insights');
const [{ n: readings }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
  'SELECT count(*)::int AS n FROM glucose_readings WHERE user_id = $1',
  userId,
);
const [{ n: insights }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
  'SELECT count(*)::int AS n FROM insights WHERE user_id = $1',
  userId,
);
const seedSeconds = round((performance.now() - seedStarted) / 1000);

try {
  let week: { start: string; end: string } | null = null;
  const api: number[] = [];
  const sql: number[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    let digest: any = null;
    api.push(
      await time(async () => {
        digest = await json('/api/v1/insights/digest', { headers });
      }),
    );
    const w = (week ??= { start: digest.week_start, end: digest.week_end });
    let rawReadings = 0;
    sql.push(
      await time(async () => {
        const [r] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n, avg(value_mg_dl)::float8 AS mean,
                  (count(*) FILTER (WHERE value_mg_dl BETWEEN 70 AND 180))::int AS in_range
             FROM glucose_readings
            WHERE user_id = $1::int AND deleted_at IS NULL
              AND "timestamp" >= ($2::date::timestamp AT TIME ZONE $4::text)
              AND "timestamp" < (($3::date + 1)::timestamp AT TIME ZONE $4::text)`,
          userId,
          w.start,
          w.end,
          ZONE,
        );
        rawReadings = r.n;
      }),
    );
    if (digest.glucose.readings !== rawReadings || rawReadings === 0) {
      throw new Error(`digest ${digest.glucose.readings} readings vs raw ${rawReadings}`);
    }
    if (run === 0) {
      api.pop(); // warm-up
      sql.pop();
    }
  }
  const p50 = percentile(api, 50);
  const rawP50 = percentile(sql, 50);
  console.log(
    JSON.stringify({
      bench: 'insights-digest',
      database: db.target.kind,
      readings,
      insights,
      seed_s: seedSeconds,
      week,
      runs: RUNS,
      api_p50_ms: round(p50),
      api_p95_ms: round(percentile(api, 95)),
      raw_week_p50_ms: round(rawP50),
      raw_week_p95_ms: round(percentile(sql, 95)),
      ratio_p50: round(p50 / rawP50, 2),
      goal: 'api p50 <= 200 ms on PostgreSQL',
    }),
  );
} finally {
  await bench.close();
}
