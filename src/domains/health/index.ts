/** What other domains may use of the health domain (its constants and its readings by range). */
export { METRIC_TYPES, SLEEP_STAGES } from './health.constants.ts';
export type { MetricType } from './health.constants.ts';
export {
  metricSamplesBetween,
  sleepEndingBetween,
  workoutsStartingBetween,
} from './health.service.ts';
export { dailyHealth, lastMetricAt } from './health.daily.ts';
export type { DailyHealthOptions, DailyHealthView } from './health.daily.ts';
export {
  metricBucketsOf,
  metricBucketsText,
  rawMetricChunk,
  rawMetricChunkText,
} from './health.export-rows.ts';
export type {
  ExportTextChunk,
  ExportTextFormat,
  MetricBucketRow,
  MetricExportScope,
  RawMetricKey,
  RawMetricRow,
  RawMetricTextKey,
} from './health.export-rows.ts';
