/**
 * The insights feed and the weekly digest on the graph (issue 17): insights_list, insight_read,
 * insights_digest_read (insights:read); insights_card_answer, insights_card_dismiss,
 * insights_seen_mark (insights:write).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import { insightsDigest } from './insights.digest.ts';
import type {
  DigestCountView,
  DigestGlucoseView,
  DigestInsightsView,
  DigestScoreView,
  InsightDigestView,
} from './insights.digest.ts';
import {
  answerInsightCard,
  dismissInsightCard,
  insight,
  INSIGHT_KINDS,
  INSIGHT_PAGE_DEFAULT,
  INSIGHT_PAGE_MAX,
  INSIGHT_QUESTIONS,
  INSIGHT_STATUSES,
  markInsightsSeen,
  SEEN_IDS_MAX,
} from './insights.feed.ts';
import type {
  InsightPageView,
  InsightSourceInput,
  InsightSourceView,
  InsightView,
} from './insights.feed.ts';
import { insights } from './insights.service.ts';

const SourceInput = builder.objectRef<InsightSourceInput>('InsightSourceInput').implement({
  description: 'How many rows of one table a rule read',
  fields: (t) => ({
    table: t.exposeString('table', { description: 'e.g. glucose_readings' }),
    count: t.exposeInt('count', { description: 'rows of it in the window' }),
  }),
});

const Source = builder.objectRef<InsightSourceView>('InsightSource').implement({
  description: 'Which data an insight came from: the rule, the window and the rows it read',
  fields: (t) => ({
    rule: t.exposeString('rule'),
    windowStart: t.expose('windowStart', { type: 'DateTime' }),
    windowEnd: t.expose('windowEnd', { type: 'DateTime', description: 'exclusive' }),
    inputs: t.field({ type: [SourceInput], resolve: (s) => s.inputs }),
    summary: t.exposeString('summary', { description: 'the same in words' }),
  }),
});

const answersText = INSIGHT_KINDS.map(
  (k) => `${k}: ${INSIGHT_QUESTIONS[k].answers.join('/')}`,
).join('; ');

export const Insight = builder.objectRef<InsightView>('InsightItem').implement({
  description: 'A recorded insight: one firing of a card or suggestion rule on one day',
  fields: (t) => ({
    id: t.exposeInt('id'),
    kind: t.exposeString('kind', { description: INSIGHT_KINDS.join(', ') }),
    rule: t.exposeString('rule', { description: 'the rule that fired, e.g. predicted_low' }),
    subject: t.exposeString('subject', { description: 'what it fired about (the local day)' }),
    date: t.exposeString('date', { description: 'local date YYYY-MM-DD' }),
    timeZone: t.exposeString('timeZone', {
      description: 'the IANA zone date and subject are local to (the zone it was recorded in)',
    }),
    priority: t.exposeInt('priority', { description: '1 most urgent .. 3' }),
    title: t.exposeString('title'),
    body: t.exposeString('body'),
    score: t.exposeInt('score', { nullable: true, description: 'the score of a score insight' }),
    status: t.exposeString('status', { description: INSIGHT_STATUSES.join(', ') }),
    question: t.exposeString('question', { description: 'what insights_card_answer answers' }),
    answerChoices: t.exposeStringList('answerChoices', { description: answersText }),
    answer: t.exposeString('answer', { nullable: true }),
    source: t.expose('source', { type: Source }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    seenAt: t.expose('seenAt', { type: 'DateTime', nullable: true }),
    answeredAt: t.expose('answeredAt', { type: 'DateTime', nullable: true }),
    dismissedAt: t.expose('dismissedAt', { type: 'DateTime', nullable: true }),
  }),
});

const InsightPage = builder.objectRef<InsightPageView>('InsightPage').implement({
  description: 'A page of insights, newest first, and the cursor of the next page',
  fields: (t) => ({
    items: t.field({ type: [Insight], resolve: (p) => p.items }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass it as cursor for the next page; null on the last page',
    }),
  }),
});

const InsightsMarked = builder.objectRef<{ marked: number }>('InsightsMarked').implement({
  description: 'How many unseen insights were marked seen',
  fields: (t) => ({ marked: t.exposeInt('marked') }),
});

const DigestGlucose = builder.objectRef<DigestGlucoseView>('InsightDigestGlucose').implement({
  description: "The week's glucose against the week before (SQL aggregates of the readings)",
  fields: (t) => ({
    readings: t.exposeInt('readings'),
    previousReadings: t.exposeInt('previousReadings'),
    timeInRangePct: t.exposeFloat('timeInRangePct', {
      nullable: true,
      description: '70-180 mg/dL',
    }),
    previousTimeInRangePct: t.exposeFloat('previousTimeInRangePct', { nullable: true }),
    timeInRangeChange: t.exposeFloat('timeInRangeChange', {
      nullable: true,
      description: 'percentage points, this week minus the week before',
    }),
    belowRangePct: t.exposeFloat('belowRangePct', { nullable: true }),
    aboveRangePct: t.exposeFloat('aboveRangePct', { nullable: true }),
    meanMgDl: t.exposeFloat('meanMgDl', { nullable: true }),
    previousMeanMgDl: t.exposeFloat('previousMeanMgDl', { nullable: true }),
    meanChange: t.exposeFloat('meanChange', { nullable: true }),
    source: t.exposeString('source'),
  }),
});

const DigestScore = builder.objectRef<DigestScoreView>('InsightDigestScore').implement({
  description: "One daily score's weekly average against the week before",
  fields: (t) => ({
    kind: t.exposeString('kind'),
    average: t.exposeFloat('average', { nullable: true }),
    previousAverage: t.exposeFloat('previousAverage', { nullable: true }),
    change: t.exposeFloat('change', { nullable: true }),
    days: t.exposeInt('days', { description: 'days of the week with a score' }),
    previousDays: t.exposeInt('previousDays'),
    source: t.exposeString('source'),
  }),
});

const DigestCount = builder.objectRef<DigestCountView>('InsightDigestCount').implement({
  description: 'How many insights have one kind or status',
  fields: (t) => ({ key: t.exposeString('key'), count: t.exposeInt('count') }),
});

const DigestInsights = builder.objectRef<DigestInsightsView>('InsightDigestInsights').implement({
  description: "The week's insights by kind and status, and the most urgent ones",
  fields: (t) => ({
    total: t.exposeInt('total'),
    byKind: t.field({ type: [DigestCount], resolve: (d) => d.byKind }),
    byStatus: t.field({ type: [DigestCount], resolve: (d) => d.byStatus }),
    top: t.field({ type: [Insight], resolve: (d) => d.top }),
    source: t.exposeString('source'),
  }),
});

const Digest = builder.objectRef<InsightDigestView>('InsightDigest').implement({
  description: 'The weekly digest: one local week (Monday..Sunday) against the week before',
  fields: (t) => ({
    weekStart: t.exposeString('weekStart'),
    weekEnd: t.exposeString('weekEnd'),
    previousWeekStart: t.exposeString('previousWeekStart'),
    timezone: t.exposeString('timezone'),
    complete: t.exposeBoolean('complete', { description: 'false while the week is running' }),
    glucose: t.expose('glucose', { type: DigestGlucose }),
    scores: t.field({ type: [DigestScore], resolve: (d) => d.scores }),
    insights: t.expose('insights', { type: DigestInsights }),
  }),
});

const insightId = z.number().int().min(1).max(2_147_483_647);
const localDate = z
  .string()
  .max(10)
  .refine(isLocalDate, { message: 'not a date YYYY-MM-DD' })
  .refine((d) => d >= '2000-01-01', { message: 'not before 2000-01-01' })
  .meta({ format: 'date' });

builder.queryFields((t) => ({
  insights: t.withAuth({ scope: 'insights:read' }).field({
    type: InsightPage,
    description: "One page of the person's insights, newest first (today's refreshed first)",
    args: {
      status: t.arg.string({
        description: `only this status (${INSIGHT_STATUSES.join(', ')}); default every one but dismissed`,
        validate: z.enum(INSIGHT_STATUSES).nullish(),
      }),
      kind: t.arg.string({
        description: `only this kind (${INSIGHT_KINDS.join(', ')})`,
        validate: z.enum(INSIGHT_KINDS).nullish(),
      }),
      limit: t.arg.int({
        required: true,
        defaultValue: INSIGHT_PAGE_DEFAULT,
        description: `insights per page (1..${INSIGHT_PAGE_MAX}, default ${INSIGHT_PAGE_DEFAULT})`,
        validate: z.number().int().min(1).max(INSIGHT_PAGE_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page; leave it out for the first page',
        validate: z.string().min(1).max(20).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => insights(ctx, args),
  }),
  insight: t.withAuth({ scope: 'insights:read' }).field({
    type: Insight,
    description: "One of the person's insights",
    args: { id: t.arg.int({ required: true, description: 'the insight id', validate: insightId }) },
    resolve: (_root, args, ctx) => insight(ctx, args),
  }),
  insightsDigest: t.withAuth({ scope: 'insights:read' }).field({
    type: Digest,
    description: "The weekly digest of one local week in the person's zone",
    args: {
      week: t.arg.string({
        description:
          "any date of the week, YYYY-MM-DD (weeks run Monday..Sunday in the person's zone); default the last complete week",
        validate: localDate.nullish(),
      }),
    },
    resolve: (_root, args, ctx) => insightsDigest(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  answerInsightCard: t.withAuth({ scope: 'insights:write' }).field({
    type: Insight,
    description: "Answers an insight's question (again: the new answer replaces the old)",
    args: {
      id: t.arg.int({ required: true, description: 'the insight id', validate: insightId }),
      answer: t.arg.string({
        required: true,
        description: `one of the insight's answer_choices (${answersText})`,
        validate: z.string().min(1).max(40),
      }),
    },
    resolve: (_root, args, ctx) => answerInsightCard(ctx, args),
  }),
  dismissInsightCard: t.withAuth({ scope: 'insights:write' }).field({
    type: Insight,
    description: 'Dismisses an insight: never listed as active again, never recreated',
    args: { id: t.arg.int({ required: true, description: 'the insight id', validate: insightId }) },
    resolve: (_root, args, ctx) => dismissInsightCard(ctx, args),
  }),
  markInsightsSeen: t.withAuth({ scope: 'insights:write' }).field({
    type: InsightsMarked,
    description: 'Marks unseen insights seen: the given ids, or every one recorded up to a time',
    args: {
      ids: t.arg.intList({
        description: `these insights (1..${SEEN_IDS_MAX} ids); give ids or up_to`,
        validate: z.array(insightId).min(1).max(SEEN_IDS_MAX).nullish(),
      }),
      upTo: t.arg({
        type: 'DateTime',
        description: 'or every insight recorded at or before this instant (ISO 8601, 2000..2100)',
        validate: z
          .date()
          .min(new Date('2000-01-01T00:00:00Z'))
          .max(new Date('2100-01-01T00:00:00Z'))
          .nullish(),
      }),
    },
    resolve: (_root, args, ctx) => markInsightsSeen(ctx, args),
  }),
}));
