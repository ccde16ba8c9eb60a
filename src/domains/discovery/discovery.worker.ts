/**
 * The background side of discovery (issue 33): the pg-boss worker that runs a queued run, and the
 * recovery of runs a stopped or crashed process left behind (the export worker's design,
 * src/domains/export/export.worker.ts).
 *
 * A run is claimed atomically (queued -> running, attempts + 1), so a second delivery does nothing.
 * The worker reads the person's daily signals in SQL (discovery.signals.ts), tests the pairs
 * (discovery.stats.ts, pure), and stores every pair's result with the run's outcome in one
 * transaction, so a run is either done with all its findings or not done. At start, runs left
 * running are queued again (each attempt starts over) or, after DISCOVERY_MAX_ATTEMPTS starts,
 * failed with a reason; while running, every app does the same each DISCOVERY_STALE_CHECK_MS for
 * runs whose heartbeat is older than DISCOVERY_STALE_MS.
 */
import type { Logger } from '../../base/logger.ts';
import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { BackgroundWork, JobQueue } from '../../platform/jobs.ts';
import { proposeExperiment } from './discovery.experiments.ts';
import {
  DISCOVERY_MAX_ATTEMPTS,
  DISCOVERY_QUEUE,
  DISCOVERY_STALE_CHECK_MS,
  DISCOVERY_STALE_MS,
} from './discovery.rules.ts';
import { loadSignals } from './discovery.signals.ts';
import { defaultPairs, explorePairs, hypothesisText, testRun } from './discovery.stats.ts';
import type { DailySeries, Lag, PairResult } from './discovery.types.ts';

export interface DiscoveryWorkerDeps {
  prisma: Db;
  log: Logger;
  jobs: JobQueue;
  /** the embedded database: one process, so any running run at start is orphaned */
  singleProcess: boolean;
}

/** The rows of a run's results. */
function hypothesisRows(
  run: { id: string; userId: number; zone: string },
  results: PairResult[],
  series: DailySeries[],
): Prisma.DiscoveryHypothesisCreateManyInput[] {
  const info = new Map(series.map((s) => [s.key, s]));
  return results.map((r) => {
    const driver = info.get(r.driver)!;
    const outcome = info.get(r.outcome)!;
    const experiment = r.significant ? proposeExperiment(r, driver, outcome) : null;
    return {
      runId: run.id,
      userId: run.userId,
      driver: r.driver,
      outcome: r.outcome,
      lag: r.lag,
      method: r.method,
      n: r.n,
      nHigh: r.nHigh,
      nLow: r.nLow,
      effect: r.effect,
      ciLow: r.ciLow,
      ciHigh: r.ciHigh,
      p: r.p,
      q: r.q,
      significant: r.significant,
      direction: r.direction,
      notEnoughData: r.notEnoughData,
      statement: hypothesisText(r, driver, outcome, run.zone),
      experiment: experiment ? JSON.stringify(experiment) : null,
    };
  });
}

/** The pairs and lags of a run or an exploration. */
function plan(
  run: { kind: string; focus: string | null },
  series: DailySeries[],
): { pairs: { driver: string; outcome: string }[]; lags: Lag[] } {
  if (run.kind === 'explore' && run.focus)
    return { pairs: explorePairs(series, run.focus), lags: [0, 1, 2, 3] };
  return { pairs: defaultPairs(series), lags: [0, 1] };
}

/** Runs one queued run: claims it, tests its pairs, stores the results. */
export async function runDiscoveryJob(
  deps: Pick<DiscoveryWorkerDeps, 'prisma' | 'log'>,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const { prisma, log } = deps;
  const claimed = await prisma.discoveryRun.updateMany({
    where: { id, status: 'queued' },
    data: {
      status: 'running',
      attempts: { increment: 1 },
      startedAt: new Date(),
      heartbeatAt: new Date(),
    },
  });
  if (claimed.count === 0) return; // done, failed, deleted, or another worker has it
  const run = await prisma.discoveryRun.findUnique({ where: { id } });
  if (!run) return;
  try {
    const series = await loadSignals(prisma, {
      userId: run.userId,
      zone: run.zone,
      from: run.fromDate,
      to: run.toDate,
    });
    if (signal.aborted) throw new Error('stopping');
    const results = testRun(series, plan(run, series));
    const rows = hypothesisRows(run, results, series);
    await prisma.$transaction(async (tx) => {
      const done = await tx.discoveryRun.updateMany({
        where: { id, status: 'running' },
        data: {
          status: 'done',
          pairsTested: results.filter((r) => r.p !== null).length,
          pairsSkipped: results.filter((r) => r.p === null).length,
          found: results.filter((r) => r.significant).length,
          finishedAt: new Date(),
          heartbeatAt: null,
        },
      });
      // taken back or deleted meanwhile: store nothing
      if (done.count === 1) await tx.discoveryHypothesis.createMany({ data: rows });
    });
  } catch (err) {
    if (signal.aborted) {
      await prisma.discoveryRun
        .updateMany({
          where: { id, status: 'running' },
          data: { status: 'queued', heartbeatAt: null },
        })
        .catch((e: unknown) => log.warn({ err: e, id }, 'discovery run left running at stop'));
      return;
    }
    log.error({ err, id }, 'discovery run failed');
    await prisma.discoveryRun.updateMany({
      where: { id, status: 'running' },
      data: {
        status: 'failed',
        error: 'the server could not finish this run; start a new one (discovery_run_start)',
        finishedAt: new Date(),
        heartbeatAt: null,
      },
    });
  }
}

/**
 * Takes back the running runs `orphaned` selects: queues them again, or fails them after
 * DISCOVERY_MAX_ATTEMPTS starts. Answers the ids queued again.
 */
async function takeBackOrphans(
  deps: DiscoveryWorkerDeps,
  orphaned: Prisma.DiscoveryRunWhereInput,
): Promise<string[]> {
  const runs = await deps.prisma.discoveryRun.findMany({
    where: { ...orphaned, status: 'running' },
    select: { id: true, attempts: true },
  });
  const requeued: string[] = [];
  for (const run of runs) {
    const giveUp = run.attempts >= DISCOVERY_MAX_ATTEMPTS;
    const taken = await deps.prisma.discoveryRun.updateMany({
      where: { ...orphaned, id: run.id, status: 'running' },
      data: giveUp
        ? {
            status: 'failed',
            error: `interrupted by server restarts ${run.attempts} times; start a new run (discovery_run_start), perhaps over fewer days`,
            finishedAt: new Date(),
            heartbeatAt: null,
          }
        : { status: 'queued', heartbeatAt: null },
    });
    if (taken.count === 1 && !giveUp) requeued.push(run.id);
  }
  return requeued;
}

/** While the app runs: runs whose process died are queued again. Answers how many. */
export async function checkStaleDiscoveryRuns(
  deps: DiscoveryWorkerDeps,
  now: Date,
): Promise<number> {
  const requeued = await takeBackOrphans(deps, {
    heartbeatAt: { lt: new Date(now.getTime() - DISCOVERY_STALE_MS) },
  });
  for (const id of requeued) await deps.jobs.send(DISCOVERY_QUEUE, { id });
  return requeued.length;
}

/** At start: takes back runs left running by a process that is gone, and queues every queued run. */
export async function resumeDiscoveryRuns(deps: DiscoveryWorkerDeps): Promise<void> {
  const now = Date.now();
  await takeBackOrphans(
    deps,
    deps.singleProcess
      ? {}
      : {
          OR: [{ heartbeatAt: null }, { heartbeatAt: { lt: new Date(now - DISCOVERY_STALE_MS) } }],
        },
  );
  const queued = await deps.prisma.discoveryRun.findMany({
    where: { status: 'queued' },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
  });
  for (const run of queued) await deps.jobs.send(DISCOVERY_QUEUE, { id: run.id });
}

function registerDiscoveryWorker(deps: DiscoveryWorkerDeps): void {
  deps.jobs.work(DISCOVERY_QUEUE, (data, signal) => runDiscoveryJob(deps, String(data.id), signal));
  deps.jobs.every(DISCOVERY_STALE_CHECK_MS, async () => {
    await checkStaleDiscoveryRuns(deps, new Date());
  });
}

/** The run worker, its stale-run check and the restart of runs an earlier process left (the app's registry). */
export const DISCOVERY_WORK: BackgroundWork<DiscoveryWorkerDeps> = {
  name: 'discovery',
  register: registerDiscoveryWorker,
  resume: resumeDiscoveryRuns,
};
