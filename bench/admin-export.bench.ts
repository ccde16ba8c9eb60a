/**
 * Admin raw sensor data export (issue 15): GET /api/admin/raw-sensor-data streams a window of
 * ROWS (default 50,000) raw samples. Goals: the server's peak memory growth during the export under
 * 64 MB, and its time at most 2x the baseline measured in the same run: the same rows read with one
 * SQL query and JSON.stringify'd (in this process, on the same database).
 *
 * The server runs as `npm start` runs it (a child process; embedded database, or
 * BENCH_DATABASE_URL for PostgreSQL: `BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/<empty_db>
 * npm run bench:admin`). Rows are seeded by one INSERT ... generate_series while the server is
 * stopped (an embedded database has one owner), and the baseline is read then too. Memory: the
 * server's VmHWM is reset just before the export (clear_refs) and RSS sampled every 5 ms; growth is
 * the peak over the idle RSS measured just before. Time: the best of RUNS (default 3) for both.
 * Prints one JSON line.
 */
import { round, scratchAccount, watchMemory, withDatabase } from './export-bench.ts';
import { fetchJson as json, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';

const N = Number(process.env.ROWS ?? 50_000);
const RUNS = Number(process.env.RUNS ?? 3);
const GOAL_GROWTH_MB = 64;
const GOAL_RATIO = 2;

// 1. an account (through the API), the server stopped
const scratch = await scratchAccount('admin-export');
const { dataDir, email, userId } = scratch;
let server: BenchServer | null = null;
try {
  // 2. the account becomes an admin with N raw samples; the baseline reads them in one query
  const baselineMs: number[] = [];
  let baselineBytes = 0;
  await withDatabase(scratch, async (db) => {
    await db.prisma.$executeRawUnsafe(
      `UPDATE users SET is_admin = true WHERE id = $1::int`,
      userId,
    );
    await db.prisma.$executeRawUnsafe(
      `INSERT INTO raw_sensor_data (id, user_id, sensor_id, "timestamp", raw_value, temperature_c)
       SELECT 'bench-' || $1::int || '-' || g, $1::int, 1 + g % 2, now() - g * interval '1 minute',
              1000 + g % 500, CASE WHEN g % 3 = 0 THEN NULL ELSE 30 + (g % 50) / 10.0 END
         FROM generate_series(1, $2::int) AS g`,
      userId,
      N,
    );
    // NOTE: statistics as autovacuum would soon gather them: without them the planner takes the
    // fresh table for one row and sorts the whole window for every chunk of the export
    await db.prisma.$executeRawUnsafe('ANALYZE raw_sensor_data');
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const rows = await db.prisma.$queryRawUnsafe<unknown[]>(
        `SELECT id, user_id, sensor_id, "timestamp", raw_value, temperature_c FROM raw_sensor_data
          WHERE user_id = $1::int AND deleted_at IS NULL ORDER BY user_id, sensor_id, "timestamp"`,
        userId,
      );
      baselineBytes = JSON.stringify(rows).length;
      baselineMs.push(performance.now() - t0);
    }
  });

  // 3. the server again: admin login, idle baseline, then the streamed export
  server = await startBenchServer({}, { dataDir });
  const login = await json(server.base, '/api/admin/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'benchmark password' }),
  });
  const headers = { authorization: `Bearer ${login.access_token}` };
  const exportPath = `/api/admin/raw-sensor-data?user_id=${userId}`;
  await json(server.base, `${exportPath}&limit=10`, { headers }); // warm the path
  const memory = await watchMemory(server.pid);
  const exportMs: number[] = [];
  let rowsOut = 0;
  let bytes = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await fetch(server.base + exportPath, { headers });
    const text = await res.text();
    exportMs.push(performance.now() - t0);
    if (!res.ok) throw new Error(`export: ${res.status} ${text.slice(0, 300)}`);
    bytes = text.length;
    rowsOut = (JSON.parse(text) as unknown[]).length;
  }
  const { peak, growth } = memory.stop();
  if (rowsOut !== N) throw new Error(`exported ${rowsOut} of ${N}`);
  const best = Math.min(...exportMs);
  const base = Math.min(...baselineMs);
  console.log(
    JSON.stringify({
      bench: 'admin-export',
      database: scratch.url ? 'postgresql' : 'pglite',
      rows: N,
      runs: RUNS,
      export_ms: Math.round(best),
      baseline_ms: Math.round(base),
      ratio: Math.round((best / base) * 100) / 100,
      export_mb: round(bytes / 1024 / 1024),
      baseline_mb: round(baselineBytes / 1024 / 1024),
      idle_rss_mb: round(memory.idle),
      peak_rss_mb: round(peak),
      growth_mb: round(growth),
      goals: { growth_mb: GOAL_GROWTH_MB, ratio: GOAL_RATIO },
      met: growth < GOAL_GROWTH_MB && best / base <= GOAL_RATIO,
    }),
  );
} finally {
  await server?.stop();
  scratch.remove();
}
