/**
 * The foods a meal item may name, as the meals domain needs them to compute an item's amounts: a
 * food's description, its per-100 g amounts (selected with PER_100G_JOIN, the catalogue summary's
 * own SQL, so an item never disagrees with its food's summary) and its household portions. The
 * meals domain calls this instead of reading the catalogue's tables itself.
 *
 * NOTE: ownership. A custom food is visible to its owner only; another person's answers as unknown.
 */
import type { Db } from '../../db/client.ts';
import { PER_100G_JOIN, per100gColumns, per100gOf } from './foods.nutrients.ts';
import type { Amount } from './foods.nutrients.ts';

type Runner = Pick<Db, '$queryRaw'>;

/** The six amounts a meal item carries (a catalogue summary's amounts without sodium). */
export type ItemAmount = Exclude<Amount, 'sodiumMg'>;
const ITEM_AMOUNTS = ['kcal', 'proteinG', 'carbsG', 'fatG', 'fiberG', 'sugarG'] as const;

/** A catalogue food as an item needs it: name, per-100 g amounts, portions by id. */
export interface ItemFood {
  description: string;
  per100g: Record<ItemAmount, number>;
  portions: Map<string, { gramWeight: number; label: string }>;
}

/**
 * The catalogue foods of `foodIds` that `userId` may log (catalogue rows and the person's own custom
 * foods), with their nutrients and portions: two queries, whatever the number of foods.
 */
export async function loadCatalogueFoods(
  db: Runner,
  userId: number,
  foodIds: readonly string[],
): Promise<Map<string, ItemFood>> {
  const foods = new Map<string, ItemFood>();
  if (foodIds.length === 0) return foods;
  // NOTE: a custom food is visible to its owner only; another person's answers as unknown.
  const rows = await db.$queryRaw<
    ({ id: string; description: string } & Record<ItemAmount, number | null>)[]
  >`SELECT f.id, f.description, ${per100gColumns(ITEM_AMOUNTS)}
       FROM foods f ${PER_100G_JOIN}
      WHERE f.id = ANY(${[...new Set(foodIds)]}::text[])
        AND (f.owner_user_id IS NULL OR f.owner_user_id = ${userId}::int)`;
  for (const r of rows) {
    const amounts = per100gOf(r, ITEM_AMOUNTS);
    // a food without any of an amount's nutrient ids counts 0
    const per100g = {} as Record<ItemAmount, number>;
    for (const k of ITEM_AMOUNTS) per100g[k] = amounts[k] ?? 0;
    foods.set(r.id, { description: r.description, per100g, portions: new Map() });
  }
  if (foods.size === 0) return foods;
  const portions = await db.$queryRaw<
    {
      id: string;
      food_id: string;
      amount: number;
      unit: string | null;
      description: string | null;
      modifier: string | null;
      gram_weight: number;
    }[]
  >`SELECT id, food_id, amount, unit, description, modifier, gram_weight FROM food_portions
     WHERE food_id = ANY(${[...foods.keys()]}::text[])`;
  for (const p of portions) {
    const label = [`${Number(p.amount)}${p.unit ? ` ${p.unit}` : ''}`, p.description ?? p.modifier]
      .filter(Boolean)
      .join(', ');
    foods.get(p.food_id)!.portions.set(p.id, { gramWeight: Number(p.gram_weight), label });
  }
  return foods;
}
