/** What other domains may use of the foods domain (the catalogue foods a meal item names). */
export { loadCatalogueFoods } from './foods.item-lookup.ts';
export type { ItemFood } from './foods.item-lookup.ts';
