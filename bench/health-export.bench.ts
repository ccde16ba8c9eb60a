/**
 * Health export (issues 16 and 30): export jobs of a year of a person's data run through the server
 * (POST /api/v1/export/jobs, polled until ready): ROWS (default 2,000,000) health samples plus a
 * year of everything else a person logs (glucose every 5 minutes: 105,120 readings; 3 meals a day
 * with 3 items each; 4 sleep stages a night; a workout, 2 blood-pressure readings and 3 log entries
 * a day), every kind, raw, in the person's zone (ZONE, default Europe/Berlin: every time written
 * with its offset), once per format in FORMATS (default csv,json; csv is a zip of one CSV file per
 * kind). Goals: the server's peak memory growth over idle under 64 MB while a job writes the file;
 * its rows per second, and its time against a baseline measured in the same run: the health
 * samples alone read by a raw driver cursor (DECLARE/FETCH of 5000 rows, pg or PGlite directly)
 * and written to a CSV file with csv-stringify.
 *
 * The server runs as `npm start` runs it (a child process; embedded database, or
 * BENCH_DATABASE_URL for PostgreSQL: `BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<empty_db>
 * npm run bench:health-export`; `npm run build` first). Rows are seeded by INSERT ...
 * generate_series while the server is stopped (an embedded database has one owner), and the
 * baseline runs then too. Memory: VmHWM reset just before each job (clear_refs) and RSS sampled
 * every 5 ms. Prints one JSON line.
 */
import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { stringify } from 'csv-stringify/sync';
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { round, scratchAccount, watchMemory, withDatabase } from './export-bench.ts';
import { fetchJson as json, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';

const N = Number(process.env.ROWS ?? 2_000_000);
const ZONE = process.env.ZONE ?? 'Europe/Berlin';
const FORMATS = (process.env.FORMATS ?? 'csv,json').split(',');
const GOAL_GROWTH_MB = 64;
const DAYS = 365;
/** The other kinds' rows seeded (a year): glucose, meals, sleep, workouts, blood pressure, logs. */
const OTHER_ROWS = 288 * DAYS + 3 * DAYS + 4 * DAYS + DAYS + 2 * DAYS + 3 * DAYS;
const FROM = new Date('2025-01-01T00:00:00Z');
const TO = new Date('2026-01-01T00:00:00Z');
const STEP_S = (TO.getTime() - FROM.getTime()) / 1000 / N;
const COLUMNS = ['timestamp', 'metric_type', 'value', 'unit', 'source'];
const CHUNK = 5000;

type Fetch = (sql: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/** The baseline: the rows through a server-side cursor straight into a CSV file. */
async function baseline(run: Fetch, userId: number, file: string): Promise<number> {
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(stringify([COLUMNS]));
  let rows = 0;
  await run('BEGIN');
  await run(
    `DECLARE c NO SCROLL CURSOR FOR SELECT timestamp, metric_type, value, unit, source
       FROM health_metrics WHERE user_id = ${userId} AND deleted_at IS NULL
        AND timestamp >= '${FROM.toISOString()}' AND timestamp < '${TO.toISOString()}'
      ORDER BY timestamp, metric_type, source`,
  );
  for (;;) {
    const chunk = await run(`FETCH ${CHUNK} FROM c`);
    if (!chunk.length) break;
    const records = chunk.map((r) => ({
      timestamp: (r.timestamp as Date).toISOString(),
      metric_type: r.metric_type,
      value: String(r.value),
      unit: r.unit,
      source: r.source,
    }));
    await write(stringify(records, { columns: COLUMNS }));
    rows += chunk.length;
  }
  await run('COMMIT');
  out.end();
  await once(out, 'close');
  return rows;
}

/** A year of every other kind a person logs, straight into the tables (the server is stopped). */
async function seedOtherKinds(prisma: Database['prisma'], userId: number): Promise<void> {
  const day = `$2::timestamptz + d * interval '1 day'`;
  const statements = [
    // glucose every 5 minutes
    `INSERT INTO glucose_readings (id, user_id, sensor_id, "timestamp", value_mg_dl, source)
     SELECT 'bg' || $1::int || '-' || g, $1::int, 1, $2::timestamptz + g * interval '5 minutes',
            80 + g % 120, 'cgm' FROM generate_series(0, 288 * ${DAYS} - 1) AS g`,
    // three meals a day, three items each
    `INSERT INTO meals (id, user_id, meal_name, meal_type, eaten_at, source, kcal, protein_g, carbs_g, fat_g)
     SELECT 'bm' || $1::int || '-' || d || '-' || m, $1::int, 'Bench meal ' || m,
            (ARRAY['breakfast','lunch','dinner'])[m], ${day} + (7 + 5 * m) * interval '1 hour',
            'manual', 600, 30, 70, 20
       FROM generate_series(0, ${DAYS} - 1) AS d, generate_series(1, 3) AS m`,
    `INSERT INTO meal_items (id, user_id, meal_id, name, grams, kcal, protein_g, carbs_g, fat_g)
     SELECT 'bi' || $1::int || '-' || d || '-' || m || '-' || i, $1::int,
            'bm' || $1::int || '-' || d || '-' || m, 'Item ' || i, 100, 200, 10, 23.3, 6.7
       FROM generate_series(0, ${DAYS} - 1) AS d, generate_series(1, 3) AS m, generate_series(1, 3) AS i`,
    // four sleep stages a night, a workout a day (the health tables' times are UTC timestamps)
    `INSERT INTO sleep_samples (id, user_id, stage, start_at, end_at, source)
     SELECT 'bs' || $1::int || '-' || d || '-' || s, $1::int, (ARRAY['core','deep','rem','awake'])[s],
            ((${day} + (19 + s) * interval '1 hour') AT TIME ZONE 'UTC'),
            ((${day} + (20 + s) * interval '1 hour') AT TIME ZONE 'UTC'), 'Bench Watch'
       FROM generate_series(0, ${DAYS} - 1) AS d, generate_series(1, 4) AS s`,
    `INSERT INTO workout_samples (id, user_id, activity_type, start_at, end_at, duration_minutes, energy_kcal, source)
     SELECT 'bw' || $1::int || '-' || d, $1::int, 'running',
            ((${day} + interval '18 hours') AT TIME ZONE 'UTC'),
            ((${day} + interval '18 hours 45 minutes') AT TIME ZONE 'UTC'), 45, 400, 'Bench Watch'
       FROM generate_series(0, ${DAYS} - 1) AS d`,
    `INSERT INTO blood_pressure_readings (id, user_id, systolic, diastolic, pulse, measured_at, source)
     SELECT 'bp' || $1::int || '-' || d || '-' || r, $1::int, 115 + r, 75 + r, 60,
            ${day} + (8 + 12 * r) * interval '1 hour', 'manual'
       FROM generate_series(0, ${DAYS} - 1) AS d, generate_series(0, 1) AS r`,
    `INSERT INTO log_entries (id, user_id, kind, name, value, unit, logged_at, source)
     SELECT 'bl' || $1::int || '-' || d || '-' || e, $1::int,
            CASE WHEN e < 2 THEN 'hydration' ELSE 'medication' END,
            CASE WHEN e < 2 THEN NULL ELSE 'Vitamin D' END,
            CASE WHEN e < 2 THEN 250 ELSE NULL END, CASE WHEN e < 2 THEN 'ml' ELSE NULL END,
            ${day} + (9 + 3 * e) * interval '1 hour', 'manual'
       FROM generate_series(0, ${DAYS} - 1) AS d, generate_series(0, 2) AS e`,
  ];
  for (const sql of statements) {
    await prisma.$executeRawUnsafe(sql, ...(sql.includes('$2') ? [userId, FROM] : [userId]));
  }
  await prisma.$executeRawUnsafe(`UPDATE users SET timezone = $2 WHERE id = $1::int`, userId, ZONE);
}

// 1. an account (through the API), the server stopped
const scratch = await scratchAccount('health-export');
const { dataDir, url, token, userId } = scratch;
let server: BenchServer | null = null;
try {
  // 2. N samples over a year (seven metric types in turn), then the baseline
  let baselineMs = 0;
  let baselineRows = 0;
  const baselineFile = path.join(dataDir, 'baseline.csv');
  await withDatabase(scratch, async (db) => {
    const t0 = performance.now();
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, timestamp, source)
       SELECT 'b' || $1::int || '-' || g, $1::int, (ARRAY['hrv','resting_heart_rate','steps','active_energy',
              'body_weight','respiratory_rate','heart_rate'])[1 + g % 7], 50 + g % 100, 'u',
              $2::timestamptz + g * make_interval(secs => $3::float8), 'Bench Watch'
         FROM generate_series(0, $4::int - 1) AS g`,
      userId,
      FROM,
      STEP_S,
      N,
    );
    await seedOtherKinds(db.prisma, userId);
    console.error(
      `seeded ${N} samples and ${OTHER_ROWS} other rows in ${Math.round(performance.now() - t0)} ms`,
    );
    let run: Fetch;
    let close = async (): Promise<void> => {};
    if (db.target.kind === 'pg') {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      run = async (sql) => (await client.query(sql)).rows as Record<string, unknown>[];
      close = () => client.end();
    } else {
      const pglite = db.target.instance as PGlite;
      run = async (sql) => (await pglite.query<Record<string, unknown>>(sql)).rows;
    }
    const t1 = performance.now();
    baselineRows = await baseline(run, userId, baselineFile);
    baselineMs = performance.now() - t1;
    await close();
  });
  const baselineBytes = statSync(baselineFile).size;

  // 3. the server again: idle memory, then the export job, polled until ready
  const chunkRows = process.env.EXPORT_CHUNK_ROWS;
  server = await startBenchServer(chunkRows ? { EXPORT_CHUNK_ROWS: chunkRows } : {}, { dataDir });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // warm the path and the queue with a one-hour export
  const warm = await json(server.base, '/api/v1/export/jobs', {
    method: 'POST',
    headers,
    body: JSON.stringify({ from: FROM, to: new Date(FROM.getTime() + 3_600_000) }),
  });
  const wait = async (id: string): Promise<any> => {
    for (;;) {
      const job = await json(server!.base, `/api/v1/export/jobs/${id}`, { headers });
      if (job.status === 'ready' || job.status === 'failed') return job;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  await wait(warm.id);
  const runs = [];
  for (const format of FORMATS) {
    const memory = await watchMemory(server.pid);
    const t2 = performance.now();
    const started = await json(server.base, '/api/v1/export/jobs', {
      method: 'POST',
      headers,
      body: JSON.stringify({ from: FROM, to: TO, interval: 'raw', format }),
    });
    const done = await wait(started.id);
    const exportMs = performance.now() - t2;
    const { peak, growth } = memory.stop();
    if (done.status !== 'ready') throw new Error(`export ${done.status}: ${done.error}`);
    if (done.rows_written !== N + OTHER_ROWS || baselineRows !== N)
      throw new Error(
        `exported ${done.rows_written} of ${N + OTHER_ROWS}, baseline ${baselineRows}`,
      );
    runs.push({
      format,
      export_ms: Math.round(exportMs),
      rows_per_s: Math.round(done.rows_written / (exportMs / 1000)),
      ratio: Math.round((exportMs / baselineMs) * 100) / 100,
      file_mb: round(done.size_bytes / 1024 / 1024),
      idle_rss_mb: round(memory.idle),
      peak_rss_mb: round(peak),
      growth_mb: round(growth),
      met: growth < GOAL_GROWTH_MB,
    });
    console.error(JSON.stringify(runs.at(-1)));
  }
  console.log(
    JSON.stringify({
      bench: 'health-export',
      database: url ? 'postgresql' : 'pglite',
      zone: ZONE,
      metric_rows: N,
      other_rows: OTHER_ROWS,
      chunk_rows: Number(chunkRows ?? 1000),
      baseline_ms: Math.round(baselineMs),
      baseline_mb: round(baselineBytes / 1024 / 1024),
      runs,
      goals: { growth_mb: GOAL_GROWTH_MB },
    }),
  );
} finally {
  await server?.stop();
  scratch.remove();
}
