/** Meals: logged meals with items and photos, daily nutrition (rules: docs/meals.md). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { MAX_ITEM_GRAMS, NUTRIENT_KEYS } from './meals.nutrients.ts';
import type { Nutrients } from './meals.nutrients.ts';
import {
  createMealFromPhoto,
  DAILY_RANGE_MAX_DAYS,
  dailyNutrition,
  deleteAllMeals,
  deleteMeal,
  meal,
  meals,
  logMeal,
  MEAL_ITEMS_MAX,
  MEALS_LIST_MAX,
  recentMeals,
  setMealPhoto,
  updateMeal,
} from './meals.service.ts';
import type {
  DailyNutritionDay,
  DailyNutritionView,
  MealItemView,
  MealView,
} from './meals.service.ts';
import { clock } from '../../base/clock.ts';

/** Bounds of the texts of a meal. */
export const MEAL_NAME_MAX = 200;
export const NOTE_MAX = 2000;
/** The largest amount of one nutrient an item may carry (kcal or g; a sync push too, meals.synced.ts). */
export const NUTRIENT_MAX = 10_000;
/** A meal may be dated at most this far ahead (clock skew, a meal planned for tonight). */
const FUTURE_MS = 86_400_000;
const RECENT_MAX = 50;

const NUTRIENT_DOCS: Record<keyof Nutrients, string> = {
  kcal: 'energy, kcal',
  proteinG: 'protein, g',
  carbsG: 'carbohydrate, g',
  fatG: 'total fat, g',
  fiberG: 'dietary fibre, g',
  sugarG: 'total sugars, g',
};

/** The six amounts, shared by a meal's totals, an item and a day. */
const NutrientAmounts = builder.interfaceRef<Nutrients>('NutrientAmounts').implement({
  description: 'Energy (kcal) and macronutrients (g)',
  fields: (t) => ({
    kcal: t.exposeFloat('kcal', { description: NUTRIENT_DOCS.kcal }),
    proteinG: t.exposeFloat('proteinG', { description: NUTRIENT_DOCS.proteinG }),
    carbsG: t.exposeFloat('carbsG', { description: NUTRIENT_DOCS.carbsG }),
    fatG: t.exposeFloat('fatG', { description: NUTRIENT_DOCS.fatG }),
    fiberG: t.exposeFloat('fiberG', { description: NUTRIENT_DOCS.fiberG }),
    sugarG: t.exposeFloat('sugarG', { description: NUTRIENT_DOCS.sugarG }),
  }),
});

export const MealNutrients = builder.objectRef<Nutrients>('MealNutrients').implement({
  description: 'Energy and macronutrients of a meal or a day',
  interfaces: [NutrientAmounts],
  fields: () => ({}),
});

export const MealItem = builder.objectRef<MealItemView>('MealItem').implement({
  description: 'One food of a meal and the nutrients of the amount eaten',
  interfaces: [NutrientAmounts],
  fields: (t) => ({
    id: t.exposeString('id'),
    foodId: t.exposeString('foodId', {
      nullable: true,
      description: 'catalogue food id (fdc_id); null for a free-text item',
    }),
    name: t.exposeString('name'),
    grams: t.exposeFloat('grams', { description: 'the amount eaten, g' }),
    portion: t.exposeString('portion', {
      nullable: true,
      description: 'the household portion, e.g. "1 Banana, Peeled"',
    }),
  }),
});

export const Meal = builder.objectRef<MealView>('Meal').implement({
  description: 'A logged meal (MealLogOut): its items and their totals',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'uuid' }),
    mealName: t.exposeString('mealName', { nullable: true }),
    mealType: t.exposeString('mealType', {
      nullable: true,
      description: 'breakfast, lunch, dinner or snack',
    }),
    eatenAt: t.expose('eatenAt', { type: 'DateTime' }),
    eatenAtMs: t.float({
      description: 'eaten_at in ms since the epoch',
      resolve: (m) => m.eatenAt.getTime(),
    }),
    note: t.exposeString('note', { nullable: true }),
    photoUrl: t.exposeString('photoUrl', {
      nullable: true,
      description: 'the meal photo, /media/meals/<key>',
    }),
    source: t.exposeString('source', { description: 'phone, manual, photo or mcp' }),
    totals: t.expose('totals', { type: MealNutrients, description: 'the sum of the items' }),
    items: t.expose('items', { type: [MealItem] }),
  }),
});

const DailyNutritionDayRef = builder.objectRef<DailyNutritionDay>('DailyNutritionDay').implement({
  description: 'The meals of one local calendar day',
  fields: (t) => ({
    date: t.exposeString('date', { description: "YYYY-MM-DD in the person's time zone" }),
    mealCount: t.exposeInt('mealCount'),
    totals: t.expose('totals', { type: MealNutrients }),
  }),
});

const DailyNutrition = builder.objectRef<DailyNutritionView>('DailyNutrition').implement({
  description: 'Nutrition totals per local day over a range (DailyNutritionOut)',
  fields: (t) => ({
    timezone: t.exposeString('timezone', { description: 'the IANA time zone days are counted in' }),
    startMs: t.exposeFloat('startMs'),
    endMs: t.exposeFloat('endMs'),
    mealCount: t.exposeInt('mealCount'),
    totals: t.expose('totals', { type: MealNutrients, description: 'the whole range' }),
    days: t.expose('days', {
      type: [DailyNutritionDayRef],
      description: 'every day the range touches, oldest first',
    }),
  }),
});

const MealDeletion = builder.objectRef<{ deleted: number }>('MealDeletion').implement({
  fields: (t) => ({ deleted: t.exposeInt('deleted', { description: 'meals deleted' }) }),
});

/** breakfast, lunch, dinner or snack (a meal's and a saved meal's type). */
export const MealType = builder.enumType('MealType', {
  values: {
    breakfast: { value: 'breakfast' },
    lunch: { value: 'lunch' },
    dinner: { value: 'dinner' },
    snack: { value: 'snack' },
  } as const,
});

/** A text of at most `max` characters that is not blank. */
export const nonBlank = (max: number) =>
  z
    .string()
    .max(max, { message: `At most ${max} characters` })
    .refine((s) => s.trim().length > 0, { message: 'Must not be blank' });
/** When a meal was eaten: at most FUTURE_MS ahead. */
export const eatenAt = z.date().refine((d) => d.getTime() <= clock.ms() + FUTURE_MS, {
  message: 'eaten_at may be at most 24 hours ahead',
});
const amount = z.number().min(0).max(NUTRIENT_MAX);

const itemSchema = z
  .object({
    foodId: z.string().min(1).max(64).nullish(),
    portionId: z.string().min(1).max(100).nullish(),
    servings: z.number().gt(0).max(100).nullish(),
    name: nonBlank(MEAL_NAME_MAX).nullish(),
    grams: z.number().gt(0).max(MAX_ITEM_GRAMS).nullish(),
    portion: z.string().max(100).nullish(),
    kcal: amount.nullish(),
    proteinG: amount.nullish(),
    carbsG: amount.nullish(),
    fatG: amount.nullish(),
    fiberG: amount.nullish(),
    sugarG: amount.nullish(),
  })
  .superRefine((item, ctx) => {
    const issue = (path: string, message: string): void =>
      void ctx.addIssue({ code: 'custom', path: [path], message });
    if (item.foodId) {
      if (item.grams == null && !item.portionId)
        issue('grams', 'Give grams or a portion_id of the food');
      if (item.grams != null && item.portionId)
        issue('portionId', 'Give grams or a portion_id, not both');
      for (const k of NUTRIENT_KEYS) {
        if (item[k] != null) issue(k, 'Computed from the catalogue for an item with a food_id');
      }
    } else {
      if (!item.name) issue('name', 'A name is required for an item without a food_id');
      if (item.grams == null) issue('grams', 'grams is required for an item without a food_id');
      if (item.portionId) issue('portionId', 'A portion_id needs a food_id');
    }
    if (item.servings != null && !item.portionId) issue('servings', 'servings needs a portion_id');
  });
/** The items of a meal (or a saved meal): 1..MEAL_ITEMS_MAX of the item shape. */
export const items = z
  .array(itemSchema)
  .min(1, { message: 'At least 1 item' })
  .max(MEAL_ITEMS_MAX, { message: `At most ${MEAL_ITEMS_MAX} items` });

const mealFields = {
  mealName: nonBlank(MEAL_NAME_MAX).nullish(),
  mealType: z.string().nullish(),
  note: z
    .string()
    .max(NOTE_MAX, { message: `At most ${NOTE_MAX} characters` })
    .nullish(),
};

/** A free-text item's own amount (the item type says catalogue foods compute theirs). */
const freeText = (k: keyof Nutrients): string => NUTRIENT_DOCS[k];

/** A meal item as given (GraphQL input): shared by meals and saved meals. */
export const MealItemInput = builder.inputType('MealItemInput', {
  description:
    'A catalogue food (nutrients computed) or a free-text item with name, grams and the nutrients below',
  fields: (t) => ({
    foodId: t.string({ description: 'catalogue food id (fdc_id, or custom:<uuid> of the person)' }),
    portionId: t.string({
      description: 'a portion of that food (from its detail), times servings',
    }),
    servings: t.float({ description: 'how many of the portion (default 1)' }),
    name: t.string({
      description: "display name (needed without food_id; default the food's)",
    }),
    grams: t.float({ description: 'the amount eaten, g' }),
    portion: t.string({ description: 'the household portion as text (display only)' }),
    kcal: t.float({ description: freeText('kcal') }),
    proteinG: t.float({ description: freeText('proteinG') }),
    carbsG: t.float({ description: freeText('carbsG') }),
    fatG: t.float({ description: freeText('fatG') }),
    fiberG: t.float({ description: freeText('fiberG') }),
    sugarG: t.float({ description: freeText('sugarG') }),
  }),
});

const LogMealInput = builder.inputType('LogMealInput', {
  description: 'A meal to log with its items',
  fields: (t) => ({
    mealName: t.string({ description: `at most ${MEAL_NAME_MAX} characters` }),
    mealType: t.field({ type: MealType, description: 'breakfast, lunch, dinner or snack' }),
    eatenAt: t.field({
      type: 'DateTime',
      description: 'ISO-8601 or ms since the epoch; default now; at most 24 h ahead',
    }),
    note: t.string({ description: `at most ${NOTE_MAX} characters` }),
    items: t.field({
      type: [MealItemInput],
      required: true,
      description: `1..${MEAL_ITEMS_MAX} items`,
    }),
  }),
  validate: z.object({ ...mealFields, eatenAt: eatenAt.nullish(), items }),
});

/** The changes to a meal: the fields of MealLogUpdateInput and the arguments of updateMealFields. */
const mealUpdateDocs = {
  mealName: `at most ${MEAL_NAME_MAX} characters; null clears it`,
  mealType: 'breakfast, lunch, dinner or snack; null clears it',
  eatenAt: 'ISO-8601 or ms since the epoch; at most 24 h ahead',
  note: `at most ${NOTE_MAX} characters; null clears it`,
  items: `when given, replaces every item (1..${MEAL_ITEMS_MAX}); totals are recomputed`,
};
const mealUpdate = { ...mealFields, eatenAt: eatenAt.optional(), items: items.optional() };

const MealLogUpdateInput = builder.inputType('MealLogUpdateInput', {
  description:
    'Changes to a meal (MealLogUpdate): fields left out stay; null clears meal_name, meal_type or note; items replace all items',
  fields: (t) => ({
    mealName: t.string({ description: mealUpdateDocs.mealName }),
    mealType: t.field({ type: MealType, description: mealUpdateDocs.mealType }),
    eatenAt: t.field({ type: 'DateTime', description: mealUpdateDocs.eatenAt }),
    note: t.string({ description: mealUpdateDocs.note }),
    items: t.field({ type: [MealItemInput], description: mealUpdateDocs.items }),
  }),
  validate: z.object(mealUpdate),
});

/** A meal's (or saved meal's) id: a uuid. */
export const mealId = z.uuid({ message: 'Input should be a valid UUID' });
const mealIdDescription = "the meal's id (a uuid, from a meal list)";
export const epochMs = z
  .number()
  .int({ message: 'Input should be an integer (ms)' })
  .min(0)
  .max(8.64e15);

builder.queryFields((t) => ({
  meals: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: [Meal],
    description: "The person's meals with their items, newest first",
    args: {
      limit: t.arg.int({
        defaultValue: 100,
        required: true,
        description: `at most this many meals (1..${MEALS_LIST_MAX}), newest first`,
        validate: z.number().int().min(1).max(MEALS_LIST_MAX),
      }),
      startMs: t.arg.float({ description: 'eaten at or after (ms)', validate: epochMs.nullish() }),
      endMs: t.arg.float({ description: 'eaten before (ms)', validate: epochMs.nullish() }),
    },
    resolve: (_root, args, ctx) => meals(ctx, args),
  }),
  meal: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: Meal,
    description: 'One meal of the person with its items and photo URL',
    args: {
      mealId: t.arg.string({ required: true, description: mealIdDescription, validate: mealId }),
    },
    resolve: (_root, args, ctx) => meal(ctx, args.mealId),
  }),
  recentMeals: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: [Meal],
    description: 'The latest meal of each distinct name of the last 90 days, newest first',
    args: {
      limit: t.arg.int({
        defaultValue: 10,
        required: true,
        description: `at most this many meals (1..${RECENT_MAX})`,
        validate: z.number().int().min(1).max(RECENT_MAX),
      }),
    },
    resolve: (_root, args, ctx) => recentMeals(ctx, args),
  }),
  dailyNutrition: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: DailyNutrition,
    description: `Nutrition totals per local day of the person over [start_ms, end_ms), at most ${DAILY_RANGE_MAX_DAYS} days`,
    args: {
      startMs: t.arg.float({
        required: true,
        description: 'the start of the range, ms since the epoch (included)',
        validate: epochMs,
      }),
      endMs: t.arg.float({
        required: true,
        description: `the end of the range, ms since the epoch (excluded; at most ${DAILY_RANGE_MAX_DAYS} days after start_ms)`,
        validate: epochMs,
      }),
    },
    resolve: (_root, args, ctx) => dailyNutrition(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  logMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description: 'Logs a meal with its items; nutrients of catalogue foods are computed',
    args: { input: t.arg({ type: LogMealInput, required: true }) },
    resolve: (_root, { input }, ctx) => logMeal(ctx, input),
  }),
  updateMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description: 'Changes a meal; items, when given, replace all its items',
    args: {
      mealId: t.arg.string({ required: true, description: mealIdDescription, validate: mealId }),
      input: t.arg({ type: MealLogUpdateInput, required: true }),
    },
    resolve: (_root, { mealId: id, input }, ctx) => updateMeal(ctx, id, input),
  }),
  // NOTE: updateMeal with its changes as arguments (the MCP tool's flat shape, like logMeal's): a
  // literal `input: { mealName: $mealName }` cannot say "left out", as graphql-jit reads an omitted
  // variable in a literal as null, which would clear the field.
  updateMealFields: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description:
      'Changes a meal, the changes as arguments: those left out stay; items, when given, replace all its items',
    args: {
      mealId: t.arg.string({ required: true, description: mealIdDescription, validate: mealId }),
      mealName: t.arg.string({
        description: mealUpdateDocs.mealName,
        validate: mealUpdate.mealName,
      }),
      mealType: t.arg({ type: MealType, description: mealUpdateDocs.mealType }),
      eatenAt: t.arg({
        type: 'DateTime',
        description: mealUpdateDocs.eatenAt,
        validate: mealUpdate.eatenAt,
      }),
      note: t.arg.string({ description: mealUpdateDocs.note, validate: mealUpdate.note }),
      items: t.arg({
        type: [MealItemInput],
        description: mealUpdateDocs.items,
        validate: mealUpdate.items,
      }),
    },
    resolve: (_root, { mealId: id, ...changes }, ctx) =>
      updateMeal(ctx, id, { ...changes, itemsAt: ['items'] }),
  }),
  deleteMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: MealDeletion,
    description: 'Deletes a meal and its photo',
    args: {
      mealId: t.arg.string({ required: true, description: mealIdDescription, validate: mealId }),
    },
    resolve: (_root, args, ctx) => deleteMeal(ctx, args.mealId),
  }),
  deleteAllMeals: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: MealDeletion,
    description: 'Deletes every meal of the caller and their photos',
    resolve: (_root, _args, ctx) => deleteAllMeals(ctx),
  }),
  createMealFromPhoto: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description: 'Creates a meal from a photo (no items yet)',
    args: {
      file: t.arg({ type: 'File', required: true }),
      mealName: t.arg.string({ validate: mealFields.mealName }),
      mealType: t.arg({ type: MealType }),
      eatenAt: t.arg({ type: 'DateTime', validate: eatenAt.nullish() }),
      note: t.arg.string({ validate: mealFields.note }),
    },
    resolve: (_root, args, ctx) => createMealFromPhoto(ctx, args),
  }),
  setMealPhoto: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: Meal,
    description: 'Replaces the photo of a meal; the old photo is deleted',
    args: {
      mealId: t.arg.string({ required: true, validate: mealId }),
      file: t.arg({ type: 'File', required: true }),
    },
    resolve: (_root, args, ctx) => setMealPhoto(ctx, args.mealId, args.file),
  }),
}));
