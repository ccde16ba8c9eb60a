/**
 * Nutrients of meal items from the food catalogue: per-100 g amounts (food_nutrients, keyed by USDA
 * nutrient id) scaled to the item's grams, and a meal's totals as the sum of its items. Formulas and
 * rounding: docs/meals.md. The foods and their per-100 g amounts come from the foods domain
 * (loadCatalogueFoods, foods/foods.item-lookup.ts, which selects them with the catalogue's own
 * PER_100G_JOIN): an item never disagrees with its food's summary.
 */
import type { Db } from '../../db/client.ts';
import { loadCatalogueFoods } from '../foods/index.ts';
import { validationError } from '../../base/errors.ts';
import type { ValidationIssue } from '../../base/errors.ts';

type Runner = Pick<Db, '$queryRaw'>;

/** The six amounts a meal and an item carry (kcal and grams). */
export interface Nutrients {
  kcal: number;
  proteinG: number;
  carbsG: number;
  fatG: number;
  fiberG: number;
  sugarG: number;
}

export const NUTRIENT_KEYS = ['kcal', 'proteinG', 'carbsG', 'fatG', 'fiberG', 'sugarG'] as const;

/** The most one item may weigh, g (5 kg), whether given as grams or as portions. */
export const MAX_ITEM_GRAMS = 5000;

export const ZERO: Nutrients = { kcal: 0, proteinG: 0, carbsG: 0, fatG: 0, fiberG: 0, sugarG: 0 };

/** Two decimals: stored amounts never carry float noise such as 0.30000000000000004. */
export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** The sum of the items' amounts (each rounded to two decimals). */
export function sumNutrients(items: readonly Nutrients[]): Nutrients {
  const out = { ...ZERO };
  for (const item of items) for (const k of NUTRIENT_KEYS) out[k] += item[k];
  for (const k of NUTRIENT_KEYS) out[k] = round2(out[k]);
  return out;
}

/** Amounts of `grams` of a food given per 100 g. */
export function scaleNutrients(per100g: Nutrients, grams: number): Nutrients {
  const out = { ...ZERO };
  for (const k of NUTRIENT_KEYS) out[k] = round2((per100g[k] * grams) / 100);
  return out;
}

/** An item as logged (REST, GraphQL, MCP): a catalogue food with grams or a portion, or free text. */
export interface MealItemInput extends Partial<Record<keyof Nutrients, number | null>> {
  /** catalogue food id (fdc_id, or the person's custom:<uuid>); its nutrients are computed */
  foodId?: string | null;
  /** a portion of that food (food_portions id); grams = its gram weight x servings */
  portionId?: string | null;
  /** how many of the portion (default 1) */
  servings?: number | null;
  /** display name; default the food's description */
  name?: string | null;
  /** the amount eaten, g */
  grams?: number | null;
  /** the household portion as text (display only) */
  portion?: string | null;
}

/** A resolved item, ready to store. */
export interface ResolvedItem extends Nutrients {
  foodId: string | null;
  name: string;
  grams: number;
  portion: string | null;
}

/**
 * Resolves items against the catalogue: an unknown food id (or a portion of another food) is a
 * VALIDATION_FAILED located at `loc`/<index>/<field>, every bad item reported at once.
 */
export async function resolveItems(
  db: Runner,
  userId: number,
  items: readonly MealItemInput[],
  loc: (string | number)[],
): Promise<ResolvedItem[]> {
  const foods = await loadCatalogueFoods(
    db,
    userId,
    items.flatMap((i) => (i.foodId ? [i.foodId] : [])),
  );
  const issues: ValidationIssue[] = [];
  const resolved = items.map((item, index): ResolvedItem => {
    if (!item.foodId) {
      const amounts = { ...ZERO };
      for (const k of NUTRIENT_KEYS) amounts[k] = round2(item[k] ?? 0);
      return {
        foodId: null,
        name: item.name!.trim(),
        grams: item.grams!,
        portion: item.portion?.trim() || null,
        ...amounts,
      };
    }
    const food = foods.get(item.foodId);
    if (!food) {
      issues.push({
        loc: [...loc, index, 'foodId'],
        msg: `Unknown food id ${item.foodId}`,
        type: 'value_error',
      });
      return { foodId: null, name: '', grams: 0, portion: null, ...ZERO };
    }
    let grams = item.grams ?? 0;
    let portion = item.portion?.trim() || null;
    if (item.portionId) {
      const p = food.portions.get(item.portionId);
      if (!p) {
        issues.push({
          loc: [...loc, index, 'portionId'],
          msg: `Food ${item.foodId} has no portion ${item.portionId}`,
          type: 'value_error',
        });
        return { foodId: null, name: '', grams: 0, portion: null, ...ZERO };
      }
      const servings = item.servings ?? 1;
      grams = round2(p.gramWeight * servings);
      portion ??= servings === 1 ? p.label : `${servings} x ${p.label}`;
      if (grams > MAX_ITEM_GRAMS) {
        issues.push({
          loc: [...loc, index, 'servings'],
          msg: `The item weighs ${grams} g; at most ${MAX_ITEM_GRAMS} g`,
          type: 'less_than_equal',
        });
      }
    }
    return {
      foodId: item.foodId,
      name: item.name?.trim() || food.description,
      grams,
      portion,
      ...scaleNutrients(food.per100g, grams),
    };
  });
  if (issues.length) throw validationError(issues);
  return resolved;
}
