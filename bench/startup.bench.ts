/**
 * Start-up time and idle memory (issue 18): spawn the server exactly as `npm start` does (its
 * command in package.json) and time spawn -> first 200 from /readyz, on the embedded database and
 * on PostgreSQL. The first start creates and migrates the database; the restarts open the existing
 * one (goal: <= 1 s). Three seconds after each restart is ready, its RSS is read (goals: <= 250 MB
 * on PGlite, <= 150 MB on PostgreSQL). Baselines in the same run: a bare node process that only
 * opens the same PGlite directory, or connects to PostgreSQL and runs SELECT 1.
 * PostgreSQL: BENCH_DATABASE_URL, else a throw-away database on 127.0.0.1:5432 (dropped after).
 * Prints one JSON line per database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchDatabase, memoryOf, startArgs } from './server.ts';

const root = path.resolve(import.meta.dirname, '..');
const runs = Number(process.env.RUNS ?? 5);
const port = 18000 + Math.floor(Math.random() * 1000);

interface Target {
  kind: 'pglite' | 'postgresql';
  dataDir: string;
  databaseUrl: string;
}

/** Starts the server, waits for /readyz; with `rss`, reads its RSS 3 s later. Then stops it. */
async function startOnce(target: Target, rss = false): Promise<{ ms: number; rssMb: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, startArgs(), {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: target.dataDir,
      PORT: String(port),
      MCP_OAUTH_PORT: String(port + 1),
      LOG_LEVEL: 'warn',
      FOODS_AUTOLOAD: 'off',
      DATABASE_URL: target.databaseUrl,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error('server exited before it was ready');
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) {
        const ms = performance.now() - t0;
        if (!rss) return { ms, rssMb: NaN };
        await new Promise((r) => setTimeout(r, 3_000));
        return { ms, rssMb: memoryOf(child.pid!).rss };
      }
      if (performance.now() - t0 > 60_000) throw new Error('server did not become ready in 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    if (!exited) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }
}

/** The bare cost of opening the database from a fresh node process. */
async function baselineOnce(target: Target): Promise<number> {
  const t0 = performance.now();
  const code =
    target.kind === 'pglite'
      ? `import('@electric-sql/pglite').then(async ({ PGlite }) => { const db = await PGlite.create(${JSON.stringify(path.join(target.dataDir, 'pglite'))}); await db.query('SELECT 1'); await db.close(); })`
      : `import('pg').then(async ({ default: pg }) => { const c = new pg.Client(${JSON.stringify(target.databaseUrl)}); await c.connect(); await c.query('SELECT 1'); await c.end(); })`;
  const child = spawn(process.execPath, ['-e', code], { cwd: root, stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measure(target: Target): Promise<void> {
  const first = await startOnce(target);
  const restarts: number[] = [];
  const rss: number[] = [];
  const baselines: number[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await startOnce(target, true);
    restarts.push(run.ms);
    rss.push(run.rssMb);
    baselines.push(await baselineOnce(target));
  }
  const p50 = median(restarts);
  const rssGoal = target.kind === 'pglite' ? 250 : 150;
  console.log(
    JSON.stringify({
      bench: 'startup',
      database: target.kind,
      runs,
      first_start_ms: Math.round(first.ms),
      restart_to_ready_p50_ms: Math.round(p50),
      restart_to_ready_max_ms: Math.round(Math.max(...restarts)),
      baseline_open_database_p50_ms: Math.round(median(baselines)),
      ratio_vs_baseline: Number((p50 / median(baselines)).toFixed(2)),
      goal_ms: 1000,
      goal_met: p50 <= 1000,
      idle_rss_p50_mb: Math.round(median(rss)),
      idle_rss_goal_mb: rssGoal,
      idle_rss_goal_met: median(rss) <= rssGoal,
    }),
  );
}

const pgliteDir = mkdtempSync(path.join(tmpdir(), 'hdp-start-'));
const pgDir = mkdtempSync(path.join(tmpdir(), 'hdp-start-pg-'));
const database = await benchDatabase('hdp_bench_start');
try {
  await measure({ kind: 'pglite', dataDir: pgliteDir, databaseUrl: '' });
  await measure({
    kind: 'postgresql',
    dataDir: pgDir,
    databaseUrl: database.url,
  });
} finally {
  rmSync(pgliteDir, { recursive: true, force: true });
  rmSync(pgDir, { recursive: true, force: true });
  await database.drop();
}
