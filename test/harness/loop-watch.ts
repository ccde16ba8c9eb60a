/**
 * What a hostile file does to the server while it is read (issue 45): `/healthz` asked every
 * `everyMs` through the real HTTP stack, the slowest answer kept, and the process's RSS before and
 * after (after a full garbage collection: the suite runs with --expose-gc, vitest.config.ts).
 * The suite's client and the server share one event loop, so a blocked loop shows as a slow answer.
 */
import type { TestApp } from './app.ts';

export interface LoopWatch {
  /** Stops probing; answers the slowest `/healthz` answer (ms), the probes made and their statuses. */
  stop(): Promise<{ slowestMs: number; probes: number; statuses: number[] }>;
}

/** Starts asking `/healthz` every `everyMs` until `stop()`. */
export function watchHealth(app: TestApp, everyMs = 50): LoopWatch {
  let running = true;
  let slowestMs = 0;
  const statuses: number[] = [];
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await app.fetch('/healthz');
      await res.arrayBuffer();
      slowestMs = Math.max(slowestMs, performance.now() - started);
      statuses.push(res.status);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { slowestMs, probes: statuses.length, statuses };
    },
  };
}

/** The process's resident set in MB after a full garbage collection (twice: weak references). */
export function settledRssMb(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().rss / 1048576;
}
