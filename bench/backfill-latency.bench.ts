/**
 * A small upload while another account backfills: one account posts 50,000-reading batches
 * (POST /api/glucose/readings/batch, new readings each time) back to back for the whole
 * measurement window, while a second account posts batches of 10 readings one after another.
 * Goal: the small upload's p95 under load stays within 2x its idle p95, measured in the same run
 * (the idle phase first, on the same server).
 *
 * The server runs as `npm start` runs it (a child process; embedded database, or
 * BENCH_DATABASE_URL). SMALL (default 200) small requests idle; under load, small requests until
 * at least SMALL of them and BACKFILLS (default 3) whole backfills are done. Prints one JSON line.
 */
import { fetchJson, signUp, startBenchServer } from './server.ts';

const SMALL = Number(process.env.SMALL ?? 200);
const BACKFILLS = Number(process.env.BACKFILLS ?? 3);
const BIG = 50_000;
const server = await startBenchServer();

const json = (pathname: string, init: RequestInit = {}): Promise<any> =>
  fetchJson(server.base, pathname, init);

async function newUser(name: string): Promise<Record<string, string>> {
  const token = await signUp(server.base, `${name}.${Date.now()}@example.com`);
  return { 'content-type': 'application/json', authorization: `Bearer ${token}` };
}

/** `n` five-minute readings of one sensor ending at `end`, as a request body. */
function readings(n: number, sensorId: number, end: number): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      sensor_id: sensorId,
      timestamp: new Date(end - (n - i) * 300_000).toISOString(),
      value_mg_dl: 70 + ((i * 37) % 150),
    })),
  );
}

const p95 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1];
const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;

let stop = false;
try {
  const big = await newUser('backfill');
  const small = await newUser('small-upload');
  let smallEnd = Date.now();
  /** one small upload (10 new readings); answers its time in ms */
  const smallUpload = async (): Promise<number> => {
    smallEnd += 10 * 300_000;
    const body = readings(10, 1, smallEnd);
    const t = performance.now();
    const inserted = await json('/api/glucose/readings/batch', {
      method: 'POST',
      headers: small,
      body,
    });
    const ms = performance.now() - t;
    if (inserted !== 10) throw new Error(`small upload inserted ${inserted}`);
    return ms;
  };
  const backfill = async (sensorId: number): Promise<number> => {
    const t = performance.now();
    const inserted = await json('/api/glucose/readings/batch', {
      method: 'POST',
      headers: big,
      body: readings(BIG, sensorId, Date.now()),
    });
    if (inserted !== BIG) throw new Error(`backfill inserted ${inserted}`);
    return performance.now() - t;
  };

  // warm-up of both paths, then the idle phase
  await backfill(1);
  for (let i = 0; i < 20; i++) await smallUpload();
  const idle: number[] = [];
  for (let i = 0; i < SMALL; i++) idle.push(await smallUpload());

  // loaded phase: backfills back to back until the small uploads are done
  const backfills: number[] = [];
  let loopError: Error | null = null;
  const loop = (async () => {
    for (let sensor = 2; !stop; sensor++) backfills.push(await backfill(sensor));
  })().catch((e: unknown) => {
    loopError = e as Error;
  });
  await new Promise((r) => setTimeout(r, 200)); // the first backfill is under way
  const loaded: number[] = [];
  const windowStart = performance.now();
  // the window spans whole backfills (their request parsing and validation as well as their inserts)
  const before = backfills.length;
  while (loaded.length < SMALL || backfills.length - before < BACKFILLS)
    loaded.push(await smallUpload());
  const windowMs = performance.now() - windowStart;
  stop = true;
  await loop;
  // (assigned in the loop's catch, which the compiler does not follow)
  const failure = loopError as Error | null;
  if (failure) throw failure;

  const idleP95 = p95(idle);
  const loadedP95 = p95(loaded);
  console.log(
    JSON.stringify({
      bench: 'backfill-latency',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      small_requests_idle: idle.length,
      small_requests_loaded: loaded.length,
      small_readings: 10,
      backfill_readings: BIG,
      backfills_during_window: backfills.length,
      backfill_median_ms: round(
        [...backfills].sort((a, b) => a - b)[Math.floor(backfills.length / 2)] ?? NaN,
      ),
      window_ms: Math.round(windowMs),
      idle_p50_ms: round([...idle].sort((a, b) => a - b)[Math.floor(idle.length / 2)]),
      idle_p95_ms: round(idleP95),
      loaded_p50_ms: round([...loaded].sort((a, b) => a - b)[Math.floor(loaded.length / 2)]),
      loaded_p95_ms: round(loadedP95),
      ratio: round(loadedP95 / idleP95, 2),
      goal: 2,
    }),
  );
} finally {
  stop = true;
  await server.stop();
}
