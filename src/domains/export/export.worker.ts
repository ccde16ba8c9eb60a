/**
 * The background side of exports (issue 16): the pg-boss worker that writes a job's file, the
 * recovery of jobs a stopped or crashed process left behind, and the expiry sweep.
 *
 * An export is a resumable job (src/platform/resumable-jobs.ts: claim, heartbeat, back to queued
 * at stop, taken back when its process died, failed after EXPORT_MAX_ATTEMPTS starts). Every chunk
 * records the rows written with the heartbeat; each run rewrites the file from the start, and a
 * take-back removes the partial file.
 */
import type { Config } from '../../base/config.ts';
import type { Db } from '../../db/client.ts';
import type { Logger } from '../../base/logger.ts';
import {
  exportFileKey,
  openExportFileWriter,
  removeExportFile,
} from '../../platform/export-files.ts';
import type { BackgroundWork, JobQueue } from '../../platform/jobs.ts';
import {
  beatJob,
  checkStaleJobs,
  claimJob,
  endJob,
  registerJobWorker,
  requeueStoppedJob,
  resumableWork,
} from '../../platform/resumable-jobs.ts';
import type { ResumableJobSpec } from '../../platform/resumable-jobs.ts';
import {
  EXPORT_MAX_ATTEMPTS,
  EXPORT_QUEUE,
  EXPORT_STALE_CHECK_MS,
  EXPORT_STALE_MS,
} from './export.constants.ts';
import type { ExportFormat, ExportInterval } from './export.constants.ts';
import { jobFileKeys, kindsOf } from './export.jobs.ts';
import { writeExport } from './export.writer.ts';
import { clock } from '../../base/clock.ts';

export interface ExportWorkerDeps {
  prisma: Db;
  config: Config;
  log: Logger;
  jobs: JobQueue;
  /** the database is the embedded one: a single process, so any running job at start is orphaned */
  singleProcess: boolean;
}

const DAY_MS = 86_400_000;

/** Exports as resumable jobs: the export_jobs table and queue; a take-back removes the partial file. */
export const EXPORT_JOBS: ResumableJobSpec<ExportWorkerDeps> = {
  name: 'export',
  queue: EXPORT_QUEUE,
  table: (db) => db.exportJob,
  maxAttempts: EXPORT_MAX_ATTEMPTS,
  staleMs: EXPORT_STALE_MS,
  staleCheckMs: EXPORT_STALE_CHECK_MS,
  restart: { rowsWritten: 0 },
  gaveUp: (attempts) =>
    `interrupted by server restarts ${attempts} times; start a new export (health_export_start), perhaps over a shorter range`,
  takenBack: async (deps, id) => {
    const job = await deps.prisma.exportJob.findUnique({
      where: { id },
      select: { id: true, format: true, fileKey: true },
    });
    for (const key of job ? jobFileKeys(job) : [])
      await removeExportFile(deps.config.DATA_DIR, key);
  },
};

/** Runs one job: claims it, writes its file, records the outcome. */
export async function runExportJob(
  deps: ExportWorkerDeps,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const { prisma, config, log } = deps;
  if (!(await claimJob(prisma, EXPORT_JOBS, id))) return; // done, failed, deleted, or taken
  const job = await prisma.exportJob.findUnique({ where: { id } });
  if (!job) return;
  const key = exportFileKey(job.id, job.format);
  const writer = await openExportFileWriter(config.DATA_DIR, key);
  try {
    const rows = await writeExport(prisma, writer.stream, {
      scope: {
        userId: job.userId,
        from: job.fromAt,
        to: job.toAt,
        zone: job.timeZone,
        metricTypes: job.metricTypes,
      },
      kinds: kindsOf(job),
      format: job.format as ExportFormat,
      interval: job.interval as ExportInterval,
      chunkRows: config.EXPORT_CHUNK_ROWS,
      signal,
      progress: (rowsWritten) => beatJob(prisma, EXPORT_JOBS, id, { rowsWritten }),
    });
    const size = await writer.commit();
    const done = await endJob(prisma, EXPORT_JOBS, id, {
      status: 'ready',
      rowsWritten: rows,
      sizeBytes: BigInt(size),
      fileKey: key,
      expiresAt: new Date(clock.ms() + config.EXPORT_RETENTION_DAYS * DAY_MS),
    });
    // the job went away meanwhile (account deleted): its file must not stay
    if (!done) await removeExportFile(config.DATA_DIR, key);
    await sweepExpiredExports(deps, clock.now());
  } catch (err) {
    await writer.discard();
    // the app is stopping: the next start queues it again
    if (signal.aborted) return requeueStoppedJob(deps, EXPORT_JOBS, id);
    log.error({ err, id }, 'export job failed');
    await endJob(prisma, EXPORT_JOBS, id, {
      status: 'failed',
      error: 'the server could not write the file; start a new export (health_export_start)',
    });
  }
}

/**
 * While the app runs: jobs whose heartbeat is older than EXPORT_STALE_MS (their process died) are
 * queued again, or failed after EXPORT_MAX_ATTEMPTS starts. Answers how many were queued again.
 */
export const checkStaleExports = (deps: ExportWorkerDeps, now: Date): Promise<number> =>
  checkStaleJobs(deps, EXPORT_JOBS, now);

/** Registers the export worker on the app's queue, and the periodic check for orphaned jobs. */
export function registerExportWorker(deps: ExportWorkerDeps): void {
  registerJobWorker(deps, EXPORT_JOBS, (id, signal) => runExportJob(deps, id, signal));
}

/** Deletes finished jobs past their expiry, with their files. */
export async function sweepExpiredExports(deps: ExportWorkerDeps, now: Date): Promise<number> {
  const { prisma, config } = deps;
  const expired = await prisma.exportJob.findMany({
    where: { expiresAt: { lt: now }, status: { in: ['ready', 'failed'] } },
    select: { id: true, format: true, fileKey: true },
  });
  for (const job of expired) {
    for (const key of jobFileKeys(job)) await removeExportFile(config.DATA_DIR, key);
  }
  await prisma.exportJob.deleteMany({ where: { id: { in: expired.map((j) => j.id) } } });
  return expired.length;
}

/**
 * The export worker, its stale-job check, and at start: jobs an earlier run left taken back or
 * queued again, expired jobs deleted (the app's registry).
 */
export const EXPORT_WORK: BackgroundWork<ExportWorkerDeps> = resumableWork(
  EXPORT_JOBS,
  runExportJob,
  async (deps) => {
    await sweepExpiredExports(deps, clock.now());
  },
);
