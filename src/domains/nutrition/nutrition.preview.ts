/**
 * The preview score of a food or a list of items before eating (issue 17): 0..100, higher is a
 * gentler glucose response. Formula, "similar" and thresholds: docs/nutrition.md, "Preview score".
 *
 * - From the nutrients (always computed): available carbs = max(0, carbs - fibre); an estimated
 *   glycemic index eGI = 55 + 20 x sugarShare - 15 x slowShare (sugarShare = sugar / available
 *   carbs, slowShare = (protein + fat) / (available carbs + protein + fat), each clamped to 0..1);
 *   estimated glycemic load eGL = available carbs x eGI / 100; nutrient score =
 *   clamp(100 - 2.5 x eGL, 0, 100) (eGL 10, the usual "low" bound, scores 75; 20, "high", 50).
 * - From the person (when there are enough): the past meals of the last 180 days containing the
 *   key food (the item with a food id carrying the most carbs), the newest 20; with at least 3 of
 *   them having a glucose response, score = clamp(100 - mean iAUC / 60, 0, 100) (iAUC 3000
 *   mg/dL x min scores 50) and basis "personal"; else the nutrient score and basis "nutrients".
 *
 * NOTE: ownership. Foods and meals are read as readerUserId(ctx) (inside the meals services).
 */
import { readerUserId } from '../../auth/principal.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { meals, resolveItems, savedMealItems, sumNutrients } from '../meals/index.ts';
import type { MealItemInput, Nutrients } from '../meals/index.ts';
import { responsesOfMeals } from './nutrition.service.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;
/** How far back similar meals are looked for, days. */
export const SIMILAR_LOOKBACK_DAYS = 180;
/** The newest similar meals used. */
export const SIMILAR_MEALS_MAX = 20;
/** Similar meals with a response needed for a personal score. */
export const PERSONAL_MIN_MEALS = 3;
/** The most meals scanned for similar ones. */
const SCAN_MEALS_MAX = 1000;

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** The nutrient side of the score (formula in the header). */
export interface NutrientScore {
  availableCarbsG: number;
  estimatedGlycemicIndex: number;
  estimatedGlycemicLoad: number;
  score: number;
}

/** Scores amounts from their nutrients alone. */
export function nutrientScore(n: Nutrients): NutrientScore {
  const available = Math.max(0, n.carbsG - n.fiberG);
  const sugarShare = available > 0 ? clamp(n.sugarG / available, 0, 1) : 0;
  const slowTotal = available + n.proteinG + n.fatG;
  const slowShare = slowTotal > 0 ? clamp((n.proteinG + n.fatG) / slowTotal, 0, 1) : 0;
  const gi = 55 + 20 * sugarShare - 15 * slowShare;
  const gl = (available * gi) / 100;
  return {
    availableCarbsG: round1(available),
    estimatedGlycemicIndex: round1(gi),
    estimatedGlycemicLoad: round1(gl),
    score: Math.round(clamp(100 - 2.5 * gl, 0, 100)),
  };
}

/** Scores a mean iAUC of the person's own past responses (formula in the header). */
export function personalScore(meanIaucMgDlMin: number): number {
  return Math.round(clamp(100 - meanIaucMgDlMin / 60, 0, 100));
}

export interface PreviewScoreOptions {
  /** the items to score (a single food is a list of one): catalogue foods or free text */
  items?: readonly MealItemInput[] | null;
  /** instead of items: one of the person's saved meals (its items; NOT_FOUND if not theirs) */
  savedMealId?: string | null;
}

export interface PreviewScoreView extends NutrientScore {
  /** the score answered: the personal one when basis is personal, else the nutrient one */
  score: number;
  basis: 'personal' | 'nutrients';
  /** the score from the nutrients alone */
  nutrientScore: number;
  /** the score from the person's past responses, when there were enough */
  personalScore: number | null;
  totals: Nutrients;
  /** the food past meals were matched on (null: no item names a catalogue food) */
  similarFoodId: string | null;
  /** similar past meals found (the newest SIMILAR_MEALS_MAX) */
  similarMeals: number;
  /** of those, the ones with a glucose response (used when basis is personal) */
  pastMealsUsed: number;
  meanIaucMgDlMin: number | null;
  meanRiseMgDl: number | null;
  /** how the score was made, in a sentence */
  explanation: string;
}

/** Scores items before eating (rules in the header). */
export async function foodPreviewScore(
  ctx: AuthedContext,
  options: PreviewScoreOptions,
): Promise<PreviewScoreView> {
  const items = options.savedMealId
    ? await savedMealItems(ctx, options.savedMealId)
    : (options.items ?? []);
  const resolved = await resolveItems(ctx.prisma, readerUserId(ctx), items, ['items']);
  const totals = sumNutrients(resolved);
  const fromNutrients = nutrientScore(totals);
  let key: (typeof resolved)[number] | null = null;
  for (const item of resolved) {
    if (item.foodId && (key === null || item.carbsG > key.carbsG)) key = item;
  }
  let similar: { id: string; eatenAt: Date }[] = [];
  if (key) {
    const now = clock.ms();
    const eaten = await meals(ctx, {
      startMs: now - SIMILAR_LOOKBACK_DAYS * DAY_MS,
      endMs: now,
      limit: SCAN_MEALS_MAX,
    });
    similar = eaten
      .filter((m) => m.items.some((i) => i.foodId === key.foodId))
      .slice(0, SIMILAR_MEALS_MAX);
  }
  const responses = (await responsesOfMeals(ctx, similar)).flatMap((r) =>
    r.response ? [r.response] : [],
  );
  const n = responses.length;
  const meanIauc = n ? responses.reduce((a, r) => a + r.iaucMgDlMin, 0) / n : null;
  const meanRise = n ? responses.reduce((a, r) => a + r.riseMgDl, 0) / n : null;
  const personal = n >= PERSONAL_MIN_MEALS && meanIauc !== null ? personalScore(meanIauc) : null;
  const explanation =
    personal !== null
      ? `From your own glucose responses to ${n} past meals with this food (mean iAUC ${Math.round(meanIauc!)} mg/dL x min).`
      : `From the nutrients alone (estimated glycemic load ${fromNutrients.estimatedGlycemicLoad}): ${
          key
            ? `${n} of the ${PERSONAL_MIN_MEALS} past meals with this food and a glucose response a personal score needs`
            : 'no catalogue food to match past meals on'
        }.`;
  return {
    ...fromNutrients,
    score: personal ?? fromNutrients.score,
    basis: personal !== null ? 'personal' : 'nutrients',
    nutrientScore: fromNutrients.score,
    personalScore: personal,
    totals,
    similarFoodId: key?.foodId ?? null,
    similarMeals: similar.length,
    pastMealsUsed: n,
    meanIaucMgDlMin: meanIauc === null ? null : Math.round(meanIauc),
    meanRiseMgDl: meanRise === null ? null : round1(meanRise),
    explanation,
  };
}
