/**
 * Background jobs through pg-boss (docs/architecture.md section 1: an existing queue, not a home-made
 * one), on both databases: on PostgreSQL pg-boss opens its own small pool on DATABASE_URL; on the
 * embedded PGlite it runs its SQL through the one PGlite instance (`executeSql` below; PGlite
 * serialises it with Prisma's queries). Its tables live in the `pgboss` schema, which pg-boss
 * creates and migrates itself on first start (docs/decisions.md, "Export jobs (issue 16)").
 *
 * The queue starts lazily: on the first `send`, or from `resume()` when a domain finds work left
 * from an earlier run, so an app that never queues anything never creates the schema.
 * `stop()` aborts the running handlers (their AbortSignal) and waits for them to return, and ends
 * the periodic checks (`every`: timers in this process, not pg-boss schedules, so they run whether
 * or not the queue has started).
 */
import PgBoss from 'pg-boss';
import type { PGlite } from '@electric-sql/pglite';
import type { DbTarget } from '../db/target.ts';
import type { Logger } from '../base/logger.ts';

/** A queue's worker: one job's data, and a signal aborted when the app stops. */
export type JobHandler = (data: Record<string, unknown>, signal: AbortSignal) => Promise<void>;

export interface JobQueue {
  /** Registers the worker of `queue` (before the first send); one job at a time per process. */
  work(queue: string, handler: JobHandler): void;
  /** Queues a job (starting the queue first if needed). */
  send(queue: string, data: Record<string, unknown>): Promise<void>;
  /** Starts the queue and its workers now (idempotent). */
  start(): Promise<void>;
  /**
   * Runs `task` every `ms` until stop (the first time after `firstAfterMs`, default `ms`: an hourly
   * task on servers restarted more often than hourly still runs); a run never overlaps the
   * previous, a failure is logged.
   */
  every(ms: number, task: () => Promise<void>, firstAfterMs?: number): void;
  /** Aborts running handlers, waits for them, stops polling and the periodic checks. */
  stop(): Promise<void>;
}

/**
 * Work a domain runs in the background (its queue workers and periodic checks), listed in the
 * server's registry (src/server/background.ts) and started with the app.
 */
export interface BackgroundWork<D> {
  /** what it is, for the log ("export resume failed") */
  name: string;
  /** registers its workers and periodic checks on the job queue */
  register(deps: D): void;
  /** once at start: takes up what an earlier run left unfinished (a failure is logged) */
  resume(deps: D): Promise<void>;
}

/** How often an idle worker looks for a job (pg-boss's floor is 0.5 s). */
const POLL_SECONDS = 0.5;

/** pg-boss on the app's database: PostgreSQL through its own small pool, PGlite in process. */
function bossOptions(target: DbTarget): PgBoss.ConstructorOptions {
  return {
    schema: 'pgboss',
    schedule: false,
    supervise: true,
    // the jobs' own tables record progress and retries; pg-boss only hands work out once
    retryLimit: 0,
    expireInHours: 23,
    ...(target.kind === 'pg'
      ? { connectionString: target.url, max: 2 }
      : { db: pgliteDb(target.instance as PGlite) }),
  };
}

/** Starts pg-boss and a worker per registered queue; each job runs with an AbortSignal `stop` aborts. */
async function openBoss(
  options: PgBoss.ConstructorOptions,
  handlers: Map<string, JobHandler>,
  running: Set<AbortController>,
  log: Logger,
): Promise<PgBoss> {
  const b = new PgBoss(options);
  b.on('error', (err) => log.error({ err }, 'job queue error'));
  await b.start();
  for (const [queue, handler] of handlers) {
    await b.createQueue(queue);
    await b.work(queue, { pollingIntervalSeconds: POLL_SECONDS }, async (jobs) => {
      for (const job of jobs) {
        const controller = new AbortController();
        running.add(controller);
        try {
          await handler(job.data as Record<string, unknown>, controller.signal);
        } finally {
          running.delete(controller);
        }
      }
    });
  }
  return b;
}

/** pg-boss's `db` over PGlite: parameterless text may hold several statements (its migrations). */
function pgliteDb(pglite: PGlite): PgBoss.Db {
  return {
    async executeSql(text, values) {
      if (!values || values.length === 0) {
        const results = await pglite.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      }
      const result = await pglite.query(text, values);
      return { rows: result.rows };
    },
  };
}

export function createJobQueue(target: DbTarget, log: Logger): JobQueue {
  const handlers = new Map<string, JobHandler>();
  const running = new Set<AbortController>();
  const timers: NodeJS.Timeout[] = [];
  let starting: Promise<PgBoss> | null = null;
  let stopped = false;

  const open = () => openBoss(bossOptions(target), handlers, running, log);

  const start = (): Promise<PgBoss> => {
    if (stopped) return Promise.reject(new Error('the job queue is stopped'));
    starting ??= open().catch((err: unknown) => {
      starting = null;
      throw err;
    });
    return starting;
  };

  return {
    work(queue, handler) {
      handlers.set(queue, handler);
    },
    async send(queue, data) {
      const b = await start();
      await b.send(queue, data);
    },
    async start() {
      await start();
    },
    every(ms, task, firstAfterMs = ms) {
      if (stopped) return;
      let busy = false;
      const run = (): void => {
        if (busy) return;
        busy = true;
        task()
          .catch((err: unknown) => log.error({ err }, 'periodic job check failed'))
          .finally(() => (busy = false));
      };
      // NOTE: timers never keep the process alive (unref)
      const first = setTimeout(() => {
        run();
        if (stopped) return;
        const timer = setInterval(run, ms).unref();
        timers.push(timer);
      }, firstAfterMs).unref();
      timers.push(first);
    },
    async stop() {
      stopped = true;
      for (const timer of timers.splice(0)) clearTimeout(timer); // clears intervals too
      if (!starting) return;
      const b = await starting.catch(() => null);
      for (const controller of running) controller.abort();
      await b?.stop({ graceful: true, wait: true, timeout: 10_000 });
      starting = null;
    },
  };
}
