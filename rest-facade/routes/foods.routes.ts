/** Foods: the catalogue (search, stats, barcode, core bundle, full match, detail) and recommendations. */
import type { RestRoute } from '../route.ts';

export const foodRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/foods/search', operation: 'foodSearch', tag: 'foods' },
  { method: 'GET', path: '/api/foods/stats', operation: 'foodStats', tag: 'foods' },
  {
    method: 'GET',
    path: '/api/foods/recommendations',
    operation: 'foodRecommendations',
    tag: 'foods',
  },
  { method: 'GET', path: '/api/foods/barcode/{code}', operation: 'foodsByBarcode', tag: 'foods' },
  // built once, served from memory with a strong ETag, 304 and gzip (docs/foods.md)
  {
    method: 'GET',
    path: '/api/foods/core-bundle',
    operation: 'foodCoreBundle',
    responder: 'cached',
    tag: 'foods',
  },
  {
    method: 'GET',
    path: '/api/foods/{fdc_id}/full-match',
    operation: 'foodFullMatch',
    tag: 'foods',
  },
  { method: 'GET', path: '/api/foods/{fdc_id}', operation: 'food', tag: 'foods' },
];
