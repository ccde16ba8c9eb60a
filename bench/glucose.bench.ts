/**
 * Glucose bulk paths against the floor of the same database, in one process (so the REST path and
 * the raw SQL share one PGlite, or BENCH_DATABASE_URL's PostgreSQL):
 *  - a 50,000-reading batch through REST (POST /api/glucose/readings/batch: HTTP, JSON parse,
 *    GraphQL coercion and zod validation, the service's unnest INSERT) vs the same rows inserted by
 *    one raw unnest INSERT (goal <= 3x);
 *  - the same batch posted again, 0 rows inserted (goal <= 1.5x the first);
 *  - GET /api/glucose/readings?limit=50000 vs one raw SELECT of the same rows + JSON.stringify
 *    (goal <= 2x).
 * Each figure is the median of RUNS (default 5) runs, each on fresh users. Prints one JSON line.
 */
import { medians, round, startInProcessApp, time } from './in-process.ts';

const RUNS = Number(process.env.RUNS ?? 5);
const N = 50_000;
const { db, json, newUser, close } = await startInProcessApp('glucose');

// 50,000 five-minute readings ending now (~174 days), one sensor
const start = Date.now() - N * 300_000;
const batch = Array.from({ length: N }, (_, i) => ({
  sensor_id: 1,
  timestamp: new Date(start + i * 300_000).toISOString(),
  value_mg_dl: 70 + ((i * 37) % 150),
}));
const body = JSON.stringify(batch);

const RAW_INSERT = `INSERT INTO glucose_readings (id, user_id, sensor_id, "timestamp", value_mg_dl, source)
  SELECT r.id, $5, r.sensor_id, r.ts, r.v, 'cgm'
  FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::double precision[]) AS r(id, sensor_id, ts, v)
  ON CONFLICT DO NOTHING`;
const RAW_SELECT = `SELECT id, sensor_id, "timestamp", value_mg_dl, source, processing_version FROM glucose_readings
  WHERE user_id = $1 AND "timestamp" >= $2::timestamptz AND deleted_at IS NULL ORDER BY "timestamp" DESC, sensor_id LIMIT $3`;

const figures = {
  rest_insert_ms: [] as number[],
  raw_insert_ms: [] as number[],
  rest_repeat_ms: [] as number[],
  rest_get_ms: [] as number[],
  raw_select_json_ms: [] as number[],
};
try {
  for (let run = 0; run < RUNS + 1; run++) {
    const viaRest = await newUser();
    const viaSql = await newUser();
    const { headers } = viaRest;
    let inserted = 0;
    const restInsert = await time(async () => {
      inserted = await json('/api/glucose/readings/batch', { method: 'POST', headers, body });
    });
    if (inserted !== N) throw new Error(`inserted ${inserted}`);
    const rawInsert = await time(async () => {
      // the floor: the same rows, arrays built from the same parsed JSON
      const rows = JSON.parse(body) as typeof batch;
      const ids = rows.map((r) => `g:${viaSql.id}:${r.sensor_id}:${Date.parse(r.timestamp)}`);
      await db.prisma.$executeRawUnsafe(
        RAW_INSERT,
        ids,
        rows.map((r) => r.sensor_id),
        rows.map((r) => r.timestamp),
        rows.map((r) => r.value_mg_dl),
        viaSql.id,
      );
    });
    let again = -1;
    const restRepeat = await time(async () => {
      again = await json('/api/glucose/readings/batch', { method: 'POST', headers, body });
    });
    if (again !== 0) throw new Error(`repeat inserted ${again}`);
    let got = 0;
    const restGet = await time(async () => {
      got = (await json('/api/glucose/readings?limit=50000&since_hours=43800', { headers })).length;
    });
    if (got !== N) throw new Error(`read ${got}`);
    const rawSelect = await time(async () => {
      const rows = await db.prisma.$queryRawUnsafe(
        RAW_SELECT,
        viaRest.id,
        new Date(Date.now() - 43_800 * 3_600_000).toISOString(),
        N,
      );
      JSON.stringify(rows);
    });
    if (run === 0) continue; // warm-up
    figures.rest_insert_ms.push(restInsert);
    figures.raw_insert_ms.push(rawInsert);
    figures.rest_repeat_ms.push(restRepeat);
    figures.rest_get_ms.push(restGet);
    figures.raw_select_json_ms.push(rawSelect);
  }
  const m = medians(figures);
  console.log(
    JSON.stringify({
      bench: 'glucose',
      database: db.target.kind,
      rows: N,
      runs: RUNS,
      ...m,
      insert_ratio: round(m.rest_insert_ms / m.raw_insert_ms, 2),
      insert_goal: 3,
      repeat_ratio: round(m.rest_repeat_ms / m.rest_insert_ms, 2),
      repeat_goal: 1.5,
      read_ratio: round(m.rest_get_ms / m.raw_select_json_ms, 2),
      read_goal: 2,
    }),
  );
} finally {
  await close();
}
