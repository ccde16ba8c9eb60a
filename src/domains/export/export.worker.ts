/**
 * The background side of exports (issue 16): the pg-boss worker that writes a job's file, the
 * recovery of jobs a stopped or crashed process left behind, and the expiry sweep.
 *
 * A job is claimed atomically (queued -> running, attempts + 1), so a second delivery of the same
 * job does nothing. While it runs, every chunk records the rows written and a heartbeat. When the
 * app stops mid-job the worker is aborted, its partial file removed and the job set back to
 * queued; a process that died leaves it running without heartbeats. At start, `resumeExports`
 * queues such jobs again (each run rewrites the file from the start) or, after
 * EXPORT_MAX_ATTEMPTS starts, fails them with a reason; while running, every app does the same
 * each EXPORT_STALE_CHECK_MS for jobs whose heartbeat is older than EXPORT_STALE_MS
 * (`checkStaleExports`), so on PostgreSQL a crashed process's job does not wait for a restart.
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
import type { Prisma } from '../../generated/prisma/client.ts';
import {
  EXPORT_MAX_ATTEMPTS,
  EXPORT_QUEUE,
  EXPORT_STALE_CHECK_MS,
  EXPORT_STALE_MS,
} from './export.constants.ts';
import type { ExportFormat, ExportInterval } from './export.constants.ts';
import { jobFileKeys, kindsOf } from './export.jobs.ts';
import { writeExport } from './export.writer.ts';

export interface ExportWorkerDeps {
  prisma: Db;
  config: Config;
  log: Logger;
  jobs: JobQueue;
  /** the database is the embedded one: a single process, so any running job at start is orphaned */
  singleProcess: boolean;
}

const DAY_MS = 86_400_000;

/** Runs one job: claims it, writes its file, records the outcome. */
export async function runExportJob(
  deps: ExportWorkerDeps,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const { prisma, config, log } = deps;
  const claimed = await prisma.exportJob.updateMany({
    where: { id, status: 'queued' },
    data: {
      status: 'running',
      attempts: { increment: 1 },
      startedAt: new Date(),
      heartbeatAt: new Date(),
      rowsWritten: 0,
    },
  });
  if (claimed.count === 0) return; // done, failed, deleted, or another worker has it
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
      progress: async (rowsWritten) => {
        await prisma.exportJob.updateMany({
          where: { id, status: 'running' },
          data: { rowsWritten, heartbeatAt: new Date() },
        });
      },
    });
    const size = await writer.commit();
    const done = await prisma.exportJob.updateMany({
      where: { id, status: 'running' },
      data: {
        status: 'ready',
        rowsWritten: rows,
        sizeBytes: BigInt(size),
        fileKey: key,
        finishedAt: new Date(),
        heartbeatAt: null,
        expiresAt: new Date(Date.now() + config.EXPORT_RETENTION_DAYS * DAY_MS),
      },
    });
    // the job went away meanwhile (account deleted): its file must not stay
    if (done.count === 0) await removeExportFile(config.DATA_DIR, key);
    await sweepExpiredExports(deps, new Date());
  } catch (err) {
    await writer.discard();
    if (signal.aborted) {
      // the app is stopping: the next start queues it again
      await prisma.exportJob
        .updateMany({
          where: { id, status: 'running' },
          data: { status: 'queued', heartbeatAt: null, rowsWritten: 0 },
        })
        .catch((e: unknown) => log.warn({ err: e, id }, 'export left running at stop'));
      return;
    }
    log.error({ err, id }, 'export job failed');
    await prisma.exportJob.updateMany({
      where: { id, status: 'running' },
      data: {
        status: 'failed',
        error: 'the server could not write the file; start a new export (health_export_start)',
        finishedAt: new Date(),
        heartbeatAt: null,
      },
    });
  }
}

/** Registers the export worker on the app's queue, and the periodic check for orphaned jobs. */
export function registerExportWorker(deps: ExportWorkerDeps): void {
  deps.jobs.work(EXPORT_QUEUE, (data, signal) => runExportJob(deps, String(data.id), signal));
  deps.jobs.every(EXPORT_STALE_CHECK_MS, async () => {
    await checkStaleExports(deps, new Date());
  });
}

/**
 * Takes back the running jobs `orphaned` selects: removes the partial file and queues the job
 * again, or fails it after EXPORT_MAX_ATTEMPTS starts. The update repeats the condition, so a job
 * that gave a sign of life meanwhile (or another app took back) is left alone. Answers the ids
 * queued again.
 */
async function takeBackOrphans(
  deps: ExportWorkerDeps,
  now: Date,
  orphaned: Prisma.ExportJobWhereInput,
): Promise<string[]> {
  const { prisma, config } = deps;
  const jobs = await prisma.exportJob.findMany({
    where: { ...orphaned, status: 'running' },
    select: { id: true, attempts: true, format: true, fileKey: true },
  });
  const requeued: string[] = [];
  for (const job of jobs) {
    const giveUp = job.attempts >= EXPORT_MAX_ATTEMPTS;
    const taken = await prisma.exportJob.updateMany({
      where: { ...orphaned, id: job.id, status: 'running' },
      data: giveUp
        ? {
            status: 'failed',
            error: `interrupted by server restarts ${job.attempts} times; start a new export (health_export_start), perhaps over a shorter range`,
            finishedAt: now,
            heartbeatAt: null,
          }
        : { status: 'queued', heartbeatAt: null, rowsWritten: 0 },
    });
    if (taken.count === 0) continue;
    for (const key of jobFileKeys(job)) await removeExportFile(config.DATA_DIR, key);
    if (!giveUp) requeued.push(job.id);
  }
  return requeued;
}

/**
 * While the app runs: jobs whose heartbeat is older than EXPORT_STALE_MS (their process died) are
 * queued again, or failed after EXPORT_MAX_ATTEMPTS starts. Answers how many were queued again.
 */
export async function checkStaleExports(deps: ExportWorkerDeps, now: Date): Promise<number> {
  const stale = { heartbeatAt: { lt: new Date(now.getTime() - EXPORT_STALE_MS) } };
  const requeued = await takeBackOrphans(deps, now, stale);
  for (const id of requeued) await deps.jobs.send(EXPORT_QUEUE, { id });
  return requeued.length;
}

/**
 * At start: deletes expired jobs and their files, takes back jobs left
 * running by a process that is gone, and queues every queued job again (a second delivery of a
 * job is harmless: the claim takes it once). Starts the queue only when there is work.
 */
export async function resumeExports(deps: ExportWorkerDeps): Promise<void> {
  const { prisma } = deps;
  const now = new Date();
  await sweepExpiredExports(deps, now);
  await takeBackOrphans(
    deps,
    now,
    deps.singleProcess
      ? {}
      : {
          OR: [
            { heartbeatAt: null },
            { heartbeatAt: { lt: new Date(now.getTime() - EXPORT_STALE_MS) } },
          ],
        },
  );
  const queued = await prisma.exportJob.findMany({
    where: { status: 'queued' },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
  });
  for (const job of queued) await deps.jobs.send(EXPORT_QUEUE, { id: job.id });
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

/** The export worker, its stale-job check and the restart of jobs an earlier run left (the app's registry). */
export const EXPORT_WORK: BackgroundWork<ExportWorkerDeps> = {
  name: 'export',
  register: registerExportWorker,
  resume: resumeExports,
};
