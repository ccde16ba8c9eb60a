/**
 * What other domains may use of the foods domain: the catalogue foods a meal item names, the
 * barcode normalisation (GTIN-14), the catalogue browse for admins, and the catalogue's searches,
 * which rank by a log of what people ate that the caller gives (FoodLogSource: the meals domain's
 * meal items, so the catalogue knows no meal), with their graph types.
 */
export { loadCatalogueFoods } from './foods.item-lookup.ts';
export type { ItemFood } from './foods.item-lookup.ts';
export { normaliseGtin } from './foods.gtin.ts';
export { browseCatalogue } from './foods.admin.ts';
export type { CatalogueRowView } from './foods.admin.ts';
export { foodHistory, foodRecommendations, foodsByBarcode, foodSearch } from './foods.service.ts';
export type { FoodLogSource, FoodSummaryView } from './foods.service.ts';
export { FoodHistoryEntry, FoodSummary } from './foods.schema.ts';
