/**
 * A first sync of the real WatermelonDB client (issue 29, item 10): one account with RECORDS
 * (default 100,000) journal entries; a phone with an empty local database (LokiJS, in this process)
 * runs one `synchronize()` written as WatermelonDB's documentation writes it, over real HTTP
 * (`GET /api/sync/pull?last_pulled_at=null&schema_version=2&migration=null`: one answer, streamed).
 * Prints one JSON line: records, seconds, and the server's peak resident memory.
 *
 * Baselines in the same run, on the same rows: the same documented pull alone (fetch and
 * JSON.parse, nothing applied), and the paged pull of a client that follows `next_cursor`
 * (`limit=1000`, then `cursor`), which is how the same rows came before. The server runs as
 * `npm start` runs it (a child process; embedded database, or BENCH_DATABASE_URL, an empty
 * database); the rows are seeded by one bulk INSERT while it is stopped. Peak memory is the
 * kernel's VmHWM of the server, reset (clear_refs) before each measure, cross-checked by sampling
 * VmRSS every 5 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fetchJson as json, memoryOf, startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';
import { seedJournalAccount } from './sync-seed.ts';

const require = createRequire(import.meta.url);
const { Database, Model, appSchema, tableSchema } = require('@nozbe/watermelondb');
const LokiJSAdapter = require('@nozbe/watermelondb/adapters/lokijs').default;
const { synchronize } = require('@nozbe/watermelondb/sync');
// its warnings about the synced tables this phone's schema leaves out (it skips them, by design)
require('@nozbe/watermelondb/utils/common/logger').default.silence();

const N = Number(process.env.RECORDS ?? 100_000);
const url = process.env.BENCH_DATABASE_URL || undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-bench-sync-first-'));

class JournalEntry extends Model {
  static table = 'journal_entries';
}

/** A phone with an empty local database: the journal of schema version 2. */
function newPhone(): any {
  const adapter = new LokiJSAdapter({
    schema: appSchema({
      version: 2,
      tables: [
        tableSchema({
          name: 'journal_entries',
          columns: [
            { name: 'body', type: 'string' },
            { name: 'happened_at', type: 'number', isOptional: true },
            { name: 'mood', type: 'number', isOptional: true },
          ],
        }),
      ],
    }),
    dbName: `bench-phone-${process.pid}-${Math.random()}`,
    useWebWorker: false,
    useIncrementalIndexedDB: false,
    extraLokiOptions: { autosave: false },
  });
  return new Database({ adapter, modelClasses: [JournalEntry] });
}

/** WatermelonDB's synchronize() as its documentation writes it, plus the bearer header. */
async function documentedSync(database: any, base: string, token: string): Promise<void> {
  await synchronize({
    database,
    pullChanges: async ({
      lastPulledAt,
      schemaVersion,
      migration,
    }: {
      lastPulledAt: number | null;
      schemaVersion: number;
      migration: unknown;
    }) => {
      const urlParams = `last_pulled_at=${lastPulledAt}&schema_version=${schemaVersion}&migration=${encodeURIComponent(
        JSON.stringify(migration),
      )}`;
      const response = await fetch(`${base}/api/sync/pull?${urlParams}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (!response.ok) throw new Error(await response.text());
      const { changes, timestamp } = await response.json();
      return { changes, timestamp };
    },
    pushChanges: async ({ changes, lastPulledAt }: { changes: unknown; lastPulledAt: number }) => {
      const response = await fetch(`${base}/api/sync/push?last_pulled_at=${lastPulledAt}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify(changes),
      });
      if (!response.ok) throw new Error(await response.text());
    },
  });
}

const round = (x: number): number => Math.round(x * 10) / 10;
const seconds = (ms: number): number => Math.round(ms / 10) / 100;

/** Runs `fn` with the server's peak RSS reset first; answers its time and the server's peak (MB). */
async function measured<T>(
  server: BenchServer,
  fn: () => Promise<T>,
): Promise<{ result: T; ms: number; peakMb: number }> {
  writeFileSync(`/proc/${server.pid}/clear_refs`, '5'); // VmHWM := current RSS
  let sampled = memoryOf(server.pid).rss;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, memoryOf(server.pid).rss);
  }, 5);
  const started = performance.now();
  try {
    const result = await fn();
    const ms = performance.now() - started;
    return { result, ms, peakMb: round(Math.max(memoryOf(server.pid).hwm, sampled)) };
  } finally {
    clearInterval(sampler);
  }
}

/** Records in a pull answer's changes. */
const countOf = (changes: Record<string, Record<string, unknown[]>>): number =>
  Object.values(changes).reduce(
    (n, c) => n + c.created.length + c.updated.length + c.deleted.length,
    0,
  );

let server: BenchServer | null = null;
try {
  // 1. an account (through the API) and its N journal entries, written while the server is stopped
  const { headers, token } = await seedJournalAccount({
    url,
    dataDir,
    prefix: 'first',
    records: N,
  });

  // 2. the server again: idle baseline, then each measure
  server = await startBenchServer({}, { dataDir });
  const base = server.base;
  await json(base, '/api/auth/me', { headers }); // one request through the stack first
  await new Promise((r) => setTimeout(r, 1000));
  const idle = memoryOf(server.pid);

  // the documented client's first sync: one synchronize()
  const phone = newPhone();
  const sync = await measured(server, () => documentedSync(phone, base, token));
  const local = await phone.get('journal_entries').query().fetchCount();
  if (local !== N) throw new Error(`the phone has ${local} of ${N} records`);

  // baseline 1: the same documented pull alone (fetch, JSON.parse), nothing applied
  const pull = await measured(server, async () => {
    const res = await fetch(`${base}/api/sync/pull?last_pulled_at=null&schema_version=2`, {
      headers,
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`pull: ${res.status} ${text.slice(0, 300)}`);
    const answer = JSON.parse(text);
    if (typeof answer.timestamp !== 'number') throw new Error('no timestamp');
    return { count: countOf(answer.changes), bytes: text.length };
  });
  if (pull.result.count !== N) throw new Error(`pulled ${pull.result.count} of ${N}`);

  // baseline 2: the paged pull (a client following next_cursor), as the same rows came before
  const paged = await measured(server, async () => {
    let cursor: string | null = null;
    let count = 0;
    let pages = 0;
    for (;;) {
      const q: string = cursor ? `cursor=${cursor}` : 'limit=1000';
      const page = await json(base, `/api/sync/pull?${q}`, { headers });
      count += countOf(page.changes);
      pages++;
      if (!page.has_more) return { count, pages };
      cursor = page.next_cursor;
    }
  });
  if (paged.result.count !== N) throw new Error(`paged pull: ${paged.result.count} of ${N}`);

  console.log(
    JSON.stringify({
      bench: 'sync-watermelon-first',
      database: url ? 'postgresql' : 'pglite',
      records: N,
      synchronize_s: seconds(sync.ms),
      synchronize_server_peak_rss_mb: sync.peakMb,
      idle_rss_mb: round(idle.rss),
      pull_one_answer_s: seconds(pull.ms),
      pull_one_answer_mb: round(pull.result.bytes / 1024 / 1024),
      pull_one_answer_server_peak_rss_mb: pull.peakMb,
      paged_pull_s: seconds(paged.ms),
      paged_pull_pages: paged.result.pages,
      paged_pull_server_peak_rss_mb: paged.peakMb,
      client_rss_mb: round(memoryOf('self').rss),
    }),
  );
} finally {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
