/** What other domains may use of the goals domain (home reads goals and their progress; sync, its table). */
export { goalProgress, loadDays, periodValue, progressOf } from './goals.progress.ts';
export type { GoalProgressListView, PeriodProgressView } from './goals.progress.ts';
export { dailyTargetsOf, goals } from './goals.service.ts';
export type { GoalView } from './goals.service.ts';
export type { GoalMetric } from './goals.metrics.ts';
export { GOALS_SYNCED_TABLES } from './goals.synced.ts';
