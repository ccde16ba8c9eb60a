/**
 * What other domains may use of the meals domain (meal totals, photo keys and replacing a meal's
 * photo, the nutrient shape and its arithmetic).
 */
export { mealPhotoKeys, mealTotalsBetween, setMealPhoto } from './meals.service.ts';
export type { MealTotalsView, MealView } from './meals.service.ts';
export { foodLoggersSql, foodLogSql } from './meals.food-log.ts';
export { scaleNutrients, sumNutrients } from './meals.nutrients.ts';
export type { Nutrients } from './meals.nutrients.ts';
