/** What other domains may use of the glucose domain (readings as points, trend statistics). */
export { glucosePoints } from './glucose.service.ts';
export { trendStats } from './glucose.stats.ts';
export type { StatPoint, TrendStats } from './glucose.stats.ts';
