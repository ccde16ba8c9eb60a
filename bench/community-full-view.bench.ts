/**
 * community_member_full_view against the member's own health_summary_read (issue 32 goal: <= 1.5x),
 * in one process (one PGlite, or BENCH_DATABASE_URL's PostgreSQL), through the real HTTP server.
 * The member (Europe/Berlin) has 31 days of a heavy watch: steps and active energy every minute
 * (bulk SQL, about 89,000 samples), a workout a day, a staged night of sleep a night and CGM
 * readings every 5 minutes (about 8,900); they share every summary with a circle of two.
 *
 * Baseline: GET /api/v1/health/summary (healthDaySummary, the operation of health_summary_read:
 * one day) as the member. Cases: GET /api/v1/community/circles/{id}/members/{member}?days=N as the
 * other member, for N = 1 (the same span as the baseline), 7 (the default: the goal) and 31.
 * Figures are medians of RUNS (default 10) runs after a warm-up, each case run right after its
 * baseline run; prints one JSON line with the ratios.
 */
import { medians, round, startInProcessApp, time } from './in-process.ts';

const RUNS = Number(process.env.RUNS ?? 10);
const DAYS = 31;
const ZONE = 'Europe/Berlin';
const bench = await startInProcessApp('community-full-view');
const { db, json } = bench;
const viewer = await bench.newUser();
const member = await bench.newUser();
await db.prisma.user.update({ where: { id: member.id }, data: { timezone: ZONE } });

const gql = async (headers: Record<string, string>, query: string, variables = {}) => {
  const body = await json('/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables }),
  });
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
};

// 31 days of samples ending now
const now = Date.now();
const first = new Date(now - DAYS * 86_400_000);
first.setUTCMinutes(0, 0, 0);
const minutes = Math.floor((now - first.getTime()) / 60_000);
const seedMetric = async (type: string, unit: string, value: string): Promise<void> => {
  await db.prisma.$executeRawUnsafe(
    `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
     SELECT 'hm_cfv_' || $2 || '_' || g, $1::int, $2, ${value}, $3,
            ($4::timestamptz AT TIME ZONE 'UTC') + make_interval(mins => g), 'Watch', now()
     FROM generate_series(0, $5::int - 1) AS g`,
    member.id,
    type,
    unit,
    first.toISOString(),
    minutes,
  );
};
await seedMetric('steps', 'count', '(g % 20)');
await seedMetric('active_energy', 'kcal', '0.3 + (g % 5) / 10.0');
const day = (i: number): number => first.getTime() + i * 86_400_000;
const iso = (t: number): string => new Date(t).toISOString();
const sleep = Array.from({ length: DAYS }, (_, i) => {
  const bed = day(i) + 22 * 3_600_000;
  return [
    { stage: 'in_bed', start_at: iso(bed), end_at: iso(bed + 8 * 3_600_000) },
    { stage: 'core', start_at: iso(bed + 600_000), end_at: iso(bed + 4 * 3_600_000) },
    { stage: 'deep', start_at: iso(bed + 4 * 3_600_000), end_at: iso(bed + 5 * 3_600_000) },
    { stage: 'rem', start_at: iso(bed + 5 * 3_600_000), end_at: iso(bed + 7.5 * 3_600_000) },
  ];
}).flat();
const workouts = Array.from({ length: DAYS }, (_, i) => ({
  activity_type: 'running',
  start_at: iso(day(i) + 7 * 3_600_000),
  end_at: iso(day(i) + 7.5 * 3_600_000),
  energy_kcal: 300,
}));
await json('/api/health/platform/import/batch', {
  method: 'POST',
  headers: member.headers,
  body: JSON.stringify({ sleep, workouts }),
});
const readings = Array.from({ length: Math.floor(minutes / 5) }, (_, i) => ({
  sensor_id: 1,
  timestamp: iso(first.getTime() + i * 300_000),
  value_mg_dl: 70 + ((i * 37) % 150),
}));
for (let i = 0; i < readings.length; i += 5000) {
  await json('/api/glucose/readings/batch', {
    method: 'POST',
    headers: member.headers,
    body: JSON.stringify(readings.slice(i, i + 5000)),
  });
}
await db.prisma.$executeRawUnsafe('ANALYZE');

const { createCircle } = await gql(
  viewer.headers,
  'mutation { createCircle(name: "Bench") { id inviteCode } }',
);
await gql(member.headers, 'mutation($c: String!) { joinCircle(code: $c) { id } }', {
  c: createCircle.inviteCode,
});
await gql(
  member.headers,
  `mutation($id: String!) { setCircleVisibility(circleId: $id, shares: [steps, active_energy,
    exercise_minutes, sleep_minutes, activity_score, sleep_score, glucose_time_in_range]) { id } }`,
  { id: createCircle.id },
);

const baseline = async (): Promise<unknown> =>
  json('/api/v1/health/summary', { headers: member.headers });
const fullView = (days: number) => async (): Promise<unknown> => {
  const body = await json(
    `/api/v1/community/circles/${createCircle.id}/members/${member.id}?days=${days}`,
    { headers: viewer.headers },
  );
  if (body.days.length !== days || body.days.at(-1).steps === null)
    throw new Error(`full view of ${days} days: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
};

const figures: Record<string, number[]> = {
  health_summary_read: [],
  full_view_1_day: [],
  full_view_7_days: [],
  full_view_31_days: [],
};
try {
  for (let run = 0; run < RUNS + 1; run++) {
    const b = await time(baseline);
    const v1 = await time(fullView(1));
    const v7 = await time(fullView(7));
    const v31 = await time(fullView(31));
    if (run === 0) continue; // warm-up
    figures.health_summary_read.push(b);
    figures.full_view_1_day.push(v1);
    figures.full_view_7_days.push(v7);
    figures.full_view_31_days.push(v31);
  }
  const m = medians(figures);
  const [{ n: samples }] = await db.prisma.$queryRawUnsafe<{ n: number }[]>(
    'SELECT count(*)::int AS n FROM health_metrics WHERE user_id = $1',
    member.id,
  );
  console.log(
    JSON.stringify({
      bench: 'community-full-view',
      database: db.target.kind,
      samples,
      glucose_readings: readings.length,
      runs: RUNS,
      p50_ms: Object.fromEntries(Object.entries(m).map(([k, v]) => [k, round(v)])),
      ratio_1_day: round(m.full_view_1_day / m.health_summary_read, 2),
      ratio_7_days: round(m.full_view_7_days / m.health_summary_read, 2),
      ratio_31_days: round(m.full_view_31_days / m.health_summary_read, 2),
      goal: 'full view (the 7-day default, every summary shared) <= 1.5x health_summary_read',
      met: m.full_view_7_days / m.health_summary_read <= 1.5,
    }),
  );
} finally {
  await bench.close();
}
