/** Foods: the catalogue (search, stats, barcode, core bundle, full match, detail) and recommendations. */
import type { RestRoute } from '../route.ts';

export const foodRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/foods/search', operation: 'SearchFoods', tag: 'foods' },
  { method: 'GET', path: '/api/foods/stats', operation: 'FoodStats', tag: 'foods' },
  {
    method: 'GET',
    path: '/api/foods/recommendations',
    operation: 'FoodRecommendations',
    tag: 'foods',
  },
  { method: 'GET', path: '/api/foods/barcode/{code}', operation: 'FoodsByBarcode', tag: 'foods' },
  // built once, served from memory with a strong ETag, 304 and gzip (docs/foods.md)
  {
    method: 'GET',
    path: '/api/foods/core-bundle',
    operation: 'FoodCoreBundle',
    responder: 'cached',
    tag: 'foods',
  },
  {
    method: 'GET',
    path: '/api/foods/{fdc_id}/full-match',
    operation: 'FoodFullMatch',
    tag: 'foods',
  },
  { method: 'GET', path: '/api/foods/{fdc_id}', operation: 'GetFood', tag: 'foods' },
];
