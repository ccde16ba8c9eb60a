/**
 * A suggestion for the next meal from the person's own data (issue 17), deterministic. Rules:
 * docs/nutrition.md, "Suggestion".
 *
 * - The person's meals of the last 90 days (the newest 300) and their glucose responses.
 * - With at least 3 meals with a response: up to 3 past meals with the lowest iAUC (one per
 *   name; ties by the earlier meal id), source past_meal_response; then up to 3 of the foods
 *   logged in those 90 days with the best nutrient preview score of the amount last eaten (ties
 *   by food id), source food_nutrient_score.
 * - With fewer: one advice item ("log meals while wearing a sensor"), source advice, and the
 *   foods by nutrient score as above.
 *
 * NOTE: ownership. Meals are read as readerUserId(ctx) (inside listMeals).
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { meals } from '../meals/index.ts';
import type { MealView } from '../meals/index.ts';
import { nutrientScore } from './nutrition.preview.ts';
import { responsesOfMeals } from './nutrition.service.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;
export const SUGGESTION_LOOKBACK_DAYS = 90;
const SUGGESTION_MEALS_MAX = 300;
/** Meals with a response needed before past meals are suggested. */
export const SUGGESTION_MIN_RESPONSES = 3;
const PICKS = 3;

export type SuggestionSource = 'past_meal_response' | 'food_nutrient_score' | 'advice';

export interface SuggestionItem {
  source: SuggestionSource;
  title: string;
  /** why this item, in a sentence */
  reason: string;
  mealId: string | null;
  foodId: string | null;
  eatenAt: Date | null;
  iaucMgDlMin: number | null;
  riseMgDl: number | null;
  /** the nutrient preview score of the amount last eaten (food items) */
  score: number | null;
}

export interface SuggestionView {
  basis: 'personal' | 'not_enough_data';
  mealsConsidered: number;
  mealsWithResponse: number;
  items: SuggestionItem[];
}

const mealTitle = (m: MealView): string =>
  m.mealName?.trim() || m.items.map((i) => i.name).join(', ') || 'a meal';

/** The suggestion for the next meal (rules in the header). */
export async function mealSuggestion(ctx: AuthedContext): Promise<SuggestionView> {
  const now = clock.ms();
  const eaten = await meals(ctx, {
    startMs: now - SUGGESTION_LOOKBACK_DAYS * DAY_MS,
    endMs: now,
    limit: SUGGESTION_MEALS_MAX,
  });
  const responses = await responsesOfMeals(ctx, eaten);
  const measured = eaten.flatMap((m, i) => {
    const r = responses[i].response;
    return r ? [{ meal: m, r }] : [];
  });
  const items: SuggestionItem[] = [];
  const enough = measured.length >= SUGGESTION_MIN_RESPONSES;
  if (enough) {
    measured.sort((a, b) => a.r.iaucMgDlMin - b.r.iaucMgDlMin || (a.meal.id < b.meal.id ? -1 : 1));
    const names = new Set<string>();
    for (const { meal, r } of measured) {
      const title = mealTitle(meal);
      if (names.has(title.toLowerCase())) continue;
      names.add(title.toLowerCase());
      items.push({
        source: 'past_meal_response',
        title,
        reason: `One of your gentlest glucose responses of the last ${SUGGESTION_LOOKBACK_DAYS} days (iAUC ${r.iaucMgDlMin} mg/dL x min, rise ${r.riseMgDl} mg/dL).`,
        mealId: meal.id,
        foodId: null,
        eatenAt: meal.eatenAt,
        iaucMgDlMin: r.iaucMgDlMin,
        riseMgDl: r.riseMgDl,
        score: null,
      });
      if (items.length === PICKS) break;
    }
  } else {
    items.push({
      source: 'advice',
      title: 'Log more meals while wearing a sensor',
      reason: `Only ${measured.length} of your meals of the last ${SUGGESTION_LOOKBACK_DAYS} days have a glucose response; ${SUGGESTION_MIN_RESPONSES} are needed before your own responses can guide the suggestion.`,
      mealId: null,
      foodId: null,
      eatenAt: null,
      iaucMgDlMin: null,
      riseMgDl: null,
      score: null,
    });
  }
  // the amount of each food last eaten (meals are newest first)
  const lastEaten = new Map<string, { name: string; item: MealView['items'][number] }>();
  for (const m of eaten) {
    for (const item of m.items) {
      if (item.foodId && !lastEaten.has(item.foodId))
        lastEaten.set(item.foodId, { name: item.name, item });
    }
  }
  const foods = [...lastEaten.entries()]
    .map(([foodId, { name, item }]) => ({ foodId, name, item, score: nutrientScore(item).score }))
    .sort((a, b) => b.score - a.score || (a.foodId < b.foodId ? -1 : 1))
    .slice(0, PICKS);
  for (const f of foods) {
    items.push({
      source: 'food_nutrient_score',
      title: f.name,
      reason: `A food you logged whose usual amount (${f.item.grams} g) has a nutrient preview score of ${f.score}.`,
      mealId: null,
      foodId: f.foodId,
      eatenAt: null,
      iaucMgDlMin: null,
      riseMgDl: null,
      score: f.score,
    });
  }
  return {
    basis: enough ? 'personal' : 'not_enough_data',
    mealsConsidered: eaten.length,
    mealsWithResponse: measured.length,
    items,
  };
}
