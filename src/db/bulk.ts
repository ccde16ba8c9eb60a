/**
 * Bulk writes in slices that give way to other requests.
 *
 * The embedded database (PGlite) runs every statement synchronously on the event loop through its
 * one connection: one statement of 50,000 rows stalled every other request for its whole duration
 * (about 1.5 s). So a bulk write is one statement per slice of rows, and before each slice it waits
 * until no other request is in flight (or MAX_YIELD_MS has passed, so a busy server still makes
 * progress on the batch). A request that arrives while a slice runs waits for that slice only
 * (a few milliseconds); its later queries are not interleaved with further slices. On PostgreSQL
 * the slices bound lock times and the pool's connection use the same way.
 *
 * A sliced batch is not atomic: each slice commits on its own. Callers must be idempotent, so a
 * batch that failed part-way is simply sent again (docs/decisions.md, Performance).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The longest a slice waits for other requests to finish. */
export const MAX_YIELD_MS = 50;

/** A request being counted; `bulk` once it writes slices (it no longer counts as interactive). */
interface Tracked {
  bulk: boolean;
}

const tracked = new AsyncLocalStorage<Tracked>();
/** requests in flight in this process that are not writing slices */
let interactive = 0;
/** bulk writers waiting for interactive requests to finish */
const waiting = new Set<() => void>();

function leaveInteractive(): void {
  interactive--;
  if (interactive === 0) for (const wake of waiting) wake();
}

/** Connect-style HTTP middleware: counts the request as interactive until its answer ends or closes. */
export function trackRequests(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const me: Tracked = { bulk: false };
  interactive++;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    if (!me.bulk) leaveInteractive();
  };
  res.once('finish', end);
  res.once('close', end);
  tracked.run(me, next);
}

/** Resolves once no interactive request is in flight, or after `maxMs`. */
async function otherRequestsDone(maxMs: number): Promise<void> {
  // NOTE: a macrotask turn first: slices resolve as promise continuations, and without the turn
  // the loop never reaches the I/O phase where a newly arrived request is read and counted.
  await nextTurn();
  const deadline = performance.now() + maxMs;
  while (interactive > 0) {
    const left = deadline - performance.now();
    if (left <= 0) return;
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, left);
      waiting.add(wake);
    });
    await nextTurn();
  }
}

export interface SliceOptions {
  /** the longest each slice waits for other requests (default MAX_YIELD_MS) */
  maxYieldMs?: number;
}

/**
 * Runs `write` over consecutive slices of `rows` of at most `size` rows, one after another, each
 * after other requests had their turn; answers the sum of what the writes answered (rows stored).
 */
export async function writeInSlices<T>(
  rows: readonly T[],
  size: number,
  write: (slice: readonly T[]) => Promise<number>,
  options: SliceOptions = {},
): Promise<number> {
  // the request writing the slices stops counting as interactive: it must not wait for itself
  const me = tracked.getStore();
  if (me && !me.bulk) {
    me.bulk = true;
    leaveInteractive();
  }
  let stored = 0;
  for (let from = 0; from < rows.length; from += size) {
    await otherRequestsDone(options.maxYieldMs ?? MAX_YIELD_MS);
    stored += await write(rows.slice(from, from + size));
  }
  return stored;
}
