/**
 * Issue 18, durability: the server process is killed (SIGKILL, no shutdown) while 1,000 sync
 * pushes and 1,000 glucose batches are in flight, a few at a time; it is started again on the same
 * data and the rest is sent. Then every write that was answered 2xx is present and complete (all
 * records of a push, all readings of a batch) and no push or batch is present in part. On the
 * embedded database always, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/db/target.ts';
import { createPgDatabase, randomPort, startServer } from './server-process.ts';
import type { ServerProcess } from './server-process.ts';

const OPERATIONS = 1_000;
const RECORDS_PER_PUSH = 3;
const READINGS_PER_BATCH = 4;
/** requests in flight at once */
const CONCURRENCY = 6;
/** the server is killed once this many writes were acknowledged */
const KILL_AFTER = 400;
const PASSWORD = 'durability password';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

type Job = { kind: 'push' | 'batch'; n: number };
/** 2xx, refused (an answer that is not 2xx), or lost (no answer: the server died) */
type Outcome = 'acked' | 'refused' | 'lost';

const firstReadingMs = Date.UTC(2026, 0, 1);
const pushIds = (n: number): string[] =>
  Array.from({ length: RECORDS_PER_PUSH }, (_, j) => `kd${n}x${j}`);
const batchTimes = (n: number): number[] =>
  Array.from(
    { length: READINGS_PER_BATCH },
    (_, j) => firstReadingMs + (n * READINGS_PER_BATCH + j) * 60_000,
  );

/** Sends one push or batch; answers its outcome. */
async function send(base: string, token: string, job: Job): Promise<Outcome> {
  const body =
    job.kind === 'push'
      ? {
          journal_entries: {
            created: pushIds(job.n).map((id) => ({
              id,
              body: `push ${job.n}`,
              happened_at: 1_763_000_000_000,
            })),
            updated: [],
            deleted: [],
          },
        }
      : batchTimes(job.n).map((ms, j) => ({
          sensor_id: 1,
          timestamp: new Date(ms).toISOString(),
          value_mg_dl: 100 + j,
        }));
  const url = `${base}${job.kind === 'push' ? '/api/sync/push' : '/api/glucose/readings/batch'}`;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.ok ? 'acked' : 'refused';
  } catch {
    return 'lost';
  }
}

/**
 * Sends `jobs` CONCURRENCY at a time until they are done or `stopAfter` were acknowledged (then
 * calls `onStop` once, with requests still in flight); answers each sent job's outcome.
 */
async function sendAll(
  base: string,
  token: string,
  jobs: Job[],
  outcomes: Map<Job, Outcome>,
  stop?: { after: number; then: () => Promise<void> },
): Promise<void> {
  let next = 0;
  let acked = 0;
  // the stop, once it came (closures assign it, so a list rather than a narrowed variable)
  const stopping: Promise<void>[] = [];
  const lane = async (): Promise<void> => {
    while (next < jobs.length && stopping.length === 0) {
      const job = jobs[next++];
      const outcome = await send(base, token, job);
      outcomes.set(job, outcome);
      if (outcome === 'acked' && ++acked === stop?.after) stopping.push(stop.then());
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  await Promise.all(stopping);
}

/** The rows written, read straight from the database after the server is gone. */
interface Stored {
  journal: { id: string; body: string }[];
  readings: { ms: number; value: number }[];
}

async function run(
  env: Record<string, string>,
  readStored: (userId: number) => Promise<Stored>,
): Promise<void> {
  const port = randomPort();
  let server: ServerProcess = await startServer(env, port);
  const base = server.base;
  const post = (p: string, body: unknown): Promise<Response> =>
    fetch(base + p, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const credentials = { email: 'durable@example.com', password: PASSWORD };
  expect((await post('/api/auth/register', credentials)).status).toBe(200);
  const token = (await (await post('/api/auth/login', credentials)).json()).access_token as string;
  const me = (await (
    await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { id: number };

  // pushes and batches interleaved, so both are in flight when the kill comes
  const jobs: Job[] = Array.from({ length: OPERATIONS * 2 }, (_, i) => ({
    kind: i % 2 ? 'batch' : 'push',
    n: i >> 1,
  }));
  const outcomes = new Map<Job, Outcome>();
  await sendAll(base, token, jobs, outcomes, { after: KILL_AFTER, then: () => server.kill() });
  const lost = [...outcomes.values()].filter((o) => o === 'lost').length;
  // the kill came part way: some requests had no answer, most were never sent
  expect(outcomes.size).toBeLessThan(jobs.length);
  expect(lost).toBeGreaterThan(0);

  server = await startServer(env, port);
  try {
    await sendAll(
      base,
      token,
      jobs.filter((j) => !outcomes.has(j)),
      outcomes,
    );
  } finally {
    expect(await server.stop()).toBe(0);
  }
  const refused = [...outcomes].filter(([, o]) => o === 'refused');
  expect(refused).toEqual([]);

  const stored = await readStored(me.id);
  const journal = new Map(stored.journal.map((r) => [r.id, r.body]));
  const readings = new Map(stored.readings.map((r) => [r.ms, r.value]));
  let present = 0;
  const rows = { push: 0, batch: 0 };
  for (const [job, outcome] of outcomes) {
    const found =
      job.kind === 'push'
        ? pushIds(job.n).filter((id) => journal.get(id) === `push ${job.n}`).length
        : batchTimes(job.n).filter((ms, j) => readings.get(ms) === 100 + j).length;
    const size = job.kind === 'push' ? RECORDS_PER_PUSH : READINGS_PER_BATCH;
    // all or nothing; and all when acknowledged
    expect([0, size], `${job.kind} ${job.n} (${outcome})`).toContain(found);
    if (outcome === 'acked') expect(found, `${job.kind} ${job.n}`).toBe(size);
    if (found) present++;
    rows[job.kind] += found;
  }
  expect(outcomes.size).toBe(jobs.length);
  expect(present).toBeGreaterThanOrEqual(jobs.length - lost);
  // nothing else was written
  expect(stored.journal.length).toBe(rows.push);
  expect(stored.readings.length).toBe(rows.batch);
}

const SELECT_JOURNAL = 'SELECT id, body FROM journal_entries WHERE user_id = $1';
const SELECT_READINGS = `SELECT (extract(epoch FROM timestamp) * 1000)::float8 AS ms,
  value_mg_dl::float8 AS value FROM glucose_readings WHERE user_id = $1 AND deleted_at IS NULL`;

describe('kill -9 during 1,000 sync pushes and 1,000 glucose batches', () => {
  it('on the embedded database: every acknowledged write is there, none in part', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-kill-'));
    dirs.push(dataDir);
    await run({ DATA_DIR: dataDir }, async (userId) => {
      const db = await openPglite(path.join(dataDir, 'pglite'));
      try {
        const journal = await db.query<{ id: string; body: string }>(SELECT_JOURNAL, [userId]);
        const readings = await db.query<{ ms: number; value: number }>(SELECT_READINGS, [userId]);
        return { journal: journal.rows, readings: readings.rows };
      } finally {
        await db.close();
      }
    });
  }, 180_000);

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'on PostgreSQL: every acknowledged write is there, none in part',
    async () => {
      const database = await createPgDatabase();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-kill-'));
      dirs.push(dataDir);
      try {
        await run({ DATA_DIR: dataDir, DATABASE_URL: database.url }, async (userId) => {
          const client = new pg.Client({ connectionString: database.url });
          await client.connect();
          try {
            const journal = await client.query(SELECT_JOURNAL, [userId]);
            const readings = await client.query(SELECT_READINGS, [userId]);
            return { journal: journal.rows, readings: readings.rows };
          } finally {
            await client.end();
          }
        });
      } finally {
        await database.drop();
      }
    },
    180_000,
  );
});
