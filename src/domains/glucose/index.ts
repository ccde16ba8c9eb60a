/** What other domains may use of the glucose domain (readings as points or as bare series, trend statistics, synced tables). */
export { glucosePoints, glucoseSeries } from './glucose.service.ts';
export type { GlucoseSeriesPoint, ReadingWindow } from './glucose.service.ts';
export { GMI_MIN_DAYS, trendStats } from './glucose.stats.ts';
export type { StatPoint, TrendStats } from './glucose.stats.ts';
export { glucoseAggregate, glucoseCountsOf, rawSamples, rawSamplesJson } from './glucose.admin.ts';
export type {
  GlucoseAggregateView,
  PersonGlucoseCountsView,
  RawSampleKey,
  RawSampleView,
} from './glucose.admin.ts';
export {
  dailyGlucoseStatsOf,
  dailyTimeInRange,
  dailyTimeInRangeOf,
  dailyTimeInRangeSql,
  glucoseWindow,
  TIME_IN_RANGE_MG_DL,
} from './glucose.daily.ts';
export type {
  DailyGlucoseStatsView,
  DailyGlucoseView,
  GlucoseWindowView,
} from './glucose.daily.ts';
export { glucoseBucketsExport, glucoseReadingsExport } from './glucose.export-rows.ts';
export { GLUCOSE_SYNCED_TABLES } from './glucose.synced.ts';
export { onGlucoseStored } from './glucose.arrivals.ts';
export type {
  GlucoseArrival,
  GlucoseArrivalDeps,
  GlucoseArrivalListener,
} from './glucose.arrivals.ts';
