/**
 * The weekly digest (issue 17): one local week (Monday..Sunday in the person's zone) against the
 * week before: the daily scores' averages and changes, time in range, the week's insights by kind
 * and status and the most urgent of them. Every figure names its source. Formulas: docs/scores.md,
 * "Insights and the weekly digest".
 *
 * Cost: two SQL aggregates of glucose (glucoseWindow, one per week), one group-by and one page of
 * the insights table, and the daily scores of the two weeks (14 days of rows, one query per source,
 * insights.service.ts); never more than those two weeks, whatever the person's history.
 *
 * NOTE: ownership. Every read is of readerUserId(ctx), a bound parameter.
 */
import { readerUserId } from '../../auth/principal.ts';
import { validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, dayBounds, isoWeekday, localDateOf } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { glucoseWindow } from '../glucose/index.ts';
import { personZone } from '../profile/index.ts';
import { getInsightViews } from './insights.feed.ts';
import type { InsightView } from './insights.feed.ts';
import { SCORE_KINDS } from './insights.scores.ts';
import { scoreDays } from './insights.service.ts';
import { clock } from '../../base/clock.ts';

/** The most urgent insights of the week the digest shows. */
export const DIGEST_TOP_ITEMS = 5;
/** The daily scores the digest averages (those of every day's overall score). */
const DIGEST_SCORES = SCORE_KINDS.filter((k) => k !== 'blood_pressure' && k !== 'sun');

export interface DigestOptions {
  /** any date of the wanted week, YYYY-MM-DD; default the last complete week */
  week?: LocalDate | null;
}

export interface DigestGlucoseView {
  readings: number;
  previousReadings: number;
  timeInRangePct: number | null;
  previousTimeInRangePct: number | null;
  /** percentage points, this week minus the week before */
  timeInRangeChange: number | null;
  belowRangePct: number | null;
  aboveRangePct: number | null;
  meanMgDl: number | null;
  previousMeanMgDl: number | null;
  meanChange: number | null;
  source: string;
}

export interface DigestScoreView {
  kind: string;
  /** mean of the week's daily scores (days with a score) */
  average: number | null;
  previousAverage: number | null;
  change: number | null;
  /** days of the week with a score */
  days: number;
  previousDays: number;
  source: string;
}

export interface DigestCountView {
  key: string;
  count: number;
}

export interface DigestInsightsView {
  total: number;
  byKind: DigestCountView[];
  byStatus: DigestCountView[];
  /** the most urgent insights of the week that are not dismissed */
  top: InsightView[];
  source: string;
}

export interface InsightDigestView {
  weekStart: LocalDate;
  weekEnd: LocalDate;
  previousWeekStart: LocalDate;
  timezone: string;
  /** false while the week is still running (figures so far) */
  complete: boolean;
  glucose: DigestGlucoseView;
  scores: DigestScoreView[];
  insights: DigestInsightsView;
}

const r1 = (v: number | null): number | null => (v === null ? null : Math.round(v * 10) / 10);
const diff = (a: number | null, b: number | null): number | null =>
  a === null || b === null ? null : r1(a - b);

/** The Monday of the week of `date`. */
export const mondayOf = (date: LocalDate): LocalDate => addDays(date, 1 - isoWeekday(date));

/** The digest of one local week against the week before. */
export async function insightsDigest(
  ctx: AuthedContext,
  options: DigestOptions,
): Promise<InsightDigestView> {
  const zone = await personZone(ctx);
  const today = localDateOf(clock.now(), zone);
  const weekStart = mondayOf(options.week ?? addDays(today, -7));
  if (weekStart > today) {
    throw validationError([
      { loc: ['week'], msg: 'the week must not start after today', type: 'value_error' },
    ]);
  }
  const weekEnd = addDays(weekStart, 6);
  const previousWeekStart = addDays(weekStart, -7);
  const span = (from: LocalDate) => ({
    start: dayBounds(from, zone).start,
    end: dayBounds(addDays(from, 6), zone).end,
  });
  const lastScored = weekEnd < today ? weekEnd : today;
  const [now, before, days, insights] = await Promise.all([
    glucoseWindow(ctx, span(weekStart)),
    glucoseWindow(ctx, span(previousWeekStart)),
    scoreDays(ctx, { days: 14, from: previousWeekStart, to: lastScored, order: 'asc' }),
    weekInsights(ctx, weekStart, weekEnd),
  ]);
  const scores = DIGEST_SCORES.map((kind): DigestScoreView => {
    const of = (from: LocalDate, to: LocalDate) =>
      days
        .filter((d) => d.date >= from && d.date <= to)
        .map((d) => d[kind].score)
        .filter((s): s is number => s !== null);
    const mean = (vs: number[]) =>
      vs.length ? r1(vs.reduce((a, b) => a + b, 0) / vs.length) : null;
    const cur = of(weekStart, weekEnd);
    const prev = of(previousWeekStart, addDays(weekStart, -1));
    return {
      kind,
      average: mean(cur),
      previousAverage: mean(prev),
      change: diff(mean(cur), mean(prev)),
      days: cur.length,
      previousDays: prev.length,
      source: `daily ${kind} scores (docs/scores.md) of ${cur.length} of 7 days (week before: ${prev.length}), computed from each day's stored rows`,
    };
  });
  return {
    weekStart,
    weekEnd,
    previousWeekStart,
    timezone: zone,
    complete: weekEnd < today,
    glucose: {
      readings: now.readings,
      previousReadings: before.readings,
      timeInRangePct: now.inRangePct,
      previousTimeInRangePct: before.inRangePct,
      timeInRangeChange: diff(now.inRangePct, before.inRangePct),
      belowRangePct: now.belowRangePct,
      aboveRangePct: now.aboveRangePct,
      meanMgDl: r1(now.meanMgDl),
      previousMeanMgDl: r1(before.meanMgDl),
      meanChange: diff(r1(now.meanMgDl), r1(before.meanMgDl)),
      source: `glucose_readings ${weekStart}..${weekEnd}: ${now.readings} rows (week before ${previousWeekStart}..${addDays(weekStart, -1)}: ${before.readings} rows), zone ${zone}; in range 70-180 mg/dL`,
    },
    scores,
    insights,
  };
}

/** The week's insights counted by kind and status (one SQL group-by), and the most urgent ones. */
async function weekInsights(
  ctx: AuthedContext,
  from: LocalDate,
  to: LocalDate,
): Promise<DigestInsightsView> {
  const where = { userId: readerUserId(ctx), date: { gte: from, lte: to } };
  const [groups, top] = await Promise.all([
    ctx.prisma.insight.groupBy({
      by: ['kind', 'status'],
      where,
      _count: { _all: true },
      orderBy: [{ kind: 'asc' }, { status: 'asc' }],
    }),
    getInsightViews(ctx, {
      where: { ...where, status: { not: 'dismissed' } },
      orderBy: [{ priority: 'asc' }, { id: 'desc' }],
      take: DIGEST_TOP_ITEMS,
    }),
  ]);
  const tally = (key: 'kind' | 'status') => {
    const m = new Map<string, number>();
    for (const g of groups) m.set(g[key], (m.get(g[key]) ?? 0) + g._count._all);
    return [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, count]) => ({ key: k, count }));
  };
  const total = groups.reduce((a, g) => a + g._count._all, 0);
  return {
    total,
    byKind: tally('kind'),
    byStatus: tally('status'),
    top,
    source: `insights dated ${from}..${to}: ${total} rows`,
  };
}
