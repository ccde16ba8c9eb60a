/**
 * The person's meals for an export file (issue 30, the export domain's background job): each live
 * meal with its totals, by keyset on (eaten_at, id); in JSON with its live items nested (food,
 * grams, portion, nutrients), in CSV as a second file of items (one line per item, with its
 * meal's id and time). The database writes the text (src/platform/export-text.ts); the export
 * domain reads it through index.ts.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { inRange, keysetChunkText, rowText } from '../../platform/export-text.ts';
import type {
  ExportColumn,
  ExportScope,
  KeysetExportQuery,
  KeysetExport,
  TimeColumn,
} from '../../platform/export-text.ts';

const EATEN_AT: TimeColumn = { sql: Prisma.sql`eaten_at`, type: 'timestamptz' };
const NUTRIENTS = ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g'];

const col = (
  alias: string,
  name: string,
  kind: ExportColumn['kind'],
  nullable = false,
): ExportColumn => ({ name, kind, sql: Prisma.raw(`${alias}.${name}`), nullable });

/** An item's fields over the alias `alias` (the meal's id and time come from the CSV's join). */
const itemColumns = (alias: string): ExportColumn[] => [
  col(alias, 'food_id', 'text', true),
  col(alias, 'name', 'text'),
  col(alias, 'grams', 'number'),
  col(alias, 'portion', 'text', true),
  ...NUTRIENTS.map((n) => col(alias, n, 'number')),
];

/** The meal's live items as one JSON array, over the meal `c`. */
const nestedItems = Prisma.sql`(
  SELECT coalesce('[' || string_agg(${rowText('json', itemColumns('i'), 'UTC')}, ','
                                    ORDER BY i.created_at, i.id) || ']', '[]')
  FROM meal_items AS i
  WHERE i.user_id = c.user_id AND i.meal_id = c.id AND i.deleted_at IS NULL)`;

const MEAL_COLUMNS: ExportColumn[] = [
  col('c', 'id', 'text'),
  { name: 'eaten_at', kind: 'time', sql: Prisma.sql`c.eaten_at` },
  col('c', 'meal_type', 'text', true),
  col('c', 'meal_name', 'text', true),
  ...NUTRIENTS.map((n) => col('c', n, 'number')),
  col('c', 'note', 'text', true),
  col('c', 'source', 'text'),
  { name: 'items', kind: 'json', sql: nestedItems, only: 'json' },
];

const ITEM_CSV_COLUMNS: ExportColumn[] = [
  { name: 'meal_id', kind: 'text', sql: Prisma.sql`m.id` },
  { name: 'eaten_at', kind: 'time', sql: Prisma.sql`m.eaten_at` },
  ...itemColumns('c'),
];

/** The person's live meals eaten in the range, oldest first. */
const meals = (scope: ExportScope): Omit<KeysetExportQuery, 'line'> => ({
  table: 'meals',
  where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
    AND ${inRange(EATEN_AT, scope.from, scope.to)}`,
  key: [
    { column: 'eaten_at', type: 'timestamptz' },
    { column: 'id', type: 'text' },
  ],
});

/**
 * Meals eaten in the range:
 * `id,eaten_at,meal_type,meal_name,kcal,protein_g,carbs_g,fat_g,fiber_g,sugar_g,note,source`,
 * and in JSON `items` (each `food_id,name,grams,portion` and the nutrients).
 */
export const mealsExport: KeysetExport = {
  columns: MEAL_COLUMNS,
  chunk(db, scope, after, limit, format) {
    const query = { ...meals(scope), line: rowText(format, MEAL_COLUMNS, scope.zone) };
    return keysetChunkText(db, query, after, limit, format);
  },
};

/**
 * The items of the meals eaten in the range (the CSV's second file), a chunk of meals at a time
 * (a chunk's count is its meals):
 * `meal_id,eaten_at,food_id,name,grams,portion,kcal,protein_g,carbs_g,fat_g,fiber_g,sugar_g`.
 */
export const mealItemsExport: KeysetExport = {
  columns: ITEM_CSV_COLUMNS,
  chunk(db, scope, after, limit, format) {
    const query = {
      ...meals(scope),
      line: rowText(format, ITEM_CSV_COLUMNS, scope.zone),
      lines: {
        from: Prisma.sql`chunk AS m JOIN meal_items AS c
          ON c.user_id = m.user_id AND c.meal_id = m.id AND c.deleted_at IS NULL`,
        orderBy: Prisma.sql`m.eaten_at, m.id, c.created_at, c.id`,
      },
    };
    return keysetChunkText(db, query, after, limit, format);
  },
};
