/**
 * Foods: the catalogue (barcode, detail, full match, core bundle, stats) and custom foods. The lists
 * ranked by what a person logged (foodSearch, foodRecommendations, foodHistory) are the meals
 * domain's root fields (meals.food-log-schema.ts) over this domain's types and services.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { foodCoreBundle } from './foods.bundle.ts';
import type { CoreBundleView } from './foods.bundle.ts';
import {
  createCustomFood,
  food,
  foodsByBarcode,
  foodStats,
  foodFullMatch,
} from './foods.service.ts';
import type {
  FoodDetailView,
  FoodHistoryView,
  FoodNutrientView,
  FoodPortionView,
  FoodStatsView,
  FoodSummaryView,
  FullMatchView,
} from './foods.service.ts';

/** The fields a search result and a detail share: one food's identity and per-100 g macros. */
const CatalogueFood = builder.interfaceRef<FoodSummaryView>('CatalogueFood').implement({
  description: "A food of the catalogue (or a person's own), with its macronutrients per 100 g",
  fields: (t) => ({
    fdcId: t.exposeString('id', {
      description: 'the food id: USDA fdc_id, off:<code> (Open Food Facts) or custom:<uuid>',
    }),
    source: t.exposeString('source', {
      description: 'usda_foundation, usda_branded, open_food_facts or custom',
    }),
    description: t.exposeString('description'),
    brand: t.exposeString('brand', { nullable: true }),
    category: t.exposeString('category', { nullable: true }),
    gtin: t.exposeString('gtin', { nullable: true, description: 'barcode as GTIN-14' }),
    countries: t.exposeStringList('countries', {
      description: 'ISO 3166-1 alpha-2 codes where it is sold',
    }),
    servingSize: t.exposeFloat('servingSize', { nullable: true }),
    servingUnit: t.exposeString('servingUnit', { nullable: true }),
    hasFullNutrients: t.exposeBoolean('hasFullNutrients', {
      description: 'vitamins and minerals present, not only label macros',
    }),
    kcal: t.exposeFloat('kcal', { nullable: true, description: 'energy per 100 g' }),
    proteinG: t.exposeFloat('proteinG', { nullable: true }),
    carbsG: t.exposeFloat('carbsG', { nullable: true }),
    fatG: t.exposeFloat('fatG', { nullable: true }),
    fiberG: t.exposeFloat('fiberG', { nullable: true }),
    sugarG: t.exposeFloat('sugarG', { nullable: true }),
    sodiumMg: t.exposeFloat('sodiumMg', { nullable: true }),
  }),
});

export const FoodSummary = builder.objectRef<FoodSummaryView>('FoodSearchResult').implement({
  description: 'A catalogue food with its macronutrients per 100 g (FoodSearchResult)',
  interfaces: [CatalogueFood],
  fields: (t) => ({
    score: t.exposeFloat('score', {
      nullable: true,
      description: 'ranking score of a search or recommendation (docs/foods.md)',
    }),
  }),
});

const FoodNutrient = builder.objectRef<FoodNutrientView>('FoodNutrientAmount').implement({
  description: 'One nutrient of a food, per 100 g',
  fields: (t) => ({
    nutrientId: t.exposeInt('nutrientId', { description: 'USDA nutrient id' }),
    name: t.exposeString('name'),
    unit: t.exposeString('unit', { description: 'G, MG, UG, KCAL, kJ, IU' }),
    amount: t.exposeFloat('amount', { description: 'per 100 g' }),
  }),
});

const FoodPortion = builder.objectRef<FoodPortionView>('FoodPortionOut').implement({
  description: 'A household portion and its weight',
  fields: (t) => ({
    seq: t.exposeInt('seq'),
    amount: t.exposeFloat('amount'),
    unit: t.exposeString('unit', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    modifier: t.exposeString('modifier', { nullable: true }),
    gramWeight: t.exposeFloat('gramWeight'),
  }),
});

const FoodDetail = builder.objectRef<FoodDetailView>('FoodDetail').implement({
  description: 'A food with all its nutrients and portions (FoodDetail)',
  interfaces: [CatalogueFood],
  fields: (t) => ({
    nutrients: t.expose('nutrients', { type: [FoodNutrient] }),
    portions: t.expose('portions', { type: [FoodPortion] }),
  }),
});

const FoodSourceCount = builder
  .objectRef<{ source: string; count: number }>('FoodSourceCount')
  .implement({
    fields: (t) => ({ source: t.exposeString('source'), count: t.exposeInt('count') }),
  });

const FoodStats = builder.objectRef<FoodStatsView>('FoodStats').implement({
  description: 'Catalogue size: all foods and per source',
  fields: (t) => ({
    total: t.exposeInt('total'),
    sources: t.expose('sources', { type: [FoodSourceCount] }),
  }),
});

const FullMatch = builder.objectRef<FullMatchView>('FoodFullMatch').implement({
  description: 'The generic food with full vitamin/mineral data best matching a label-only product',
  fields: (t) => ({
    match: t.expose('match', {
      type: FoodSummary,
      nullable: true,
      description: 'null: the product has full data, or nothing matches well',
    }),
    score: t.exposeFloat('score', { nullable: true, description: '0..1 (docs/foods.md)' }),
  }),
});

const CoreBundle = builder.objectRef<CoreBundleView>('FoodCoreBundle').implement({
  description: 'Everyday foods with full nutrients and portions, for offline search',
  fields: (t) => ({
    etag: t.exposeString('etag', { description: 'strong validator of the document' }),
    builtAt: t.expose('builtAt', { type: 'DateTime' }),
    foodCount: t.exposeInt('foodCount'),
    document: t.expose('document', { type: 'JSON', description: 'the bundle (docs/foods.md)' }),
  }),
});

export const FoodHistoryEntry = builder.objectRef<FoodHistoryView>('FoodHistoryEntry').implement({
  description: 'A food the person logged',
  fields: (t) => ({
    food: t.expose('food', { type: FoodSummary }),
    timesLogged: t.exposeInt('timesLogged'),
    lastLoggedAt: t.expose('lastLoggedAt', { type: 'DateTime' }),
  }),
});

const CustomFoodPortionInput = builder.inputType('CustomFoodPortionInput', {
  fields: (t) => ({
    amount: t.float({ description: 'how many units the portion is (default 1)' }),
    unit: t.string({ required: true, description: 'e.g. cup, slice, piece' }),
    gramWeight: t.float({ required: true, description: 'what the portion weighs, g' }),
  }),
});

const per100g = (max: number) => z.number().min(0).max(max).nullish();
const CreateCustomFoodInput = builder.inputType('CreateCustomFoodInput', {
  description: "A food of one's own; nutrients per 100 g",
  fields: (t) => ({
    description: t.string({ required: true, description: 'its name (1..200 characters)' }),
    brand: t.string({ description: 'the brand, if any (at most 200 characters)' }),
    gtin: t.string({ description: 'barcode (8, 12, 13 or 14 digits)' }),
    servingSize: t.float({ description: 'the usual serving, in serving_unit' }),
    servingUnit: t.string({ description: 'the unit of serving_size, e.g. g or ml' }),
    kcal: t.float({ required: true, description: 'kcal per 100 g (0..900)' }),
    proteinG: t.float({ description: 'g per 100 g' }),
    carbsG: t.float({ description: 'carbohydrate, g per 100 g' }),
    fatG: t.float({ description: 'total fat, g per 100 g' }),
    fiberG: t.float({ description: 'dietary fibre, g per 100 g' }),
    sugarG: t.float({ description: 'total sugars, g per 100 g' }),
    sodiumMg: t.float({ description: 'mg per 100 g' }),
    portions: t.field({ type: [CustomFoodPortionInput], description: 'up to 20' }),
  }),
  validate: z.object({
    description: z.string().trim().min(1).max(200),
    brand: z.string().max(200).nullish(),
    gtin: z.string().max(32).nullish(),
    servingSize: z.number().positive().max(100_000).nullish(),
    servingUnit: z.string().min(1).max(20).nullish(),
    kcal: z.number().min(0).max(900),
    proteinG: per100g(100),
    carbsG: per100g(100),
    fatG: per100g(100),
    fiberG: per100g(100),
    sugarG: per100g(100),
    sodiumMg: per100g(100_000),
    portions: z
      .array(
        z.object({
          amount: z.number().positive().max(10_000).nullish(),
          unit: z.string().min(1).max(60),
          gramWeight: z.number().positive().max(100_000),
        }),
      )
      .max(20)
      .nullish(),
  }),
});

const fdcId = z.string().min(1).max(64);
/** The argument naming one food. */
const fdcIdDescription =
  "the food's id (fdc_id from a search, or custom:<uuid> for the person's own foods)";

builder.queryFields((t) => ({
  foodStats: t.withAuth({ public: true }).field({
    type: FoodStats,
    description: 'Catalogue size: all foods and per source',
    resolve: (_root, _args, ctx) => foodStats(ctx),
  }),
  foodsByBarcode: t.withAuth({ public: true }).field({
    type: [FoodSummary],
    description: 'Foods with this barcode (GTIN/UPC/EAN in any form)',
    args: {
      code: t.arg.string({
        required: true,
        description: 'the barcode digits (GTIN, UPC or EAN)',
        validate: z.string().min(1).max(32),
      }),
    },
    resolve: (_root, { code }, ctx) => foodsByBarcode(ctx, code),
  }),
  foodCoreBundle: t.withAuth({ public: true }).field({
    type: CoreBundle,
    description:
      'Everyday foods with full nutrients and portions for offline search (503 while the first build runs)',
    resolve: (_root, _args, ctx) => foodCoreBundle(ctx),
  }),
  foodFullMatch: t.withAuth({ public: true }).field({
    type: FullMatch,
    description: 'The generic food with full nutrient data best matching a label-only product',
    args: {
      fdcId: t.arg.string({ required: true, description: fdcIdDescription, validate: fdcId }),
    },
    resolve: (_root, args, ctx) => foodFullMatch(ctx, args.fdcId),
  }),
  food: t.withAuth({ public: true }).field({
    type: FoodDetail,
    description: 'A food with all its nutrients (per 100 g) and portions',
    args: {
      fdcId: t.arg.string({ required: true, description: fdcIdDescription, validate: fdcId }),
    },
    resolve: (_root, args, ctx) => food(ctx, args.fdcId),
  }),
}));

builder.mutationFields((t) => ({
  createCustomFood: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: FoodDetail,
    description: "Creates a food of one's own (visible only to its owner)",
    args: { input: t.arg({ type: CreateCustomFoodInput, required: true }) },
    resolve: (_root, { input }, ctx) => createCustomFood(ctx, input),
  }),
}));
