/**
 * What other domains use of the logs domain (insights' blood-pressure and sun scores, goals'
 * hydration, health's activity trend's logged weights, discovery's daily signals, sync's tables
 * and the journal's time rule).
 */
export { bloodPressureBetween } from './logs.blood-pressure.ts';
export { dailyHydration, dailyLogSignalsOf, dailyWeights } from './logs.daily.ts';
export type {
  DailyBloodPressureView,
  DailyHydrationView,
  DailyLogEntryView,
  DailyLogSignalsView,
  DailyWeightView,
  FirstLogView,
} from './logs.daily.ts';
export { sunSessionsBetween } from './logs.entries.ts';
export { bloodPressureExport, logEntriesExport } from './logs.export-rows.ts';
export { LOGS_SYNCED_TABLES } from './logs.synced.ts';
// the journal's time rule is the logs tools' (sync.tables.ts, issue 47)
export { loggedAtIssue } from './logs.kinds.ts';
