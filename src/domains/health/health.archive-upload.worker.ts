/**
 * The background side of archive uploads (issue 30): the pg-boss worker that runs the Apple
 * Health importer on an uploaded export.zip.
 *
 * An import is a resumable job (src/platform/resumable-jobs.ts: claimed once, back to queued at
 * stop, taken back when its process died, failed after ARCHIVE_IMPORT_MAX_ATTEMPTS starts). While
 * it runs, a timer records the records read and stored with the heartbeat. The importer is
 * idempotent (ON CONFLICT), so an import started again from the top stores nothing twice, and its
 * file is kept until it ends. The uploaded file is deleted as soon as the import ends, ready or
 * failed; a file whose import is gone (the account was deleted) is deleted when the worker meets it.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../base/config.ts';
import type { Db } from '../../db/client.ts';
import type { Logger } from '../../base/logger.ts';
import type { BackgroundWork, JobQueue } from '../../platform/jobs.ts';
import {
  beatJob,
  checkStaleJobs,
  claimJob,
  endJob,
  requeueStoppedJob,
  resumableWork,
  resumeJobs,
} from '../../platform/resumable-jobs.ts';
import type { ResumableJobSpec } from '../../platform/resumable-jobs.ts';
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
import { clock } from '../../base/clock.ts';

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

/** Archive imports as resumable jobs: a take-back that gives up deletes the uploaded file. */
export const ARCHIVE_IMPORT_JOBS: ResumableJobSpec<ArchiveImportWorkerDeps> = {
  name: 'archive import',
  queue: ARCHIVE_IMPORT_QUEUE,
  table: (db) => db.healthArchiveImport,
  maxAttempts: ARCHIVE_IMPORT_MAX_ATTEMPTS,
  staleMs: ARCHIVE_IMPORT_STALE_MS,
  staleCheckMs: ARCHIVE_IMPORT_STALE_CHECK_MS,
  restart: { recordsRead: 0, recordsStored: 0 },
  gaveUp: (attempts) =>
    `The import was interrupted by server restarts ${attempts} times. Upload the same export.zip again to retry; records already imported are kept and not stored twice.`,
  takenBack: async (deps, id, gaveUp) => {
    if (gaveUp) await removeArchiveImportFile(deps.config.DATA_DIR, id);
  },
};

/**
 * Claims a queued import; false when there is nothing to run, and then deletes the file of an
 * import that is gone.
 */
async function claimImport(deps: ArchiveImportWorkerDeps, id: string): Promise<boolean> {
  const { prisma, config } = deps;
  if (await claimJob(prisma, ARCHIVE_IMPORT_JOBS, id)) return true;
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
  const beat = (): Promise<void> =>
    beatJob(deps.prisma, ARCHIVE_IMPORT_JOBS, id, {
      recordsRead: progress.read,
      recordsStored: progress.stored,
    });
  return setInterval(() => {
    beat().catch((err: unknown) => deps.log.warn({ err, id }, 'archive import heartbeat failed'));
  }, ARCHIVE_IMPORT_HEARTBEAT_MS).unref();
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
  await endJob(deps.prisma, ARCHIVE_IMPORT_JOBS, id, {
    status: 'ready',
    recordsRead: summary.seen,
    recordsStored: storedOf(counts),
    counts: { ...counts },
  });
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
  await endJob(deps.prisma, ARCHIVE_IMPORT_JOBS, id, { status: 'failed', error }).catch(
    (e: unknown) => log.error({ err: e, id }, 'could not record a failed archive import'),
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
    if (signal.aborted) await requeueStoppedJob(deps, ARCHIVE_IMPORT_JOBS, id);
    else await recordImportFailed(deps, id, err);
  }
}

/**
 * While the app runs: imports whose heartbeat is older than ARCHIVE_IMPORT_STALE_MS (their
 * process died) are queued again (their file is still there), or failed after
 * ARCHIVE_IMPORT_MAX_ATTEMPTS starts. Answers how many were queued again.
 */
export const checkStaleArchiveImports = (
  deps: ArchiveImportWorkerDeps,
  now: Date,
): Promise<number> => checkStaleJobs(deps, ARCHIVE_IMPORT_JOBS, now);

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
 * uploads.
 */
export async function resumeArchiveImports(deps: ArchiveImportWorkerDeps): Promise<void> {
  await resumeJobs(deps, ARCHIVE_IMPORT_JOBS);
  await sweepAbandonedUploads(deps.config.DATA_DIR, clock.now());
}

/** The export.zip import worker and the imports an earlier run left (the app's registry). */
export const ARCHIVE_IMPORT_WORK: BackgroundWork<ArchiveImportWorkerDeps> = resumableWork(
  ARCHIVE_IMPORT_JOBS,
  runArchiveImportJob,
  (deps) => sweepAbandonedUploads(deps.config.DATA_DIR, clock.now()).then(() => undefined),
);
