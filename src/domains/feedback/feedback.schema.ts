/** Feedback (issue 15): a person sends feedback reports and lists their own. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { FEEDBACK_CATEGORIES, feedbackReports, createFeedbackReport } from './feedback.service.ts';
import type { FeedbackReportPageView, FeedbackReportView } from './feedback.service.ts';

/** Longest message, app version and context. */
const MESSAGE_MAX = 4000;
const APP_VERSION_MAX = 40;
const CONTEXT_MAX = 1000;
/** Reports per page of the list. */
const PAGE_DEFAULT = 20;
const PAGE_MAX = 100;

const FeedbackCategory = builder.enumType('FeedbackCategory', {
  description: 'What a feedback report is about',
  values: {
    bug: { value: 'bug', description: 'something does not work' },
    idea: { value: 'idea', description: 'a suggestion or a wish' },
    praise: { value: 'praise', description: 'something the person likes' },
    question: { value: 'question', description: 'a question to the team' },
    other: { value: 'other', description: 'anything else' },
  } as const,
});

export const FeedbackReport = builder.objectRef<FeedbackReportView>('FeedbackReport').implement({
  description: 'A feedback report the person sent',
  fields: (t) => ({
    id: t.exposeInt('id'),
    category: t.field({ type: FeedbackCategory, resolve: (r) => r.category as 'bug' }),
    message: t.exposeString('message'),
    appVersion: t.exposeString('appVersion', { nullable: true }),
    context: t.exposeString('context', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'when it was sent' }),
  }),
});

const FeedbackReportPage = builder
  .objectRef<FeedbackReportPageView>('FeedbackReportPage')
  .implement({
    description: "A page of the person's feedback reports, newest first",
    fields: (t) => ({
      items: t.field({ type: [FeedbackReport], resolve: (p) => p.items }),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'pass it as cursor for the next page; null on the last page',
      }),
    }),
  });

const CreateFeedbackReportInput = builder.inputType('CreateFeedbackReportInput', {
  description: 'A feedback report',
  fields: (t) => ({
    category: t.field({
      type: FeedbackCategory,
      required: true,
      description: 'what it is about: bug, idea, praise, question or other',
    }),
    message: t.string({
      required: true,
      description: `the feedback in the person's words (1..${MESSAGE_MAX} characters)`,
    }),
    appVersion: t.string({
      description: `the app version, e.g. 2.4.1 (at most ${APP_VERSION_MAX} characters)`,
    }),
    context: t.string({
      description: `where in the app or what the person was doing (at most ${CONTEXT_MAX} characters)`,
    }),
  }),
  validate: z.object({
    category: z.enum(FEEDBACK_CATEGORIES),
    message: z.string().trim().min(1).max(MESSAGE_MAX),
    appVersion: z.string().trim().min(1).max(APP_VERSION_MAX).nullish(),
    context: z.string().trim().min(1).max(CONTEXT_MAX).nullish(),
  }),
});

builder.queryFields((t) => ({
  feedbackReports: t.withAuth({ scope: 'account:read' }).field({
    type: FeedbackReportPage,
    description: "The person's own feedback reports, newest first, a page at a time",
    args: {
      limit: t.arg.int({
        defaultValue: PAGE_DEFAULT,
        required: true,
        description: `reports per page (1..${PAGE_MAX}, default ${PAGE_DEFAULT})`,
        validate: z.number().int().min(1).max(PAGE_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page; leave it out for the first page',
        validate: z.string().min(1).max(20).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => feedbackReports(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createFeedbackReport: t.withAuth({ scope: 'feedback:write' }).field({
    type: FeedbackReport,
    description: 'Sends a feedback report from the person to the team',
    args: { input: t.arg({ type: CreateFeedbackReportInput, required: true }) },
    resolve: (_root, { input }, ctx) => createFeedbackReport(ctx, input),
  }),
}));
