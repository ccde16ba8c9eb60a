/** Nutrition: the person's meals, daily totals, logging, editing and deleting meals. */
import type { McpTool } from '../tool.ts';

export const nutritionTools: McpTool[] = [
  // The spec lists no scope: the tool is listed to every token, but the field behind it still
  // requires health:nutrition:read (a token without it gets INSUFFICIENT_SCOPE); it answers health meta.
  {
    name: 'get_nutrition_meals',
    title: 'Get meals',
    operation: 'ListMeals',
    scopes: [],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'nutrition_meals_list',
    title: 'List meals',
    operation: 'ListMeals',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'nutrition_meal_read',
    title: 'Read a meal',
    operation: 'GetMeal',
    scopes: ['health:nutrition:read', 'media:read'],
    kind: 'read',
  },
  {
    name: 'nutrition_daily_read',
    title: 'Read daily nutrition totals',
    operation: 'DailyNutrition',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'nutrition_recent_meals_list',
    title: 'List recent meals',
    operation: 'ListRecentMeals',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'nutrition_meal_log',
    title: 'Log a meal',
    operation: 'LogMeal',
    scopes: ['health:nutrition:write'],
    kind: 'write',
  },
  {
    name: 'nutrition_meal_update',
    title: 'Update a meal',
    operation: 'UpdateMeal',
    scopes: ['health:nutrition:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'nutrition_meal_delete',
    title: 'Delete a meal',
    operation: 'DeleteMeal',
    scopes: ['health:nutrition:write'],
    kind: 'deletes',
  },
  {
    name: 'nutrition_meal_name_suggest',
    title: 'Suggest a meal name',
    operation: 'SuggestMealName',
    scopes: ['health:nutrition:write'],
    kind: 'write',
  },
  {
    name: 'meal_insight_read',
    title: 'Read an AI insight about a meal',
    operation: 'MealInsight',
    scopes: ['health:nutrition:read'],
    kind: 'read',
  },
  {
    name: 'nutrition_meal_analyze',
    title: 'Analyze a meal from photos or a description',
    operation: 'AnalyzeMealFromData',
    scopes: ['health:nutrition:write'],
    kind: 'write',
  },
  // glucose responses and detected meals (issue 17)
  {
    name: 'meal_glucose_response_read',
    title: 'Read the glucose response of meals',
    operation: 'ListMealGlucoseResponses',
    scopes: ['health:glucose:read'],
    kind: 'read',
  },
  {
    name: 'meal_detected_list',
    title: 'List detected meals',
    operation: 'ListDetectedMeals',
    scopes: ['health:glucose:read'],
    kind: 'read',
  },
  {
    name: 'meal_detected_dismiss',
    title: 'Dismiss a detected meal',
    operation: 'DismissDetectedMeal',
    scopes: ['health:nutrition:write'],
    kind: 'write',
    idempotent: true,
  },
];
