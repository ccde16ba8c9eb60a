/**
 * Daily scores over a range against the floor of loading their inputs, in one process (one PGlite,
 * or BENCH_DATABASE_URL's PostgreSQL). One account with 90 days of CGM (5-minute readings, 25,920),
 * a night of sleep, steps, HRV and resting heart rate a day and three meals a day:
 *  - the persisted scoreDays operation for those 90 days (POST /graphql: auth, GraphQL, the
 *    service's six queries and every score of every day) vs the same six SELECTs run raw (no
 *    goal is set; the ratio shows what scoring adds to loading, which does not grow per day);
 *  - insightScore of one day, for the per-request floor.
 * Each figure is the median of RUNS (default 5) runs after a warm-up. Prints one JSON line.
 */
import { randomUUID } from 'node:crypto';
import { medians, round, startInProcessApp, time } from './in-process.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const DAYS = 90;
const DAY_MS = 86_400_000;
const bench = await startInProcessApp('insights');
const { db, json } = bench;
const { id: userId, headers } = await bench.newUser();

// inputs: DAYS + 28 days of metrics (the recovery baseline), DAYS days of everything else, UTC days
const today = Date.parse(new Date().toISOString().slice(0, 10));
const first = today - (DAYS - 1) * DAY_MS;
const readings = Array.from({ length: DAYS * 288 }, (_, i) => ({
  sensor_id: 1,
  timestamp: new Date(first + i * 300_000).toISOString(),
  value_mg_dl: 70 + ((i * 37) % 150),
}));
await json('/api/glucose/readings/batch', {
  method: 'POST',
  headers,
  body: JSON.stringify(readings),
});
const dayStarts = Array.from({ length: DAYS + 28 }, (_, i) => first - 28 * DAY_MS + i * DAY_MS);
const samples = dayStarts.flatMap((d, i) => [
  {
    metric_type: 'steps',
    value: 6000 + ((i * 911) % 6000),
    timestamp: new Date(d + 12 * 3_600_000).toISOString(),
  },
  {
    metric_type: 'hrv',
    value: 40 + (i % 20),
    timestamp: new Date(d + 6 * 3_600_000).toISOString(),
  },
  {
    metric_type: 'resting_heart_rate',
    value: 55 + (i % 10),
    timestamp: new Date(d + 6 * 3_600_000).toISOString(),
  },
]);
await json('/api/health/platform/import', {
  method: 'POST',
  headers,
  body: JSON.stringify({ samples }),
});
const sleep = dayStarts.slice(28).map((d) => ({
  stage: 'asleep',
  start_at: new Date(d - 60 * 60_000).toISOString(),
  end_at: new Date(d + 7 * 3_600_000).toISOString(),
}));
await json('/api/health/platform/import/batch', {
  method: 'POST',
  headers,
  body: JSON.stringify({ sleep, workouts: [] }),
});
await db.prisma.meal.createMany({
  data: dayStarts.slice(28).flatMap((d) =>
    [8, 13, 19].map((h) => ({
      id: randomUUID(),
      userId,
      eatenAt: new Date(d + h * 3_600_000),
      kcal: 600,
      proteinG: 30,
      fiberG: 8,
      sugarG: 15,
    })),
  ),
});

const RANGE = `query scoreDays($days: Int!) { scoreDays(days: $days) { date overall { score } glucose { score components { name value score } } } }`;
const ONE = `query insightScore { insightScore { date overall { score } } }`;
const since = new Date(first).toISOString();
const sinceBaseline = new Date(first - 28 * DAY_MS).toISOString();
const rawLoad = (): Promise<unknown[]> =>
  Promise.all([
    db.prisma.$queryRawUnsafe(`SELECT timezone FROM users WHERE id = $1`, userId),
    db.prisma.$queryRawUnsafe(
      `SELECT "timestamp", value_mg_dl FROM glucose_readings WHERE user_id = $1 AND "timestamp" >= $2::timestamptz AND deleted_at IS NULL`,
      userId,
      since,
    ),
    db.prisma.$queryRawUnsafe(
      `SELECT stage, start_at, end_at FROM sleep_samples WHERE user_id = $1 AND end_at >= $2::timestamptz AND deleted_at IS NULL`,
      userId,
      since,
    ),
    db.prisma.$queryRawUnsafe(
      `SELECT metric_type, value, "timestamp", source FROM health_metrics WHERE user_id = $1 AND metric_type = ANY($2::text[]) AND "timestamp" >= $3::timestamptz AND deleted_at IS NULL`,
      userId,
      ['steps', 'active_energy', 'hrv', 'resting_heart_rate'],
      sinceBaseline,
    ),
    db.prisma.$queryRawUnsafe(
      `SELECT start_at, duration_minutes FROM workout_samples WHERE user_id = $1 AND start_at >= $2::timestamptz AND deleted_at IS NULL`,
      userId,
      since,
    ),
    db.prisma.$queryRawUnsafe(
      `SELECT eaten_at, kcal, protein_g, carbs_g, fat_g, fiber_g, sugar_g FROM meals WHERE user_id = $1 AND eaten_at >= $2::timestamptz AND deleted_at IS NULL`,
      userId,
      since,
    ),
  ]);

const figures = {
  range_ms: [] as number[],
  raw_load_ms: [] as number[],
  one_day_ms: [] as number[],
};
try {
  for (let run = 0; run < RUNS + 1; run++) {
    let days: any[] = [];
    const range = await time(async () => {
      days = (
        await json('/graphql', {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: RANGE, variables: { days: DAYS } }),
        })
      ).data.scoreDays;
    });
    if (days.length !== DAYS || days.some((d) => d.glucose.score === null))
      throw new Error('unexpected scores');
    const raw = await time(rawLoad);
    const one = await time(() =>
      json('/graphql', { method: 'POST', headers, body: JSON.stringify({ query: ONE }) }),
    );
    if (run === 0) continue; // warm-up
    figures.range_ms.push(range);
    figures.raw_load_ms.push(raw);
    figures.one_day_ms.push(one);
  }
  const m = medians(figures);
  console.log(
    JSON.stringify({
      bench: 'insights',
      database: db.target.kind,
      days: DAYS,
      readings: readings.length,
      runs: RUNS,
      ...m,
      range_vs_raw_load_ratio: round(m.range_ms / m.raw_load_ms, 2),
      per_day_ms: round(m.range_ms / DAYS, 2),
    }),
  );
} finally {
  await bench.close();
}
