/**
 * The meals domain's synced tables: meals, their items, saved meals and favorites. Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md).
 */
import type { DbTx } from '../../db/client.ts';
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncDeletion, SyncedColumn } from '../../platform/synced-tables.ts';
import { MAX_ITEM_GRAMS } from './meals.nutrients.ts';

/** The six amounts a meal (its totals) and a meal item carry, kcal and grams. */
const NUTRIENT_COLUMNS: readonly SyncedColumn[] = [
  'kcal',
  'protein_g',
  'carbs_g',
  'fat_g',
  'fiber_g',
  'sugar_g',
].map((name) => ({ wire: name, db: name, type: 'float', notNull: true, default: 0, min: 0 }));

/** What a meal item and a saved meal's item carry besides the id of what holds them. */
const ITEM_COLUMNS: readonly SyncedColumn[] = [
  { wire: 'food_id', db: 'food_id', type: 'text' },
  { wire: 'name', db: 'name', type: 'text', notNull: true, required: true },
  {
    wire: 'grams',
    db: 'grams',
    type: 'float',
    notNull: true,
    required: true,
    min: 0,
    max: MAX_ITEM_GRAMS,
  },
  { wire: 'portion', db: 'portion', type: 'text' },
  ...NUTRIENT_COLUMNS,
];

/**
 * Meals deleted through sync (the push's onDeleted): they let go of their photos in the push's
 * transaction, and the push removes the files once it has committed, as deleteMeal does. The meal's
 * sync stamp is left alone: the photo is not a synced column.
 */
async function releaseDeletedMealPhotos(
  tx: DbTx,
  { userId, ids }: SyncDeletion,
): Promise<string[]> {
  const released = await tx.$queryRaw<{ key: string }[]>`
    WITH gone AS (
      SELECT id, photo_key FROM meals
       WHERE user_id = ${userId}::int AND id = ANY(${ids}::text[]) AND photo_key IS NOT NULL)
    UPDATE meals m SET photo_key = NULL FROM gone WHERE m.id = gone.id
    RETURNING gone.photo_key AS key`;
  return released.map((r) => r.key);
}

export const MEALS_SYNCED_TABLES = [
  // Meals (docs/meals.md).
  defineSyncedTable({
    // the photo (photo_key) is not synced: a pushed record must never name a stored file (docs/meals.md)
    table: 'meals',
    sqlTable: 'meals',
    model: 'Meal',
    since: 4,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'meal_name', db: 'meal_name', type: 'text' },
      {
        wire: 'meal_type',
        db: 'meal_type',
        type: 'text',
        oneOf: ['breakfast', 'lunch', 'dinner', 'snack'],
      },
      { wire: 'eaten_at', db: 'eaten_at', type: 'timestamptz_ms', notNull: true, required: true },
      { wire: 'note', db: 'note', type: 'text' },
      { wire: 'source', db: 'source', type: 'text', notNull: true, default: 'phone' },
      ...NUTRIENT_COLUMNS,
    ],
    // a meal deleted through sync lets go of its photo at once, as deleteMeal does
    onDeleted: releaseDeletedMealPhotos,
  }),
  defineSyncedTable({
    table: 'meal_items',
    sqlTable: 'meal_items',
    model: 'MealItem',
    since: 4,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'meal_id', db: 'meal_id', type: 'text', notNull: true, required: true },
      ...ITEM_COLUMNS,
    ],
  }),
  // Saved meals and favorite foods (issue 17; docs/meals.md, "Saved meals and favorites"): a saved
  // meal's items are flat rows like meal_items; one favorite per person and food (a second record
  // with the same food fails the push with 409 duplicate_record).
  defineSyncedTable({
    table: 'saved_meals',
    sqlTable: 'saved_meals',
    model: 'SavedMeal',
    since: 6,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'name', db: 'name', type: 'text', notNull: true, required: true },
      {
        wire: 'meal_type',
        db: 'meal_type',
        type: 'text',
        oneOf: ['breakfast', 'lunch', 'dinner', 'snack'],
      },
      { wire: 'note', db: 'note', type: 'text' },
      ...NUTRIENT_COLUMNS,
    ],
  }),
  defineSyncedTable({
    table: 'saved_meal_items',
    sqlTable: 'saved_meal_items',
    model: 'SavedMealItem',
    since: 6,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'saved_meal_id', db: 'saved_meal_id', type: 'text', notNull: true, required: true },
      ...ITEM_COLUMNS,
    ],
  }),
  defineSyncedTable({
    table: 'favorite_foods',
    sqlTable: 'favorite_foods',
    model: 'FavoriteFood',
    since: 6,
    readScope: 'health:nutrition:read',
    writeScope: 'health:nutrition:write',
    columns: [
      { wire: 'food_id', db: 'food_id', type: 'text', notNull: true, required: true },
      { wire: 'name', db: 'name', type: 'text', notNull: true, default: '' },
    ],
  }),
];
