/** Insights: today's scores, suggestions, predictive glucose alerts and cards, the recorded insights and the weekly digest (docs/scores.md). */
import type { RestRoute } from '../route.ts';

export const insightRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/insights/score', operation: 'GetScores', tag: 'insights' },
  {
    method: 'GET',
    path: '/api/insights/suggestions',
    operation: 'InsightSuggestions',
    tag: 'insights',
  },
  {
    method: 'GET',
    path: '/api/insights/predictive-alerts',
    operation: 'PredictiveAlerts',
    tag: 'insights',
  },
  { method: 'GET', path: '/api/insights/cards', operation: 'InsightCards', tag: 'insights' },
  // the read API (issue 17): the recorded insights and the weekly digest
  { method: 'GET', path: '/api/v1/insights', operation: 'ListInsights', tag: 'insights' },
  { method: 'GET', path: '/api/v1/insights/digest', operation: 'InsightsDigest', tag: 'insights' },
  {
    method: 'GET',
    path: '/api/v1/insights/{insight_id}',
    operation: 'GetInsight',
    rename: { insight_id: 'id' },
    tag: 'insights',
  },
];
