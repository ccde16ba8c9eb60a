/** Nutrition of the read API (/api/v1): glucose responses of meals and detected meals (issue 17). */
import type { RestRoute } from '../route.ts';

export const nutritionRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/nutrition/meals/{meal_id}/glucose-response',
    operation: 'mealGlucoseResponse',
    rename: { meal_id: 'mealId' },
    tag: 'nutrition',
  },
  {
    method: 'GET',
    path: '/api/v1/nutrition/glucose-responses',
    operation: 'mealGlucoseResponses',
    tag: 'nutrition',
  },
  {
    method: 'GET',
    path: '/api/v1/nutrition/detected-meals',
    operation: 'detectedMeals',
    tag: 'nutrition',
  },
  {
    method: 'POST',
    path: '/api/v1/nutrition/detected-meals/{detected_id}/dismiss',
    operation: 'dismissDetectedMeal',
    rename: { detected_id: 'id' },
    tag: 'nutrition',
  },
];
