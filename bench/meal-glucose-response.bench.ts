/**
 * Glucose responses of 1,000 meals of one person (issue 17 goal: <= 3x one SQL window query over
 * the same readings), in one process (one PGlite, or BENCH_DATABASE_URL's PostgreSQL):
 *  - the service (the goal's figure, `serviceMs`): `responsesOfMeals` of the 1,000 meals in
 *    one call, as the experiments and preview scores use it: one SELECT of the readings of every
 *    meal's window (glucoseSeries), then each response;
 *  - the read API (`apiMs`, for what a client sees): GET /api/v1/nutrition/glucose-responses over the year, 100 meals a page (10
 *    requests: auth, GraphQL, the meals page, one SELECT of the readings of the page's meal windows, every
 *    response's baseline, peak, time to peak, iAUC and return to baseline);
 *  - one SQL query over the same readings: each meal's baseline (mean of the 30 minutes before) and
 *    peak with its time (the highest reading of the 2 hours after) by two lateral joins.
 * One person with DAYS (default 365) days of 5-minute readings and MEALS (default 1,000) meals,
 * seeded by INSERT ... generate_series. Each figure is the median of RUNS (default 5) runs after a
 * warm-up. Prints one JSON line. `npm run bench:meal-response` (DAYS=30 MEALS=100 to try it small).
 */
import { responsesOfMeals } from '../src/domains/nutrition/index.ts';
import type { AuthedContext } from '../src/graphql/context.ts';
import { medians, round, startInProcessApp, time } from './in-process.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const DAYS = Number(process.env.DAYS ?? 365);
const MEALS = Number(process.env.MEALS ?? 1000);
const PAGE = 100;
const bench = await startInProcessApp('meal-response');
const { db, json } = bench;
const { id: userId, headers } = await bench.newUser();

const end = new Date(Math.floor(Date.now() / 300_000) * 300_000 - 3_600_000);
const start = new Date(end.getTime() - DAYS * 86_400_000);
// a wavy trace: a slow daily swing plus a faster one, 70..200 mg/dL
await db.prisma.$executeRawUnsafe(
  `INSERT INTO glucose_readings (id, user_id, sensor_id, "timestamp", value_mg_dl)
   SELECT 'bench-' || $1::int || '-' || g, $1::int, 1, $2::timestamptz + g * interval '5 minutes',
          130 + 40 * sin(g / 288.0 * 2 * pi()) + 25 * sin(g / 24.0 * 2 * pi())
     FROM generate_series(0, $3::int - 1) AS g`,
  userId,
  start.toISOString(),
  DAYS * 288,
);
// meals spread evenly over the year (not on the first or last 5 hours)
const spacing = (end.getTime() - start.getTime() - 10 * 3_600_000) / MEALS;
await db.prisma.$executeRawUnsafe(
  `INSERT INTO meals (id, user_id, meal_name, eaten_at, kcal)
   SELECT gen_random_uuid()::text, $1::int, 'meal ' || g,
          $2::timestamptz + interval '5 hours' + g * $3::float8 * interval '1 millisecond', 500
     FROM generate_series(0, $4::int - 1) AS g`,
  userId,
  start.toISOString(),
  spacing,
  MEALS,
);
await db.prisma.$executeRawUnsafe('ANALYZE glucose_readings');
await db.prisma.$executeRawUnsafe('ANALYZE meals');

const range = `from=${start.toISOString()}&to=${end.toISOString()}`;
/** Every meal's response through the read API, a page at a time; answers how many. */
async function viaApi(): Promise<number> {
  let cursor: string | null = null;
  let n = 0;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page: any = await json(`/api/v1/nutrition/glucose-responses?${range}&limit=${PAGE}${q}`, {
      headers,
    });
    n += page.items.length;
    cursor = page.next_cursor;
  } while (cursor);
  return n;
}

const SQL = `
  SELECT m.id, b.baseline, p.peak, p.peak_at
    FROM meals m
    CROSS JOIN LATERAL (
      SELECT avg(g.value_mg_dl) AS baseline FROM glucose_readings g
       WHERE g.user_id = m.user_id AND g.deleted_at IS NULL
         AND g."timestamp" >= m.eaten_at - interval '30 minutes' AND g."timestamp" <= m.eaten_at
    ) b
    LEFT JOIN LATERAL (
      SELECT g.value_mg_dl AS peak, g."timestamp" AS peak_at FROM glucose_readings g
       WHERE g.user_id = m.user_id AND g.deleted_at IS NULL
         AND g."timestamp" > m.eaten_at AND g."timestamp" <= m.eaten_at + interval '120 minutes'
       ORDER BY g.value_mg_dl DESC, g."timestamp" LIMIT 1
    ) p ON true
   WHERE m.user_id = $1::int AND m.deleted_at IS NULL
     AND m.eaten_at >= $2::timestamptz AND m.eaten_at < $3::timestamptz
   ORDER BY m.eaten_at DESC`;
/** Every meal's baseline and peak in one SQL query; answers how many. */
async function viaSql(): Promise<number> {
  const rows = await db.prisma.$queryRawUnsafe<unknown[]>(
    SQL,
    userId,
    start.toISOString(),
    end.toISOString(),
  );
  return rows.length;
}

const meals = await db.prisma.meal.findMany({
  where: { userId },
  select: { id: true, eatenAt: true },
  orderBy: { eatenAt: 'desc' },
});
// NOTE: a bench-only context: the service reads ctx.prisma and the principal's user id
const ctx = { prisma: db.prisma, principal: { userId } } as unknown as AuthedContext;
/** Every meal's response through the service in one call; answers how many have one. */
async function viaService(): Promise<number> {
  return (await responsesOfMeals(ctx, meals)).filter((r) => r.response).length;
}

const counts = { service: await viaService(), api: await viaApi(), sql: await viaSql() }; // warm-up
if (counts.service !== MEALS || counts.api !== MEALS || counts.sql !== MEALS) {
  throw new Error(`expected ${MEALS} meals, got ${JSON.stringify(counts)}`);
}
const figures: Record<'serviceMs' | 'apiMs' | 'sqlMs', number[]> = {
  serviceMs: [],
  apiMs: [],
  sqlMs: [],
};
for (let i = 0; i < RUNS; i++) {
  figures.serviceMs.push(await time(viaService));
  figures.apiMs.push(await time(viaApi));
  figures.sqlMs.push(await time(viaSql));
}
const m = medians(figures);
console.log(
  JSON.stringify({
    bench: 'meal-glucose-response',
    database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
    days: DAYS,
    readings: DAYS * 288,
    meals: MEALS,
    runs: RUNS,
    ...m,
    ratio: round(m.serviceMs / m.sqlMs, 2),
    apiRatio: round(m.apiMs / m.sqlMs, 2),
    goal: 3,
  }),
);
await bench.close();
