/** Insights: daily scores (docs/scores.md), suggestions, predictive glucose alerts and cards. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import type {
  PredictiveAlert as PredictiveAlertView,
  Suggestion as SuggestionView,
} from './insights.rules.ts';
import {
  insightScore,
  predictiveAlerts,
  insightCards,
  insightSuggestions,
  MAX_RANGE_DAYS,
  scoreDays,
  scores,
} from './insights.service.ts';
import type {
  PredictiveAlertsView,
  SuggestionsView,
  ZonedInsightCard,
  ZonedScore,
} from './insights.service.ts';
import { SCORE_KINDS } from './insights.scores.ts';
import type {
  DayScores as DayScoresView,
  ScoreComponent as ScoreComponentView,
  ScoreKind,
} from './insights.scores.ts';

const ScoreComponent = builder.objectRef<ScoreComponentView>('ScoreComponent').implement({
  description: 'One ingredient of a score: the measured value, its points and its weight',
  fields: (t) => ({
    name: t.exposeString('name'),
    value: t.exposeFloat('value', {
      nullable: true,
      description: 'the measured value; null when the day has no data for it',
    }),
    unit: t.exposeString('unit'),
    reference: t.exposeFloat('reference', {
      nullable: true,
      description: "the target, or the person's own baseline (recovery)",
    }),
    score: t.exposeFloat('score', {
      nullable: true,
      description: '0..100 points; null when value is null',
    }),
    weight: t.exposeFloat('weight', {
      description: 'share of the score when every component has data',
    }),
  }),
});

const Score = builder.objectRef<ZonedScore>('Score').implement({
  description:
    'One daily score (0..100) with its components; null with a reason when the day lacks data',
  fields: (t) => ({
    kind: t.exposeString('kind', {
      description: 'overall, glucose, sleep, activity, recovery or nutrition',
    }),
    date: t.exposeString('date', { description: 'local date YYYY-MM-DD' }),
    timeZone: t.exposeString('timeZone', {
      description: "the IANA zone date is local to (the person's profile zone; UTC when unset)",
    }),
    score: t.exposeInt('score', { nullable: true }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'why score is null, e.g. no_glucose_data',
    }),
    components: t.expose('components', { type: [ScoreComponent] }),
  }),
});

/** One score of a day, with the day's zone (every Score the graph answers names it). */
const zoned = (
  day: DayScoresView,
  kind: 'overall' | 'glucose' | 'sleep' | 'activity' | 'recovery' | 'nutrition',
): ZonedScore => ({ ...day[kind], timeZone: day.timezone });

const DayScores = builder.objectRef<DayScoresView>('DayScores').implement({
  description: 'Every score of one local day (ScoreOut)',
  fields: (t) => ({
    date: t.exposeString('date', { description: 'local date YYYY-MM-DD' }),
    timezone: t.exposeString('timezone', {
      description: 'the IANA zone the day is local to (UTC when unset)',
    }),
    overall: t.field({ type: Score, resolve: (d) => zoned(d, 'overall') }),
    glucose: t.field({ type: Score, resolve: (d) => zoned(d, 'glucose') }),
    sleep: t.field({ type: Score, resolve: (d) => zoned(d, 'sleep') }),
    activity: t.field({ type: Score, resolve: (d) => zoned(d, 'activity') }),
    recovery: t.field({ type: Score, resolve: (d) => zoned(d, 'recovery') }),
    nutrition: t.field({ type: Score, resolve: (d) => zoned(d, 'nutrition') }),
  }),
});

const Suggestion = builder.objectRef<SuggestionView>('InsightSuggestion').implement({
  description: 'A suggestion from a documented rule, with the figure that triggered it',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'the rule, e.g. sleep_more' }),
    category: t.exposeString('category'),
    priority: t.exposeInt('priority', { description: '1 most urgent .. 3' }),
    title: t.exposeString('title'),
    message: t.exposeString('message'),
    value: t.exposeFloat('value'),
    unit: t.exposeString('unit'),
    threshold: t.exposeFloat('threshold'),
  }),
});

export const Suggestions = builder.objectRef<SuggestionsView>('InsightSuggestions').implement({
  description: 'The suggestions that apply today (SuggestionsOut)',
  fields: (t) => ({
    date: t.exposeString('date'),
    timezone: t.exposeString('timezone'),
    suggestions: t.expose('suggestions', { type: [Suggestion] }),
  }),
});

const PredictiveAlert = builder.objectRef<PredictiveAlertView>('PredictiveAlert').implement({
  description: 'A glucose threshold the recent trend is predicted to cross',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'predicted_low or predicted_high' }),
    thresholdMgDl: t.exposeFloat('thresholdMgDl'),
    currentMgDl: t.exposeFloat('currentMgDl', { description: 'the latest reading' }),
    slopeMgDlPerMin: t.exposeFloat('slopeMgDlPerMin'),
    predictedAt: t.expose('predictedAt', { type: 'DateTime' }),
    minutesAhead: t.exposeInt('minutesAhead'),
    readingsUsed: t.exposeInt('readingsUsed'),
    message: t.exposeString('message'),
  }),
});

const PredictiveAlerts = builder.objectRef<PredictiveAlertsView>('PredictiveAlerts').implement({
  description: 'Predicted lows and highs (PredictiveAlertsOut)',
  fields: (t) => ({
    generatedAt: t.expose('generatedAt', { type: 'DateTime' }),
    alerts: t.expose('alerts', { type: [PredictiveAlert] }),
  }),
});

export const InsightCard = builder.objectRef<ZonedInsightCard>('InsightCard').implement({
  description: 'A card of the insights feed (InsightCardOut)',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'stable for the same card on the same day' }),
    kind: t.exposeString('kind', { description: 'alert, trend or score' }),
    priority: t.exposeInt('priority'),
    date: t.exposeString('date', { description: 'local date YYYY-MM-DD' }),
    timeZone: t.exposeString('timeZone', {
      description: "the IANA zone date is local to (the person's profile zone; UTC when unset)",
    }),
    title: t.exposeString('title'),
    body: t.exposeString('body'),
    score: t.exposeInt('score', { nullable: true }),
  }),
});

// format: declared for the JSON Schemas of the facades (the refinement is what checks it)
const localDate = z
  .string()
  .refine(isLocalDate, { message: 'not a date YYYY-MM-DD' })
  .meta({ format: 'date' });

builder.queryFields((t) => {
  const range = {
    days: t.arg.int({
      defaultValue: 7,
      required: true,
      description: 'how many days, ending at to (not used with from)',
      validate: z.number().int().min(1).max(MAX_RANGE_DAYS),
    }),
    from: t.arg.string({
      description: `the first day (from..to spans at most ${MAX_RANGE_DAYS} days)`,
      validate: localDate.nullish(),
    }),
    to: t.arg.string({
      description: 'the last day (default today)',
      validate: localDate.nullish(),
    }),
    order: t.arg.string({
      defaultValue: 'desc',
      required: true,
      description: 'desc: newest day first; asc: oldest first',
      validate: z.enum(['asc', 'desc']),
    }),
    limit: t.arg.int({
      description: 'at most this many days, the first ones in order',
      validate: z.number().int().min(1).max(MAX_RANGE_DAYS).nullish(),
    }),
  };
  return {
    insightScore: t.withAuth({ scope: 'health:summary:read' }).field({
      type: DayScores,
      description: 'Every score of one local day (default today)',
      args: {
        date: t.arg.string({
          description: "the day, YYYY-MM-DD (default today, in the person's time zone)",
          validate: localDate.nullish(),
        }),
      },
      resolve: (_root, args, ctx) => insightScore(ctx, args),
    }),
    scoreDays: t.withAuth({ scope: 'health:summary:read' }).field({
      type: [DayScores],
      description: 'Every score of each day of a range',
      args: range,
      resolve: (_root, args, ctx) =>
        scoreDays(ctx, { ...args, order: args.order as 'asc' | 'desc' }),
    }),
    scores: t.withAuth({ scope: 'health:summary:read' }).field({
      type: [Score],
      description: 'One kind of score for each day of a range',
      args: {
        kind: t.arg.string({
          required: true,
          description: 'which score',
          validate: z.enum(SCORE_KINDS),
        }),
        ...range,
      },
      resolve: (_root, args, ctx) =>
        scores(ctx, {
          ...args,
          kind: args.kind as ScoreKind,
          order: args.order as 'asc' | 'desc',
        }),
    }),
  };
});

builder.queryFields((t) => ({
  insightSuggestions: t.withAuth({ scope: 'insights:read' }).field({
    type: Suggestions,
    description: 'The suggestions that apply today',
    resolve: (_root, _args, ctx) => insightSuggestions(ctx),
  }),
  predictiveAlerts: t.withAuth({ scope: 'insights:read' }).field({
    type: PredictiveAlerts,
    description: 'Predicted glucose lows and highs from the last 30 minutes of readings',
    resolve: (_root, _args, ctx) => predictiveAlerts(ctx),
  }),
  insightCards: t.withAuth({ scope: 'insights:read' }).field({
    type: [InsightCard],
    description: "Today's insight cards, most urgent first",
    resolve: (_root, _args, ctx) => insightCards(ctx),
  }),
}));
