/**
 * Imports an Apple Health export for one person: streams it through the parser and stores each
 * batch with the same service functions as the REST import (so the same dedupe applies: importing
 * an export twice, or an export overlapping what the phone already sent, stores nothing twice),
 * and the whole export in the health archive (issue 16): every record, workouts with their
 * statistics, events and routes (GPX files of the export), and the ECG recordings.
 */
import { parseAppleHealth } from './health.apple-parser.ts';
import type { AppleHealthBatch, ParseProgress } from './health.apple-parser.ts';
import { archiveWorkoutId, storeEcgRecording, storeRoutePoints } from './health.apple-archive.ts';
import { openExportSource, parseEcgCsv, parseGpx } from './health.apple-files.ts';
import type { ExportSource } from './health.apple-files.ts';
import { AppleImportStore } from './health.apple-store.ts';
import type { ImportDb } from './health.apple-store.ts';
import { MAX_IMPORT_SAMPLES } from './health.service.ts';
import type { ImportResult } from './health.service.ts';

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

/** A GPX file a workout names, read once the export.xml is done. */
interface RouteFileRef {
  workoutId: string;
  file: string;
  /** the file's place in its workout's list (it picks the route points' seq numbers) */
  index: number;
}

/** One import under way: where it reads and stores, and what it has stored so far. */
interface ImportRun {
  db: ImportDb;
  userId: number;
  source: ExportSource;
  store: AppleImportStore;
  totals: Pick<AppleHealthImportSummary, 'metrics' | 'sleep' | 'workouts'>;
  archive: ArchiveImportCounts;
  routeFiles: RouteFileRef[];
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
  started: number,
): void {
  options.onProgressCounts?.({ ...p, stored: storedSoFar(run) });
  options.onProgress?.(
    `read ${p.seen} records (${p.mapped} imported types, ${p.ignored} other; ${p.archived} archived) in ${((Date.now() - started) / 1000).toFixed(1)}s; ` +
      `stored ${storedSoFar(run)}`,
  );
}

/** Stores the route points of the GPX files the workouts named, counting the files not found. */
async function storeRouteFiles(run: ImportRun): Promise<void> {
  const { source, store, userId, archive } = run;
  for (const ref of run.routeFiles) {
    const input = await source.open(ref.file);
    if (!input) {
      archive.missingRouteFiles += 1;
      continue;
    }
    let seq = (ref.index + 1) * ROUTE_FILE_SEQ;
    await parseGpx(input, async (points) => {
      archive.routePoints += await storeRoutePoints(
        store.execute,
        userId,
        ref.workoutId,
        seq,
        points,
      );
      seq += points.length;
    });
  }
}

/** Stores the export's ECG recordings, counting the files that are not; answers how many were read. */
async function storeEcgFiles(run: ImportRun): Promise<number> {
  const { source, archive } = run;
  const ecgFiles = source
    .list('electrocardiograms')
    .filter((f) => f.toLowerCase().endsWith('.csv'));
  for (const file of ecgFiles) {
    const input = await source.open(file);
    const recording = input ? await parseEcgCsv(input, file) : null;
    if (!recording) archive.unreadableEcgFiles += 1;
    else archive.ecg += await storeEcgRecording(run.db, run.userId, recording);
  }
  return ecgFiles.length;
}

/** Imports the export at `file` for `userId`; answers what was read and stored. */
export async function importAppleHealthFile(
  db: ImportDb,
  options: ImportAppleHealthFileOptions,
): Promise<AppleHealthImportSummary> {
  const { userId } = options;
  const source = await openExportSource(options.file);
  const store = await AppleImportStore.open(db, userId).catch((e: unknown) => {
    source.close();
    throw e;
  });
  const run: ImportRun = {
    db,
    userId,
    source,
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
  };
  const started = Date.now();
  try {
    const parsed = await parseAppleHealth(await source.xml(), {
      batchSize: Math.min(options.batchSize ?? MAX_IMPORT_SAMPLES, MAX_IMPORT_SAMPLES),
      progressEvery: options.progressEvery,
      onBatch: (batch) => storeBatch(run, batch),
      onProgress: (p) => reportProgress(run, options, p, started),
    });
    await storeRouteFiles(run);
    if (run.routeFiles.length > 0)
      options.onProgress?.(`read ${run.routeFiles.length} workout route files`);
    const ecgFiles = await storeEcgFiles(run);
    if (ecgFiles > 0) options.onProgress?.(`read ${ecgFiles} ECG files`);
    return { ...parsed, ...run.totals, archive: run.archive };
  } finally {
    source.close();
    await store.close();
  }
}
