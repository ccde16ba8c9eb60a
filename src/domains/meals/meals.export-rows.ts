/**
 * The person's meals for an export file (issue 30, the export domain's background job): each live
 * meal with its totals, by keyset on (eaten_at, id); in JSON with its live items nested (food,
 * grams, portion, nutrients), in CSV as a second file of items (one line per item, with its
 * meal's id and time). The rows are declared here and read by src/platform/export-rows.ts; the
 * database writes the text (src/platform/export-text.ts); the export domain reads it through
 * index.ts.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { field, keysetExport } from '../../platform/export-rows.ts';
import type { KeysetRows } from '../../platform/export-rows.ts';
import { rowText } from '../../platform/export-text.ts';
import type { ExportColumn, KeysetExport } from '../../platform/export-text.ts';

const NUTRIENTS = ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g'];

/** An item's fields over the alias `from` (the meal's id and time come from the CSV's join). */
const itemColumns = (from: string): ExportColumn[] => [
  field('food_id', 'text', { from, nullable: true }),
  field('name', 'text', { from }),
  field('grams', 'number', { from }),
  field('portion', 'text', { from, nullable: true }),
  ...NUTRIENTS.map((n) => field(n, 'number', { from })),
];

/** The meal's live items as one JSON array, over the meal `c`. */
const nestedItems = Prisma.sql`(
  SELECT coalesce('[' || string_agg(${rowText('json', itemColumns('i'), 'UTC')}, ','
                                    ORDER BY i.created_at, i.id) || ']', '[]')
  FROM meal_items AS i
  WHERE i.user_id = c.user_id AND i.meal_id = c.id AND i.deleted_at IS NULL)`;

/** The person's live meals eaten in the range, oldest first. */
const MEALS: Omit<KeysetRows, 'columns'> = {
  table: 'meals',
  time: { column: 'eaten_at', type: 'timestamptz' },
};

/**
 * Meals eaten in the range:
 * `id,eaten_at,meal_type,meal_name,kcal,protein_g,carbs_g,fat_g,fiber_g,sugar_g,note,source`,
 * and in JSON `items` (each `food_id,name,grams,portion` and the nutrients).
 */
export const mealsExport: KeysetExport = keysetExport({
  ...MEALS,
  columns: [
    field('id', 'text'),
    field('eaten_at', 'time'),
    field('meal_type', 'text', { nullable: true }),
    field('meal_name', 'text', { nullable: true }),
    ...NUTRIENTS.map((n) => field(n, 'number')),
    field('note', 'text', { nullable: true }),
    field('source', 'text'),
    { name: 'items', kind: 'json', sql: nestedItems, only: 'json' },
  ],
});

/**
 * The items of the meals eaten in the range (the CSV's second file), a chunk of meals at a time
 * (a chunk's count is its meals):
 * `meal_id,eaten_at,food_id,name,grams,portion,kcal,protein_g,carbs_g,fat_g,fiber_g,sugar_g`.
 */
export const mealItemsExport: KeysetExport = keysetExport({
  ...MEALS,
  columns: [
    field('meal_id', 'text', { from: 'm', column: 'id' }),
    field('eaten_at', 'time', { from: 'm' }),
    ...itemColumns('c'),
  ],
  lines: {
    from: Prisma.sql`chunk AS m JOIN meal_items AS c
      ON c.user_id = m.user_id AND c.meal_id = m.id AND c.deleted_at IS NULL`,
    orderBy: Prisma.sql`m.eaten_at, m.id, c.created_at, c.id`,
  },
});
