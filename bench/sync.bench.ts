/**
 * Sync throughput: one account pushes N journal entries in one push (one transaction, unnest bulk
 * insert), pulls them all (pages of PULL_PAGE_SIZE), pushes an update of all of them, and pulls the
 * changes. The server runs as `npm start` runs it (embedded database, or BENCH_DATABASE_URL).
 * Prints one JSON line of figures (ms and records/s).
 */
import { fetchJson, signUp, startBenchServer } from './server.ts';

const N = Number(process.env.RECORDS ?? 10_000);
const server = await startBenchServer();
const base = server.base;

const json = (pathname: string, init: RequestInit = {}): Promise<any> =>
  fetchJson(base, pathname, init);

try {
  const token = await signUp(base, 'sync-bench@example.com');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const records = Array.from({ length: N }, (_, i) => ({
    id: `bench${String(i).padStart(8, '0')}`,
    body: `entry ${i}`,
    happened_at: 1_763_000_000_000 + i,
    mood: (i % 5) + 1,
  }));
  const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
    const t = performance.now();
    const r = await f();
    return [r, performance.now() - t];
  };
  const pushAll = (list: unknown[], lastPulledAt: number | null) =>
    json('/api/sync/push', {
      method: 'POST',
      headers,
      body: JSON.stringify({
        changes: {
          journal_entries: {
            created: lastPulledAt ? [] : list,
            updated: lastPulledAt ? list : [],
            deleted: [],
          },
        },
        last_pulled_at: lastPulledAt,
      }),
    });
  const pullAll = async (
    lastPulledAt: number | null,
  ): Promise<{ count: number; timestamp: number; pages: number }> => {
    let cursor: string | null = null;
    let count = 0;
    for (let pages = 1; ; pages++) {
      const q: string = cursor
        ? `cursor=${cursor}`
        : lastPulledAt
          ? `last_pulled_at=${lastPulledAt}`
          : '';
      const page = await json(`/api/sync/pull?${q}`, { headers });
      const c = page.changes.journal_entries;
      count += c.created.length + c.updated.length + c.deleted.length;
      if (!page.has_more) return { count, timestamp: page.timestamp, pages };
      cursor = page.next_cursor;
    }
  };
  const [, pushMs] = await timed(() => pushAll(records, null));
  const [first, pullMs] = await timed(() => pullAll(null));
  if (first.count !== N) throw new Error(`pulled ${first.count} of ${N}`);
  const [, updateMs] = await timed(() =>
    pushAll(
      records.map((r) => ({ ...r, body: `${r.body}!` })),
      first.timestamp,
    ),
  );
  const [changed, pullChangedMs] = await timed(() => pullAll(first.timestamp));
  if (changed.count !== N) throw new Error(`pulled ${changed.count} changes of ${N}`);
  const rate = (ms: number) => Math.round((N / ms) * 1000);
  console.log(
    JSON.stringify({
      bench: 'sync',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      records: N,
      push_create_ms: Math.round(pushMs),
      push_create_records_per_s: rate(pushMs),
      pull_all_ms: Math.round(pullMs),
      pull_all_pages: first.pages,
      pull_all_records_per_s: rate(pullMs),
      push_update_ms: Math.round(updateMs),
      push_update_records_per_s: rate(updateMs),
      pull_changes_ms: Math.round(pullChangedMs),
      pull_changes_records_per_s: rate(pullChangedMs),
    }),
  );
} finally {
  await server.stop();
}
