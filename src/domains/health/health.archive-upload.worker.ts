/**
 * The background side of archive uploads (issue 30): the pg-boss worker that runs the Apple
 * Health importer on an uploaded export.zip, and the recovery of imports a stopped or crashed
 * process left behind.
 *
 * An import is claimed atomically (queued -> running, attempts + 1), so a second delivery of the
 * same job does nothing. While it runs, a timer records the records read and stored and a
 * heartbeat. The importer is idempotent (ON CONFLICT), so an import started again from the top
 * stores nothing twice: when the app stops mid-import the import is set back to queued (its file
 * kept); a process that died leaves it running without heartbeats, and at start
 * (`resumeArchiveImports`) or every ARCHIVE_IMPORT_STALE_CHECK_MS (`checkStaleArchiveImports`) it
 * is queued again, or failed after ARCHIVE_IMPORT_MAX_ATTEMPTS starts. The uploaded file is
 * deleted as soon as the import ends, ready or failed; a file whose import is gone (the account
 * was deleted) is deleted when the worker meets it.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../base/config.ts';
import type { Db } from '../../db/client.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Logger } from '../../base/logger.ts';
import type { BackgroundWork, JobQueue } from '../../platform/jobs.ts';
import { importAppleHealthFile } from './health.apple-import.ts';
import type { AppleHealthImportSummary } from './health.apple-import.ts';
import type { ImportDb } from './health.apple-store.ts';
import {
  ARCHIVE_IMPORT_HEARTBEAT_MS,
  ARCHIVE_IMPORT_MAX_ATTEMPTS,
  ARCHIVE_IMPORT_QUEUE,
  ARCHIVE_IMPORT_STALE_CHECK_MS,
  ARCHIVE_IMPORT_STALE_MS,
  ARCHIVE_UPLOAD_STALE_MS,
  archiveImportDir,
  archiveImportFile,
  removeArchiveImportFile,
  UPLOAD_FILE,
} from './health.archive-upload.ts';
import type { ArchiveImportCountsView } from './health.archive-upload.ts';

export interface ArchiveImportWorkerDeps {
  prisma: Db;
  /** the database the importer writes through (COPY sessions on PostgreSQL) */
  db: ImportDb;
  config: Config;
  log: Logger;
  jobs: JobQueue;
  /** the database is the embedded one: a single process, so any running import at start is orphaned */
  singleProcess: boolean;
}

/** Records read between the importer's progress reports (each is a chance to stop). */
const PROGRESS_EVERY = 5_000;

/** The app is stopping: thrown from the importer's progress report to end the import early. */
class ImportStopped extends Error {}

/** The reason of an import whose export could not be read, saying what to do (no server paths). */
function unreadable(cause: unknown, dir: string): string {
  if ((cause as { code?: string } | null)?.code === 'ENOENT')
    return 'The uploaded file is gone from the server. Upload the export.zip again.';
  const what = String((cause as Error | null)?.message ?? cause)
    .split(`${dir}${path.sep}`)
    .join('')
    .replace(/\s+/g, ' ')
    .slice(0, 200);
  return (
    `The export could not be read (${what}). Export again on the iPhone (Health, profile picture, ` +
    '"Export All Health Data") and upload the new export.zip; records already imported are kept and not stored twice.'
  );
}

const SERVER_FAILED =
  'The server could not finish the import. Upload the same export.zip again to retry; records already imported are kept and not stored twice.';

/** Whether an import failed in the database (ours to fix or retry) rather than on the file. */
function isDatabaseError(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  return (
    (typeof e.name === 'string' &&
      (e.name.startsWith('PrismaClient') ||
        e.name === 'DatabaseError' ||
        e.name === 'DriverAdapterError')) ||
    // PostgreSQL's SQLSTATE codes (pg), Prisma's P-codes, and connection failures
    (typeof e.code === 'string' && /^([0-9A-Z]{5}|P\d{4}|ECONN\w+|ETIMEDOUT)$/.test(e.code))
  );
}

function countsOf(summary: AppleHealthImportSummary): ArchiveImportCountsView {
  return {
    healthMetrics: summary.metrics.inserted,
    sleepSamples: summary.sleep.inserted,
    workoutSamples: summary.workouts.inserted,
    archiveRecords: summary.archive.records,
    archiveWorkouts: summary.archive.workouts,
    archiveRoutePoints: summary.archive.routePoints,
    archiveEcg: summary.archive.ecg,
    alreadyStored: summary.metrics.skipped + summary.sleep.skipped + summary.workouts.skipped,
    missingRouteFiles: summary.archive.missingRouteFiles,
    unreadableEcgFiles: summary.archive.unreadableEcgFiles,
  };
}

/** Rows stored new, every table. */
function storedOf(counts: ArchiveImportCountsView): number {
  return (
    counts.healthMetrics +
    counts.sleepSamples +
    counts.workoutSamples +
    counts.archiveRecords +
    counts.archiveWorkouts +
    counts.archiveRoutePoints +
    counts.archiveEcg
  );
}

/** The figures of a running import that the heartbeat records (the importer updates them). */
interface ImportProgress {
  read: number;
  stored: number;
}

/**
 * Claims a queued import (queued -> running, attempts + 1); false when there is nothing to run,
 * and then deletes the file of an import that is gone.
 */
async function claimImport(deps: ArchiveImportWorkerDeps, id: string): Promise<boolean> {
  const { prisma, config } = deps;
  const claimed = await prisma.healthArchiveImport.updateMany({
    where: { id, status: 'queued' },
    data: {
      status: 'running',
      attempts: { increment: 1 },
      startedAt: new Date(),
      heartbeatAt: new Date(),
      recordsRead: 0,
      recordsStored: 0,
    },
  });
  if (claimed.count > 0) return true;
  // done, failed, or another worker has it; or gone with its account: then its file goes too
  const row = await prisma.healthArchiveImport.findUnique({
    where: { id },
    select: { id: true },
  });
  if (!row) await removeArchiveImportFile(config.DATA_DIR, id);
  return false;
}

/** Starts the timer that records a running import's progress and heartbeat. */
function startHeartbeat(
  deps: ArchiveImportWorkerDeps,
  id: string,
  progress: ImportProgress,
): ReturnType<typeof setInterval> {
  const beat = async (): Promise<void> => {
    await deps.prisma.healthArchiveImport.updateMany({
      where: { id, status: 'running' },
      data: { recordsRead: progress.read, recordsStored: progress.stored, heartbeatAt: new Date() },
    });
  };
  return setInterval(() => {
    beat().catch((err: unknown) => deps.log.warn({ err, id }, 'archive import heartbeat failed'));
  }, ARCHIVE_IMPORT_HEARTBEAT_MS).unref();
}

/** Records how a running import ended (finished now, no heartbeat). */
async function endImport(
  deps: ArchiveImportWorkerDeps,
  id: string,
  data: Prisma.HealthArchiveImportUpdateManyMutationInput,
): Promise<void> {
  await deps.prisma.healthArchiveImport.updateMany({
    where: { id, status: 'running' },
    data: { ...data, finishedAt: new Date(), heartbeatAt: null },
  });
}

/** Records an import that finished: deletes its file, then stores it as ready with its counts. */
async function recordImportReady(
  deps: ArchiveImportWorkerDeps,
  id: string,
  summary: AppleHealthImportSummary,
): Promise<void> {
  // the file goes first: an import that says it ended has no file left
  await removeArchiveImportFile(deps.config.DATA_DIR, id);
  const counts = countsOf(summary);
  await endImport(deps, id, {
    status: 'ready',
    recordsRead: summary.seen,
    recordsStored: storedOf(counts),
    counts: { ...counts },
  });
}

/** Sets an import the stopping app interrupted back to queued (its file stays). */
async function requeueStoppedImport(deps: ArchiveImportWorkerDeps, id: string): Promise<void> {
  await deps.prisma.healthArchiveImport
    .updateMany({
      where: { id, status: 'running' },
      data: { status: 'queued', heartbeatAt: null },
    })
    .catch((e: unknown) => deps.log.warn({ err: e, id }, 'archive import left running at stop'));
}

/** Records an import that failed: logs it, deletes its file, stores the reason to show. */
async function recordImportFailed(
  deps: ArchiveImportWorkerDeps,
  id: string,
  err: unknown,
): Promise<void> {
  const { config, log } = deps;
  const database = isDatabaseError(err);
  if (database) log.error({ err, id }, 'archive import failed');
  else log.info({ err, id }, 'archive import: the export could not be read');
  await removeArchiveImportFile(config.DATA_DIR, id);
  const error = database ? SERVER_FAILED : unreadable(err, archiveImportDir(config.DATA_DIR));
  await endImport(deps, id, { status: 'failed', error }).catch((e: unknown) =>
    log.error({ err: e, id }, 'could not record a failed archive import'),
  );
}

/** Runs one import: claims it, imports its file, records the outcome, deletes the file. */
export async function runArchiveImportJob(
  deps: ArchiveImportWorkerDeps,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  if (!(await claimImport(deps, id))) return;
  const job = await deps.prisma.healthArchiveImport.findUnique({ where: { id } });
  const file = archiveImportFile(deps.config.DATA_DIR, id);
  if (!job || !file) return;
  const progress: ImportProgress = { read: 0, stored: 0 };
  const timer = startHeartbeat(deps, id, progress);
  try {
    const summary = await importAppleHealthFile(deps.db, {
      userId: job.userId,
      file,
      progressEvery: PROGRESS_EVERY,
      onProgressCounts: (p) => {
        if (signal.aborted) throw new ImportStopped('the app is stopping');
        progress.read = p.seen;
        progress.stored = p.stored;
      },
    });
    clearInterval(timer);
    await recordImportReady(deps, id, summary);
  } catch (err) {
    clearInterval(timer);
    // the app is stopping: the next start imports it again (its file stays)
    if (signal.aborted) await requeueStoppedImport(deps, id);
    else await recordImportFailed(deps, id, err);
  }
}

/** Registers the import worker on the app's queue, and the periodic check for orphaned imports. */
export function registerArchiveImportWorker(deps: ArchiveImportWorkerDeps): void {
  deps.jobs.work(ARCHIVE_IMPORT_QUEUE, (data, signal) =>
    runArchiveImportJob(deps, String(data.id), signal),
  );
  deps.jobs.every(ARCHIVE_IMPORT_STALE_CHECK_MS, async () => {
    await checkStaleArchiveImports(deps, new Date());
  });
}

/**
 * Takes back the running imports `orphaned` selects: queues them again (their file is still
 * there), or fails them after ARCHIVE_IMPORT_MAX_ATTEMPTS starts and deletes the file. The update
 * repeats the condition, so an import that gave a sign of life meanwhile is left alone. Answers
 * the ids queued again.
 */
async function takeBackOrphans(
  deps: ArchiveImportWorkerDeps,
  now: Date,
  orphaned: Prisma.HealthArchiveImportWhereInput,
): Promise<string[]> {
  const { prisma, config } = deps;
  const running = await prisma.healthArchiveImport.findMany({
    where: { ...orphaned, status: 'running' },
    select: { id: true, attempts: true },
  });
  const requeued: string[] = [];
  for (const job of running) {
    const giveUp = job.attempts >= ARCHIVE_IMPORT_MAX_ATTEMPTS;
    const taken = await prisma.healthArchiveImport.updateMany({
      where: { ...orphaned, id: job.id, status: 'running' },
      data: giveUp
        ? {
            status: 'failed',
            error: `The import was interrupted by server restarts ${job.attempts} times. Upload the same export.zip again to retry; records already imported are kept and not stored twice.`,
            finishedAt: now,
            heartbeatAt: null,
          }
        : { status: 'queued', heartbeatAt: null },
    });
    if (taken.count === 0) continue;
    if (giveUp) await removeArchiveImportFile(config.DATA_DIR, job.id);
    else requeued.push(job.id);
  }
  return requeued;
}

/**
 * While the app runs: imports whose heartbeat is older than ARCHIVE_IMPORT_STALE_MS (their
 * process died) are queued again, or failed after ARCHIVE_IMPORT_MAX_ATTEMPTS starts. Answers how
 * many were queued again.
 */
export async function checkStaleArchiveImports(
  deps: ArchiveImportWorkerDeps,
  now: Date,
): Promise<number> {
  const stale = { heartbeatAt: { lt: new Date(now.getTime() - ARCHIVE_IMPORT_STALE_MS) } };
  const requeued = await takeBackOrphans(deps, now, stale);
  for (const id of requeued) await deps.jobs.send(ARCHIVE_IMPORT_QUEUE, { id });
  return requeued.length;
}

/**
 * Removes partial uploads nobody has written to for ARCHIVE_UPLOAD_STALE_MS (their request's
 * process died; a live upload writes continuously). Only `upload_<uuid>.partial` names are
 * touched, so several deployments or test apps may share one DATA_DIR. Answers how many went.
 */
export async function sweepAbandonedUploads(dataDir: string, now: Date): Promise<number> {
  const dir = archiveImportDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!UPLOAD_FILE.test(name)) continue;
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && now.getTime() - info.mtimeMs > ARCHIVE_UPLOAD_STALE_MS) {
      await rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}

/**
 * At start: takes back imports left running by a process that is gone, queues every queued import
 * again (a second delivery is harmless: the claim takes it once), and removes abandoned partial
 * uploads. Starts the queue only when there is work.
 */
export async function resumeArchiveImports(deps: ArchiveImportWorkerDeps): Promise<void> {
  const now = new Date();
  await takeBackOrphans(
    deps,
    now,
    deps.singleProcess
      ? {}
      : {
          OR: [
            { heartbeatAt: null },
            { heartbeatAt: { lt: new Date(now.getTime() - ARCHIVE_IMPORT_STALE_MS) } },
          ],
        },
  );
  const queued = await deps.prisma.healthArchiveImport.findMany({
    where: { status: 'queued' },
    select: { id: true },
    orderBy: { createdAt: 'asc' },
  });
  for (const job of queued) await deps.jobs.send(ARCHIVE_IMPORT_QUEUE, { id: job.id });
  await sweepAbandonedUploads(deps.config.DATA_DIR, now);
}

/** The export.zip import worker and the imports an earlier run left (the app's registry). */
export const ARCHIVE_IMPORT_WORK: BackgroundWork<ArchiveImportWorkerDeps> = {
  name: 'health archive import',
  register: registerArchiveImportWorker,
  resume: resumeArchiveImports,
};
