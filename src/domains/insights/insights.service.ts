/**
 * Insights: daily scores, suggestions, predictive alerts and cards; the cards and suggestions that
 * fire are recorded as insights (insights.feed.ts). This file only loads: a range
 * of days costs one query per source (the person's zone, glucose, sleep, metrics, workouts, meals),
 * whatever its length; every figure is computed by the pure functions of insights.scores.ts and
 * insights.rules.ts. It reads the other domains' rows through their
 * exported services (personZone, glucosePoints, sleepEndingBetween, metricSamplesBetween,
 * workoutsStartingBetween, mealTotalsBetween), never with its own SQL; its own table is the
 * insights feed's (insights.feed.ts, insights.digest.ts).
 *
 * NOTE: ownership. Every read is of readerUserId(ctx) (the owner's data while a grantee views as),
 * a bound parameter, never from the request.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { glucosePoints } from '../glucose/index.ts';
import { trendStats } from '../glucose/index.ts';
import type { StatPoint, TrendStats } from '../glucose/index.ts';
import type { MetricType } from '../health/index.ts';
import type { DailyHealthView } from '../health/index.ts';
import {
  metricSamplesBetween,
  sleepEndingBetween,
  sleepEndingBetweenOf,
  workoutsStartingBetween,
} from '../health/index.ts';
import { mealTotalsBetween } from '../meals/index.ts';
import { bloodPressureBetween, sunSessionsBetween } from '../logs/index.ts';
import { credentialHolds } from '../../auth/view-as.ts';
import { personZone } from '../profile/index.ts';
import {
  addDays,
  datesFrom,
  dayBounds,
  daysBetween,
  localDateOf,
  localTime,
} from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { alertsFrom, cardsFrom, PREDICTION_WINDOW_MINUTES, suggestions } from './insights.rules.ts';
import type { InsightCard, PredictiveAlert, Suggestion } from './insights.rules.ts';
import { listInsights, recordCards, recordSuggestions } from './insights.feed.ts';
import type { InsightPageView, ListInsightsOptions } from './insights.feed.ts';
import {
  activityScoreOfTotals,
  loggedScoresOfDays,
  nightOf,
  RECOVERY_BASELINE_DAYS,
  scoresOfDays,
  sleepScore,
  SLEEP_DAY_CUTOFF_HOUR,
} from './insights.scores.ts';
import type { DayScores, Score, ScoreInputs, ScoreKind } from './insights.scores.ts';
import { clock } from '../../base/clock.ts';

/** Longest range of days one read may cover. */
export const MAX_RANGE_DAYS = 90;
/** Metric types the scores read (others, such as heart rate, can be numerous and are not needed). */
const SCORED_METRICS: readonly MetricType[] = [
  'steps',
  'active_energy',
  'hrv',
  'resting_heart_rate',
];

export interface DayScoresOptions {
  /** local date YYYY-MM-DD; default today in the account's zone */
  date?: LocalDate | null;
}

export interface RangeOptions {
  /** the last N days ending at `to` (when `from` is not given) */
  days: number;
  /** first local date of the range; default `to` - (days - 1) */
  from?: LocalDate | null;
  /** last local date of the range; default today */
  to?: LocalDate | null;
  /** by date: "asc" or "desc" */
  order: 'asc' | 'desc';
  /** at most this many days (after ordering) */
  limit?: number | null;
}

export interface ScoresOfKindOptions extends RangeOptions {
  kind: ScoreKind;
}

/** A score with the IANA zone its date is local to (issue 30: an answer's local dates name it). */
export interface ZonedScore extends Score {
  /** the zone the day was counted in: the person's profile zone, UTC when unset */
  timeZone: string;
}

/** A card with the IANA zone its date is local to. */
export interface ZonedInsightCard extends InsightCard {
  /** the zone the day was counted in: the person's profile zone, UTC when unset */
  timeZone: string;
}

export interface SuggestionsView {
  date: LocalDate;
  timezone: string;
  suggestions: Suggestion[];
}

export interface PredictiveAlertsView {
  generatedAt: Date;
  alerts: PredictiveAlert[];
}

interface Person {
  zone: string;
  now: Date;
  today: LocalDate;
}

async function personOf(ctx: AuthedContext): Promise<Person> {
  const zone = await personZone(ctx);
  const now = clock.now();
  return { zone, now, today: localDateOf(now, zone) };
}

/** Everything the scores of the days from..to need: one query per source. */
async function loadInputs(
  ctx: AuthedContext,
  person: Person,
  from: LocalDate,
  to: LocalDate,
): Promise<ScoreInputs> {
  const { zone } = person;
  const start = dayBounds(from, zone).start;
  const end = dayBounds(to, zone).end;
  const [glucose, sleep, metrics, workouts, meals] = await Promise.all([
    glucosePoints(ctx, { start, end }),
    sleepEndingBetween(ctx, {
      start: localTime(addDays(from, -1), SLEEP_DAY_CUTOFF_HOUR, zone),
      end: localTime(to, SLEEP_DAY_CUTOFF_HOUR, zone),
    }),
    metricSamplesBetween(ctx, {
      metricTypes: SCORED_METRICS,
      start: dayBounds(addDays(from, -RECOVERY_BASELINE_DAYS), zone).start,
      end,
    }),
    workoutsStartingBetween(ctx, { start, end }),
    mealTotalsBetween(ctx, { start, end }),
  ]);
  return { timezone: zone, now: person.now, glucose, sleep, metrics, workouts, meals };
}

function rangeError(loc: string, msg: string): Error {
  return appError('VALIDATION_FAILED', `${loc}: ${msg}`, {
    detail: [{ loc: [loc], msg, type: 'value_error' }],
  });
}

/** The dates of a range, ascending; 422 when from is after to or the range is longer than MAX_RANGE_DAYS. */
function rangeDates(today: LocalDate, options: RangeOptions): LocalDate[] {
  const to = options.to ?? today;
  const from = options.from ?? addDays(to, -(options.days - 1));
  if (daysBetween(from, to) < 0) throw rangeError('from', 'from must not be after to');
  if (daysBetween(from, to) >= MAX_RANGE_DAYS) {
    throw rangeError('from', `the range must not exceed ${MAX_RANGE_DAYS} days`);
  }
  return datesFrom(from, to);
}

function ordered<T>(items: T[], options: RangeOptions): T[] {
  const out = options.order === 'desc' ? [...items].reverse() : items;
  return options.limit ? out.slice(0, options.limit) : out;
}

/** Every score of one local day (default today). */
export async function insightScore(
  ctx: AuthedContext,
  options: DayScoresOptions,
): Promise<DayScores> {
  const person = await personOf(ctx);
  const date = options.date ?? person.today;
  return scoresOfDays(await loadInputs(ctx, person, date, date), [date])[0];
}

/** The activity and sleep scores (0..100 or null) of one local day. */
export interface ActivitySleepScores {
  date: LocalDate;
  activity: number | null;
  sleep: number | null;
}

export interface ActivitySleepScoresOfOptions {
  /** whose days: the caller decided the reader may see these scores (community's member view) */
  userId: number;
  /** that person's IANA zone: the days are theirs */
  zone: string;
  /** the local dates, ascending */
  dates: readonly LocalDate[];
  /** the activity totals of those days (health's dailyHealthOf); absent: no activity score asked */
  daily?: readonly DailyHealthView[];
  /** whether to read the nights and score sleep */
  sleep: boolean;
}

/**
 * The activity and sleep scores of a named person's days, the same figures as insightScore: the
 * activity score from the day's totals (one SQL aggregate in health), the sleep score from the
 * night's intervals (one read). NOTE: the caller checks that the reader may see them.
 */
export async function activitySleepScoresOf(
  ctx: AuthedContext,
  options: ActivitySleepScoresOfOptions,
): Promise<ActivitySleepScores[]> {
  const { zone, dates } = options;
  const nights = options.sleep
    ? await sleepEndingBetweenOf(ctx, {
        userId: options.userId,
        start: localTime(addDays(dates[0], -1), SLEEP_DAY_CUTOFF_HOUR, zone),
        end: localTime(dates.at(-1)!, SLEEP_DAY_CUTOFF_HOUR, zone),
      })
    : [];
  const byDate = new Map((options.daily ?? []).map((d) => [d.date, d]));
  return dates.map((date) => {
    const day = byDate.get(date);
    const activity = options.daily
      ? activityScoreOfTotals(date, {
          steps: day?.steps ?? null,
          activeEnergyKcal: day?.activeEnergyKcal ?? null,
          exerciseMinutes: day?.exerciseMinutes ?? null,
        }).score
      : null;
    const sleep = options.sleep ? sleepScore(date, nightOf(date, nights, zone)).score : null;
    return { date, activity, sleep };
  });
}

/** Every score of each day of a range. */
export async function scoreDays(ctx: AuthedContext, options: RangeOptions): Promise<DayScores[]> {
  const person = await personOf(ctx);
  const dates = rangeDates(person.today, options);
  const days = scoresOfDays(await loadInputs(ctx, person, dates[0], dates.at(-1)!), dates);
  return ordered(days, options);
}

/** One kind of score for each day of a range, each naming the zone of its day. */
export async function scores(
  ctx: AuthedContext,
  options: ScoresOfKindOptions,
): Promise<ZonedScore[]> {
  const { kind } = options;
  if (kind === 'blood_pressure' || kind === 'sun') return loggedScores(ctx, { ...options, kind });
  return (await scoreDays(ctx, options)).map((d) => ({ ...d[kind], timeZone: d.timezone }));
}

/**
 * The blood-pressure or sun score of each day of a range (not part of the overall score, so only
 * their own source is read). NOTE: the blood-pressure score shows readings, so it also needs
 * health:metrics:read (the scope of bp_readings_list), beside the field's health:summary:read.
 */
async function loggedScores(
  ctx: AuthedContext,
  options: RangeOptions & { kind: 'blood_pressure' | 'sun' },
): Promise<ZonedScore[]> {
  if (options.kind === 'blood_pressure' && !credentialHolds(ctx.principal, 'health:metrics:read'))
    throw appError('INSUFFICIENT_SCOPE', 'This token lacks the scope health:metrics:read', {
      detail: { code: 'insufficient_scope', scope: 'health:metrics:read' },
    });
  const person = await personOf(ctx);
  const dates = rangeDates(person.today, options);
  const range = {
    start: dayBounds(dates[0], person.zone).start,
    end: dayBounds(dates.at(-1)!, person.zone).end,
  };
  const [readings, sun] = await Promise.all([
    options.kind === 'blood_pressure' ? bloodPressureBetween(ctx, range) : [],
    options.kind === 'sun' ? sunSessionsBetween(ctx, range) : [],
  ]);
  const days = loggedScoresOfDays(options.kind, person.zone, { readings, sun }, dates);
  return ordered(
    days.map((d) => ({ ...d, timeZone: person.zone })),
    options,
  );
}

/** Glucose statistics of the 7 local days starting at `first`. */
function weekGlucose(inputs: ScoreInputs, first: LocalDate): TrendStats {
  const start = dayBounds(first, inputs.timezone).start;
  const end = dayBounds(addDays(first, 6), inputs.timezone).end;
  return trendStats(
    inputs.glucose.filter((p) => p.timestamp >= start && p.timestamp < end),
    start,
    end,
  );
}

/** The suggestions that apply today (rules over today and the last 7 complete days). */
export async function insightSuggestions(ctx: AuthedContext): Promise<SuggestionsView> {
  const person = await personOf(ctx);
  const from = addDays(person.today, -7);
  const inputs = await loadInputs(ctx, person, from, person.today);
  const days = scoresOfDays(inputs, datesFrom(from, person.today));
  const fired = suggestions({
    today: days.at(-1)!,
    week: days.slice(0, -1),
    weekGlucose: weekGlucose(inputs, from),
  });
  await recordSuggestions(ctx, fired, { inputs, today: person.today });
  return { date: person.today, timezone: person.zone, suggestions: fired };
}

/** The person's readings of the prediction window before `now` (what the predictive alerts read). */
export async function predictionReadings(ctx: AuthedContext, now: Date): Promise<StatPoint[]> {
  const since = new Date(now.getTime() - PREDICTION_WINDOW_MINUTES * 60_000);
  return glucosePoints(ctx, { start: since, end: new Date(now.getTime() + 1) });
}

/** Predicted lows and highs from the readings of the last 30 minutes. */
export async function predictiveAlerts(ctx: AuthedContext): Promise<PredictiveAlertsView> {
  const now = clock.now();
  const readings = await predictionReadings(ctx, now);
  return { generatedAt: now, alerts: alertsFrom(readings, now) };
}

/** Today's cards: alerts, the week-on-week time-in-range trend, today's scores (recorded as insights). */
export async function insightCards(ctx: AuthedContext): Promise<ZonedInsightCard[]> {
  const person = await personOf(ctx);
  const { today, now } = person;
  const from = addDays(today, -14);
  const inputs = await loadInputs(ctx, person, from, today);
  const cards = cardsFrom({
    today: scoresOfDays(inputs, [today])[0],
    alerts: alertsFrom(inputs.glucose, now),
    weekGlucose: weekGlucose(inputs, addDays(today, -7)),
    previousWeekGlucose: weekGlucose(inputs, from),
  });
  await recordCards(ctx, cards, { inputs, today });
  return cards.map((card) => ({ ...card, timeZone: person.zone }));
}

/** Today's cards and suggestions of the person, computed from one load and recorded. */
export interface DayInsightsView {
  /** the local day they are about */
  date: LocalDate;
  /** the zone of that day */
  timezone: string;
  cards: InsightCard[];
  suggestions: Suggestion[];
  /** how many of them were recorded as insights now (the others were recorded earlier today) */
  recorded: number;
}

/**
 * Today's cards and suggestions (the morning run, issue 33): the same rules and recording as
 * insightCards and insightSuggestions, from one load of the 14 days before today and today.
 */
export async function dayInsights(ctx: AuthedContext): Promise<DayInsightsView> {
  const person = await personOf(ctx);
  const { today, now } = person;
  const from = addDays(today, -14);
  const weekStart = addDays(today, -7);
  const inputs = await loadInputs(ctx, person, from, today);
  const days = scoresOfDays(inputs, datesFrom(weekStart, today));
  const week = weekGlucose(inputs, weekStart);
  const cards = cardsFrom({
    today: days.at(-1)!,
    alerts: alertsFrom(inputs.glucose, now),
    weekGlucose: week,
    previousWeekGlucose: weekGlucose(inputs, from),
  });
  const fired = suggestions({ today: days.at(-1)!, week: days.slice(0, -1), weekGlucose: week });
  const rc = { inputs, today };
  const recorded = (await recordCards(ctx, cards, rc)) + (await recordSuggestions(ctx, fired, rc));
  return { date: today, timezone: person.zone, cards, suggestions: fired, recorded };
}

/**
 * The insights feed, refreshed first: today's cards and suggestions are computed (and so recorded,
 * idempotently) before the page is read (insights.feed.ts).
 */
export async function insights(
  ctx: AuthedContext,
  options: ListInsightsOptions,
): Promise<InsightPageView> {
  if (!options.cursor) await Promise.all([insightCards(ctx), insightSuggestions(ctx)]);
  return listInsights(ctx, options);
}
