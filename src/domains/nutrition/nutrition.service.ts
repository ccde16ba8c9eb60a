/**
 * Nutrition's reads across meals and glucose (issue 17): the glucose responses of meals. Nutrition
 * owns no meal and no reading: it reads meals through the meals domain's services and readings
 * through `glucosePoints`, one query for all the meals asked about, and computes each response
 * with the pure functions of nutrition.response.ts.
 *
 * NOTE: ownership. Every read is of readerUserId(ctx) (inside the services it calls).
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { glucosePoints } from '../glucose/index.ts';
import { glucoseResponse, readingSpan } from './nutrition.response.ts';
import type { GlucoseSample, ResponseResult } from './nutrition.response.ts';

/** A meal as far as its response goes: its id and when it was eaten. */
export interface MealMoment {
  id: string;
  eatenAt: Date;
}

/** The readings around `meals`, sorted by time: one SELECT over the span they need. */
export async function samplesAround(
  ctx: AuthedContext,
  meals: readonly MealMoment[],
): Promise<GlucoseSample[]> {
  const span = readingSpan(meals.map((m) => m.eatenAt.getTime()));
  if (!span) return [];
  const points = await glucosePoints(ctx, span);
  const samples = points.map((p) => ({ t: p.timestamp.getTime(), v: p.valueMgDl }));
  return samples.sort((a, b) => a.t - b.t);
}

/** The glucose response of each meal (in the order given), from one read of the readings. */
export async function mealGlucoseResponses(
  ctx: AuthedContext,
  meals: readonly MealMoment[],
): Promise<(ResponseResult & { mealId: string })[]> {
  const samples = await samplesAround(ctx, meals);
  return meals.map((m) => ({ mealId: m.id, ...glucoseResponse(samples, m.eatenAt.getTime()) }));
}
