/**
 * The graph's references from one domain's objects to another's (docs/graphql.md). A domain
 * reaches another only through its index.ts, and a schema module is no domain's public surface,
 * so the edges between two domains' types are declared here, in the GraphQL layer, each resolved
 * through a per-request DataLoader (src/graphql/loaders.ts): one query for every reference of a
 * request, however many objects hold one. A domain's root field that answers another domain's type
 * (the assistant's consent is a `Consent`) is declared here too.
 */
import {
  readAssistantConsent,
  withdrawAssistantConsent,
} from '../domains/assistant/assistant.service.ts';
import { Consent } from '../domains/consents/consents.schema.ts';
import { loadFoodSummary } from '../domains/foods/foods.loaders.ts';
import { FoodSummary } from '../domains/foods/foods.schema.ts';
import { MealItem } from '../domains/meals/meals.schema.ts';
import { builder } from './builder.ts';

builder.objectField(MealItem, 'food', (t) =>
  t.field({
    type: FoodSummary,
    nullable: true,
    description: "the catalogue food (null for a free-text item, or a food that isn't visible)",
    resolve: (item, _args, ctx) => (item.foodId ? loadFoodSummary(ctx, item.foodId) : null),
  }),
);

// The assistant's own consent is a consent of the consents domain (kind `assistant`), one type.
builder.queryField('assistantConsent', (t) =>
  t.withAuth({ scope: 'assistant:chat' }).field({
    type: Consent,
    description: 'The caller’s assistant consent (kind assistant)',
    resolve: (_root, _args, ctx) => readAssistantConsent(ctx),
  }),
);

builder.mutationField('withdrawAssistantConsent', (t) =>
  t.withAuth({ scope: 'assistant:chat' }).field({
    type: Consent,
    description: 'Withdraws the caller’s assistant consent (kind assistant)',
    resolve: (_root, _args, ctx) => withdrawAssistantConsent(ctx),
  }),
);
