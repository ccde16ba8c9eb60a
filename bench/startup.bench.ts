/**
 * Start-up time: spawn the server exactly as `npm start` does (its command in package.json) on an
 * embedded database and time spawn -> first 200 from /readyz. The first start creates and migrates
 * the database; the restarts open the existing one (goal: under 3 s). Baseline in the same run: a
 * bare node process that only opens the same PGlite directory.
 * Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startArgs } from './server.ts';

const root = path.resolve(import.meta.dirname, '..');
const runs = Number(process.env.RUNS ?? 5);
const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-start-'));
const port = 18000 + Math.floor(Math.random() * 1000);

async function startOnce(): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, startArgs(), {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
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
      if (ok) return performance.now() - t0;
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

async function baselineOnce(): Promise<number> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      '-e',
      `import('@electric-sql/pglite').then(async ({ PGlite }) => { const db = await PGlite.create(${JSON.stringify(path.join(dataDir, 'pglite'))}); await db.query('SELECT 1'); await db.close(); })`,
    ],
    { cwd: root, stdio: 'ignore' },
  );
  await new Promise((r) => child.once('exit', r));
  return performance.now() - t0;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const first = await startOnce();
const restarts: number[] = [];
const baselines: number[] = [];
for (let i = 0; i < runs; i++) {
  restarts.push(await startOnce());
  baselines.push(await baselineOnce());
}
rmSync(dataDir, { recursive: true, force: true });
const p50 = median(restarts);
console.log(
  JSON.stringify({
    bench: 'startup',
    runs,
    first_start_ms: Math.round(first),
    restart_to_ready_p50_ms: Math.round(p50),
    restart_to_ready_max_ms: Math.round(Math.max(...restarts)),
    baseline_open_pglite_p50_ms: Math.round(median(baselines)),
    ratio_vs_baseline: Number((p50 / median(baselines)).toFixed(2)),
    goal_ms: 3000,
    goal_met: p50 < 3000,
  }),
);
