/**
 * Which FoodData Central nutrient ids carry each per-100 g amount the app reads, in preference
 * order (the first id a food has wins), and the SQL that selects them. The one table both readers
 * use: the catalogue summary (foods.service.ts: search, detail, barcode, history) and the foods of
 * meal items (foods.item-lookup.ts) select a food's amounts with PER_100G_JOIN, so a food's summary
 * and the items logged from it can never disagree (issue 11). Rules: docs/foods.md, "Amounts per
 * 100 g".
 *
 * Only ids that occur in the shipped releases and mean the same amount (nutrient.csv of Foundation
 * 2024-10-31 and SR Legacy 2018-04; Branded and Open Food Facts use the same ids); the counts are
 * of the shipped data. A new id goes at the end of its list, so no food's amount changes.
 */
import { Prisma } from '../../generated/prisma/client.ts';

/** The amounts of a catalogue summary; a meal item carries the first six. */
export type Amount = 'kcal' | 'proteinG' | 'carbsG' | 'fatG' | 'fiberG' | 'sugarG' | 'sodiumMg';

/** Every amount, in the order of a summary. */
export const AMOUNTS: readonly Amount[] = [
  'kcal',
  'proteinG',
  'carbsG',
  'fatG',
  'fiberG',
  'sugarG',
  'sodiumMg',
];

export const NUTRIENT_SOURCES = {
  // 1008 Energy (KCAL): labels (Branded), SR Legacy and older Foundation foods (135). Newer
  // Foundation foods give only 2048 Energy (Atwater specific factors) and 2047 (Atwater general
  // factors) (201 foods), a few only 2047 (4). 1062 Energy (kJ), last: Open Food Facts products
  // labelled in kJ only (21 of the sample); USDA foods that have it always have 1008 too.
  kcal: [1008, 2048, 2047, 1062],
  proteinG: [1003],
  // 1085 Total fat (NLEA), fatty acids as triglycerides: the only fat of 8 Foundation oils and of
  // 5 Branded products
  fatG: [1004, 1085],
  // 1050 Carbohydrate, by summation (sugars + starch + fiber), after 1005 by difference; never a
  // food's only carbohydrate in the shipped data. (2039 "Carbohydrates" occurs nowhere.)
  carbsG: [1005, 1050],
  // 2033 Total dietary fiber (AOAC 2011.25): the only fiber of 17 Foundation foods (oats, beans,
  // potatoes)
  fiberG: [1079, 2033],
  // 2000 Total Sugars (Branded, SR Legacy, Open Food Facts, 5 Foundation foods); 1063 Sugars,
  // Total (NLEA): the only sugars of 142 Foundation foods. The two agree where both are given.
  sugarG: [2000, 1063],
  sodiumMg: [1093],
} as const satisfies Record<Amount, readonly number[]>;

/** kJ per kcal (thermochemical calorie). */
export const KJ_PER_KCAL = 4.184;

/**
 * Ids stored in another unit than their amount's, with the divisor: kJ -> kcal, rounded to one
 * decimal (the precision of a label's kcal).
 */
const DIVISORS: Readonly<Record<number, number>> = { 1062: KJ_PER_KCAL };

/** The SQL column of each amount. */
export const AMOUNT_COLUMNS: Readonly<Record<Amount, string>> = {
  kcal: 'kcal',
  proteinG: 'protein_g',
  carbsG: 'carbs_g',
  fatG: 'fat_g',
  fiberG: 'fiber_g',
  sugarG: 'sugar_g',
  sodiumMg: 'sodium_mg',
};

const amountOf = (id: number): string => {
  const value = `max(n.amount) FILTER (WHERE n.nutrient_id = ${id})`;
  return DIVISORS[id] ? `round((${value} / ${DIVISORS[id]})::numeric, 1)::float8` : value;
};

const ALL_IDS = [...new Set(Object.values(NUTRIENT_SOURCES).flat())];

/**
 * Per-100 g amounts of food `f` as m.kcal, m.protein_g, ... m.sodium_mg (null when the food has
 * none of the amount's ids): one indexed lookup of its few summary nutrients.
 *
 * NOTE: Prisma.raw: a constant fragment, built once from the nutrient-id table above (numbers and
 * column names of this file), never from a request.
 */
export const PER_100G_JOIN: Prisma.Sql = Prisma.raw(`
  LEFT JOIN LATERAL (
    SELECT ${AMOUNTS.map(
      (k) => `COALESCE(${NUTRIENT_SOURCES[k].map(amountOf).join(', ')}) AS ${AMOUNT_COLUMNS[k]}`,
    ).join(',\n           ')}
    FROM food_nutrients n WHERE n.food_id = f.id AND n.nutrient_id IN (${ALL_IDS.join(',')})
  ) m ON true`);

/**
 * The select list of `amounts` from PER_100G_JOIN, each under its own name (`m.protein_g AS
 * "proteinG"`), for per100gOf. NOTE: Prisma.raw of this file's constant column names.
 */
export const per100gColumns = (amounts: readonly Amount[] = AMOUNTS): Prisma.Sql =>
  Prisma.raw(amounts.map((k) => `m.${AMOUNT_COLUMNS[k]} AS "${k}"`).join(', '));

/**
 * The per-100 g amounts of a row selected with per100gColumns (null: the food has none of the
 * amount's nutrient ids). The one mapping of PER_100G_JOIN's rows: catalogue summaries
 * (foods.service.ts) and the foods of meal items (foods.item-lookup.ts).
 */
export function per100gOf<K extends Amount>(
  row: Readonly<Record<K, unknown>>,
  amounts: readonly K[],
): Record<K, number | null> {
  const out = {} as Record<K, number | null>;
  for (const k of amounts) out[k] = row[k] === null || row[k] === undefined ? null : Number(row[k]);
  return out;
}
