/** Feedback reports: a person sends one (category, message, optional app version and context) and lists their own. */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';

/** What a report is about. */
export const FEEDBACK_CATEGORIES = ['bug', 'idea', 'praise', 'question', 'other'] as const;
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];

/** A report as answered. */
export interface FeedbackReportView {
  id: number;
  category: string;
  message: string;
  appVersion: string | null;
  context: string | null;
  createdAt: Date;
}

/** A page of reports and the cursor of the next. */
export interface FeedbackReportPageView {
  items: FeedbackReportView[];
  nextCursor: string | null;
}

export interface SendFeedbackOptions {
  /** what the report is about */
  category: FeedbackCategory;
  /** the person's words (1..4000 characters) */
  message: string;
  /** the app version the person uses, if known */
  appVersion?: string | null;
  /** where in the app, or what the person was doing */
  context?: string | null;
}

export interface ListFeedbackOptions {
  /** reports per page (1..100) */
  limit: number;
  /** nextCursor of the previous page; absent: the first page (newest first) */
  cursor?: string | null;
}

const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';

function decodeCursor(text: string): number {
  const id = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (Number.isSafeInteger(id) && id > 0) return id;
  throw appError('VALIDATION_FAILED', `cursor: ${CURSOR_ISSUE}`, {
    detail: [{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }],
  });
}

const select = {
  id: true,
  category: true,
  message: true,
  appVersion: true,
  context: true,
  createdAt: true,
} as const;

/** Stores the person's report; FEEDBACK_REPORTS_PER_DAY per person per UTC day (then 429). */
export async function createFeedbackReport(
  ctx: AuthedContext,
  options: SendFeedbackOptions,
): Promise<FeedbackReportView> {
  const userId = ctx.principal.userId;
  const rule = {
    name: 'feedback:reports',
    points: ctx.config.FEEDBACK_REPORTS_PER_DAY,
    seconds: 'utc-day' as const,
  };
  const decision = await ctx.limits.take(rule, String(userId));
  if (!decision.allowed)
    throw appError('RATE_LIMITED', 'Too many feedback reports today; try again tomorrow', {
      detail: { code: 'rate_limited' },
      retryAfter: decision.retryAfterSeconds,
    });
  return ctx.prisma.feedbackReport.create({
    data: {
      userId,
      category: options.category,
      message: options.message,
      appVersion: options.appVersion ?? null,
      context: options.context ?? null,
    },
    select,
  });
}

/** The person's own reports, newest first, a page at a time (keyset on id). */
export async function feedbackReports(
  ctx: AuthedContext,
  options: ListFeedbackOptions,
): Promise<FeedbackReportPageView> {
  const before = options.cursor ? decodeCursor(options.cursor) : null;
  const rows = await ctx.prisma.feedbackReport.findMany({
    // NOTE: ownership: the credential's own person only (never the person viewed as).
    where: { userId: ctx.principal.userId, ...(before ? { id: { lt: before } } : {}) },
    orderBy: { id: 'desc' },
    take: options.limit + 1,
    select,
  });
  const items = rows.slice(0, options.limit);
  const nextCursor = rows.length > options.limit ? String(items.at(-1)!.id) : null;
  return { items, nextCursor };
}
