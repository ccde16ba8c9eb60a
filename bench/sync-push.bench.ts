/**
 * A 100,000-record sync push (issue 11): time and peak memory of one WatermelonDB push of RECORDS
 * (default 100,000) health metrics, against a baseline measured in the same run: a raw unnest
 * INSERT of the same rows into the same table (the floor: no HTTP, no JSON, no validation).
 *
 * The push is sent as WatermelonDB's documented client sends it: `POST /api/sync/push?last_pulled_at=...`,
 * the changes object itself as a text/plain body (with the client's `_status`/`_changed` fields).
 * Each side runs in a fresh process on the same database (the embedded one in a temp dir, or
 * BENCH_DATABASE_URL's PostgreSQL), so neither inherits the other's heap: the push in the server
 * started as `npm start` starts it, the baseline in a child of this script that opens the database
 * and inserts. Peak memory is the process's VmHWM, reset (clear_refs) once it is ready, so the
 * figures are the operation's own; RSS is also sampled every 5 ms. Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { fetchJson as json, memoryOf, signUp, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';

const N = Number(process.env.RECORDS ?? 100_000);
const url = process.env.BENCH_DATABASE_URL || undefined;
const START = 1_700_000_000_000;
const SOURCES = [
  'Apple Watch de Jean-François',
  'iPhone 15 Pro (Anaïs)',
  'Withings Body+ 2nd gen',
  'Oura Ring Gen3 — bedroom',
];
const TYPES = [
  ['heart_rate', 'bpm'],
  ['steps', 'count'],
  ['active_energy', 'kcal'],
  ['hrv', 'ms'],
] as const;

/** The i-th record as the phone keeps it (wire columns). Deterministic, so both sides write the same rows. */
function recordOf(
  prefix: string,
  i: number,
): {
  id: string;
  metric_type: string;
  value: number;
  unit: string;
  timestamp: number;
  source: string;
} {
  const [metric, unit] = TYPES[i % TYPES.length];
  return {
    id: `${prefix}${i.toString(36).padStart(8, '0')}`,
    metric_type: metric,
    value: 40 + ((i * 7919) % 1000) / 10,
    unit,
    timestamp: START + i * 60_000,
    source: SOURCES[i % SOURCES.length],
  };
}

/** Runs `fn` with the process `pid`'s peak reset first; answers its duration and memory (MB). */
async function measured(
  pid: number | 'self',
  fn: () => Promise<unknown>,
): Promise<{ ms: number; ready: number; peak: number }> {
  const ready = memoryOf(pid).rss;
  writeFileSync(`/proc/${pid}/clear_refs`, '5'); // VmHWM := current RSS
  let sampled = ready;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, memoryOf(pid).rss);
  }, 5);
  const t = performance.now();
  await fn();
  const ms = performance.now() - t;
  clearInterval(sampler);
  return { ms, ready, peak: Math.max(memoryOf(pid).hwm, sampled) };
}

const round = (x: number): number => Math.round(x * 10) / 10;

/** The baseline, in this (child) process: one raw unnest INSERT of the N rows for user `userId`. */
async function baseline(dataDir: string, userId: number, prefix: string): Promise<void> {
  const db = await openDatabase({ url, dataDir });
  try {
    const rows = Array.from({ length: N }, (_, i) => recordOf(prefix, i));
    const cols = {
      id: rows.map((r) => r.id),
      metric: rows.map((r) => r.metric_type),
      value: rows.map((r) => r.value),
      unit: rows.map((r) => r.unit),
      ts: rows.map((r) => r.timestamp),
      source: rows.map((r) => r.source),
    };
    const result = await measured('self', () =>
      db.prisma.$executeRawUnsafe(
        `INSERT INTO health_metrics (id, user_id, metric_type, value, unit, "timestamp", source, server_updated_at)
         SELECT u.id, $7::int4, u.metric, u.value, u.unit, to_timestamp(u.ts / 1000.0) AT TIME ZONE 'UTC', u.source, now()
           FROM unnest($1::text[], $2::text[], $3::float8[], $4::text[], $5::float8[], $6::text[]) AS u(id, metric, value, unit, ts, source)`,
        cols.id,
        cols.metric,
        cols.value,
        cols.unit,
        cols.ts,
        cols.source,
        userId,
      ),
    );
    const count = await db.prisma.healthMetric.count({ where: { userId } });
    if (count !== N) throw new Error(`baseline inserted ${count} of ${N}`);
    process.stdout.write(JSON.stringify(result));
  } finally {
    await db.close();
  }
}

/** Runs the baseline in a fresh child process (this file, BENCH_ROLE=baseline). */
function runBaseline(
  dataDir: string,
  userId: number,
  prefix: string,
): Promise<{ ms: number; ready: number; peak: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename], {
      env: {
        ...process.env,
        BENCH_ROLE: 'baseline',
        BENCH_DATA_DIR: dataDir,
        BENCH_USER: String(userId),
        BENCH_PREFIX: prefix,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`baseline exited ${code}`)),
    );
  });
}

/** POSTs `body` as WatermelonDB's documented client does (a string body: text/plain). */
function postPush(
  base: string,
  token: string,
  lastPulledAt: number,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/sync/push?last_pulled_at=${lastPulledAt}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'text/plain;charset=UTF-8',
        'content-length': body.length,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-bench-sync-push-'));
  const run = Date.now().toString(36);
  let server: BenchServer | null = null;
  try {
    // 1. two accounts through the API (the push's and the baseline's), then the server stops
    server = await startBenchServer({}, { dataDir });
    const account = async (name: string) => {
      const token = await signUp(server!.base, `sync-push-${name}.${run}@example.com`);
      const me = await json(server!.base, '/api/auth/me', {
        headers: { authorization: `Bearer ${token}` },
      });
      return { token, id: me.id as number };
    };
    const pusher = await account('push');
    const floor = await account('baseline');
    await server.stop();
    server = null;

    // 2. the baseline: the same rows by one raw INSERT, in a fresh process
    const base = await runBaseline(dataDir, floor.id, `b${run}`);

    // 3. the push, to a fresh server: the documented client's body, built before the measurement
    const created = Array.from({ length: N }, (_, i) => ({
      ...recordOf(`p${run}`, i),
      _status: 'created',
      _changed: '',
    }));
    const body = Buffer.from(
      JSON.stringify({ health_metrics: { created, updated: [], deleted: [] } }),
    );
    created.length = 0;
    server = await startBenchServer({}, { dataDir });
    await json(server.base, '/api/auth/me', {
      headers: { authorization: `Bearer ${pusher.token}` },
    });
    await new Promise((r) => setTimeout(r, 500));
    let answer = { status: 0, text: '' };
    const push = await measured(server.pid, async () => {
      answer = await postPush(server!.base, pusher.token, Date.now(), body);
    });
    if (answer.status !== 200)
      throw new Error(`push: ${answer.status} ${answer.text.slice(0, 300)}`);
    const accepted = JSON.parse(answer.text).accepted;
    if (accepted !== N) throw new Error(`push accepted ${accepted} of ${N}`);

    console.log(
      JSON.stringify({
        bench: 'sync-push',
        database: url ? 'postgresql' : 'pglite',
        records: N,
        body_mb: round(body.length / 2 ** 20),
        push_ms: Math.round(push.ms),
        push_records_per_s: Math.round((N / push.ms) * 1000),
        push_ready_rss_mb: round(push.ready),
        push_peak_rss_mb: round(push.peak),
        push_rss_growth_mb: round(push.peak - push.ready),
        baseline_ms: Math.round(base.ms),
        baseline_ready_rss_mb: round(base.ready),
        baseline_peak_rss_mb: round(base.peak),
        baseline_rss_growth_mb: round(base.peak - base.ready),
        time_ratio: round(push.ms / base.ms),
        peak_rss_ratio: round(push.peak / base.peak),
      }),
    );
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_ROLE === 'baseline') {
  await baseline(
    process.env.BENCH_DATA_DIR!,
    Number(process.env.BENCH_USER),
    process.env.BENCH_PREFIX!,
  );
} else {
  await main();
}
