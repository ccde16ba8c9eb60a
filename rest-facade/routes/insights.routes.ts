/** Insights: today's scores, suggestions, predictive glucose alerts and cards (docs/scores.md). */
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
];
