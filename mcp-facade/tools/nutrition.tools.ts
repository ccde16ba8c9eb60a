/** Nutrition: the person's meals, daily totals, logging, editing and deleting meals. */
import type { McpTool } from '../tool.ts';

export const nutritionTools: McpTool[] = [
  // The spec lists no scope: the tool is listed to every token, but the field behind it still
  // requires health:nutrition:read (a token without it gets INSUFFICIENT_SCOPE); it answers health meta.
  { name: 'get_nutrition_meals', operation: 'ListMeals', scopes: [], kind: 'read', healthData: true },
  { name: 'nutrition_meals_list', operation: 'ListMeals', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'nutrition_meal_read', operation: 'GetMeal', scopes: ['health:nutrition:read', 'media:read'], kind: 'read' },
  { name: 'nutrition_daily_read', operation: 'DailyNutrition', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'nutrition_recent_meals_list', operation: 'ListRecentMeals', scopes: ['health:nutrition:read'], kind: 'read' },
  { name: 'nutrition_meal_log', operation: 'LogMeal', scopes: ['health:nutrition:write'], kind: 'write' },
  { name: 'nutrition_meal_update', operation: 'UpdateMeal', scopes: ['health:nutrition:write'], kind: 'write', idempotent: true },
  { name: 'nutrition_meal_delete', operation: 'DeleteMeal', scopes: ['health:nutrition:write'], kind: 'deletes' },
];
