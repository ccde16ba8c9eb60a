/**
 * The meals domain's synced tables: meals, their items, saved meals and favorites. Declared with
 * defineSyncedTable (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md). A pushed record obeys the tools' rules (issue 47), checked with
 * the tools' own schemas (meals.schema.ts): a meal eaten at most 24 h ahead, names that are not
 * blank, texts within their bounds, an item of more than 0 g, and a free-text item's amounts
 * within NUTRIENT_MAX (a catalogue item's are computed from its food, as the tools compute them).
 * Not checked: that a favorite's food exists in the catalogue (a read of the foods domain; the
 * check is pure).
 */
import type { z } from 'zod';
import type { DbTx } from '../../db/client.ts';
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncDeletion, SyncedColumn, SyncIssue } from '../../platform/synced-tables.ts';
import { MAX_ITEM_GRAMS } from './meals.nutrients.ts';
import { eatenAt, MEAL_NAME_MAX, nonBlank, NOTE_MAX, NUTRIENT_MAX } from './meals.schema.ts';

type Row = Readonly<Record<string, unknown>>;

const NUTRIENTS = ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g'] as const;
/** The tools' longest portion text and food id. */
const PORTION_MAX = 100;
const FOOD_ID_MAX = 64;

/** The tools' schema of a value, as the first issue's words, or null when it accepts it. */
function refusal(schema: z.ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'Invalid value');
}

/** Issues of the given columns of `r` by the tools' schema of each (a null column is not checked). */
function issuesOf(r: Row, rules: Record<string, (v: unknown) => string | null>): SyncIssue[] {
  return Object.entries(rules).flatMap(([wire, rule]) => {
    const msg = r[wire] === null ? null : rule(r[wire]);
    return msg ? [{ wire, msg }] : [];
  });
}

const name = (v: unknown): string | null => refusal(nonBlank(MEAL_NAME_MAX), v);
const maxChars =
  (max: number) =>
  (v: unknown): string | null =>
    (v as string).length > max ? `At most ${max} characters` : null;

/** A meal: eaten at most 24 h ahead, a name that is not blank, a note within NOTE_MAX. */
const checkMeal = (r: Row): SyncIssue[] =>
  issuesOf(r, {
    eaten_at: (v) => refusal(eatenAt, new Date(v as number)),
    meal_name: name,
    note: maxChars(NOTE_MAX),
  });

/** An item: a name, more than 0 g, a free-text item's amounts within NUTRIENT_MAX. */
function checkItem(r: Row): SyncIssue[] {
  const issues = issuesOf(r, {
    name,
    grams: (v) => ((v as number) > 0 ? null : 'Input should be greater than 0'),
    portion: maxChars(PORTION_MAX),
  });
  if (r.food_id === null || r.food_id === '')
    for (const wire of NUTRIENTS)
      if ((r[wire] as number) > NUTRIENT_MAX)
        issues.push({ wire, msg: `Input should be less than or equal to ${NUTRIENT_MAX}` });
  return issues;
}

/** A saved meal: a name that is not blank, a note within NOTE_MAX. */
const checkSavedMeal = (r: Row): SyncIssue[] => issuesOf(r, { name, note: maxChars(NOTE_MAX) });

/** A favorite: a food id of 1..64 characters. */
const checkFavorite = (r: Row): SyncIssue[] =>
  issuesOf(r, {
    food_id: (v) =>
      (v as string).length >= 1 && (v as string).length <= FOOD_ID_MAX
        ? null
        : `food_id should be 1..${FOOD_ID_MAX} characters`,
  });

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
    check: checkMeal,
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
    check: checkItem,
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
    check: checkSavedMeal,
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
    check: checkItem,
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
    check: checkFavorite,
    columns: [
      { wire: 'food_id', db: 'food_id', type: 'text', notNull: true, required: true },
      { wire: 'name', db: 'name', type: 'text', notNull: true, default: '' },
    ],
  }),
];
