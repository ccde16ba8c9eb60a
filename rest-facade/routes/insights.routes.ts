/** Insights: today's scores, suggestions, predictive glucose alerts and cards, the recorded insights and the weekly digest (docs/scores.md). */
import type { RestRoute } from '../route.ts';

export const insightRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/insights/score', operation: 'insightScore', tag: 'insights' },
  {
    method: 'GET',
    path: '/api/insights/suggestions',
    operation: 'insightSuggestions',
    tag: 'insights',
  },
  {
    method: 'GET',
    path: '/api/insights/predictive-alerts',
    operation: 'predictiveAlerts',
    tag: 'insights',
  },
  { method: 'GET', path: '/api/insights/cards', operation: 'insightCards', tag: 'insights' },
  // the read API (issue 17): the recorded insights and the weekly digest
  { method: 'GET', path: '/api/v1/insights', operation: 'insights', tag: 'insights' },
  { method: 'GET', path: '/api/v1/insights/digest', operation: 'insightsDigest', tag: 'insights' },
  {
    method: 'GET',
    path: '/api/v1/insights/{insight_id}',
    operation: 'insight',
    rename: { insight_id: 'id' },
    tag: 'insights',
  },
];
