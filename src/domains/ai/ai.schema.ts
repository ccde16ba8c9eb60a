/**
 * The AI meal texts on the graph: suggestMealName, mealInsight, mealEmojis, workoutInsight
 * (REST /api/meals/suggest_name, /insight, /emojis, /api/health/workouts/insight; MCP
 * nutrition_meal_name_suggest, meal_insight_read, workout_insight_read). Input bounds here are the
 * spec's; the checks after them (503, consent, caps, budget) are ai.guard.ts's.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import type { InsightView } from './ai.meals.ts';
import {
  INSIGHT_TONES,
  mealEmojis,
  mealInsight,
  suggestMealName,
  workoutInsight,
} from './ai.meals.ts';

export const ITEMS_MAX = 30;
export const ITEM_NAME_MAX = 120;
export const EMOJI_NAMES_MAX = 40;
/** labels per map (totals, glucose, stats, ...) and their lengths */
export const MAP_ENTRIES_MAX = 30;
const LABEL_MAX = 60;
const TEXT_VALUE_MAX = 60;

const AiLanguage = builder.enumType('AiLanguage', {
  description: 'The language of an AI answer',
  values: { en: { value: 'en' }, ar: { value: 'ar' } } as const,
});

const InsightTone = builder.enumType('InsightTone', {
  description: 'How a tag of an insight reads: good news, plain fact, or something to watch',
  values: enumValues(INSIGHT_TONES),
});

const InsightTag = builder.objectRef<InsightView['tags'][number]>('InsightTag').implement({
  description: 'A short label of an insight with its tone',
  fields: (t) => ({
    label: t.exposeString('label'),
    tone: t.expose('tone', { type: InsightTone }),
  }),
});

const Insight = builder.objectRef<InsightView>('Insight').implement({
  description: 'An AI insight about a meal or a workout (MealInsightOut)',
  fields: (t) => ({
    headline: t.exposeString('headline', { description: 'one line' }),
    analysis: t.exposeString('analysis', { description: 'what the data says, 2 to 4 sentences' }),
    suggestion: t.exposeString('suggestion', { description: 'one practical suggestion' }),
    tags: t.expose('tags', { type: [InsightTag], description: 'up to a few short labels' }),
    emoji: t.exposeString('emoji', { description: 'one emoji for the meal or workout' }),
  }),
});

const MealName = builder.objectRef<{ name: string }>('MealNameSuggestion').implement({
  description: 'A suggested meal name (MealNameSuggestOut)',
  fields: (t) => ({ name: t.exposeString('name') }),
});

const MealEmojis = builder.objectRef<{ emojis: Record<string, string> }>('MealEmojis').implement({
  description: 'Emojis for dish names (MealEmojisOut)',
  fields: (t) => ({
    emojis: t.expose('emojis', {
      type: 'JSON',
      description: 'dish name (as sent) to emoji; a name the model could not place is left out',
    }),
  }),
});

const itemName = (max: number) =>
  z
    .string()
    .trim()
    .min(1, { message: 'Must not be blank' })
    .max(max, { message: `At most ${max} characters` });
const grams = z.number().gt(0).max(100_000).nullish();
const hour = z.number().int().min(0).max(23).nullish();
const itemList = (max: number) =>
  z
    .array(z.object({ name: itemName(max), grams }))
    .min(1, { message: 'At least 1 item' })
    .max(ITEMS_MAX, { message: `At most ${ITEMS_MAX} items` });

/** A label-to-value map: at most MAP_ENTRIES_MAX labels; values numbers (numeric strings coerce), or short texts. */
const labelled = (values: 'numbers' | 'numbers or texts') => {
  const number = z.union([
    z.number().min(-1e9).max(1e9),
    z
      .string()
      .trim()
      .regex(/^-?\d+(\.\d+)?$/, { message: 'Input should be a valid number' })
      .transform(Number),
  ]);
  const value =
    values === 'numbers' ? number : z.union([number, z.string().trim().max(TEXT_VALUE_MAX)]);
  return z
    .record(z.string().trim().min(1).max(LABEL_MAX), value)
    .refine((m) => Object.keys(m).length <= MAP_ENTRIES_MAX, {
      message: `At most ${MAP_ENTRIES_MAX} labels`,
    })
    .nullish();
};
const phoneId = z.string().max(64).nullish();
const lang = z.enum(['en', 'ar']);

const MealTextItemInput = builder.inputType('MealTextItemInput', {
  description: 'A food of a meal as the app describes it',
  fields: (t) => ({
    name: t.string({ required: true, description: `trimmed, 1..${ITEM_NAME_MAX} characters` }),
    grams: t.float({ description: 'grams eaten, when known' }),
  }),
});

const MealNameSuggestInput = builder.inputType('MealNameSuggestInput', {
  description: 'The foods of a meal to name (MealNameSuggestIn)',
  fields: (t) => ({
    items: t.field({
      type: [MealTextItemInput],
      required: true,
      description: `1..${ITEMS_MAX} foods`,
    }),
    hour: t.int({ description: 'local hour of the meal, 0..23' }),
  }),
  validate: z.object({ items: itemList(ITEM_NAME_MAX), hour }),
});

const languageField = 'language of the answer: en (default) or ar';

const MealInsightInput = builder.inputType('MealInsightInput', {
  description: 'A meal to comment on (MealInsightIn)',
  fields: (t) => ({
    items: t.field({
      type: [MealTextItemInput],
      required: true,
      description: `1..${ITEMS_MAX} foods`,
    }),
    mealId: t.string({
      description: "the meal's id on the phone (not read; at most 64 characters)",
    }),
    name: t.string({ description: `the meal's name (at most ${ITEM_NAME_MAX} characters)` }),
    hour: t.int({ description: 'local hour of the meal, 0..23' }),
    totals: t.field({
      type: 'JSON',
      description: `nutrient totals: label to amount (at most ${MAP_ENTRIES_MAX} labels)`,
    }),
    glucose: t.field({
      type: 'JSON',
      description: `glucose around the meal: label to mg/dL (at most ${MAP_ENTRIES_MAX} labels)`,
    }),
    lang: t.field({ type: AiLanguage, defaultValue: 'en', description: languageField }),
  }),
  validate: z.object({
    items: itemList(ITEM_NAME_MAX),
    mealId: phoneId,
    name: itemName(ITEM_NAME_MAX).nullish(),
    hour,
    totals: labelled('numbers'),
    glucose: labelled('numbers'),
    lang,
  }),
});

const WorkoutInsightInput = builder.inputType('WorkoutInsightInput', {
  description: 'A workout to comment on (WorkoutInsightIn); each map is label to value',
  fields: (t) => ({
    activity: t.string({ required: true, description: 'the kind of workout, 1..80 characters' }),
    workoutId: t.string({ description: "the workout's id on the phone (not read)" }),
    hour: t.int({ description: 'local hour of the workout, 0..23' }),
    stats: t.field({ type: 'JSON', description: "this session's figures" }),
    recent: t.field({ type: 'JSON', description: 'recent activity' }),
    history: t.field({
      type: 'JSON',
      description: 'this session against earlier ones of the same kind',
    }),
    glucose: t.field({ type: 'JSON', description: 'glucose around the workout, label to mg/dL' }),
    lang: t.field({ type: AiLanguage, defaultValue: 'en', description: languageField }),
  }),
  validate: z.object({
    activity: itemName(80),
    workoutId: phoneId,
    hour,
    stats: labelled('numbers or texts'),
    recent: labelled('numbers or texts'),
    history: labelled('numbers or texts'),
    glucose: labelled('numbers'),
    lang,
  }),
});

const MealEmojisInput = builder.inputType('MealEmojisInput', {
  description: 'Dish names to give emojis (MealEmojisIn)',
  fields: (t) => ({
    names: t.stringList({
      required: true,
      description: `1..${EMOJI_NAMES_MAX} dish names, each 1..${ITEM_NAME_MAX} characters`,
    }),
  }),
  validate: z.object({
    // NOTE: not trimmed: the answer is keyed by the names exactly as sent
    names: z
      .array(
        z
          .string()
          .max(2 * ITEM_NAME_MAX)
          .refine((n) => n.trim().length > 0, { message: 'Must not be blank' })
          .refine((n) => n.trim().length <= ITEM_NAME_MAX, {
            message: `At most ${ITEM_NAME_MAX} characters`,
          }),
      )
      .min(1, { message: 'At least 1 name' })
      .max(EMOJI_NAMES_MAX, { message: `At most ${EMOJI_NAMES_MAX} names` }),
  }),
});

const aiNote =
  ' Answers 503 while meal AI is off, 403 needs_consent, 429 rate_limited or ai_budget_exhausted, 502/504 on model failure.';

builder.mutationFields((t) => ({
  suggestMealName: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: MealName,
    description: `A short name for a meal from its foods (nothing stored).${aiNote}`,
    args: { input: t.arg({ type: MealNameSuggestInput, required: true }) },
    resolve: (_root, { input }, ctx) => suggestMealName(ctx, input),
  }),
  mealInsight: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: Insight,
    description: `An AI insight about a meal; a repeat of the same request is answered from the cache.${aiNote}`,
    args: { input: t.arg({ type: MealInsightInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      mealInsight(ctx, input as Parameters<typeof mealInsight>[1]),
  }),
  mealEmojis: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: MealEmojis,
    description: `An emoji per dish name; names seen before cost nothing.${aiNote}`,
    args: { input: t.arg({ type: MealEmojisInput, required: true }) },
    resolve: (_root, { input }, ctx) => mealEmojis(ctx, input),
  }),
  workoutInsight: t.withAuth({ scope: 'health:workouts:read' }).field({
    type: Insight,
    description: `An AI insight about a workout; cached like a meal insight.${aiNote}`,
    args: { input: t.arg({ type: WorkoutInsightInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      workoutInsight(ctx, input as Parameters<typeof workoutInsight>[1]),
  }),
}));
