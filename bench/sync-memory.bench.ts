/**
 * Sync pull memory: one account with RECORDS (default 100,000) changed journal entries (nothing in
 * the other synced tables) pulls them all, page by page (GET /api/sync/pull?limit=1000, then
 * `cursor` until has_more is false). Goal: the server process's peak resident memory stays under 512 MB.
 *
 * The server runs as `npm start` runs it (a child process; embedded database, or
 * BENCH_DATABASE_URL). The rows are seeded by one bulk INSERT while the server is stopped (an
 * embedded database has one owner). Baseline in the same run: the resident memory of the idle
 * server after start. The kernel's peak (VmHWM) is reset just before the pull (clear_refs), so the
 * peak reported is the pull's; RSS is also sampled every 5 ms as a cross-check.
 * Prints one JSON line.
 */
import { rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fetchJson as json, memoryOf, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';
import { seedJournalAccount } from './sync-seed.ts';

const N = Number(process.env.RECORDS ?? 100_000);
const GOAL_MB = 512;
const url = process.env.BENCH_DATABASE_URL || undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-bench-sync-memory-'));

const round = (x: number): number => Math.round(x * 10) / 10;
let server: BenchServer | null = null;
try {
  // 1. an account (through the API) and its N journal entries, written while the server is stopped
  const { headers } = await seedJournalAccount({ url, dataDir, prefix: 'bench', records: N });

  // 2. the server again: idle baseline, then the paged pull
  server = await startBenchServer({}, { dataDir });
  await json(server.base, '/api/auth/me', { headers }); // one request through the stack before the baseline
  await new Promise((r) => setTimeout(r, 1000));
  const idle = memoryOf(server.pid);
  writeFileSync(`/proc/${server.pid}/clear_refs`, '5'); // reset VmHWM to the current RSS
  let sampledPeak = idle.rss;
  const sampler = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, memoryOf(server!.pid).rss);
  }, 5);
  const started = performance.now();
  let cursor: string | null = null;
  let count = 0;
  let pages = 0;
  let largestPageBytes = 0;
  for (;;) {
    // limit asks for pages (without cursor, limit or max_chars the pull is one streamed answer:
    // bench:sync-first measures that form)
    const res = await fetch(
      `${server.base}/api/sync/pull?${cursor ? `cursor=${cursor}` : 'limit=1000'}`,
      { headers },
    );
    const text = await res.text();
    if (!res.ok) throw new Error(`pull: ${res.status} ${text.slice(0, 300)}`);
    largestPageBytes = Math.max(largestPageBytes, text.length);
    const page = JSON.parse(text);
    const tables: Record<string, { created: unknown[]; updated: unknown[]; deleted: unknown[] }> =
      page.changes;
    for (const c of Object.values(tables)) {
      count += c.created.length + c.updated.length + c.deleted.length;
    }
    pages++;
    if (!page.has_more) break;
    cursor = page.next_cursor;
  }
  const pullMs = performance.now() - started;
  clearInterval(sampler);
  const after = memoryOf(server.pid);
  if (count !== N) throw new Error(`pulled ${count} of ${N}`);
  const peak = Math.max(after.hwm, sampledPeak);
  console.log(
    JSON.stringify({
      bench: 'sync-memory',
      database: url ? 'postgresql' : 'pglite',
      records: N,
      pages,
      largest_page_kb: Math.round(largestPageBytes / 1024),
      pull_ms: Math.round(pullMs),
      idle_rss_mb: round(idle.rss),
      peak_rss_mb: round(peak),
      sampled_peak_rss_mb: round(sampledPeak),
      peak_over_idle: Math.round((peak / idle.rss) * 100) / 100,
      goal_mb: GOAL_MB,
      met: peak < GOAL_MB,
    }),
  );
} finally {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
