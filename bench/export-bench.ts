/**
 * What the export benchmarks share (bench:admin, bench:health-export): a scratch data directory
 * (or BENCH_DATABASE_URL) holding one account made through the API, rows seeded straight into the
 * database while the server is stopped (an embedded database has one owner), and the server's peak
 * memory over its idle RSS while an export runs. Never used against a database that matters: the
 * seeding writes rows directly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import type { Database } from '../src/db/database.ts';
import { fetchJson, memoryOf, signUp, startBenchServer } from './server.ts';

/** One decimal. */
export const round = (x: number): number => Math.round(x * 10) / 10;

export interface ScratchAccount {
  /** the server's DATA_DIR (the embedded database lives there) */
  dataDir: string;
  /** BENCH_DATABASE_URL, or undefined for the embedded database */
  url: string | undefined;
  email: string;
  /** a bearer token of the account (password "benchmark password") */
  token: string;
  userId: number;
  /** removes the scratch directory */
  remove(): void;
}

/** A scratch directory and one account registered through a server that is stopped again. */
export async function scratchAccount(name: string): Promise<ScratchAccount> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `hdp-bench-${name}-`));
  const remove = (): void => rmSync(dataDir, { recursive: true, force: true });
  const email = `${name}.${Date.now()}@example.com`;
  try {
    const server = await startBenchServer({}, { dataDir });
    try {
      const token = await signUp(server.base, email);
      const me = await fetchJson(server.base, '/api/auth/me', {
        headers: { authorization: `Bearer ${token}` },
      });
      return {
        dataDir,
        url: process.env.BENCH_DATABASE_URL || undefined,
        email,
        token,
        userId: me.id,
        remove,
      };
    } finally {
      await server.stop();
    }
  } catch (err) {
    remove();
    throw err;
  }
}

/** Runs `fn` on the scratch database directly (the server must be stopped), then closes it. */
export async function withDatabase<T>(
  scratch: ScratchAccount,
  fn: (db: Database) => Promise<T>,
): Promise<T> {
  const db = await openDatabase({ url: scratch.url, dataDir: scratch.dataDir });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export interface MemoryWatch {
  /** the server's RSS when the watch began, MB */
  idle: number;
  /** stops sampling: the peak RSS (VmHWM or the highest sample) and its growth over idle, MB */
  stop(): { peak: number; growth: number };
}

/**
 * After a second's settling, the server's idle RSS; then its VmHWM is reset (clear_refs) and its
 * RSS sampled every 5 ms until stop.
 */
export async function watchMemory(pid: number): Promise<MemoryWatch> {
  await new Promise((r) => setTimeout(r, 1000));
  const idle = memoryOf(pid).rss;
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  let sampled = idle;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, memoryOf(pid).rss);
  }, 5);
  return {
    idle,
    stop() {
      clearInterval(sampler);
      const peak = Math.max(memoryOf(pid).hwm, sampled);
      return { peak, growth: peak - idle };
    },
  };
}
