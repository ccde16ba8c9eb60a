/**
 * An app served in this process for benchmarks that compare a path with raw SQL on the same
 * database (one PGlite in a temp dir, or BENCH_DATABASE_URL's PostgreSQL), plus the timing helpers
 * they share. Figures are medians of in-process timers (autocannon measures whole milliseconds only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/server/app.ts';
import { loadConfig } from '../src/base/config.ts';
import { openDatabase } from '../src/db/database.ts';
import type { Database } from '../src/db/database.ts';
import { createLogger } from '../src/base/logger.ts';
import { median } from './stats.ts';

export interface InProcessApp {
  db: Database;
  /** fetches `pathname` and answers its JSON; throws on a non-2xx status */
  json: (pathname: string, init?: RequestInit) => Promise<any>;
  /** a registered, signed-in account: its id and bearer headers (JSON content type) */
  newUser: () => Promise<{ id: number; headers: Record<string, string> }>;
  close: () => Promise<void>;
}

export const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;
/** The median of each series of figures, rounded. */
export function medians<K extends string>(figures: Record<K, number[]>): Record<K, number> {
  return Object.fromEntries(
    Object.entries<number[]>(figures).map(([k, v]) => [k, round(median(v))]),
  ) as Record<K, number>;
}

/** Milliseconds `fn` takes. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Starts the app on a fresh database in a temp dir (or BENCH_DATABASE_URL). */
export async function startInProcessApp(name: string): Promise<InProcessApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `hdp-bench-${name}-`));
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
  });
  const db = await openDatabase({ url: config.DATABASE_URL || undefined, dataDir });
  const { app, limitStore, jobs } = createApp({ config, db, log: createLogger('warn') });
  const server = createServer(app);
  // a client reuses its connection across in-process raw statements, which can take longer than
  // node's 5 s idle keep-alive on a busy machine: a POST racing the server's close fails with "other side closed"
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const json = async (pathname: string, init?: RequestInit): Promise<any> => {
    const res = await fetch(base + pathname, init);
    if (!res.ok) throw new Error(`${pathname}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    return res.json();
  };
  let seq = 0;
  return {
    db,
    json,
    newUser: async () => {
      const creds = {
        email: `bench${++seq}.${Date.now()}@example.com`,
        password: 'benchmark password',
      };
      const plain = { 'content-type': 'application/json' };
      await json('/api/auth/register', {
        method: 'POST',
        headers: plain,
        body: JSON.stringify(creds),
      });
      const { access_token: token } = await json('/api/auth/login', {
        method: 'POST',
        headers: plain,
        body: JSON.stringify(creds),
      });
      const headers = { ...plain, authorization: `Bearer ${token}` };
      return { id: (await json('/api/auth/me', { headers })).id as number, headers };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await jobs.stop();
      await Promise.all([db.close(), limitStore.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
