/**
 * What other domains may use of the meals domain (meals with their items and logging one, a saved meal's
 * items, the item input, meal type and nutrient types of the graph, meal totals, photo keys and replacing a meal's photo, the nutrient shape and its arithmetic, its synced tables, and discovery's meals per day).
 */
export {
  meal,
  meals,
  logMeal,
  mealPhotoKeys,
  mealTotalsBetween,
  setMealPhoto,
} from './meals.service.ts';
export type { LogMealOptions, MealTotalsView, MealView } from './meals.service.ts';
export { savedMealItems } from './meals.saved.ts';
export { MEALS_SYNCED_TABLES } from './meals.synced.ts';
export {
  MealItemInput as MealItemInputRef,
  items as mealItemsSchema,
  MealNutrients,
  MealType as MealTypeRef,
} from './meals.schema.ts';
export { FOOD_LOG } from './meals.food-log.ts';
export { MAX_ITEM_GRAMS, resolveItems, scaleNutrients, sumNutrients } from './meals.nutrients.ts';
export type { MealItemInput, Nutrients } from './meals.nutrients.ts';
export { mealItemsExport, mealsExport } from './meals.export-rows.ts';
export { dailyMealsOf } from './meals.daily.ts';
export type { DailyMealsView } from './meals.daily.ts';
