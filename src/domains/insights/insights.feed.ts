/**
 * The insights feed (issue 17): the cards and suggestions the rules compute (insights.rules.ts)
 * are recorded as insights the person can list, read, answer, dismiss and mark seen. Each insight
 * says which data it came from (its `source`: the rule, the window, the tables and how many of
 * their rows the rule read).
 *
 * When: every computation of the person's cards (`insightCardsOf`: the REST cards route, the
 * admin trigger) or suggestions (`insightSuggestions`) records what fired, and the list refreshes
 * today's cards and suggestions first (insights.service.ts `refreshInsights`); in the background,
 * the morning run (insights.morning.ts) and a predicted low on new glucose (insights.alerts.ts).
 * Recording is idempotent by the natural key (user, rule, subject = the local day): a rule firing
 * again the same day writes nothing, so a dismissed insight is never recreated and two refreshes
 * write once.
 *
 * NOTE: ownership. Recording and reads are of readerUserId(ctx) (the owner's insights while a
 * grantee views as or the admin trigger runs: the rows are derived from the owner's data and the
 * same whoever computes them); answer, dismiss and mark seen change only ctx.principal.userId's
 * rows. Another person's insight is NOT_FOUND.
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, dayBounds, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import type { InsightCard, Suggestion } from './insights.rules.ts';
import { PREDICTION_WINDOW_MINUTES } from './insights.rules.ts';
import { RECOVERY_BASELINE_DAYS, SLEEP_DAY_CUTOFF_HOUR } from './insights.scores.ts';
import type { ScoreInputs } from './insights.scores.ts';
import { clock } from '../../base/clock.ts';

export const INSIGHT_KINDS = ['alert', 'trend', 'score', 'suggestion'] as const;
export type InsightKind = (typeof INSIGHT_KINDS)[number];
export const INSIGHT_STATUSES = ['unseen', 'seen', 'answered', 'dismissed'] as const;
export type InsightStatus = (typeof INSIGHT_STATUSES)[number];
export const INSIGHT_PAGE_DEFAULT = 20;
export const INSIGHT_PAGE_MAX = 100;
/** At most this many ids in one mark-seen call. */
export const SEEN_IDS_MAX = 100;

/** The question each kind of insight asks, and the answers it takes (the answer vocabulary). */
export const INSIGHT_QUESTIONS: Readonly<
  Record<InsightKind, { question: string; answers: readonly string[] }>
> = {
  alert: {
    question: 'Did you act on this alert?',
    answers: ['acted', 'not_needed', 'false_alarm'],
  },
  trend: {
    question: 'Does this match how your last two weeks went?',
    answers: ['yes', 'no', 'not_sure'],
  },
  score: { question: 'Does this score match how you feel?', answers: ['yes', 'no', 'not_sure'] },
  suggestion: {
    question: 'Will you try this?',
    answers: ['will_try', 'already_doing', 'not_for_me'],
  },
};

/** How many rows of one table a rule read. */
export interface InsightSourceInput {
  /** the table, e.g. glucose_readings */
  table: string;
  /** rows of it in the window */
  count: number;
}

/** Which data an insight came from. */
export interface InsightSourceView {
  rule: string;
  windowStart: Date;
  windowEnd: Date;
  inputs: InsightSourceInput[];
  /** e.g. "glucose_readings 2026-11-20 06:00-06:30 (UTC): 6 rows" */
  summary: string;
}

export interface InsightView {
  id: number;
  kind: string;
  rule: string;
  subject: string;
  date: LocalDate;
  /** the IANA zone date is local to: the zone it was recorded in (the profile's, for older rows) */
  timeZone: string;
  priority: number;
  title: string;
  body: string;
  score: number | null;
  status: string;
  question: string;
  answerChoices: readonly string[];
  answer: string | null;
  source: InsightSourceView;
  createdAt: Date;
  seenAt: Date | null;
  answeredAt: Date | null;
  dismissedAt: Date | null;
}

export interface InsightPageView {
  items: InsightView[];
  nextCursor: string | null;
}

export interface ListInsightsOptions {
  /** only this status; default every status but dismissed */
  status?: string | null;
  /** only this kind */
  kind?: string | null;
  /** insights per page */
  limit: number;
  /** nextCursor of the previous page */
  cursor?: string | null;
}

export interface InsightIdOptions {
  /** the insight's id */
  id: number;
}

export interface AnswerInsightOptions extends InsightIdOptions {
  /** one of the answers of the insight's kind (INSIGHT_QUESTIONS) */
  answer: string;
}

export interface MarkSeenOptions {
  /** these insights (at most SEEN_IDS_MAX) */
  ids?: readonly number[] | null;
  /** or every insight recorded at or before this instant */
  upTo?: Date | null;
}

/** What recording needs besides the cards: the inputs the rules read and the day they are about. */
export interface RecordContext {
  inputs: ScoreInputs;
  /** the local day the cards and suggestions are about */
  today: LocalDate;
}

interface Draft {
  kind: InsightKind;
  rule: string;
  date: LocalDate;
  priority: number;
  title: string;
  body: string;
  score: number | null;
}

type Window = { start: Date; end: Date };
type Table = 'glucose_readings' | 'sleep_samples' | 'health_metrics' | 'workout_samples' | 'meals';

const within = (t: Date, w: Window): boolean => t >= w.start && t < w.end;

/** Rows of each table of the rule's inputs inside the window. */
function countRows(inputs: ScoreInputs, tables: readonly Table[], w: Window, metrics?: string[]) {
  const n: Record<Table, () => number> = {
    glucose_readings: () => inputs.glucose.filter((p) => within(p.timestamp, w)).length,
    sleep_samples: () => inputs.sleep.filter((s) => within(s.endAt, w)).length,
    health_metrics: () =>
      inputs.metrics.filter(
        (m) => within(m.timestamp, w) && (!metrics || metrics.includes(m.metricType)),
      ).length,
    workout_samples: () => inputs.workouts.filter((x) => within(x.startAt, w)).length,
    meals: () => inputs.meals.filter((m) => within(m.eatenAt, w)).length,
  };
  return tables.map((table) => ({ table, count: n[table]() }));
}

/** The window and tables each rule reads (docs/scores.md, "Insights and the weekly digest"). */
function sourceOf(rule: string, rc: RecordContext): InsightSourceView {
  const { inputs, today } = rc;
  const zone = inputs.timezone;
  const day = dayBounds(today, zone);
  const lastWeek = { start: dayBounds(addDays(today, -7), zone).start, end: day.start };
  const night = {
    start: localTime(addDays(today, -1), SLEEP_DAY_CUTOFF_HOUR, zone),
    end: localTime(today, SLEEP_DAY_CUTOFF_HOUR, zone),
  };
  const plan: Record<string, [Window, Table[], string[]?]> = {
    predicted_low: [
      {
        start: new Date(inputs.now.getTime() - PREDICTION_WINDOW_MINUTES * 60_000),
        end: inputs.now,
      },
      ['glucose_readings'],
    ],
    time_in_range_trend: [
      { start: dayBounds(addDays(today, -14), zone).start, end: day.start },
      ['glucose_readings'],
    ],
    score_glucose: [day, ['glucose_readings']],
    score_sleep: [night, ['sleep_samples']],
    score_activity: [day, ['health_metrics', 'workout_samples'], ['steps', 'active_energy']],
    score_recovery: [
      { start: dayBounds(addDays(today, -RECOVERY_BASELINE_DAYS), zone).start, end: day.end },
      ['health_metrics'],
      ['hrv', 'resting_heart_rate'],
    ],
    score_nutrition: [day, ['meals']],
    review_lows: [lastWeek, ['glucose_readings']],
    sleep_more: [night, ['sleep_samples']],
    move_more: [lastWeek, ['health_metrics'], ['steps']],
    more_fiber: [lastWeek, ['meals']],
  };
  plan.predicted_high = plan.predicted_low;
  plan.walk_after_meals = plan.review_lows;
  plan.take_it_easy = plan.score_recovery;
  const [window, tables, metrics] = plan[rule] ?? [day, []];
  const counts = countRows(inputs, tables, window, metrics);
  const span = `${window.start.toISOString()}..${window.end.toISOString()}`;
  const summary = counts.length
    ? `${counts.map((c) => `${c.table}: ${c.count} rows`).join(', ')}${metrics ? ` (${metrics.join(', ')})` : ''}, ${span} (zone ${zone})`
    : `no stored rows, ${span}`;
  return { rule, windowStart: window.start, windowEnd: window.end, inputs: counts, summary };
}

/** The rule of a card, from its id (`alert:predicted_low:<date>`, `trend:time_in_range:<date>`, `score:sleep:<date>`). */
function ruleOfCard(card: InsightCard): string {
  const [kind, name] = card.id.split(':');
  if (kind === 'alert') return name;
  return kind === 'trend' ? `${name}_trend` : `score_${name}`;
}

/** Records the drafts not recorded yet; answers how many it wrote. */
async function record(ctx: AuthedContext, drafts: Draft[], rc: RecordContext): Promise<number> {
  if (!drafts.length) return 0;
  const userId = readerUserId(ctx);
  // what is recorded already is not sent again (no write, no id used); the unique key still
  // settles two refreshes racing each other
  const known = await ctx.prisma.insight.findMany({
    where: { userId, OR: drafts.map((d) => ({ rule: d.rule, subject: d.date })) },
    select: { rule: true, subject: true },
  });
  const have = new Set(known.map((k) => `${k.rule}\n${k.subject}`));
  const fresh = drafts.filter((d) => !have.has(`${d.rule}\n${d.date}`));
  if (!fresh.length) return 0;
  // the most urgent last, so that it has the highest id and lists first
  const sorted = [...fresh].sort((a, b) => b.priority - a.priority);
  const { count } = await ctx.prisma.insight.createMany({
    data: sorted.map((d) => {
      const s = sourceOf(d.rule, rc);
      return {
        userId,
        ...d,
        subject: d.date,
        source: {
          rule: s.rule,
          window: { start: s.windowStart.toISOString(), end: s.windowEnd.toISOString() },
          inputs: s.inputs.map((i) => ({ table: i.table, count: i.count })),
          summary: s.summary,
          // the zone its day was counted in, answered as the insight's timeZone
          zone: rc.inputs.timezone,
        },
      };
    }),
    skipDuplicates: true, // the natural key (user, rule, subject): the first firing of a day stays
  });
  return count;
}

/** Records the cards that fired (idempotent by user, rule and day); answers how many were new. */
export async function recordCards(
  ctx: AuthedContext,
  cards: readonly InsightCard[],
  rc: RecordContext,
): Promise<number> {
  return record(
    ctx,
    cards.map((c) => ({
      kind: c.kind,
      rule: ruleOfCard(c),
      date: c.date,
      priority: c.priority,
      title: c.title,
      body: c.body,
      score: c.score,
    })),
    rc,
  );
}

/** Records the suggestions that fired today (idempotent by user, rule and day); answers how many were new. */
export async function recordSuggestions(
  ctx: AuthedContext,
  items: readonly Suggestion[],
  rc: RecordContext,
): Promise<number> {
  return record(
    ctx,
    items.map((s) => ({
      kind: 'suggestion',
      rule: s.code,
      date: rc.today,
      priority: s.priority,
      title: s.title,
      body: s.message,
      score: null,
    })),
    rc,
  );
}

type Row = Awaited<ReturnType<AuthedContext['prisma']['insight']['findFirstOrThrow']>>;

/** The zone recorded with the insight (rows recorded before issue 30 have none). */
const zoneOf = (r: Row): string | null => {
  const zone = (r.source as { zone?: unknown } | null)?.zone;
  return typeof zone === 'string' ? zone : null;
};

function viewOf(r: Row, profileZone: string): InsightView {
  const src = r.source as unknown as {
    rule: string;
    window: { start: string; end: string };
    inputs: InsightSourceInput[];
    summary: string;
  };
  const q = INSIGHT_QUESTIONS[r.kind as InsightKind] ?? INSIGHT_QUESTIONS.score;
  return {
    id: r.id,
    kind: r.kind,
    rule: r.rule,
    subject: r.subject,
    date: r.date,
    timeZone: zoneOf(r) ?? profileZone,
    priority: r.priority,
    title: r.title,
    body: r.body,
    score: r.score,
    status: r.status,
    question: q.question,
    answerChoices: q.answers,
    answer: r.answer,
    source: {
      rule: src.rule,
      windowStart: new Date(src.window.start),
      windowEnd: new Date(src.window.end),
      inputs: src.inputs,
      summary: src.summary,
    },
    createdAt: r.createdAt,
    seenAt: r.seenAt,
    answeredAt: r.answeredAt,
    dismissedAt: r.dismissedAt,
  };
}

/**
 * The views of rows, each naming its zone: the one recorded with it, else (older rows) the
 * person's profile zone, read only when a row needs it.
 */
async function viewsOf(ctx: AuthedContext, rows: readonly Row[]): Promise<InsightView[]> {
  const profileZone = rows.some((r) => !zoneOf(r)) ? await personZone(ctx) : 'UTC';
  return rows.map((r) => viewOf(r, profileZone));
}

async function oneView(ctx: AuthedContext, row: Row): Promise<InsightView> {
  return (await viewsOf(ctx, [row]))[0];
}

const cursorError = () =>
  validationError([
    {
      loc: ['cursor'],
      msg: 'not a cursor of this list: pass next_cursor of the previous page',
      type: 'value_error',
    },
  ]);

/** One page of the person's insights, newest first (keyset on id). */
export async function listInsights(
  ctx: AuthedContext,
  options: ListInsightsOptions,
): Promise<InsightPageView> {
  let before: number | null = null;
  if (options.cursor) {
    if (!/^[1-9][0-9]{0,9}$/.test(options.cursor)) throw cursorError();
    before = Number(options.cursor);
  }
  const rows = await ctx.prisma.insight.findMany({
    where: {
      userId: readerUserId(ctx),
      status: options.status ?? { not: 'dismissed' },
      ...(options.kind ? { kind: options.kind } : {}),
      ...(before !== null ? { id: { lt: before } } : {}),
    },
    orderBy: { id: 'desc' },
    take: options.limit + 1,
  });
  const items = rows.slice(0, options.limit);
  const nextCursor = rows.length > options.limit ? String(items.at(-1)!.id) : null;
  return { items: await viewsOf(ctx, items), nextCursor };
}

const notFound = () =>
  appError('NOT_FOUND', 'Insight not found: insights_list lists the insights and their ids');

/** One of the person's insights. */
export async function insight(ctx: AuthedContext, options: InsightIdOptions): Promise<InsightView> {
  const row = await ctx.prisma.insight.findFirst({
    where: { id: options.id, userId: readerUserId(ctx) },
  });
  if (!row) throw notFound();
  return oneView(ctx, row);
}

async function ownRow(ctx: AuthedContext, id: number): Promise<Row> {
  const row = await ctx.prisma.insight.findFirst({ where: { id, userId: ctx.principal.userId } });
  if (!row) throw notFound();
  return row;
}

/** Answers an insight's question with one of its kind's answers (again: the new answer replaces it). */
export async function answerInsightCard(
  ctx: AuthedContext,
  options: AnswerInsightOptions,
): Promise<InsightView> {
  const row = await ownRow(ctx, options.id);
  const q = INSIGHT_QUESTIONS[row.kind as InsightKind] ?? INSIGHT_QUESTIONS.score;
  if (!q.answers.includes(options.answer)) {
    throw validationError([
      {
        loc: ['answer'],
        msg: `a ${row.kind} insight takes one of: ${q.answers.join(', ')}`,
        type: 'enum',
      },
    ]);
  }
  if (row.status === 'dismissed') {
    throw appError('CONFLICT', 'This insight was dismissed: it takes no answer any more');
  }
  const now = clock.now();
  const updated = await ctx.prisma.insight.update({
    where: { id: row.id },
    data: {
      status: 'answered',
      answer: options.answer,
      answeredAt: now,
      seenAt: row.seenAt ?? now,
    },
  });
  return oneView(ctx, updated);
}

/** Dismisses an insight: it is never listed as active again, and its rule never recreates it. */
export async function dismissInsightCard(
  ctx: AuthedContext,
  options: InsightIdOptions,
): Promise<InsightView> {
  const row = await ownRow(ctx, options.id);
  if (row.status === 'dismissed') return oneView(ctx, row);
  const updated = await ctx.prisma.insight.update({
    where: { id: row.id },
    data: { status: 'dismissed', dismissedAt: clock.now() },
  });
  return oneView(ctx, updated);
}

/** Marks unseen insights seen: the given ids, or every one recorded up to a time. */
export async function markInsightsSeen(
  ctx: AuthedContext,
  options: MarkSeenOptions,
): Promise<{ marked: number }> {
  const hasIds = !!options.ids?.length;
  if (hasIds === !!options.upTo) {
    throw validationError([
      { loc: ['ids'], msg: 'give either ids or up_to (exactly one of them)', type: 'value_error' },
    ]);
  }
  const userId = ctx.principal.userId;
  if (hasIds) {
    const ids = [...new Set(options.ids)];
    const found = await ctx.prisma.insight.count({ where: { userId, id: { in: ids } } });
    if (found !== ids.length) throw notFound();
  }
  const { count } = await ctx.prisma.insight.updateMany({
    where: {
      userId,
      status: 'unseen',
      ...(hasIds ? { id: { in: [...options.ids!] } } : { createdAt: { lte: options.upTo! } }),
    },
    data: { status: 'seen', seenAt: clock.now() },
  });
  return { marked: count };
}

/** Insights chosen by a query of the caller's (the digest's top items); the where must own them. */
export async function getInsightViews(
  ctx: AuthedContext,
  query: NonNullable<Parameters<AuthedContext['prisma']['insight']['findMany']>[0]>,
): Promise<InsightView[]> {
  return viewsOf(ctx, await ctx.prisma.insight.findMany(query));
}
