/** Preview scores and suggestions of the read API (/api/v1): a food scored before eating, the next meal. */
import type { RestRoute } from '../route.ts';

export const nutritionPreviewRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/nutrition/preview-score',
    operation: 'foodPreviewScore',
    body: 'input',
    tag: 'nutrition',
  },
  {
    method: 'GET',
    path: '/api/v1/nutrition/suggestion',
    operation: 'mealSuggestion',
    tag: 'nutrition',
  },
];
