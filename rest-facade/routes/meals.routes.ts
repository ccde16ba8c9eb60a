/** Meals: list, daily nutrition, edit, delete, photos, AI analyze and the AI meal texts (name, insight, emojis). */
import type { RestRoute } from '../route.ts';

// The fixed paths (/all, /daily_nutrition, /photo) come before /{meal_id}: express matches in order.
export const mealRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/meals/daily_nutrition', operation: 'DailyNutrition', tag: 'meals' },
  { method: 'DELETE', path: '/api/meals/all', operation: 'DeleteAllMeals', tag: 'meals' },
  {
    method: 'POST',
    path: '/api/meals/analyze',
    operation: 'AnalyzeMeal',
    responder: 'multipart',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/suggest_name',
    operation: 'SuggestMealName',
    body: 'input',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/insight',
    operation: 'MealInsight',
    body: 'input',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/emojis',
    operation: 'MealEmojis',
    body: 'input',
    tag: 'meals',
  },
  {
    method: 'POST',
    path: '/api/meals/photo',
    operation: 'CreateMealFromPhoto',
    responder: 'multipart',
    tag: 'meals',
  },
  { method: 'GET', path: '/api/meals', operation: 'ListMeals', tag: 'meals' },
  {
    method: 'PATCH',
    path: '/api/meals/{meal_id}',
    operation: 'UpdateMeal',
    body: 'input',
    tag: 'meals',
  },
  { method: 'DELETE', path: '/api/meals/{meal_id}', operation: 'DeleteMeal', tag: 'meals' },
  {
    method: 'POST',
    path: '/api/meals/{meal_id}/photo',
    operation: 'SetMealPhoto',
    responder: 'multipart',
    tag: 'meals',
  },
  // saved meals and favorites (issue 17): the read API
  {
    method: 'GET',
    path: '/api/v1/nutrition/favorites',
    operation: 'ListFavoriteFoods',
    tag: 'meals',
  },
  {
    method: 'GET',
    path: '/api/v1/nutrition/saved-meals',
    operation: 'ListSavedMeals',
    tag: 'meals',
  },
];
