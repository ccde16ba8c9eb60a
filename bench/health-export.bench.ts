/**
 * Health export (issue 16): a CSV export job of a year of ROWS (default 2,000,000) health samples
 * run through the server (POST /api/v1/export/jobs, polled until ready). Goals: the server's peak
 * memory growth over idle under 64 MB while the job writes the file; its time reported against a
 * baseline measured in the same run: the same rows read by a raw driver cursor (DECLARE/FETCH of
 * 5000 rows, pg or PGlite directly) and written to a CSV file with csv-stringify.
 *
 * The server runs as `npm start` runs it (a child process; embedded database, or
 * BENCH_DATABASE_URL for PostgreSQL: `BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<empty_db>
 * npm run bench:health-export`). Rows are seeded by one INSERT ... generate_series while the server
 * is stopped (an embedded database has one owner), and the baseline runs then too. Memory: VmHWM
 * reset just before the job (clear_refs) and RSS sampled every 5 ms. Prints one JSON line.
 */
import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { stringify } from 'csv-stringify/sync';
import pg from 'pg';
import { round, scratchAccount, watchMemory, withDatabase } from './export-bench.ts';
import { fetchJson as json, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';

const N = Number(process.env.ROWS ?? 2_000_000);
const GOAL_GROWTH_MB = 64;
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
    console.error(`seeded ${N} samples in ${Math.round(performance.now() - t0)} ms`);
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
  const memory = await watchMemory(server.pid);
  const t2 = performance.now();
  const started = await json(server.base, '/api/v1/export/jobs', {
    method: 'POST',
    headers,
    body: JSON.stringify({ from: FROM, to: TO, interval: 'raw', format: 'csv' }),
  });
  const done = await wait(started.id);
  const exportMs = performance.now() - t2;
  const { peak, growth } = memory.stop();
  if (done.status !== 'ready') throw new Error(`export ${done.status}: ${done.error}`);
  if (done.rows_written !== N || baselineRows !== N)
    throw new Error(`exported ${done.rows_written}, baseline ${baselineRows}, of ${N}`);
  console.log(
    JSON.stringify({
      bench: 'health-export',
      database: url ? 'postgresql' : 'pglite',
      rows: N,
      chunk_rows: Number(chunkRows ?? 1000),
      export_ms: Math.round(exportMs),
      baseline_ms: Math.round(baselineMs),
      ratio: Math.round((exportMs / baselineMs) * 100) / 100,
      export_mb: round(done.size_bytes / 1024 / 1024),
      baseline_mb: round(baselineBytes / 1024 / 1024),
      idle_rss_mb: round(memory.idle),
      peak_rss_mb: round(peak),
      growth_mb: round(growth),
      goals: { growth_mb: GOAL_GROWTH_MB },
      met: growth < GOAL_GROWTH_MB,
    }),
  );
} finally {
  await server?.stop();
  scratch.remove();
}
