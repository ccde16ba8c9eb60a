/**
 * Food catalogue, in one process on one database (embedded PGlite, or BENCH_DATABASE_URL's
 * PostgreSQL, which should be an empty database):
 *  - import: the shipped catalogue (data/catalogue) through importCatalogue, the CLI's path
 *    (goal < 60 s);
 *  - search: GET /api/foods/search at 10 concurrent connections vs the same ranked SQL run directly
 *    through the same Prisma client at 10 concurrent callers (goal p50 <= 2x);
 *  - core bundle: GET /api/foods/core-bundle (gzip, served from memory) vs a static file of the same
 *    bytes (express `res.sendFile`, gzip file, same headers) at 10 connections (goal p50 <= 1.5x).
 * Latencies are measured the same way on both sides (performance.now() around each call, 10
 * workers on 10 keep-alive connections for DURATION_S seconds after a warm-up; HTTP bodies are read
 * as sent, without decompressing). Prints one JSON line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import { createApp } from '../src/server/app.ts';
import { loadConfig } from '../src/base/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { importCatalogue } from '../src/domains/foods/import/foods.catalogue-import.ts';
import { searchFoodsSql } from '../src/domains/foods/foods.service.ts';
import { FOOD_LOG } from '../src/domains/meals/index.ts';
import { createLogger } from '../src/base/logger.ts';

const DURATION_S = Number(process.env.DURATION_S ?? 8);
const CONNECTIONS = 10;
const QUERIES = [
  'bananna',
  'cheese',
  'chicken breast',
  'greek yogurt',
  'chocolat',
  'apple',
  'rice',
  'peanut butter',
];

const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-bench-foods-'));
const config = loadConfig({
  ...process.env,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  FOODS_AUTOLOAD: 'off',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
});
const db = await openDatabase({ url: config.DATABASE_URL || undefined, dataDir });

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
const pct = (xs: number[], p: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** CONNECTIONS workers calling `call(i)` for `seconds`; latencies in ms. */
async function load(
  call: (i: number) => Promise<void>,
  seconds: number,
): Promise<{ p50: number; p99: number; rps: number }> {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await call(n++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return {
    p50: round(pct(latencies, 0.5)),
    p99: round(pct(latencies, 0.99)),
    rps: Math.round(latencies.length / seconds),
  };
}

/** keep-alive connections, as many as workers; bodies are read as sent (no decompression) */
const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
function get(url: string, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent, headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
      res.on('data', () => {});
      res.on('end', () => resolve());
    }).on('error', reject);
  });
}

const servers: { close(cb: () => void): void; closeAllConnections(): void }[] = [];
async function listen(handler: express.Express): Promise<string> {
  const server = createServer(handler);
  // the client's idle keep-alive sockets must outlive the pauses between phases (else ECONNRESET)
  server.keepAliveTimeout = 120_000;
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

try {
  const t0 = performance.now();
  const reports = await importCatalogue(db.prisma);
  const importMs = Math.round(performance.now() - t0);

  const { app, limitStore } = createApp({ config, db, log: createLogger('warn') });
  const base = await listen(app);

  // search: REST vs the same SQL through the same client
  const sql = (q: string) =>
    searchFoodsSql({ q, viewer: null, country: null, limit: 20, offset: 0, log: FOOD_LOG });
  const q = (i: number) => QUERIES[i % QUERIES.length];
  await load((i) => get(`${base}/api/foods/search?q=${encodeURIComponent(q(i))}`), 1);
  const rest = await load(
    (i) => get(`${base}/api/foods/search?q=${encodeURIComponent(q(i))}`),
    DURATION_S,
  );
  const direct = await load(async (i) => {
    const rows = await db.prisma.$queryRaw(sql(q(i)));
    JSON.stringify(rows);
  }, DURATION_S);

  // core bundle: from memory vs a static file of the same bytes
  const gzipHeaders = { 'accept-encoding': 'gzip' };
  const first = await fetch(`${base}/api/foods/core-bundle`, { headers: gzipHeaders });
  if (first.status !== 200) throw new Error(`core bundle: ${first.status}`);
  const bytes = Buffer.from(await first.arrayBuffer()); // fetch decompresses; the wire bytes come from node:http
  const raw = await new Promise<Buffer>((resolve, reject) => {
    httpGet(`${base}/api/foods/core-bundle`, { headers: gzipHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    }).on('error', reject);
  });
  const file = path.join(dataDir, 'core-bundle.json.gz');
  writeFileSync(file, raw);
  const staticApp = express();
  staticApp.get('/bundle', (_req, res) => {
    res.set({
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      vary: 'Accept-Encoding',
    });
    res.sendFile(file);
  });
  const staticBase = await listen(staticApp);
  await load(() => get(`${base}/api/foods/core-bundle`, gzipHeaders), 1);
  await load(() => get(`${staticBase}/bundle`, gzipHeaders), 1);
  const bundle = await load(() => get(`${base}/api/foods/core-bundle`, gzipHeaders), DURATION_S);
  // what every request through the app's stack costs (logging, request id, routing): /healthz
  const health = await load(() => get(`${base}/healthz`), DURATION_S);
  const staticFile = await load(() => get(`${staticBase}/bundle`, gzipHeaders), DURATION_S);

  console.log(
    JSON.stringify({
      bench: 'foods',
      database: db.target.kind,
      import_ms: importMs,
      import_sources: reports.map((r) => ({
        source: r.source,
        foods: r.foods,
        ms: r.ms,
        up_to_date: r.upToDate,
      })),
      import_goal_ms: 60_000,
      search_rest: rest,
      search_direct_sql: direct,
      search_ratio_p50: round(rest.p50 / direct.p50),
      search_goal: 2,
      bundle_bytes_gzip: raw.length,
      bundle_bytes_json: bytes.length,
      bundle_rest: bundle,
      bundle_static_file: staticFile,
      bundle_ratio_p50: round(bundle.p50 / staticFile.p50),
      app_healthz: health,
      bundle_goal: 1.5,
    }),
  );
  await limitStore.close();
} finally {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
}
