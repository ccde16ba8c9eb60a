/**
 * The food catalogue ranked by what the person logged: foodSearch (personalised for a signed-in
 * person), foodRecommendations and foodHistory. Their types and services are the foods domain's;
 * they are root fields here because the ranking is by meal items, which this domain owns (foods
 * imports no meal: issue 31). Resolvers pass the food log (FOOD_LOG) and call the service.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import {
  FoodHistoryEntry,
  foodHistory,
  foodRecommendations,
  FoodSummary,
  foodSearch,
} from '../foods/index.ts';
import { FOOD_LOG } from './meals.food-log.ts';

/** A `limit` argument of a list of foods (1..100, default `fallback`). */
const limit = (fallback: number) =>
  ({
    defaultValue: fallback,
    required: true,
    description: `at most this many foods (1..100, default ${fallback})`,
    validate: z.number().int().min(1).max(100),
  }) as const;

builder.queryFields((t) => ({
  foodSearch: t.withAuth({ public: true }).field({
    type: [FoodSummary],
    description: 'Searches the food catalogue; personalised for a signed-in person',
    args: {
      q: t.arg.string({
        required: true,
        description: 'what to look for, by name (typos are tolerated)',
        validate: z.string().trim().min(2).max(200),
      }),
      page: t.arg.int({
        defaultValue: 1,
        required: true,
        description: 'the page of results, from 1',
        validate: z.number().int().min(1).max(100_000),
      }),
      limit: t.arg.int(limit(20)),
    },
    resolve: (_root, args, ctx) => foodSearch(ctx, { ...args, log: FOOD_LOG }),
  }),
  foodRecommendations: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: [FoodSummary],
    description: 'Foods for the person now, from their history, time of day and popularity',
    args: { limit: t.arg.int(limit(50)) },
    resolve: (_root, args, ctx) => foodRecommendations(ctx, { ...args, log: FOOD_LOG }),
  }),
  foodHistory: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: [FoodHistoryEntry],
    description: 'The foods the person logged, most recent first',
    args: { limit: t.arg.int(limit(50)) },
    resolve: (_root, args, ctx) => foodHistory(ctx, { ...args, log: FOOD_LOG }),
  }),
}));
