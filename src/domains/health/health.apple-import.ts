/**
 * Imports an Apple Health export for one person: streams it through the parser and stores each
 * batch with the same service functions as the REST import (so the same dedupe applies: importing
 * an export twice, or an export overlapping what the phone already sent, stores nothing twice).
 */
import type { Context } from '../../graphql/context.ts';
import { openExport, parseAppleHealth } from './health.apple-parser.ts';
import type { ParseProgress } from './health.apple-parser.ts';
import { importIntervalsFor, importMetricsFor, MAX_IMPORT_SAMPLES } from './health.service.ts';
import type { ImportResult } from './health.service.ts';

export interface ImportAppleHealthFileOptions {
  /** whose data it is (the CLI resolves it from --email) */
  userId: number;
  /** path of export.xml or of the export zip */
  file: string;
  /** samples per stored batch (default 5000, at most MAX_IMPORT_SAMPLES) */
  batchSize?: number;
  /** progress lines (the CLI prints them to stderr) */
  onProgress?: (line: string) => void;
}

export interface AppleHealthImportSummary extends ParseProgress {
  metrics: ImportResult;
  sleep: ImportResult;
  workouts: ImportResult;
}

const add = (a: ImportResult, b: ImportResult): ImportResult => ({
  inserted: a.inserted + b.inserted,
  skipped: a.skipped + b.skipped,
});

/** Imports the export at `file` for `userId`; answers what was read and stored. */
export async function importAppleHealthFile(
  db: Pick<Context, 'prisma'>,
  options: ImportAppleHealthFileOptions,
): Promise<AppleHealthImportSummary> {
  const totals = {
    metrics: { inserted: 0, skipped: 0 },
    sleep: { inserted: 0, skipped: 0 },
    workouts: { inserted: 0, skipped: 0 },
  };
  const input = await openExport(options.file);
  const started = Date.now();
  const parsed = await parseAppleHealth(input, {
    batchSize: Math.min(options.batchSize ?? 5000, MAX_IMPORT_SAMPLES),
    onBatch: async (batch) => {
      totals.metrics = add(
        totals.metrics,
        await importMetricsFor(db, options.userId, { samples: batch.metrics }),
      );
      const intervals = await importIntervalsFor(db, options.userId, {
        sleep: batch.sleep,
        workouts: batch.workouts,
      });
      totals.sleep = add(totals.sleep, intervals.sleep);
      totals.workouts = add(totals.workouts, intervals.workouts);
    },
    onProgress: (p) =>
      options.onProgress?.(
        `read ${p.seen} records (${p.mapped} imported types, ${p.ignored} other) in ${((Date.now() - started) / 1000).toFixed(1)}s; ` +
          `stored ${totals.metrics.inserted + totals.sleep.inserted + totals.workouts.inserted}`,
      ),
  });
  return { ...parsed, ...totals };
}
