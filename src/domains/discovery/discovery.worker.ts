/**
 * The background side of discovery (issue 33): the pg-boss worker that runs a queued run.
 *
 * A run is a resumable job (src/platform/resumable-jobs.ts: claimed once, back to queued at stop,
 * taken back when its process died, failed after DISCOVERY_MAX_ATTEMPTS starts; each attempt
 * starts over). The worker reads the person's daily signals in SQL (discovery.signals.ts), tests
 * the pairs (discovery.stats.ts, pure), and stores every pair's result with the run's outcome in
 * one transaction, so a run is either done with all its findings or not done.
 */
import type { Logger } from '../../base/logger.ts';
import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { BackgroundWork, JobQueue } from '../../platform/jobs.ts';
import {
  checkStaleJobs,
  claimJob,
  endJob,
  requeueStoppedJob,
  resumableWork,
  resumeJobs,
} from '../../platform/resumable-jobs.ts';
import type { ResumableJobSpec } from '../../platform/resumable-jobs.ts';
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

/** Discovery runs as resumable jobs: the discovery_runs table and queue; each attempt starts over. */
export const DISCOVERY_JOBS: ResumableJobSpec<DiscoveryWorkerDeps> = {
  name: 'discovery run',
  queue: DISCOVERY_QUEUE,
  table: (db) => db.discoveryRun,
  maxAttempts: DISCOVERY_MAX_ATTEMPTS,
  staleMs: DISCOVERY_STALE_MS,
  staleCheckMs: DISCOVERY_STALE_CHECK_MS,
  gaveUp: (attempts) =>
    `interrupted by server restarts ${attempts} times; start a new run (discovery_run_start), perhaps over fewer days`,
};

/** Runs one queued run: claims it, tests its pairs, stores the results. */
export async function runDiscoveryJob(
  deps: Pick<DiscoveryWorkerDeps, 'prisma' | 'log'>,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const { prisma, log } = deps;
  if (!(await claimJob(prisma, DISCOVERY_JOBS, id))) return; // done, failed, deleted, or taken
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
      const done = await endJob(tx, DISCOVERY_JOBS, id, {
        status: 'done',
        pairsTested: results.filter((r) => r.p !== null).length,
        pairsSkipped: results.filter((r) => r.p === null).length,
        found: results.filter((r) => r.significant).length,
      });
      // taken back or deleted meanwhile: store nothing
      if (done) await tx.discoveryHypothesis.createMany({ data: rows });
    });
  } catch (err) {
    if (signal.aborted) return requeueStoppedJob(deps, DISCOVERY_JOBS, id);
    log.error({ err, id }, 'discovery run failed');
    await endJob(prisma, DISCOVERY_JOBS, id, {
      status: 'failed',
      error: 'the server could not finish this run; start a new one (discovery_run_start)',
    });
  }
}

/** While the app runs: runs whose process died are queued again. Answers how many. */
export const checkStaleDiscoveryRuns = (deps: DiscoveryWorkerDeps, now: Date): Promise<number> =>
  checkStaleJobs(deps, DISCOVERY_JOBS, now);

/** At start: takes back runs left running by a process that is gone, and queues every queued run. */
export const resumeDiscoveryRuns = (deps: DiscoveryWorkerDeps): Promise<void> =>
  resumeJobs(deps, DISCOVERY_JOBS);

/** The run worker, its stale-run check and the restart of runs an earlier process left (the app's registry). */
export const DISCOVERY_WORK: BackgroundWork<DiscoveryWorkerDeps> = resumableWork(
  DISCOVERY_JOBS,
  runDiscoveryJob,
);
