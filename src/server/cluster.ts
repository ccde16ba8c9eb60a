/**
 * The cluster primary of WEB_CONCURRENCY=N (N > 1): it opens the database once (which applies the
 * pending migrations), closes it, and forks N workers (node:cluster) that each run the whole server
 * (src/server/main.ts) and share its two ports. It serves nothing itself and holds no state.
 *
 * Why here: keeping several processes alive is the launcher's job, not the app's. A worker that
 * dies is forked again, after a back-off that grows while workers keep dying soon after start
 * (never during shutdown). SIGTERM/SIGINT pass SIGTERM to every worker, which stops gracefully
 * (main.ts), and the primary exits once they all have.
 *
 * Work that should run once (the food catalogue autoload) runs in the first worker only; everything
 * else a worker starts is safe to run N times (docs/deployment.md). config.ts refuses N > 1 without
 * DATABASE_URL and REDIS_URL, so this module never sees the embedded database.
 */
import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import type { Config } from '../base/config.ts';
import { openDatabase } from '../db/database.ts';
import type { Logger } from '../base/logger.ts';
import { clock } from '../base/clock.ts';

/** A worker that lived less than this died "soon after start": the next fork waits longer. */
const QUICK_DEATH_MS = 30_000;
/** The longest wait before a fork. */
const MAX_BACKOFF_MS = 30_000;
/** How long the workers get to stop before they are killed (theirs is 10 s: main.ts). */
const STOP_TIMEOUT_MS = 15_000;

interface Slot {
  worker: Worker | null;
  startedAt: number;
  /** workers of this slot that died soon after start, in a row */
  quickDeaths: number;
  timer: NodeJS.Timeout | null;
}

/** Wait before forking a slot again after `quickDeaths` quick deaths in a row: 0, 1 s, 2 s ... 30 s. */
export function backoffMs(quickDeaths: number): number {
  return quickDeaths === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (quickDeaths - 1));
}

/** Runs the primary until a signal stops it; the process exits from there, so this never resolves. */
export async function runPrimary(config: Config, log: Logger): Promise<never> {
  const db = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
  if (db.applied.length) log.info({ applied: db.applied }, 'migrations applied');
  await db.close();

  let stopping = false;
  const slots: Slot[] = [];
  const fork = (index: number): void => {
    const slot = slots[index];
    slot.timer = null;
    // the catalogue import runs once, in the first worker (another would wait on its locks)
    slot.worker = cluster.fork(index === 0 ? {} : { FOODS_AUTOLOAD: 'off' });
    slot.startedAt = clock.ms();
  };
  for (let i = 0; i < config.WEB_CONCURRENCY; i++) {
    slots.push({ worker: null, startedAt: 0, quickDeaths: 0, timer: null });
    fork(i);
  }
  log.info({ workers: config.WEB_CONCURRENCY }, 'cluster started');

  const done = new Promise<void>((resolve) => {
    cluster.on('exit', (worker, code, signal) => {
      const index = slots.findIndex((s) => s.worker === worker);
      if (index < 0) return;
      const slot = slots[index];
      slot.worker = null;
      if (stopping) {
        if (slots.every((s) => !s.worker)) resolve();
        return;
      }
      slot.quickDeaths = clock.ms() - slot.startedAt < QUICK_DEATH_MS ? slot.quickDeaths + 1 : 0;
      const wait = backoffMs(slot.quickDeaths);
      log.error({ pid: worker.process.pid, code, signal, restartInMs: wait }, 'worker died');
      slot.timer = setTimeout(() => fork(index), wait);
    });
  });

  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const slot of slots) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.worker?.process.kill('SIGTERM');
    }
    setTimeout(() => {
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    if (slots.every((s) => !s.worker)) process.exit(0);
    void done.then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return new Promise<never>(() => {});
}
