/**
 * Preview scores and suggestions on the graph (issue 17): a food or items scored before eating
 * (nutrition_food_preview_score) and a suggestion for the next meal (nutrition_suggestion_read).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import {
  MAX_ITEM_GRAMS,
  MealItemInputRef,
  mealItemsSchema,
  MealNutrients,
} from '../meals/index.ts';
import { PERSONAL_MIN_MEALS, foodPreviewScore } from './nutrition.preview.ts';
import type { PreviewScoreView } from './nutrition.preview.ts';
import { mealSuggestion } from './nutrition.suggestion.ts';
import type { SuggestionItem, SuggestionView } from './nutrition.suggestion.ts';

/** Items a preview scores at most (each item is a logged meal's item, with its bounds). */
const PREVIEW_ITEMS_MAX = 20;

const PreviewScore = builder.objectRef<PreviewScoreView>('FoodPreviewScore').implement({
  description: 'A food or items scored 0..100 before eating (higher: a gentler glucose response)',
  fields: (t) => ({
    score: t.exposeInt('score', {
      description: '0..100; the personal score when basis is personal',
    }),
    basis: t.exposeString('basis', {
      description: `personal (from at least ${PERSONAL_MIN_MEALS} past meals with the food and a glucose response) or nutrients`,
    }),
    explanation: t.exposeString('explanation'),
    nutrientScore: t.exposeInt('nutrientScore', { description: 'from the nutrients alone' }),
    personalScore: t.exposeInt('personalScore', { nullable: true }),
    availableCarbsG: t.exposeFloat('availableCarbsG', { description: 'carbs - fibre, g' }),
    estimatedGlycemicIndex: t.exposeFloat('estimatedGlycemicIndex'),
    estimatedGlycemicLoad: t.exposeFloat('estimatedGlycemicLoad'),
    totals: t.expose('totals', { type: MealNutrients }),
    similarFoodId: t.exposeString('similarFoodId', {
      nullable: true,
      description: 'the food past meals were matched on (the item carrying the most carbs)',
    }),
    similarMeals: t.exposeInt('similarMeals', { description: 'past meals with that food found' }),
    pastMealsUsed: t.exposeInt('pastMealsUsed', { description: 'of those, with a response' }),
    meanIaucMgDlMin: t.exposeInt('meanIaucMgDlMin', { nullable: true }),
    meanRiseMgDl: t.exposeFloat('meanRiseMgDl', { nullable: true }),
  }),
});

const Suggestion = builder.objectRef<SuggestionItem>('MealSuggestionItem').implement({
  description: 'One suggestion and where it comes from',
  fields: (t) => ({
    source: t.exposeString('source', {
      description: 'past_meal_response, food_nutrient_score or advice',
    }),
    title: t.exposeString('title'),
    reason: t.exposeString('reason'),
    mealId: t.exposeString('mealId', { nullable: true }),
    foodId: t.exposeString('foodId', { nullable: true }),
    eatenAt: t.expose('eatenAt', { type: 'DateTime', nullable: true }),
    iaucMgDlMin: t.exposeInt('iaucMgDlMin', { nullable: true }),
    riseMgDl: t.exposeFloat('riseMgDl', { nullable: true }),
    score: t.exposeInt('score', { nullable: true, description: 'nutrient preview score' }),
  }),
});

const SuggestionOut = builder.objectRef<SuggestionView>('MealSuggestion').implement({
  description: "A suggestion for the next meal from the person's own data",
  fields: (t) => ({
    basis: t.exposeString('basis', { description: 'personal or not_enough_data' }),
    mealsConsidered: t.exposeInt('mealsConsidered', { description: 'meals of the last 90 days' }),
    mealsWithResponse: t.exposeInt('mealsWithResponse'),
    items: t.expose('items', { type: [Suggestion] }),
  }),
});

/** The rule of FoodPreviewInput, said in each of its three arguments (the JSON Schema shows it). */
const EXACTLY_ONE = 'Give exactly one of food_id, items and saved_meal_id';

const FoodPreviewInput = builder.inputType('FoodPreviewInput', {
  description: `What to score: ${EXACTLY_ONE.toLowerCase()} (a catalogue food with grams or a portion_id, items, or a saved meal)`,
  fields: (t) => ({
    foodId: t.string({
      description: `catalogue food id (fdc_id, or custom:<uuid> of the person), with grams or portion_id. ${EXACTLY_ONE}.`,
    }),
    grams: t.float({ description: `the amount of that food, g (0 < grams <= ${MAX_ITEM_GRAMS})` }),
    portionId: t.string({ description: 'a portion of that food instead of grams' }),
    servings: t.float({ description: 'how many of the portion (default 1)' }),
    items: t.field({
      type: [MealItemInputRef],
      description: `1..${PREVIEW_ITEMS_MAX} items, like a meal's. ${EXACTLY_ONE}.`,
    }),
    savedMealId: t.string({
      description: `one of the person's saved meals (its items). ${EXACTLY_ONE}.`,
    }),
  }),
  validate: z
    .object({
      foodId: z.string().min(1).max(64).nullish(),
      grams: z.number().gt(0).max(MAX_ITEM_GRAMS).nullish(),
      portionId: z.string().min(1).max(100).nullish(),
      servings: z.number().gt(0).max(100).nullish(),
      items: mealItemsSchema.max(PREVIEW_ITEMS_MAX).nullish(),
      savedMealId: z.string().min(1).max(64).nullish(),
    })
    .superRefine((v, ctx) => {
      const issue = (path: string, message: string): void =>
        void ctx.addIssue({ code: 'custom', path: [path], message });
      if ([v.foodId, v.items, v.savedMealId].filter(Boolean).length !== 1)
        issue('foodId', EXACTLY_ONE);
      if (v.foodId) {
        if (v.grams == null && !v.portionId) issue('grams', 'Give grams or a portion_id');
        if (v.grams != null && v.portionId)
          issue('portionId', 'Give grams or a portion_id, not both');
      } else if (v.grams != null || v.portionId || v.servings != null) {
        issue('grams', 'grams, portion_id and servings go with food_id (items carry their own)');
      }
    }),
});

builder.queryFields((t) => ({
  foodPreviewScore: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: PreviewScore,
    description: 'A food or items scored 0..100 before eating (docs/nutrition.md, Preview score)',
    args: { input: t.arg({ type: FoodPreviewInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      foodPreviewScore(ctx, {
        savedMealId: input.savedMealId,
        items: input.items ?? [
          {
            foodId: input.foodId,
            grams: input.grams,
            portionId: input.portionId,
            servings: input.servings,
          },
        ],
      }),
  }),
  mealSuggestion: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: SuggestionOut,
    description: "A suggestion for the next meal from the person's own data",
    resolve: (_root, _args, ctx) => mealSuggestion(ctx),
  }),
}));
