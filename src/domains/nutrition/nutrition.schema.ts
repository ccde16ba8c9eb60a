/**
 * Nutrition on the graph (issue 17): the glucose response of a meal or of the meals of a range
 * (meal_glucose_response_read), detected meals (meal_detected_list) and dismissing one
 * (meal_detected_dismiss).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { MealTypeRef } from '../meals/index.ts';
import type { GlucoseResponse } from './nutrition.response.ts';
import {
  DETECTED_RANGE_MAX_DAYS,
  detectedMeals,
  dismissDetectedMeal,
  mealGlucoseResponse,
  mealGlucoseResponses,
  RESPONSES_PAGE_MAX,
  RESPONSES_RANGE_MAX_DAYS,
} from './nutrition.service.ts';
import type {
  DetectedMealView,
  DismissalView,
  MealResponsePageView,
  MealResponseView,
} from './nutrition.service.ts';

const GlucoseResponseRef = builder.objectRef<GlucoseResponse>('MealGlucoseFigures').implement({
  description: 'The glucose response to a meal (docs/nutrition.md, "Glucose response of a meal")',
  fields: (t) => ({
    baselineMgDl: t.exposeFloat('baselineMgDl', {
      description: 'mean of the readings in the 30 minutes up to the meal',
    }),
    peakMgDl: t.exposeFloat('peakMgDl', { description: 'highest reading in the 2 hours after' }),
    riseMgDl: t.exposeFloat('riseMgDl', { description: 'peak minus baseline' }),
    timeToPeakMinutes: t.exposeInt('timeToPeakMinutes'),
    iaucMgDlMin: t.exposeFloat('iaucMgDlMin', {
      description: 'incremental area above the baseline over 2 hours, mg/dL x min',
    }),
    returnToBaselineMinutes: t.exposeInt('returnToBaselineMinutes', {
      nullable: true,
      description: 'minutes to the first reading at or below baseline + 10 after the peak (4 h)',
    }),
    readings: t.exposeInt('readings', { description: 'readings in the 2 hours after the meal' }),
  }),
});

const MealResponseRef = builder.objectRef<MealResponseView>('MealGlucoseResponse').implement({
  description: 'A meal and its glucose response, or null with the reason',
  fields: (t) => ({
    mealId: t.exposeString('mealId'),
    mealName: t.exposeString('mealName', { nullable: true }),
    mealType: t.exposeString('mealType', {
      nullable: true,
      description: 'breakfast, lunch, dinner or snack; null when the meal was logged without one',
    }),
    eatenAt: t.expose('eatenAt', { type: 'DateTime' }),
    eatenAtLocal: t.exposeString('eatenAtLocal', {
      description:
        "when it was eaten on the person's clock, with the offset then (2026-11-27T08:00:00.000+01:00; Z in UTC)",
    }),
    timeZone: t.exposeString('timeZone', {
      description: "the person's IANA time zone eaten_at_local is in (UTC when none is set)",
    }),
    response: t.field({
      type: GlucoseResponseRef,
      nullable: true,
      resolve: (m) => m.response,
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description:
        'why there is no response: no_baseline, too_few_readings, gap_in_readings; null with one',
    }),
  }),
});

const MealResponsePageRef = builder
  .objectRef<MealResponsePageView>('MealGlucoseResponsePage')
  .implement({
    description: 'Meals of a range with their glucose responses, newest first',
    fields: (t) => ({
      from: t.expose('from', { type: 'DateTime', description: 'the range read (included)' }),
      to: t.expose('to', { type: 'DateTime', description: 'the range read (excluded)' }),
      items: t.field({ type: [MealResponseRef], resolve: (p) => p.items }),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'pass as cursor for the next page; null on the last page',
      }),
    }),
  });

const DetectedMealRef = builder.objectRef<DetectedMealView>('DetectedMeal').implement({
  description: 'A rise in glucose with no logged meal nearby (docs/nutrition.md, "Detected meals")',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'stable per rise: dm-<epoch seconds of its start>' }),
    estimatedAt: t.expose('estimatedAt', {
      type: 'DateTime',
      description: "the rise's start: pass as eaten_at to log the meal",
    }),
    nadirMgDl: t.exposeFloat('nadirMgDl', { description: 'glucose at the start' }),
    peakAt: t.expose('peakAt', { type: 'DateTime' }),
    peakMgDl: t.exposeFloat('peakMgDl'),
    riseMgDl: t.exposeFloat('riseMgDl', { description: 'peak minus the start' }),
    maxSlopeMgDlPerMin: t.exposeFloat('maxSlopeMgDlPerMin', {
      description: 'the steepest 15-minute climb',
    }),
  }),
});

const DismissalRef = builder.objectRef<DismissalView>('DetectedMealDismissal').implement({
  description: 'A dismissed detected meal: never listed again',
  fields: (t) => ({
    id: t.exposeString('id'),
    estimatedAt: t.expose('estimatedAt', { type: 'DateTime' }),
    dismissedAt: t.expose('dismissedAt', { type: 'DateTime' }),
  }),
});

const mealId = z.uuid({ message: 'Input should be a valid UUID' });
const detectedId = z
  .string()
  .regex(/^dm-\d{1,11}$/, { message: 'not a detected meal id (dm-...)' });

builder.queryFields((t) => ({
  mealGlucoseResponse: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: MealResponseRef,
    description: "The glucose response of one of the person's meals",
    args: {
      mealId: t.arg.string({
        required: true,
        description: "the meal's id (a uuid, from a meal list)",
        validate: mealId,
      }),
    },
    resolve: (_root, args, ctx) => mealGlucoseResponse(ctx, args.mealId),
  }),
  mealGlucoseResponses: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: MealResponsePageRef,
    description: "The person's meals of a range with their glucose responses, newest first",
    args: {
      mealId: t.arg.string({
        description:
          'one meal only (its id, a uuid): the page holds that meal; the range is ignored',
        validate: mealId.nullish(),
      }),
      from: t.arg({
        type: 'DateTime',
        description: `eaten at or after (default 30 days before to; the range is at most ${RESPONSES_RANGE_MAX_DAYS} days, within 1970..2100)`,
      }),
      to: t.arg({ type: 'DateTime', description: 'eaten before (default now)' }),
      mealType: t.arg({
        type: MealTypeRef,
        description:
          'only meals logged with this type (breakfast, lunch, dinner or snack); meals logged without a type are left out',
      }),
      limit: t.arg.int({
        required: true,
        defaultValue: 20,
        description: `meals per page (1..${RESPONSES_PAGE_MAX}, default 20)`,
        validate: z.number().int().min(1).max(RESPONSES_PAGE_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page',
        validate: z.string().max(100).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => mealGlucoseResponses(ctx, args),
  }),
  detectedMeals: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: [DetectedMealRef],
    description: 'Rises in glucose with no logged meal nearby, not dismissed, oldest first',
    args: {
      from: t.arg({
        type: 'DateTime',
        description: `rises starting at or after (default 7 days before to; the range is at most ${DETECTED_RANGE_MAX_DAYS} days, within 1970..2100)`,
      }),
      to: t.arg({ type: 'DateTime', description: 'rises starting before (default now)' }),
    },
    resolve: (_root, args, ctx) => detectedMeals(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  dismissDetectedMeal: t.withAuth({ scope: 'health:nutrition:write' }).field({
    type: DismissalRef,
    description: 'Dismisses a detected meal: it is never listed again (dismissing twice is once)',
    args: {
      id: t.arg.string({
        required: true,
        description: 'the detected meal id (dm-..., from meal_detected_list)',
        validate: detectedId,
      }),
    },
    resolve: (_root, args, ctx) => dismissDetectedMeal(ctx, args.id),
  }),
}));
