/** What other domains may use of the goals domain (home reads goals and their progress). */
export {
  GOAL_DIRECTIONS,
  GOAL_METRICS,
  GOAL_PERIODS,
  GOAL_TARGET_MAX,
  GOAL_TARGET_MIN,
} from './goals.metrics.ts';
export { goalProgress, loadDays, periodValue, progressOf } from './goals.progress.ts';
export type { GoalProgressListView, PeriodProgressView } from './goals.progress.ts';
export { listGoals } from './goals.service.ts';
export type { GoalView } from './goals.service.ts';
