/**
 * The life of a job that keeps its state in its own table and runs on the pg-boss queue (exports,
 * archive imports, discovery runs, DNA reports): one place for what every such job does around its
 * own work.
 *
 * - **Claim**: `queued -> running` with `attempts + 1` in one conditional update, so a second
 *   delivery of the same job does nothing.
 * - **Heartbeat**: a running job records a sign of life (`heartbeatAt`) with its progress.
 * - **End**: every outcome is written only while the row is still `running`, so a job taken back or
 *   deleted meanwhile (its account went) is left alone; `endJob` answers whether it was.
 * - **Stop**: when the app stops mid-job the worker's signal is aborted and the job goes back to
 *   `queued`; the next start runs it again from the top (every job here is safe to start over).
 * - **Take back**: a job left `running` by a process that died is queued again, or failed after
 *   `maxAttempts` starts with a reason saying what to do: at start (`resumeJobs`: on the embedded
 *   database every running job is orphaned, one process; on PostgreSQL those without a recent
 *   heartbeat) and every `staleCheckMs` while the app runs (`checkStaleJobs`), so a crashed
 *   replica's job does not wait for a restart. The update repeats the condition, so a job that gave
 *   a sign of life meanwhile, or that another app took back first, is left alone.
 *
 * The tables share the columns `id, status, attempts, createdAt, startedAt, heartbeatAt,
 * finishedAt, error`; a domain's spec says which Prisma model, which queue and what to clean up.
 */
import type { Logger } from '../base/logger.ts';
import type { Db, DbTx } from '../db/client.ts';
import type { BackgroundWork, JobQueue } from './jobs.ts';
import { clock } from '../base/clock.ts';

/** The conditions the lifecycle puts on a job row (Prisma's where shape, the shared columns). */
export interface JobWhere {
  id?: string;
  status?: string;
  heartbeatAt?: { lt: Date } | null;
  OR?: JobWhere[];
}

/** The shared columns the lifecycle writes, and a domain's own (progress counters, outcomes). */
export type JobData = Record<string, unknown> & {
  status?: string;
  attempts?: { increment: number };
  startedAt?: Date;
  heartbeatAt?: Date | null;
  finishedAt?: Date;
  error?: string;
};

/** The part of a job table's Prisma delegate the lifecycle uses. */
export interface JobTable {
  updateMany(args: { where: JobWhere; data: JobData }): Promise<{ count: number }>;
  findMany(args: {
    where: JobWhere;
    select: { id: true; attempts: true };
    orderBy?: { createdAt: 'asc' };
  }): Promise<{ id: string; attempts: number }[]>;
}

/** A client that holds the job tables: the app's, or a transaction's. */
type JobDb = Db | DbTx;

/** What one kind of job is: its table and queue, its limits, what a take-back cleans up. */
export interface ResumableJobSpec<D extends ResumableJobDeps = ResumableJobDeps> {
  /** what it is, for the log ("export") */
  name: string;
  /** the pg-boss queue its worker takes ids from */
  queue: string;
  /** its table's Prisma delegate on a client or transaction */
  table(db: JobDb): JobTable;
  /** starts before a job taken back is failed instead of queued again */
  maxAttempts: number;
  /** a running job without a heartbeat for this long is orphaned */
  staleMs: number;
  /** how often a running app looks for orphaned jobs */
  staleCheckMs: number;
  /** columns a (re)start sets back, e.g. its progress counters */
  restart?: Record<string, number>;
  /** the reason a job failed after `attempts` interrupted starts records: what to do next */
  gaveUp(attempts: number): string;
  /** after a running job was taken back: removes what its interrupted run left (a partial file) */
  takenBack?(deps: D, id: string, gaveUp: boolean): Promise<void>;
}

/** What the lifecycle needs of the app. */
export interface ResumableJobDeps {
  prisma: Db;
  log: Logger;
  jobs: JobQueue;
  /** the embedded database: one process, so any running job at start is orphaned */
  singleProcess: boolean;
}

/** Claims a queued job for this worker (queued -> running, attempts + 1); false: not to run here. */
export async function claimJob(db: Db, spec: ResumableJobSpec, id: string): Promise<boolean> {
  const now = clock.now();
  const claimed = await spec.table(db).updateMany({
    where: { id, status: 'queued' },
    data: {
      ...spec.restart,
      status: 'running',
      attempts: { increment: 1 },
      startedAt: now,
      heartbeatAt: now,
    },
  });
  return claimed.count > 0;
}

/** Records a running job's sign of life, with its progress columns. */
export async function beatJob(
  db: Db,
  spec: ResumableJobSpec,
  id: string,
  progress: Record<string, unknown> = {},
): Promise<void> {
  await spec.table(db).updateMany({
    where: { id, status: 'running' },
    data: { ...progress, heartbeatAt: clock.now() },
  });
}

/**
 * Records how a running job ended (`status` and the domain's columns; finished now, no heartbeat).
 * False: the job was no longer running (taken back or deleted), and nothing was written.
 */
export async function endJob(
  db: JobDb,
  spec: ResumableJobSpec,
  id: string,
  data: JobData & { status: string },
): Promise<boolean> {
  const ended = await spec.table(db).updateMany({
    where: { id, status: 'running' },
    data: { ...data, finishedAt: clock.now(), heartbeatAt: null },
  });
  return ended.count > 0;
}

/** Sets a job the stopping app interrupted back to queued; the next start runs it again. */
export async function requeueStoppedJob(
  deps: Pick<ResumableJobDeps, 'prisma' | 'log'>,
  spec: ResumableJobSpec,
  id: string,
): Promise<void> {
  await spec
    .table(deps.prisma)
    .updateMany({
      where: { id, status: 'running' },
      data: { ...spec.restart, status: 'queued', heartbeatAt: null },
    })
    .catch((err: unknown) => deps.log.warn({ err, id }, `${spec.name} left running at stop`));
}

/**
 * Takes back the running jobs `orphaned` selects: queues them again, or fails them after
 * `maxAttempts` starts, then lets the spec clean up. Answers the ids queued again.
 */
async function takeBackOrphans<D extends ResumableJobDeps>(
  deps: D,
  spec: ResumableJobSpec<D>,
  orphaned: JobWhere,
): Promise<string[]> {
  const table = spec.table(deps.prisma);
  const running = await table.findMany({
    where: { ...orphaned, status: 'running' },
    select: { id: true, attempts: true },
  });
  const requeued: string[] = [];
  for (const job of running) {
    const giveUp = job.attempts >= spec.maxAttempts;
    const taken = await table.updateMany({
      where: { ...orphaned, id: job.id, status: 'running' },
      data: giveUp
        ? {
            status: 'failed',
            error: spec.gaveUp(job.attempts),
            finishedAt: clock.now(),
            heartbeatAt: null,
          }
        : { ...spec.restart, status: 'queued', heartbeatAt: null },
    });
    if (taken.count === 0) continue;
    await spec.takenBack?.(deps, job.id, giveUp);
    if (!giveUp) requeued.push(job.id);
  }
  return requeued;
}

/** The running jobs whose heartbeat is older than `staleMs` at `now`. */
const staleAt = (spec: ResumableJobSpec, now: Date): JobWhere => ({
  heartbeatAt: { lt: new Date(now.getTime() - spec.staleMs) },
});

/**
 * While the app runs: jobs whose heartbeat is older than `staleMs` (their process died) are queued
 * again, or failed after `maxAttempts` starts. Answers how many were queued again.
 */
export async function checkStaleJobs<D extends ResumableJobDeps>(
  deps: D,
  spec: ResumableJobSpec<D>,
  now: Date,
): Promise<number> {
  const requeued = await takeBackOrphans(deps, spec, staleAt(spec, now));
  for (const id of requeued) await deps.jobs.send(spec.queue, { id });
  return requeued.length;
}

/**
 * At start: takes back the jobs a process that is gone left running, and queues every queued job
 * again (a second delivery is harmless: the claim takes it once). Starts the queue only when there
 * is work.
 */
export async function resumeJobs<D extends ResumableJobDeps>(
  deps: D,
  spec: ResumableJobSpec<D>,
): Promise<void> {
  const orphaned: JobWhere = deps.singleProcess
    ? {}
    : { OR: [{ heartbeatAt: null }, staleAt(spec, clock.now())] };
  await takeBackOrphans(deps, spec, orphaned);
  const queued = await spec.table(deps.prisma).findMany({
    where: { status: 'queued' },
    select: { id: true, attempts: true },
    orderBy: { createdAt: 'asc' },
  });
  for (const job of queued) await deps.jobs.send(spec.queue, { id: job.id });
}

/** Registers a job kind's worker (`run` one id) and its periodic check for orphaned jobs. */
export function registerJobWorker<D extends ResumableJobDeps>(
  deps: D,
  spec: ResumableJobSpec<D>,
  run: (id: string, signal: AbortSignal) => Promise<void>,
): void {
  deps.jobs.work(spec.queue, (data, signal) => run(String(data.id), signal));
  deps.jobs.every(spec.staleCheckMs, async () => {
    await checkStaleJobs(deps, spec, clock.now());
  });
}

/**
 * A job kind as background work for the app's registry (src/server/background.ts): its worker and
 * stale check, and at start the jobs an earlier run left, then the domain's own start-up `extra`.
 */
export function resumableWork<D extends ResumableJobDeps>(
  spec: ResumableJobSpec<D>,
  run: (deps: D, id: string, signal: AbortSignal) => Promise<void>,
  extra?: (deps: D) => Promise<void>,
): BackgroundWork<D> {
  return {
    name: spec.name,
    register: (deps) => registerJobWorker(deps, spec, (id, signal) => run(deps, id, signal)),
    resume: async (deps) => {
      await resumeJobs(deps, spec);
      await extra?.(deps);
    },
  };
}
