/**
 * Nutrition's reads across meals and glucose (issue 17): the glucose responses of meals. Nutrition
 * owns no meal and no reading: it reads meals through the meals domain's services and readings
 * through `glucoseSeries`, one query for all the meals asked about, and computes each response
 * with the pure functions of nutrition.response.ts.
 *
 * NOTE: ownership. Every read is of readerUserId(ctx) (inside the services it calls).
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import { isoWithOffset } from '../../platform/local-time.ts';
import { glucoseSeries } from '../glucose/index.ts';
import { meal, meals, mealTotalsBetween } from '../meals/index.ts';
import type { MealView } from '../meals/index.ts';
import { personZone } from '../profile/index.ts';
import {
  DETECT_LEAD_MINUTES,
  DETECT_PEAK_MINUTES,
  detectedMealStart,
  detectRises,
  MEAL_AFTER_MINUTES,
  MEAL_BEFORE_MINUTES,
  unloggedRises,
} from './nutrition.detect.ts';
import type { DetectedRise } from './nutrition.detect.ts';
import { glucoseResponse, responseWindow } from './nutrition.response.ts';
import type {
  GlucoseResponse,
  GlucoseSample,
  NoResponseReason,
  ResponseResult,
} from './nutrition.response.ts';
import { clock } from '../../base/clock.ts';

/** A meal as far as its response goes: its id and when it was eaten. */
export interface MealMoment {
  id: string;
  eatenAt: Date;
}

/** The readings around `meals` (each one's response window), sorted by time: one SELECT. */
export async function samplesAround(
  ctx: AuthedContext,
  meals: readonly MealMoment[],
): Promise<GlucoseSample[]> {
  return glucoseSeries(
    ctx,
    meals.map((m) => responseWindow(m.eatenAt.getTime())),
  );
}

/** The glucose response of each meal (in the order given), from one read of the readings. */
export async function responsesOfMeals(
  ctx: AuthedContext,
  meals: readonly MealMoment[],
): Promise<(ResponseResult & { mealId: string })[]> {
  const samples = await samplesAround(ctx, meals);
  return meals.map((m) => ({ mealId: m.id, ...glucoseResponse(samples, m.eatenAt.getTime()) }));
}

// ---- glucose responses of meals and detected meals (issue 17, part "response") ----

/** Most meals per page of the range read. */
export const RESPONSES_PAGE_MAX = 100;
/** The longest range of the range read and of detected meals, in days. */
export const RESPONSES_RANGE_MAX_DAYS = 366;
export const DETECTED_RANGE_MAX_DAYS = 31;
const DAY = 86_400_000;
const RANGE_FLOOR = Date.UTC(1970, 0, 1);
const RANGE_CEILING = Date.UTC(2100, 0, 1);

/** A meal with its glucose response (or the reason it has none). */
export interface MealResponseView {
  mealId: string;
  mealName: string | null;
  /** breakfast, lunch, dinner, snack, or null when the meal was logged without one */
  mealType: string | null;
  eatenAt: Date;
  /** eatenAt on the person's wall clock with its offset, e.g. 2026-11-27T08:00:00.000+01:00 */
  eatenAtLocal: string;
  /** the IANA zone eatenAtLocal is read in (the profile's; UTC when unset) */
  timeZone: string;
  response: GlucoseResponse | null;
  reason: NoResponseReason | null;
}

/** A page of meals with their responses, newest first. */
export interface MealResponsePageView {
  from: Date;
  to: Date;
  items: MealResponseView[];
  nextCursor: string | null;
}

export interface MealResponsesOptions {
  /** one meal only: the page holds it (NOT_FOUND if it is not the person's); the range is ignored */
  mealId?: string | null;
  /** meals eaten at or after (default: 30 days before `to`) */
  from?: Date | null;
  /** meals eaten before (default: now) */
  to?: Date | null;
  /** only meals logged with this type (breakfast, lunch, dinner, snack); ignored with mealId */
  mealType?: string | null;
  /** meals per page (1..RESPONSES_PAGE_MAX) */
  limit: number;
  /** nextCursor of the previous page */
  cursor?: string | null;
}

const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';

/** The keyset position a cursor names: the previous page's last meal. */
function decodeCursor(cursor: string): { eatenAt: Date; id: string } {
  const m = /^(\d{1,15})\.([A-Za-z0-9_-]{1,64})$/.exec(cursor);
  if (!m) throw validationError([{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }]);
  return { eatenAt: new Date(Number(m[1])), id: m[2] };
}

/** A range [from, to) with defaults and a bound on its length; VALIDATION_FAILED otherwise. */
export function boundedRange(
  from: Date | null | undefined,
  to: Date | null | undefined,
  defaultDays: number,
  maxDays: number,
): { from: Date; to: Date } {
  const end = to ?? clock.now();
  const start = from ?? new Date(end.getTime() - defaultDays * DAY);
  if (start.getTime() < RANGE_FLOOR || end.getTime() > RANGE_CEILING) {
    // NOTE: the reads reach hours beyond the range; years 0001 and 9999 would leave ISO-8601
    throw validationError([
      { loc: ['from'], msg: 'the range must lie within 1970..2100', type: 'value_error' },
    ]);
  }
  if (start.getTime() >= end.getTime()) {
    throw validationError([{ loc: ['from'], msg: 'from must be before to', type: 'value_error' }]);
  }
  if (end.getTime() - start.getTime() > maxDays * DAY) {
    throw validationError([
      { loc: ['from'], msg: `the range is at most ${maxDays} days`, type: 'value_error' },
    ]);
  }
  return { from: start, to: end };
}

function responseView(meal: MealView, result: ResponseResult, zone: string): MealResponseView {
  return {
    mealId: meal.id,
    mealName: meal.mealName,
    mealType: meal.mealType,
    eatenAt: meal.eatenAt,
    eatenAtLocal: isoWithOffset(meal.eatenAt, zone),
    timeZone: zone,
    response: result.response,
    reason: result.reason,
  };
}

/** The glucose response of one of the person's meals; NOT_FOUND for anyone else's. */
export async function mealGlucoseResponse(
  ctx: AuthedContext,
  mealId: string,
): Promise<MealResponseView> {
  const eaten = await meal(ctx, mealId);
  const [result] = await responsesOfMeals(ctx, [eaten]);
  return responseView(eaten, result, await personZone(ctx));
}

/** The person's meals eaten in a range with their responses, newest first, a page at a time. */
export async function mealGlucoseResponses(
  ctx: AuthedContext,
  options: MealResponsesOptions,
): Promise<MealResponsePageView> {
  const { from, to } = boundedRange(options.from, options.to, 30, RESPONSES_RANGE_MAX_DAYS);
  if (options.mealId) {
    return { from, to, items: [await mealGlucoseResponse(ctx, options.mealId)], nextCursor: null };
  }
  const after = options.cursor ? decodeCursor(options.cursor) : null;
  const eaten = await meals(ctx, {
    limit: options.limit + 1,
    after,
    startMs: from.getTime(),
    endMs: to.getTime(),
    mealType: options.mealType,
  });
  const page = eaten.slice(0, options.limit);
  const results = await responsesOfMeals(ctx, page);
  const zone = await personZone(ctx);
  const last = page[page.length - 1];
  return {
    from,
    to,
    items: page.map((m, i) => responseView(m, results[i], zone)),
    nextCursor: eaten.length > options.limit ? `${last.eatenAt.getTime()}.${last.id}` : null,
  };
}

/** A detected meal as answers show it. */
export interface DetectedMealView {
  id: string;
  estimatedAt: Date;
  nadirMgDl: number;
  peakAt: Date;
  peakMgDl: number;
  riseMgDl: number;
  maxSlopeMgDlPerMin: number;
}

export interface DetectedMealsOptions {
  /** rises starting at or after (default: 7 days before `to`) */
  from?: Date | null;
  /** rises starting before (default: now) */
  to?: Date | null;
}

/** The rises of [from, to) from the readings around it (3 h before, 2 h after), oldest first. */
async function risesBetween(ctx: AuthedContext, from: Date, to: Date): Promise<DetectedRise[]> {
  const samples = await glucoseSeries(ctx, [
    {
      start: new Date(from.getTime() - DETECT_LEAD_MINUTES * 60_000),
      end: new Date(to.getTime() + DETECT_PEAK_MINUTES * 60_000),
    },
  ]);
  return detectRises(samples).filter(
    (r) => r.startedAt >= from.getTime() && r.startedAt < to.getTime(),
  );
}

/**
 * Detected meals of a range, oldest first: rises with no logged meal from 60 minutes before their
 * start to 30 minutes after it, and not dismissed.
 */
export async function detectedMeals(
  ctx: AuthedContext,
  options: DetectedMealsOptions,
): Promise<DetectedMealView[]> {
  const { from, to } = boundedRange(options.from, options.to, 7, DETECTED_RANGE_MAX_DAYS);
  const rises = await risesBetween(ctx, from, to);
  if (rises.length === 0) return [];
  // the meals' times only: one query, no items
  const meals = (
    await mealTotalsBetween(ctx, {
      start: new Date(from.getTime() - MEAL_BEFORE_MINUTES * 60_000),
      end: new Date(to.getTime() + MEAL_AFTER_MINUTES * 60_000 + 1),
    })
  ).map((m) => m.eatenAt.getTime());
  const dismissed = await ctx.prisma.detectedMealDismissal.findMany({
    where: { userId: readerUserId(ctx), startedAt: { gte: from, lt: to } },
    select: { detectedId: true },
  });
  const gone = new Set(dismissed.map((d) => d.detectedId));
  return unloggedRises(rises, meals)
    .filter((r) => !gone.has(r.id))
    .map((r) => ({
      id: r.id,
      estimatedAt: new Date(r.startedAt),
      nadirMgDl: r.nadirMgDl,
      peakAt: new Date(r.peakAt),
      peakMgDl: r.peakMgDl,
      riseMgDl: r.riseMgDl,
      maxSlopeMgDlPerMin: r.maxSlopeMgDlPerMin,
    }));
}

/** A dismissal as answers show it. */
export interface DismissalView {
  id: string;
  estimatedAt: Date;
  dismissedAt: Date;
}

/**
 * Dismisses one of the person's detected meals so it is never listed again; dismissing twice is
 * once. NOT_FOUND when the id names no rise in the person's readings.
 */
export async function dismissDetectedMeal(
  ctx: AuthedContext,
  detectedId: string,
): Promise<DismissalView> {
  const start = detectedMealStart(detectedId);
  const notFound = () => appError('NOT_FOUND', 'no detected meal with this id');
  if (start == null) throw notFound();
  const rises = await risesBetween(ctx, new Date(start), new Date(start + 1000));
  const rise = rises.find((r) => r.id === detectedId);
  if (!rise) throw notFound();
  const userId = ctx.principal.userId;
  const row = await ctx.prisma.detectedMealDismissal.upsert({
    where: { userId_detectedId: { userId, detectedId } },
    create: { userId, detectedId, startedAt: new Date(rise.startedAt) },
    update: {},
  });
  return { id: row.detectedId, estimatedAt: row.startedAt, dismissedAt: row.dismissedAt };
}
