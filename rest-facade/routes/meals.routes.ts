/** Meals: list, daily nutrition, edit, delete, photos, AI analyze and the AI meal texts (name, insight, emojis). */
import type { RestRoute } from '../route.ts';

// The fixed paths (/all, /daily_nutrition, /photo) come before /{meal_id}: express matches in order.
export const mealRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/meals/daily_nutrition', operation: 'dailyNutrition', tag: 'meals' },
  { method: 'DELETE', path: '/api/meals/all', operation: 'deleteAllMeals', tag: 'meals' },
  {
    method: 'POST',
    path: '/api/meals/analyze',
    operation: 'analyzeMeal',
    responder: 'multipart',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/suggest_name',
    operation: 'suggestMealName',
    body: 'input',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/insight',
    operation: 'mealInsight',
    body: 'input',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/emojis',
    operation: 'mealEmojis',
    body: 'input',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/photo',
    operation: 'createMealFromPhoto',
    responder: 'multipart',
    photo: 'meal',
    tag: 'meals',
  },
  { method: 'GET', path: '/api/meals', operation: 'meals', tag: 'meals' },
  {
    method: 'PATCH',
    path: '/api/meals/{meal_id}',
    operation: 'updateMeal',
    body: 'input',
    tag: 'meals',
  },
  { method: 'DELETE', path: '/api/meals/{meal_id}', operation: 'deleteMeal', tag: 'meals' },
  {
    method: 'POST',
    path: '/api/meals/{meal_id}/photo',
    operation: 'setMealPhoto',
    responder: 'multipart',
    photo: 'meal',
    tag: 'meals',
  },
  // saved meals and favorites (issue 17): the read API
  {
    method: 'GET',
    path: '/api/v1/nutrition/favorites',
    operation: 'favoriteFoods',
    tag: 'meals',
  },
  {
    method: 'GET',
    path: '/api/v1/nutrition/saved-meals',
    operation: 'savedMeals',
    tag: 'meals',
  },
];
