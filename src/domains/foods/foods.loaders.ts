/**
 * The foods domain's per-request loaders (src/graphql/loaders.ts): food summaries by id, for the
 * dashboard graph's meal item -> food reference (one query for every item of a request).
 */
import type { Context } from '../../graphql/context.ts';
import { defineLoader } from '../../graphql/loaders.ts';
import { foodSummariesByIds } from './foods.service.ts';
import type { FoodSummaryView } from './foods.service.ts';

/** Food summaries by food id, visible to the request's reader (catalogue and own custom foods). */
export const foodSummaryLoader = defineLoader<Context, string, FoodSummaryView>(
  'foodSummary',
  (ctx, ids) => foodSummariesByIds(ctx, ids),
);

/** The summary of one food through the request's loader; null when unknown or not visible. */
export function loadFoodSummary(ctx: Context, id: string): Promise<FoodSummaryView | null> {
  return ctx.loaders.of(foodSummaryLoader, ctx).load(id);
}
