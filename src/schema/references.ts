/**
 * The graph's references from one domain's objects to another's (docs/graphql.md). A domain
 * reaches another only through its index.ts, and a schema module is no domain's public surface,
 * so the edges between two domains' types are declared here, in the GraphQL layer, each resolved
 * through a per-request DataLoader (src/graphql/loaders.ts): one query for every reference of a
 * request, however many objects hold one. (A root field that answers another domain's type, like
 * the assistant's consent, stays in its own domain and imports the type from the other's index.)
 */
import { loadFoodSummary } from '../domains/foods/foods.loaders.ts';
import { FoodSummary } from '../domains/foods/foods.schema.ts';
import { MealItem } from '../domains/meals/meals.schema.ts';
import { builder } from '../graphql/builder.ts';

builder.objectField(MealItem, 'food', (t) =>
  t.field({
    type: FoodSummary,
    nullable: true,
    description: "the catalogue food (null for a free-text item, or a food that isn't visible)",
    resolve: (item, _args, ctx) => (item.foodId ? loadFoodSummary(ctx, item.foodId) : null),
  }),
);
