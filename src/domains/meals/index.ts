/** What other domains may use of the meals domain (meal totals, photo keys, the nutrient shape). */
export { mealPhotoKeys, mealTotalsBetween } from './meals.service.ts';
export type { MealTotalsView } from './meals.service.ts';
export { foodLoggersSql, foodLogSql } from './meals.food-log.ts';
export type { Nutrients } from './meals.nutrients.ts';
