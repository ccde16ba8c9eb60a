/**
 * Imports an Apple Health export for one person: stores each batch the parser reads with the same
 * service functions as the REST import (so the same dedupe applies: importing an export twice, or
 * an export overlapping what the phone already sent, stores nothing twice), and the whole export in
 * the health archive (issue 16): every record, workouts with their statistics, events and routes
 * (GPX files of the export), and the ECG recordings.
 *
 * NOTE: the export is an untrusted file (the phone uploads it, issue 30): it is read only by the
 * job health.apple-read.job.ts in a worker thread of the file-job pool, within a time and a memory
 * budget (issue 45). This module never parses it; it stores what the job sends through a
 * MessagePort, one message at a time, and acknowledges each once stored (the job's backpressure).
 * When storing fails it closes the port, which ends the job; when the job fails, runs out of time
 * or memory, the import fails with the reason.
 */
import { MessageChannel } from 'node:worker_threads';
import { FileJobError, fileJobModule, runFileJob } from '../../platform/file-workers.ts';
import type { FileJobKind } from '../../platform/file-workers.ts';
import type { AppleHealthBatch, ParseProgress } from './health.apple-parser.ts';
import { archiveWorkoutId, storeEcgRecording, storeRoutePoints } from './health.apple-archive.ts';
import { ArchiveRecordColumns } from './health.apple-records.ts';
import type {
  AppleReadInput,
  AppleReadMessage,
  AppleReadSummary,
} from './health.apple-read.job.ts';
import { AppleImportStore } from './health.apple-store.ts';
import type { ImportDb } from './health.apple-store.ts';
import { MAX_IMPORT_SAMPLES } from './health.service.ts';
import type { ImportResult } from './health.service.ts';
import { clock } from '../../base/clock.ts';

export interface ImportAppleHealthFileOptions {
  /** whose data it is (the CLI resolves it from --email) */
  userId: number;
  /** path of export.xml (its folder holds workout-routes/ and electrocardiograms/) or of the export zip */
  file: string;
  /** samples per stored batch (default and most: MAX_IMPORT_SAMPLES) */
  batchSize?: number;
  /** progress lines (the CLI prints them to stderr) */
  onProgress?: (line: string) => void;
  /** every progress line's figures, for callers that count rather than print */
  onProgressCounts?: (progress: ParseProgress & { stored: number }) => void;
  /** records between progress reports (default 50,000) */
  progressEvery?: number;
  /** the reading job's budget, for tests (defaults: APPLE_IMPORT_TIMEOUT_MS, APPLE_IMPORT_HEAP_MB) */
  limits?: { timeoutMs?: number; maxHeapMb?: number };
}

export interface ArchiveImportCounts {
  /** archive records (all types, correlations, workout events, activity summaries) stored new */
  records: number;
  /** archive workouts stored new */
  workouts: number;
  /** route points stored new (GPX files and inline locations) */
  routePoints: number;
  /** route files referenced by a workout but not found in the export */
  missingRouteFiles: number;
  /** ECG recordings stored new */
  ecg: number;
  /** ECG files that were not readable ECG exports */
  unreadableEcgFiles: number;
}

export interface AppleHealthImportSummary extends ParseProgress {
  metrics: ImportResult;
  sleep: ImportResult;
  workouts: ImportResult;
  archive: ArchiveImportCounts;
}

const add = (a: ImportResult, b: ImportResult): ImportResult => ({
  inserted: a.inserted + b.inserted,
  skipped: a.skipped + b.skipped,
});

/** Route points of one GPX file get seq numbers from (file index + 1) x this (inline ones from 0). */
const ROUTE_FILE_SEQ = 10_000_000;

/**
 * The reading job's wall-clock budget, from its start to its last message stored (storing
 * included: the job waits for each store). The largest export measured, 500 MB of export.xml
 * (1.66 million records), imports in about a minute on PostgreSQL and 2 minutes on the embedded
 * database (docs/benchmarks.md), so 30 minutes holds an export of several GB.
 */
export const APPLE_IMPORT_TIMEOUT_MS = 30 * 60_000;
/**
 * The reading job's V8 heap, MB. The job holds the batch it fills and the one being stored (at
 * most MAX_IMPORT_SAMPLES elements each): a 100 MB export.xml (250,000 records) parsed with a heap
 * of 24 MB; 128 leaves five times that for exports with larger elements, and caps what a hostile
 * one (a 100 MB attribute) costs before its thread is ended.
 */
export const APPLE_IMPORT_HEAP_MB = 128;

const READ_JOB = fileJobModule(import.meta.url, './health.apple-read.job');

/** The reading job's kind: a heap limit of its own is a pool of its own (a pool has one limit). */
function readJobKind(limits: ImportAppleHealthFileOptions['limits']): FileJobKind {
  const maxHeapMb = limits?.maxHeapMb ?? APPLE_IMPORT_HEAP_MB;
  return {
    name:
      maxHeapMb === APPLE_IMPORT_HEAP_MB
        ? 'apple-health-export'
        : `apple-health-export-${maxHeapMb}mb`,
    module: READ_JOB,
    timeoutMs: limits?.timeoutMs ?? APPLE_IMPORT_TIMEOUT_MS,
    maxHeapMb,
  };
}

/** A GPX file a workout names, read once the export.xml is done. */
interface RouteFileRef {
  workoutId: string;
  file: string;
  /** the file's place in its workout's list (it picks the route points' seq numbers) */
  index: number;
}

/** One import under way: where it stores, and what it has stored so far. */
interface ImportRun {
  db: ImportDb;
  userId: number;
  store: AppleImportStore;
  totals: Pick<AppleHealthImportSummary, 'metrics' | 'sleep' | 'workouts'>;
  archive: ArchiveImportCounts;
  /** the route files the workouts named, in the order the job reads them (its `ref`s) */
  routeFiles: RouteFileRef[];
  /** clock.ms() at the start, for the progress lines */
  started: number;
}

/** Rows stored new so far (the figure the progress reports give). */
function storedSoFar(run: ImportRun): number {
  const { totals, archive } = run;
  return (
    totals.metrics.inserted +
    totals.sleep.inserted +
    totals.workouts.inserted +
    archive.records +
    archive.workouts
  );
}

/** Stores one parsed batch (samples, archive records, workouts) and notes its workouts' route files. */
async function storeBatch(run: ImportRun, batch: AppleHealthBatch): Promise<void> {
  const { store, totals, archive } = run;
  // a class does not survive the thread boundary: its columns do
  batch.archive.records = Object.assign(new ArchiveRecordColumns(), batch.archive.records);
  // NOTE: metrics and intervals one after the other: both take the account's sync clock,
  // which stays locked until each transaction commits, so in parallel one would only wait.
  const synced = async () => {
    const metrics = await store.metrics(batch.metrics);
    const intervals = await store.intervals(batch);
    return { metrics, intervals };
  };
  const [{ metrics, intervals }, records, workouts] = await Promise.all([
    synced(),
    store.records(batch.archive.records),
    store.workouts(batch.archive.workouts),
  ]);
  totals.metrics = add(totals.metrics, metrics);
  totals.sleep = add(totals.sleep, intervals.sleep);
  totals.workouts = add(totals.workouts, intervals.workouts);
  archive.records += records + workouts.events;
  archive.workouts += workouts.workouts;
  archive.routePoints += workouts.points;
  for (const w of batch.archive.workouts) {
    w.routeFiles.forEach((file, index) =>
      run.routeFiles.push({ workoutId: archiveWorkoutId(run.userId, w), file, index }),
    );
  }
}

/** Passes one progress report on: its figures, and the line the CLI prints. */
function reportProgress(
  run: ImportRun,
  options: ImportAppleHealthFileOptions,
  p: ParseProgress,
): void {
  options.onProgressCounts?.({ ...p, stored: storedSoFar(run) });
  options.onProgress?.(
    `read ${p.seen} records (${p.mapped} imported types, ${p.ignored} other; ${p.archived} archived) in ${((clock.ms() - run.started) / 1000).toFixed(1)}s; ` +
      `stored ${storedSoFar(run)}`,
  );
}

/** Stores some route points of a GPX file (the job sends a file's points in batches). */
async function storeRoute(
  run: ImportRun,
  message: Extract<AppleReadMessage, { type: 'route' }>,
): Promise<void> {
  const ref = run.routeFiles[message.ref];
  if (ref?.file !== message.file) {
    throw new Error(`the reading job sent route file ${message.ref} out of order`);
  }
  run.archive.routePoints += await storeRoutePoints(
    run.store.execute,
    run.userId,
    ref.workoutId,
    (ref.index + 1) * ROUTE_FILE_SEQ + message.from,
    message.points,
  );
}

/** Stores what one message of the reading job carries. */
async function storeMessage(
  run: ImportRun,
  options: ImportAppleHealthFileOptions,
  message: AppleReadMessage,
): Promise<void> {
  switch (message.type) {
    case 'batch':
      return storeBatch(run, message.batch);
    case 'progress':
      return reportProgress(run, options, message.progress);
    case 'route':
      return storeRoute(run, message);
    case 'route-missing':
      run.archive.missingRouteFiles += 1;
      return;
    case 'ecg':
      if (!message.recording) run.archive.unreadableEcgFiles += 1;
      else run.archive.ecg += await storeEcgRecording(run.db, run.userId, message.recording);
      return;
    case 'end':
      return;
  }
}

const budget = (ms: number): string =>
  ms >= 60_000 ? `${Math.round(ms / 60_000)} minutes` : `${ms} ms`;

/** The pool's reason in the importer's words (an archive import shows it to the person). */
function readFailure(err: unknown, kind: FileJobKind): unknown {
  if (!(err instanceof FileJobError)) return err;
  switch (err.code) {
    case 'timeout':
      return new FileJobError(
        'timeout',
        `reading the export took longer than ${budget(kind.timeoutMs)}`,
      );
    case 'memory':
      return new FileJobError(
        'memory',
        `reading the export needed more than ${kind.maxHeapMb} MB of memory`,
      );
    case 'busy':
      return new FileJobError('busy', 'too many exports are being read at once; try again later');
    default:
      return err;
  }
}

/**
 * Runs the reading job on the export and stores what it sends, one message at a time, in order,
 * each acknowledged once stored. Answers the job's summary.
 */
async function readAndStore(
  run: ImportRun,
  options: ImportAppleHealthFileOptions,
): Promise<AppleReadSummary> {
  const kind = readJobKind(options.limits);
  const { port1, port2 } = new MessageChannel();
  // a holder, not variables: the compiler does not follow assignments made in the handler
  const state: { failure: { error: unknown } | null; ended: boolean } = {
    failure: null,
    ended: false,
  };
  let storing = Promise.resolve();
  port1.on('message', (message: AppleReadMessage) => {
    storing = storing.then(async () => {
      if (state.failure || state.ended) return;
      try {
        await storeMessage(run, options, message);
        if (message.type !== 'progress') port1.postMessage('stored');
      } catch (error) {
        state.failure = { error };
        // NOTE: closing the port ends the job (health.apple-read.job.ts): nothing reads on
        port1.close();
      }
    });
  });
  const input: AppleReadInput = {
    file: options.file,
    batchSize: Math.min(options.batchSize ?? MAX_IMPORT_SAMPLES, MAX_IMPORT_SAMPLES),
    progressEvery: options.progressEvery,
    port: port2,
  };
  let summary: AppleReadSummary | null = null;
  let jobError: unknown = null;
  try {
    summary = await runFileJob<AppleReadInput, AppleReadSummary>(kind, input, [port2]);
  } catch (err) {
    jobError = err;
  }
  state.ended = true;
  port1.close();
  // a store under way finishes before the caller closes the store
  await storing;
  // storing failed first: the job's own end (it saw the port close) is only the echo of that
  if (state.failure) throw state.failure.error;
  if (!summary) throw readFailure(jobError, kind);
  return summary;
}

/** Imports the export at `file` for `userId`; answers what was read and stored. */
export async function importAppleHealthFile(
  db: ImportDb,
  options: ImportAppleHealthFileOptions,
): Promise<AppleHealthImportSummary> {
  const { userId } = options;
  const store = await AppleImportStore.open(db, userId);
  const run: ImportRun = {
    db,
    userId,
    store,
    totals: {
      metrics: { inserted: 0, skipped: 0 },
      sleep: { inserted: 0, skipped: 0 },
      workouts: { inserted: 0, skipped: 0 },
    },
    archive: {
      records: 0,
      workouts: 0,
      routePoints: 0,
      missingRouteFiles: 0,
      ecg: 0,
      unreadableEcgFiles: 0,
    },
    routeFiles: [],
    started: clock.ms(),
  };
  try {
    const { routeFiles, ecgFiles, ...parsed } = await readAndStore(run, options);
    if (routeFiles > 0) options.onProgress?.(`read ${routeFiles} workout route files`);
    if (ecgFiles > 0) options.onProgress?.(`read ${ecgFiles} ECG files`);
    return { ...parsed, ...run.totals, archive: run.archive };
  } finally {
    await store.close();
  }
}
