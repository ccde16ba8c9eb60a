/**
 * What other domains may use of the health domain (its readings by range, its kinds of an export
 * file, and its synced tables).
 */
export type { MetricType } from './health.constants.ts';
export {
  metricSamplesBetween,
  sleepEndingBetween,
  sleepEndingBetweenOf,
  workoutsStartingBetween,
} from './health.service.ts';
export { dailyHealth, dailyHealthFor, dailyHealthOf, lastMetricAt } from './health.daily.ts';
// discovery's daily signals (issue 33)
export { dailySleepDetailOf, dailyVitalsOf } from './health.daily-signals.ts';
export type {
  DailyHealthSignalsOptions,
  DailySleepDetailView,
  DailyVitalsView,
} from './health.daily-signals.ts';
export type { DailyHealthOfOptions, DailyHealthOptions, DailyHealthView } from './health.daily.ts';
export { DAILY_SQL_METRICS, dailyValuesSql, TYPED_SOURCES } from './health.daily-sql.ts';
export type { DailySqlMetric } from './health.daily-sql.ts';
export {
  metricBucketsExport,
  metricBucketsOf,
  metricSamplesExport,
  rawMetricChunk,
  sleepExport,
  workoutsExport,
} from './health.export-rows.ts';
export type {
  MetricBucketRow,
  MetricExportScope,
  RawMetricKey,
  RawMetricRow,
} from './health.export-rows.ts';
// the phone's export.zip uploads (issue 30): the app registers the worker; account deletion removes the files
export { ARCHIVE_IMPORT_WORK } from './health.archive-upload.worker.ts';
export { archiveImportIdsWithFiles, removeArchiveImportFile } from './health.archive-upload.ts';
export { HEALTH_SYNCED_TABLES } from './health.synced.ts';
