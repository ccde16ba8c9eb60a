/**
 * Issue 18's request-path goals, measured in one run on PostgreSQL at 10 connections (autocannon):
 * the authenticated profile read (GET /api/auth/me) and a 500-reading glucose read
 * (GET /api/glucose/readings) through the app as `npm start` runs it, against the same two reads
 * served by bench/raw-baseline.ts (node:http + pg + jose, no framework) on the same database;
 * then the profile read with WEB_CONCURRENCY=2 (two processes) against one process, both with Redis
 * (which more than one process requires: shared limits and session epochs).
 * Goals: each read >= 0.5x the baseline's req/s; two processes >= 1.6x one; idle RSS <= 150 MB.
 *
 * BENCH_DATABASE_URL names a PostgreSQL server database to use; without it a throw-away database
 * is created on postgres://postgres@127.0.0.1:5432 and dropped at the end. BENCH_REDIS_URL
 * (default redis://127.0.0.1:6379). DURATION seconds per measurement (default 10).
 * Prints one JSON line per measurement and a summary line.
 */
import { fork, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import autocannon from 'autocannon';
import { benchDatabase, fetchJson, memoryOf, signUp, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';

const seconds = Number(process.env.DURATION ?? 10);
const connections = 10;
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const jwtSecret = randomBytes(32).toString('hex');

const database = await benchDatabase('hdp_bench_rp');
const databaseUrl = database.url;

interface Figures {
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  cpu_cores?: Record<string, number>;
}

/** Pids of `pid` and its children (a WEB_CONCURRENCY primary and its workers). */
function tree(pid: number): number[] {
  const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).stdout;
  return [pid, ...children.split('\n').filter(Boolean).map(Number)];
}
const named = (name: string): number[] =>
  spawnSync('pgrep', ['-x', name], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map(Number);

/** CPU seconds (user + system) used so far by each of these processes (Linux /proc, 100 ticks/s). */
function cpuSeconds(pids: number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      used.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the process ended
    }
  }
  return used;
}

/** CPU seconds used between two readings by the processes alive at both. */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, s] of after) if (before.has(pid)) sum += s - before.get(pid)!;
  return sum;
}

/**
 * Loads `url`; the CPU each party used during the measured run, in cores (1 = one core busy):
 * the server (`serverPid` and its children), PostgreSQL, Redis, and this process (autocannon).
 */
async function load(url: string, token: string, serverPid?: number): Promise<Figures> {
  const opts = { url, connections, headers: { authorization: `Bearer ${token}` } };
  await autocannon({ ...opts, duration: 2 });
  const parties = {
    server: serverPid ? tree(serverPid) : [],
    postgres: named('postgres'),
    redis: named('redis-server'),
    autocannon: [process.pid],
  };
  const before = Object.fromEntries(Object.entries(parties).map(([k, p]) => [k, cpuSeconds(p)]));
  const r = await autocannon({ ...opts, duration: seconds });
  const cpu_cores = Object.fromEntries(
    Object.entries(parties).map(([k, p]) => [
      k,
      Number((cpuBetween(before[k], cpuSeconds(p)) / seconds).toFixed(2)),
    ]),
  );
  return {
    req_per_s: Math.round(r.requests.average),
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    non_2xx: r.non2xx + r.errors,
    ...(serverPid ? { cpu_cores } : {}),
  };
}

/** RSS of a process and its children, in MB. */
function treeRss(pid: number): number {
  return Math.round(tree(pid).reduce((sum, p) => sum + memoryOf(p).rss, 0));
}

const env = { DATABASE_URL: databaseUrl, JWT_SECRET: jwtSecret, FOODS_AUTOLOAD: 'off' };
let app: BenchServer | null = await startBenchServer(env);
const results: Record<string, unknown> = {};
try {
  await new Promise((r) => setTimeout(r, 2_000));
  results.idle_rss_mb = treeRss(app.pid);
  const token = await signUp(app.base, `bench-${process.pid}@example.com`);
  const end = Date.now();
  const readings = Array.from({ length: 500 }, (_, i) => ({
    timestamp: new Date(end - (i + 1) * 150_000).toISOString(),
    value_mg_dl: 80 + (i % 120),
  }));
  await fetchJson(app.base, '/api/glucose/readings/batch', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(readings),
  });

  const baseline = fork(path.join(import.meta.dirname, 'raw-baseline.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env, PORT: String(20_000 + (process.pid % 1000)) },
  });
  await new Promise((resolve, reject) => {
    baseline.once('message', resolve);
    baseline.once('exit', reject);
  });
  const raw = `http://127.0.0.1:${20_000 + (process.pid % 1000)}`;
  try {
    const same = async (p: string) => {
      const init = { headers: { authorization: `Bearer ${token}` } };
      const [a, b] = await Promise.all([fetchJson(app!.base, p, init), fetchJson(raw, p, init)]);
      const keys = (v: any) =>
        Object.keys(Array.isArray(v) ? v[0] : v)
          .sort()
          .join();
      if (keys(a) !== keys(b) || JSON.stringify(a).length < 10)
        throw new Error(`${p}: answers differ`);
      return Array.isArray(a) ? a.length : 1;
    };
    if ((await same('/api/glucose/readings')) !== 500) throw new Error('not 500 readings');
    await same('/api/auth/me');
    for (const [name, p] of [
      ['profile', '/api/auth/me'],
      ['glucose_500', '/api/glucose/readings'],
    ] as const) {
      const base = await load(raw + p, token, baseline.pid);
      const ours = await load(app.base + p, token, app.pid);
      const ratio = Number((ours.req_per_s / base.req_per_s).toFixed(2));
      results[name] = { app: ours, raw_baseline: base, ratio, goal: 0.5, goal_met: ratio >= 0.5 };
      console.log(
        JSON.stringify({ bench: 'request-path', read: name, ...(results[name] as object) }),
      );
    }
    results.loaded_rss_mb = treeRss(app.pid);
  } finally {
    baseline.kill('SIGTERM');
  }
  // one process against two, both with Redis (which more than one process requires)
  const profileWith = async (extra: Record<string, string>): Promise<Figures> => {
    await app!.stop();
    app = await startBenchServer({ ...env, REDIS_URL: redisUrl, ...extra });
    const t = await signUp(
      app.base,
      `bench-${Object.keys(extra).length}-${process.pid}@example.com`,
    );
    return load(`${app.base}/api/auth/me`, t, app.pid);
  };
  const one = await profileWith({});
  const two = await profileWith({ WEB_CONCURRENCY: '2' });
  results.two_processes_rss_mb = treeRss(app.pid);
  const ratio = Number((two.req_per_s / one.req_per_s).toFixed(2));
  results.two_processes = { one, two, ratio, goal: 1.6, goal_met: ratio >= 1.6 };
  console.log(
    JSON.stringify({
      bench: 'request-path',
      read: 'profile, 2 processes against 1 (Redis)',
      ...(results.two_processes as object),
    }),
  );
} finally {
  await app?.stop();
  await database.drop();
}
console.log(
  JSON.stringify({ bench: 'request-path', summary: true, idle_rss_goal_mb: 150, ...results }),
);
