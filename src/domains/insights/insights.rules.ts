/**
 * Suggestions, predictive alerts and insight cards: deterministic rules (pure functions, no I/O)
 * over the same inputs as the scores. Each rule, its threshold and its wording are documented in
 * docs/scores.md, and a test shows each one firing and not firing.
 */
import type { StatPoint, TrendStats } from '../glucose/index.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import type { DayScores, Score, ScoreComponent } from './insights.scores.ts';

export interface Suggestion {
  /** stable rule name, e.g. sleep_more */
  code: string;
  category: 'sleep' | 'activity' | 'glucose' | 'nutrition' | 'recovery';
  /** 1 most urgent .. 3 */
  priority: number;
  title: string;
  message: string;
  /** the figure that triggered the rule, its unit and the rule's threshold */
  value: number;
  unit: string;
  threshold: number;
}

export interface PredictiveAlert {
  kind: 'predicted_low' | 'predicted_high';
  /** mg/dL the trend is predicted to cross */
  thresholdMgDl: number;
  /** the latest reading */
  currentMgDl: number;
  /** least-squares slope of the window's readings */
  slopeMgDlPerMin: number;
  /** when the fitted line crosses the threshold */
  predictedAt: Date;
  /** minutes from now until predictedAt (0 when the line has crossed already) */
  minutesAhead: number;
  readingsUsed: number;
  message: string;
}

export interface InsightCard {
  /** deterministic: the same card on the same day has the same id */
  id: string;
  kind: 'alert' | 'score' | 'trend';
  priority: number;
  date: LocalDate;
  title: string;
  body: string;
  /** the score of a score card; null otherwise */
  score: number | null;
}

export interface SuggestionInputs {
  /** today's scores (last night's sleep, today's recovery) */
  today: DayScores;
  /** the scores of the last 7 complete days */
  week: readonly DayScores[];
  /** glucose statistics of the same 7 complete days */
  weekGlucose: TrendStats;
}

/** Readings of this many minutes before now feed the predictive alerts. */
export const PREDICTION_WINDOW_MINUTES = 30;
/** An alert fires when the crossing is predicted within this many minutes. */
export const PREDICTION_HORIZON_MINUTES = 30;
/** The window needs at least this many readings ... */
export const PREDICTION_MIN_READINGS = 3;
/** ... and its latest reading at most this old (minutes): stale data predicts nothing. */
export const PREDICTION_MAX_AGE_MINUTES = 10;
export const LOW_MG_DL = 70;
export const HIGH_MG_DL = 180;
/** Weekly rules need data on at least this many of the 7 days. */
export const WEEK_MIN_DAYS = 3;
/** A trend card needs time in range to move by at least this many points week on week. */
export const TREND_MIN_CHANGE_POINTS = 5;
/** Weekly glucose rules need this many readings (about a day of CGM). */
export const WEEK_MIN_READINGS = 288;

const componentOf = (s: Score, name: string): ScoreComponent | undefined =>
  s.components.find((c) => c.name === name);

/** Mean of a component's values over the days that have it; null below WEEK_MIN_DAYS such days. */
function weekMean(
  week: readonly DayScores[],
  pick: (d: DayScores) => number | null | undefined,
): number | null {
  const values = week.map(pick).filter((v): v is number => typeof v === 'number');
  return values.length >= WEEK_MIN_DAYS ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

const r1 = (v: number): number => Math.round(v * 10) / 10;

/** The week's glucose: frequent lows, or often above range. */
function glucoseSuggestions(input: SuggestionInputs): Suggestion[] {
  const out: Suggestion[] = [];
  const g = input.weekGlucose;
  const below = r1(g.timeVeryLowPct + g.timeLowPct);
  if (g.count >= WEEK_MIN_READINGS && below >= 4) {
    out.push({
      code: 'review_lows',
      category: 'glucose',
      priority: 1,
      value: below,
      unit: '%',
      threshold: 4,
      title: 'Frequent lows this week',
      message: `${below}% of this week's readings were below 70 mg/dL (target under 4%). Keep fast-acting carbs at hand and review the pattern with your care team.`,
    });
  }
  const above = r1(g.timeHighPct + g.timeVeryHighPct);
  if (g.count >= WEEK_MIN_READINGS && above >= 25) {
    out.push({
      code: 'walk_after_meals',
      category: 'glucose',
      priority: 2,
      value: above,
      unit: '%',
      threshold: 25,
      title: 'Glucose often above range',
      message: `${above}% of this week's readings were above 180 mg/dL (target under 25%). A 10-15 minute walk after meals and fewer refined carbs lower after-meal peaks.`,
    });
  }
  return out;
}

/** Last night's sleep, today's recovery, the week's steps and fiber. */
function daySuggestions(input: SuggestionInputs): Suggestion[] {
  const out: Suggestion[] = [];
  const asleep = componentOf(input.today.sleep, 'time_asleep')?.value;
  if (typeof asleep === 'number' && asleep < 7) {
    out.push({
      code: 'sleep_more',
      category: 'sleep',
      priority: 2,
      value: asleep,
      unit: 'h',
      threshold: 7,
      title: 'Short night',
      message: `You slept ${asleep} h last night. Adults need at least 7 h; an earlier, regular bedtime helps.`,
    });
  }
  const recovery = input.today.recovery.score;
  if (recovery !== null && recovery < 40) {
    out.push({
      code: 'take_it_easy',
      category: 'recovery',
      priority: 2,
      value: recovery,
      unit: 'points',
      threshold: 40,
      title: 'Low recovery',
      message: `Your recovery score is ${recovery}: HRV and resting heart rate are worse than your usual. Prefer light activity today.`,
    });
  }
  const steps = weekMean(input.week, (d) => componentOf(d.activity, 'steps')?.value);
  if (steps !== null && steps < 7000) {
    const value = Math.round(steps);
    out.push({
      code: 'move_more',
      category: 'activity',
      priority: 3,
      value,
      unit: 'count',
      threshold: 7000,
      title: 'Move a little more',
      message: `You averaged ${value} steps a day this week. Building up to 7,000-10,000 a day supports glucose control.`,
    });
  }
  const fiber = weekMean(input.week, (d) => componentOf(d.nutrition, 'fiber_per_1000_kcal')?.value);
  if (fiber !== null && fiber < 10) {
    const value = r1(fiber);
    out.push({
      code: 'more_fiber',
      category: 'nutrition',
      priority: 3,
      value,
      unit: 'g',
      threshold: 10,
      title: 'Add fiber',
      message: `Your meals this week had ${value} g of fiber per 1,000 kcal (aim for 14). Vegetables, legumes and whole grains add fiber and slow glucose rises.`,
    });
  }
  return out;
}

/** The suggestions that apply, most urgent first (then by code). */
export function suggestions(input: SuggestionInputs): Suggestion[] {
  const out = [...glucoseSuggestions(input), ...daySuggestions(input)];
  return out.sort((a, b) => a.priority - b.priority || (a.code < b.code ? -1 : 1));
}

/** Least-squares line through the points: value = intercept + slope * minutes since `origin`. */
export function linearFit(
  points: readonly StatPoint[],
  origin: number,
): { slope: number; intercept: number } | null {
  const n = points.length;
  if (n < 2) return null;
  const xs = points.map((p) => (p.timestamp.getTime() - origin) / 60_000);
  const ys = points.map((p) => p.valueMgDl);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

/**
 * Predicted lows and highs: a line fitted to the readings of the last 30 minutes, extrapolated; an
 * alert when it crosses 70 (falling) or 180 (rising) mg/dL within 30 minutes while the latest
 * reading is still on the near side of that threshold.
 */
export function alertsFrom(readings: readonly StatPoint[], now: Date): PredictiveAlert[] {
  const t0 = now.getTime();
  const window = readings
    .filter(
      (r) =>
        r.timestamp.getTime() > t0 - PREDICTION_WINDOW_MINUTES * 60_000 &&
        r.timestamp.getTime() <= t0,
    )
    .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
  const latest = window.at(-1);
  if (window.length < PREDICTION_MIN_READINGS || !latest) return [];
  if (t0 - latest.timestamp.getTime() > PREDICTION_MAX_AGE_MINUTES * 60_000) return [];
  const fit = linearFit(window, t0);
  if (!fit) return [];
  const alerts: PredictiveAlert[] = [];
  const check = (kind: PredictiveAlert['kind'], threshold: number, falling: boolean): void => {
    const onNearSide = falling ? latest.valueMgDl >= threshold : latest.valueMgDl <= threshold;
    if (!onNearSide || (falling ? fit.slope >= 0 : fit.slope <= 0)) return;
    const minutes = (threshold - fit.intercept) / fit.slope; // minutes from now to the crossing
    if (minutes > PREDICTION_HORIZON_MINUTES) return;
    const ahead = Math.max(0, Math.round(minutes));
    alerts.push({
      kind,
      thresholdMgDl: threshold,
      currentMgDl: latest.valueMgDl,
      slopeMgDlPerMin: Math.round(fit.slope * 100) / 100,
      predictedAt: new Date(t0 + ahead * 60_000),
      minutesAhead: ahead,
      readingsUsed: window.length,
      message: falling
        ? `Glucose is falling ${Math.abs(r1(fit.slope))} mg/dL a minute and may drop below ${threshold} mg/dL in about ${ahead} minutes. Consider fast-acting carbs and check again.`
        : `Glucose is rising ${r1(fit.slope)} mg/dL a minute and may go above ${threshold} mg/dL in about ${ahead} minutes. A short walk can blunt the rise.`,
    });
  };
  check('predicted_low', LOW_MG_DL, true);
  check('predicted_high', HIGH_MG_DL, false);
  return alerts;
}

const TITLES: Record<string, string> = {
  glucose: 'Glucose',
  sleep: 'Sleep',
  activity: 'Activity',
  recovery: 'Recovery',
  nutrition: 'Nutrition',
};

export interface CardInputs {
  today: DayScores;
  alerts: readonly PredictiveAlert[];
  /** glucose of the last 7 complete days and of the 7 before them */
  weekGlucose: TrendStats;
  previousWeekGlucose: TrendStats;
}

/** The card of a predictive alert on a local day (also what a predicted low's push says). */
export function alertCard(a: PredictiveAlert, date: LocalDate): InsightCard {
  return {
    id: `alert:${a.kind}:${date}`,
    kind: 'alert',
    priority: 1,
    date,
    title: a.kind === 'predicted_low' ? 'Low glucose ahead' : 'High glucose ahead',
    body: a.message,
    score: null,
  };
}

/** Cards, most urgent first: predictive alerts, a week-on-week time-in-range trend, today's scores. */
export function cardsFrom(input: CardInputs): InsightCard[] {
  const date = input.today.date;
  const cards: InsightCard[] = input.alerts.map((a) => alertCard(a, date));
  const [now, before] = [input.weekGlucose, input.previousWeekGlucose];
  if (now.count >= WEEK_MIN_READINGS && before.count >= WEEK_MIN_READINGS) {
    const change = r1(now.timeInRangePct - before.timeInRangePct);
    if (Math.abs(change) >= TREND_MIN_CHANGE_POINTS) {
      cards.push({
        id: `trend:time_in_range:${date}`,
        kind: 'trend',
        priority: 2,
        date,
        title: change > 0 ? 'Time in range is up' : 'Time in range is down',
        body: `${r1(now.timeInRangePct)}% of readings were in 70-180 mg/dL over the last 7 days, ${Math.abs(change)} points ${change > 0 ? 'more' : 'less'} than the week before.`,
        score: null,
      });
    }
  }
  for (const kind of ['glucose', 'sleep', 'activity', 'recovery', 'nutrition'] as const) {
    const s = input.today[kind];
    if (s.score === null) continue;
    const weakest = s.components
      .filter((c) => c.score !== null)
      .sort((a, b) => a.score! - b.score! || (a.name < b.name ? -1 : 1))[0];
    cards.push({
      id: `score:${kind}:${date}`,
      kind: 'score',
      priority: 3,
      date,
      title: `${TITLES[kind]} score ${s.score}`,
      body: `Weakest part: ${weakest.name.replaceAll('_', ' ')} ${weakest.value} ${weakest.unit} (${weakest.score} of 100 points).`,
      score: s.score,
    });
  }
  return cards;
}
