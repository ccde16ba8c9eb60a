/** Saved meals, favorite foods and copying a meal (issue 17; rules: docs/meals.md). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import {
  eatenAt,
  items,
  Meal,
  MEAL_NAME_MAX,
  MealItem,
  MealItemInput,
  mealId,
  MealNutrients,
  MealType,
  nonBlank,
  NOTE_MAX,
} from './meals.schema.ts';
import {
  addFavoriteFood,
  copyMeal,
  createSavedMeal,
  deleteSavedMeal,
  favoriteFoods,
  savedMeals,
  logSavedMeal,
  removeFavoriteFood,
  SAVED_LIST_MAX,
  updateSavedMeal,
} from './meals.saved.ts';
import type { FavoriteView, SavedMealView } from './meals.saved.ts';
import { MEAL_ITEMS_MAX } from './meals.service.ts';

export const FavoriteFood = builder.objectRef<FavoriteView>('FavoriteFood').implement({
  description: 'A catalogue food the person marked as a favorite',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'uuid' }),
    foodId: t.exposeString('foodId', {
      description: 'catalogue food id (fdc_id, or custom:<uuid> of the person)',
    }),
    name: t.exposeString('name', { description: "the food's description when it was marked" }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'when it was marked' }),
  }),
});

export const SavedMeal = builder.objectRef<SavedMealView>('SavedMeal').implement({
  description: 'A saved meal: a named template of items the person logs again',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'uuid' }),
    name: t.exposeString('name'),
    mealType: t.exposeString('mealType', {
      nullable: true,
      description: 'breakfast, lunch, dinner or snack',
    }),
    note: t.exposeString('note', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    totals: t.expose('totals', { type: MealNutrients, description: 'the sum of the items' }),
    items: t.expose('items', { type: [MealItem] }),
  }),
});

const SavedDeletion = builder.objectRef<{ deleted: number }>('SavedDeletion').implement({
  fields: (t) => ({ deleted: t.exposeInt('deleted', { description: 'rows deleted (1)' }) }),
});

const note = z
  .string()
  .max(NOTE_MAX, { message: `At most ${NOTE_MAX} characters` })
  .nullish();

const CreateSavedMealInput = builder.inputType('CreateSavedMealInput', {
  description: 'A meal template to save with its items (the items of a logged meal)',
  fields: (t) => ({
    name: t.string({ required: true, description: `1..${MEAL_NAME_MAX} characters` }),
    mealType: t.field({ type: MealType, description: 'breakfast, lunch, dinner or snack' }),
    note: t.string({ description: `at most ${NOTE_MAX} characters` }),
    items: t.field({
      type: [MealItemInput],
      required: true,
      description: `1..${MEAL_ITEMS_MAX} items`,
    }),
  }),
  validate: z.object({
    name: nonBlank(MEAL_NAME_MAX),
    mealType: z.string().nullish(),
    note,
    items,
  }),
});

const UpdateSavedMealInput = builder.inputType('UpdateSavedMealInput', {
  description:
    'Changes to a saved meal: fields left out stay; null clears meal_type or note; items replace all items',
  fields: (t) => ({
    name: t.string({ description: `1..${MEAL_NAME_MAX} characters` }),
    mealType: t.field({ type: MealType, description: 'breakfast, lunch, dinner or snack' }),
    note: t.string({ description: `at most ${NOTE_MAX} characters` }),
    items: t.field({
      type: [MealItemInput],
      description: `when given, replaces every item (1..${MEAL_ITEMS_MAX}); totals are recomputed`,
    }),
  }),
  validate: z.object({
    name: nonBlank(MEAL_NAME_MAX).optional(),
    mealType: z.string().nullish(),
    note,
    items: items.optional(),
  }),
});

const foodId = z.string().min(1).max(64);
const foodIdDescription =
  'catalogue food id (fdc_id, or custom:<uuid> of the person; 1..64 characters)';
const savedMealIdDescription = "the saved meal's id (a uuid, from nutrition_saved_meals_list)";
const limitArg = (what: string) => ({
  defaultValue: 100,
  required: true as const,
  description: `at most this many ${what} (1..${SAVED_LIST_MAX}), newest first`,
  validate: z.number().int().min(1).max(SAVED_LIST_MAX),
});
const eatenAtArg = {
  description: 'when it was eaten: ISO-8601 or ms since the epoch; default now; at most 24 h ahead',
  validate: eatenAt.nullish(),
};

builder.queryFields((t) => ({
  favoriteFoods: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: [FavoriteFood],
    description: "The person's favorite foods, newest first",
    args: { limit: t.arg.int(limitArg('favorites')) },
    resolve: (_root, args, ctx) => favoriteFoods(ctx, args),
  }),
  savedMeals: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: [SavedMeal],
    description: "The person's saved meals with their items and totals, newest first",
    args: { limit: t.arg.int(limitArg('saved meals')) },
    resolve: (_root, args, ctx) => savedMeals(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  addFavoriteFood: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: FavoriteFood,
    description: 'Marks a catalogue food as a favorite (adding it again answers the same one)',
    args: {
      foodId: t.arg.string({ required: true, description: foodIdDescription, validate: foodId }),
    },
    resolve: (_root, args, ctx) => addFavoriteFood(ctx, args),
  }),
  removeFavoriteFood: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: SavedDeletion,
    description: 'Removes a food from the favorites',
    args: {
      foodId: t.arg.string({ required: true, description: foodIdDescription, validate: foodId }),
    },
    resolve: (_root, args, ctx) => removeFavoriteFood(ctx, args),
  }),
  createSavedMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: SavedMeal,
    description: 'Saves a meal template with its items; nutrients of catalogue foods are computed',
    args: { input: t.arg({ type: CreateSavedMealInput, required: true }) },
    resolve: (_root, { input }, ctx) => createSavedMeal(ctx, input),
  }),
  updateSavedMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: SavedMeal,
    description: 'Changes a saved meal; items, when given, replace all its items',
    args: {
      savedMealId: t.arg.string({
        required: true,
        description: savedMealIdDescription,
        validate: mealId,
      }),
      input: t.arg({ type: UpdateSavedMealInput, required: true }),
    },
    resolve: (_root, { savedMealId, input }, ctx) => updateSavedMeal(ctx, savedMealId, input),
  }),
  deleteSavedMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: SavedDeletion,
    description: 'Deletes a saved meal (meals logged from it stay)',
    args: {
      savedMealId: t.arg.string({
        required: true,
        description: savedMealIdDescription,
        validate: mealId,
      }),
    },
    resolve: (_root, args, ctx) => deleteSavedMeal(ctx, args.savedMealId),
  }),
  logSavedMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description: 'Logs a saved meal as a new meal',
    args: {
      savedMealId: t.arg.string({
        required: true,
        description: savedMealIdDescription,
        validate: mealId,
      }),
      eatenAt: t.arg({ type: 'DateTime', ...eatenAtArg }),
      mealType: t.arg({
        type: MealType,
        description: "breakfast, lunch, dinner or snack; default the saved meal's",
      }),
    },
    resolve: (_root, args, ctx) => logSavedMeal(ctx, args),
  }),
  copyMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description: 'Copies a logged meal to a new meal at another time',
    args: {
      mealId: t.arg.string({
        required: true,
        description: "the logged meal's id (a uuid, from a meal list)",
        validate: mealId,
      }),
      eatenAt: t.arg({ type: 'DateTime', ...eatenAtArg }),
    },
    resolve: (_root, args, ctx) => copyMeal(ctx, args),
  }),
}));
