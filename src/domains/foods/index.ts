/**
 * What other domains may use of the foods domain: the catalogue foods a meal item names, and the
 * barcode normalisation (GTIN-14). The catalogue's search is reached through its GraphQL field
 * (foodSearch), not from here: foods.service reads the meals domain's food log, and the meals
 * domain reads catalogue foods through this index, so exporting it would close an import cycle.
 */
export { loadCatalogueFoods } from './foods.item-lookup.ts';
export type { ItemFood } from './foods.item-lookup.ts';
export { normaliseGtin } from './foods.gtin.ts';
export { browseCatalogue } from './foods.admin.ts';
export type { CatalogueRowView } from './foods.admin.ts';
