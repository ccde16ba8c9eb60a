/**
 * What other domains may use of the insights domain (the admin API's insight trigger), and its
 * background work for the server's registry (issue 33).
 */
export { insightsOfPerson } from './insights.admin.ts';
export type { PersonInsightsView } from './insights.admin.ts';
export { InsightCard, Suggestions } from './insights.schema.ts';
export { HIGH_MG_DL, LOW_MG_DL, PREDICTION_HORIZON_MINUTES } from './insights.rules.ts';
export { SCORE_KINDS } from './insights.scores.ts';
export { activitySleepScoresOf, insightScore } from './insights.service.ts';
export type { ActivitySleepScores } from './insights.service.ts';
export { INSIGHTS_DELIVERY_WORK } from './insights.delivery.ts';
