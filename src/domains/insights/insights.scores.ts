/**
 * Daily scores (pure functions, no I/O): glucose, sleep, activity, recovery, nutrition and an
 * overall score, each 0..100 with the components it was computed from. Formulas and thresholds are
 * documented in docs/scores.md; a test pins each one. Missing data gives a null score with a
 * reason, never a number made up from defaults.
 */
import { trendStats } from '../glucose/index.ts';
import type { StatPoint, TrendStats } from '../glucose/index.ts';
import type { Nutrients } from '../meals/index.ts';
import { addDays, dayBounds, localDateOf, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';

export const SCORE_KINDS = [
  'overall',
  'glucose',
  'sleep',
  'activity',
  'recovery',
  'nutrition',
  'blood_pressure',
  'sun',
] as const;
export type ScoreKind = (typeof SCORE_KINDS)[number];

/** One ingredient of a score: a measured value, its 0..100 points and its weight. */
export interface ScoreComponent {
  name: string;
  /** the measured value, or null when the day has no data for it */
  value: number | null;
  unit: string;
  /** what the value is compared with: a target, or the person's own baseline (recovery) */
  reference: number | null;
  /** 0..100, or null when the value is missing (its weight is then left out) */
  score: number | null;
  /** share of the score when every component has data (the weights of a score sum to 1) */
  weight: number;
}

export interface Score {
  kind: ScoreKind;
  date: LocalDate;
  /** 0..100, rounded; null when the day lacks the data (see reason) */
  score: number | null;
  /** why score is null (no_glucose_data, insufficient_glucose_data, no_sleep_data, ...); null otherwise */
  reason: string | null;
  components: ScoreComponent[];
}

export interface DayScores {
  date: LocalDate;
  timezone: string;
  overall: Score;
  glucose: Score;
  sleep: Score;
  activity: Score;
  recovery: Score;
  nutrition: Score;
}

export interface SleepInterval {
  /** in_bed, asleep, core, deep, rem, awake */
  stage: string;
  startAt: Date;
  endAt: Date;
}

export interface MetricSample {
  /** hrv, resting_heart_rate, steps, active_energy, ... */
  metricType: string;
  value: number;
  timestamp: Date;
  source: string;
}

export interface WorkoutInterval {
  startAt: Date;
  durationMinutes: number;
}

/** A meal's totals (the six amounts of meals.nutrients.ts) and when it was eaten. */
export interface MealTotals extends Nutrients {
  eatenAt: Date;
}

/** Everything the scores of a range of days are computed from (what the service loads). */
export interface ScoreInputs {
  timezone: string;
  now: Date;
  glucose: StatPoint[];
  sleep: SleepInterval[];
  /** metrics from RECOVERY_BASELINE_DAYS before the first day on (recovery baselines) */
  metrics: MetricSample[];
  workouts: WorkoutInterval[];
  meals: MealTotals[];
}

/** A day needs readings for at least this share of its (elapsed) 5-minute slots for a glucose score. */
export const GLUCOSE_MIN_COVERAGE_PCT = 50;
/** ... and at least this many readings (one hour of CGM). */
export const GLUCOSE_MIN_READINGS = 12;
/** Recovery compares with the mean of the daily means of this many previous days. */
export const RECOVERY_BASELINE_DAYS = 28;
/** ... and needs at least this many of them with data. */
export const RECOVERY_MIN_BASELINE_DAYS = 3;
/** A night belongs to the day it ends on: sleep ending from 18:00 the day before to 18:00 that day. */
export const SLEEP_DAY_CUTOFF_HOUR = 18;
const ASLEEP_STAGES = new Set(['asleep', 'core', 'deep', 'rem']);

const OVERALL_WEIGHTS = {
  glucose: 0.3,
  sleep: 0.2,
  activity: 0.2,
  recovery: 0.15,
  nutrition: 0.15,
} as const;

const clamp = (v: number): number => Math.min(100, Math.max(0, v));
const round1 = (v: number): number => Math.round(v * 10) / 10;

/** Points rising linearly from 0 at `zeroAt` to 100 at `fullAt` (either order), clamped. */
export function ramp(x: number, zeroAt: number, fullAt: number): number {
  return clamp((100 * (x - zeroAt)) / (fullAt - zeroAt));
}

/** 100 within [fullLow, fullHigh], falling linearly to 0 at zeroLow and zeroHigh. */
export function band(
  x: number,
  zeroLow: number,
  fullLow: number,
  fullHigh: number,
  zeroHigh: number,
): number {
  return x < fullLow ? ramp(x, zeroLow, fullLow) : x > fullHigh ? ramp(x, zeroHigh, fullHigh) : 100;
}

function component(
  name: string,
  value: number | null,
  unit: string,
  reference: number | null,
  weight: number,
  points: (v: number) => number,
): ScoreComponent {
  return {
    name,
    value: value === null ? null : round1(value),
    unit,
    reference,
    score: value === null ? null : round1(points(value)),
    weight,
  };
}

/** Weighted mean of the components that have data, rounded; null when none has. */
export function combine(components: readonly ScoreComponent[]): number | null {
  let sum = 0;
  let weights = 0;
  for (const c of components) {
    if (c.score === null) continue;
    sum += c.score * c.weight;
    weights += c.weight;
  }
  return weights > 0 ? Math.round(sum / weights) : null;
}

function score(
  kind: ScoreKind,
  date: LocalDate,
  components: ScoreComponent[],
  reason: string | null,
): Score {
  if (reason) return { kind, date, score: null, reason, components };
  return { kind, date, score: combine(components), reason: null, components };
}

const within = (t: Date, start: Date, end: Date): boolean => t >= start && t < end;

/** Glucose: time in range 70-180, time below 70, variability (CV), of the day's readings. */
export function glucoseScore(
  date: LocalDate,
  points: readonly StatPoint[],
  start: Date,
  end: Date,
): Score {
  const stats: TrendStats = trendStats(points, start, end);
  const has = stats.count >= GLUCOSE_MIN_READINGS && stats.coveragePct >= GLUCOSE_MIN_COVERAGE_PCT;
  const below = stats.timeVeryLowPct + stats.timeLowPct;
  const components = [
    component('time_in_range', has ? stats.timeInRangePct : null, '%', 100, 0.6, (v) => v),
    component('time_below_range', has ? below : null, '%', 0, 0.2, (v) => ramp(v, 10, 0)),
    component('coefficient_of_variation', has ? stats.cv : null, '%', 36, 0.2, (v) =>
      ramp(v, 50, 20),
    ),
  ];
  const reason = stats.count === 0 ? 'no_glucose_data' : has ? null : 'insufficient_glucose_data';
  return score('glucose', date, components, reason);
}

/** Total minutes covered by the intervals (overlaps counted once: phone and watch both record). */
export function unionMinutes(intervals: readonly { startAt: Date; endAt: Date }[]): number {
  const sorted = [...intervals].sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const i of sorted) {
    const s = i.startAt.getTime();
    const e = i.endAt.getTime();
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else if (e > curEnd) curEnd = e;
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total / 60_000;
}

/** The sleep night of a day: intervals ending from 18:00 the day before to 18:00 that day. */
export function nightOf(
  date: LocalDate,
  sleep: readonly SleepInterval[],
  zone: string,
): SleepInterval[] {
  const from = localTime(addDays(date, -1), SLEEP_DAY_CUTOFF_HOUR, zone);
  const to = localTime(date, SLEEP_DAY_CUTOFF_HOUR, zone);
  return sleep.filter((s) => within(s.endAt, from, to));
}

/** Sleep: time asleep, efficiency (asleep / in bed) and deep + REM share, of the night. */
export function sleepScore(date: LocalDate, night: readonly SleepInterval[]): Score {
  const asleep = unionMinutes(night.filter((s) => ASLEEP_STAGES.has(s.stage)));
  const inBedKnown = night.some((s) => s.stage === 'in_bed' || s.stage === 'awake');
  const staged = night.some((s) => s.stage === 'core' || s.stage === 'deep' || s.stage === 'rem');
  const has = asleep > 0;
  const efficiency = has && inBedKnown ? (100 * asleep) / unionMinutes(night) : null;
  const deepAndRem = unionMinutes(night.filter((s) => s.stage === 'deep' || s.stage === 'rem'));
  const restorative = has && staged ? (100 * deepAndRem) / asleep : null;
  const components = [
    component('time_asleep', has ? asleep / 60 : null, 'h', 8, 0.5, (h) => band(h, 4, 7, 9, 12)),
    component('efficiency', efficiency, '%', 90, 0.3, (v) => ramp(v, 65, 90)),
    component('deep_and_rem', restorative, '%', 40, 0.2, (v) => ramp(v, 10, 40)),
  ];
  return score('sleep', date, components, has ? null : 'no_sleep_data');
}

/** The day's total of a cumulative metric: per source, then the largest source (no double counting). */
export function dailyTotal(samples: readonly MetricSample[], metricType: string): number | null {
  const bySource = new Map<string, number>();
  for (const s of samples) {
    if (s.metricType === metricType)
      bySource.set(s.source, (bySource.get(s.source) ?? 0) + s.value);
  }
  return bySource.size ? Math.max(...bySource.values()) : null;
}

/** Activity: steps, active energy and workout minutes of the day. */
export function activityScore(
  date: LocalDate,
  dayMetrics: readonly MetricSample[],
  dayWorkouts: readonly WorkoutInterval[],
): Score {
  return activityScoreOfTotals(date, {
    steps: dailyTotal(dayMetrics, 'steps'),
    activeEnergyKcal: dailyTotal(dayMetrics, 'active_energy'),
    exerciseMinutes: dayWorkouts.length
      ? dayWorkouts.reduce((s, w) => s + w.durationMinutes, 0)
      : null,
  });
}

/** The day's activity totals (health's dailyHealth computes the same figures in SQL). */
export interface ActivityTotals {
  /** the largest source's step total; null: no step sample */
  steps: number | null;
  /** the largest source's active energy, kcal; null: no sample */
  activeEnergyKcal: number | null;
  /** minutes of the workouts started that day; null: no workout */
  exerciseMinutes: number | null;
}

/** Activity from the day's totals: the same score as activityScore over that day's samples. */
export function activityScoreOfTotals(date: LocalDate, totals: ActivityTotals): Score {
  const steps = totals.steps;
  const energy = totals.activeEnergyKcal;
  const tracked = steps !== null || energy !== null || totals.exerciseMinutes !== null;
  // a tracked day without a workout had none: 0 minutes; an untracked day is unknown
  const minutes = tracked ? (totals.exerciseMinutes ?? 0) : null;
  const components = [
    component('steps', steps, 'count', 10_000, 0.5, (v) => ramp(v, 0, 10_000)),
    component('active_energy', energy, 'kcal', 500, 0.25, (v) => ramp(v, 0, 500)),
    component('exercise_minutes', minutes, 'min', 30, 0.25, (v) => ramp(v, 0, 30)),
  ];
  return score('activity', date, components, tracked ? null : 'no_activity_data');
}

const meanOf = (vs: readonly number[]): number | null =>
  vs.length ? vs.reduce((a, b) => a + b, 0) / vs.length : null;

/** Mean of a metric's samples per local day (days without samples are absent). */
export function dailyMeans(
  metrics: readonly MetricSample[],
  metricType: string,
  zone: string,
): Map<LocalDate, number> {
  const byDay = new Map<LocalDate, number[]>();
  for (const m of metrics) {
    if (m.metricType !== metricType) continue;
    const day = localDateOf(m.timestamp, zone);
    const values = byDay.get(day);
    if (values) values.push(m.value);
    else byDay.set(day, [m.value]);
  }
  return new Map([...byDay].map(([day, values]) => [day, meanOf(values)!]));
}

export interface RecoveryInputs {
  /** the day's mean HRV (ms) and resting heart rate (bpm) */
  hrv: number | null;
  restingHeartRate: number | null;
  /** daily means of the previous RECOVERY_BASELINE_DAYS days (null: no data that day) */
  hrvHistory: readonly (number | null)[];
  restingHeartRateHistory: readonly (number | null)[];
}

function baselineOf(history: readonly (number | null)[]): number | null {
  const days = history.filter((v): v is number => v !== null);
  return days.length >= RECOVERY_MIN_BASELINE_DAYS ? meanOf(days) : null;
}

/** Recovery: the day's HRV (higher is better) and resting heart rate (lower) against the person's own baseline. */
export function recoveryScore(date: LocalDate, input: RecoveryInputs): Score {
  const hrvBase = baselineOf(input.hrvHistory);
  const rhrBase = baselineOf(input.restingHeartRateHistory);
  const hrv = input.hrv !== null && hrvBase ? input.hrv : null;
  const rhr = input.restingHeartRate !== null && rhrBase ? input.restingHeartRate : null;
  const components = [
    {
      ...component('hrv', hrv, 'ms', null, 0.6, (v) => clamp(75 + 125 * (v / hrvBase! - 1))),
      reference: hrvBase === null ? null : round1(hrvBase),
    },
    {
      ...component('resting_heart_rate', rhr, 'bpm', null, 0.4, (v) =>
        clamp(75 - 250 * (v / rhrBase! - 1)),
      ),
      reference: rhrBase === null ? null : round1(rhrBase),
    },
  ];
  const today = input.hrv !== null || input.restingHeartRate !== null;
  const reason =
    hrv !== null || rhr !== null ? null : today ? 'no_recovery_baseline' : 'no_recovery_data';
  return score('recovery', date, components, reason);
}

/** Nutrition: protein share of energy, fiber density and sugar share, of the day's meals. */
export function nutritionScore(date: LocalDate, meals: readonly MealTotals[]): Score {
  const sum = (f: (m: MealTotals) => number): number => meals.reduce((s, m) => s + f(m), 0);
  const protein = sum((m) => m.proteinG);
  const kcal = sum((m) => m.kcal);
  // stored kcal is the items' catalogue energy; meals logged with macros only fall back to Atwater factors
  const energy = kcal > 0 ? kcal : 4 * protein + 4 * sum((m) => m.carbsG) + 9 * sum((m) => m.fatG);
  const has = energy > 0;
  const components = [
    component('protein_energy_pct', has ? (400 * protein) / energy : null, '%', 20, 0.35, (v) =>
      band(v, 5, 15, 30, 45),
    ),
    component(
      'fiber_per_1000_kcal',
      has ? (1000 * sum((m) => m.fiberG)) / energy : null,
      'g',
      14,
      0.35,
      (v) => ramp(v, 0, 14),
    ),
    component(
      'sugar_energy_pct',
      has ? (400 * sum((m) => m.sugarG)) / energy : null,
      '%',
      10,
      0.3,
      (v) => ramp(v, 30, 10),
    ),
  ];
  const reason = meals.length === 0 ? 'no_meals' : has ? null : 'no_nutrient_data';
  return score('nutrition', date, components, reason);
}

/** Overall: the weighted mean of the day's scores that exist. */
export function overallScore(
  date: LocalDate,
  parts: Record<keyof typeof OVERALL_WEIGHTS, Score>,
): Score {
  const components = (Object.keys(OVERALL_WEIGHTS) as (keyof typeof OVERALL_WEIGHTS)[]).map((k) =>
    component(k, parts[k].score, 'points', null, OVERALL_WEIGHTS[k], (v) => v),
  );
  const any = components.some((c) => c.score !== null);
  return score('overall', date, components, any ? null : 'no_scores');
}

/** Items sorted by time, with their times in ms, to take any window by binary search. */
interface Timeline<T> {
  items: T[];
  times: number[];
}

function timeline<T>(items: readonly T[], timeOf: (item: T) => Date): Timeline<T> {
  const sorted = [...items].sort((a, b) => timeOf(a).getTime() - timeOf(b).getTime());
  return { items: sorted, times: sorted.map((i) => timeOf(i).getTime()) };
}

function firstAtOrAfter(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// a range of 90 days filters each source 90 times: by binary search, not by a scan of every row
function slice<T>(line: Timeline<T>, start: Date, end: Date): T[] {
  return line.items.slice(
    firstAtOrAfter(line.times, start.getTime()),
    firstAtOrAfter(line.times, end.getTime()),
  );
}

/** Every score of each local day from the loaded inputs; today's glucose coverage counts the elapsed part only. */
export function scoresOfDays(inputs: ScoreInputs, dates: readonly LocalDate[]): DayScores[] {
  const zone = inputs.timezone;
  const hrvByDay = dailyMeans(inputs.metrics, 'hrv', zone);
  const rhrByDay = dailyMeans(inputs.metrics, 'resting_heart_rate', zone);
  const historyOf = (byDay: Map<LocalDate, number>, date: LocalDate): (number | null)[] =>
    Array.from(
      { length: RECOVERY_BASELINE_DAYS },
      (_, i) => byDay.get(addDays(date, i - RECOVERY_BASELINE_DAYS)) ?? null,
    );
  const glucose = timeline(inputs.glucose, (p) => p.timestamp);
  const metrics = timeline(inputs.metrics, (m) => m.timestamp);
  const workouts = timeline(inputs.workouts, (w) => w.startAt);
  const meals = timeline(inputs.meals, (m) => m.eatenAt);
  return dates.map((date) => {
    const { start, end } = dayBounds(date, zone);
    const elapsedEnd = inputs.now > start && inputs.now < end ? inputs.now : end;
    const parts = {
      glucose: glucoseScore(date, slice(glucose, start, end), start, elapsedEnd),
      sleep: sleepScore(date, nightOf(date, inputs.sleep, zone)),
      activity: activityScore(date, slice(metrics, start, end), slice(workouts, start, end)),
      recovery: recoveryScore(date, {
        hrv: hrvByDay.get(date) ?? null,
        restingHeartRate: rhrByDay.get(date) ?? null,
        hrvHistory: historyOf(hrvByDay, date),
        restingHeartRateHistory: historyOf(rhrByDay, date),
      }),
      nutrition: nutritionScore(date, slice(meals, start, end)),
    };
    return { date, timezone: zone, overall: overallScore(date, parts), ...parts };
  });
}

/** A blood-pressure reading as the blood-pressure score reads it. */
export interface PressureReading {
  systolic: number;
  diastolic: number;
  measuredAt: Date;
}

/** A saved sun session (it counts for the day it starts on). */
export interface SunSession {
  loggedAt: Date;
  durationMinutes: number;
}

/** The sun score's target: minutes of sun a day (full points from here to SUN_FULL_HIGH_MINUTES). */
export const SUN_TARGET_MINUTES = 15;
export const SUN_FULL_HIGH_MINUTES = 60;
/** ... falling to 0 points at this many minutes (long exposure, sunburn risk). */
export const SUN_ZERO_HIGH_MINUTES = 180;

/**
 * Blood pressure (docs/scores.md): the means of the day's systolic and diastolic readings against
 * the 2017 ACC/AHA thresholds: 100 points up to 120 systolic and 80 diastolic (normal), 50 at
 * stage 2 (140 / 90), 0 at 160 / 100 and above; low pressure loses points below 90 / 60 (0 at 70 / 40).
 */
export function bloodPressureScore(date: LocalDate, readings: readonly PressureReading[]): Score {
  const has = readings.length > 0;
  const mean = (f: (r: PressureReading) => number): number =>
    readings.reduce((s, r) => s + f(r), 0) / readings.length;
  const components = [
    component('mean_systolic', has ? mean((r) => r.systolic) : null, 'mmHg', 120, 0.5, (v) =>
      band(v, 70, 90, 120, 160),
    ),
    component('mean_diastolic', has ? mean((r) => r.diastolic) : null, 'mmHg', 80, 0.5, (v) =>
      band(v, 40, 60, 80, 100),
    ),
  ];
  return score('blood_pressure', date, components, has ? null : 'no_blood_pressure_data');
}

/**
 * Sun (docs/scores.md): the minutes of the day's saved sun sessions: 100 points from 15 to 60
 * minutes, rising from 0 at no sun, falling to 0 at 180 minutes.
 */
export function sunScore(date: LocalDate, sessions: readonly SunSession[]): Score {
  const minutes = sessions.reduce((s, x) => s + x.durationMinutes, 0);
  const has = sessions.length > 0;
  const components = [
    component('sun_minutes', has ? minutes : null, 'min', SUN_TARGET_MINUTES, 1, (v) =>
      band(v, 0, SUN_TARGET_MINUTES, SUN_FULL_HIGH_MINUTES, SUN_ZERO_HIGH_MINUTES),
    ),
  ];
  return score('sun', date, components, has ? null : 'no_sun_sessions');
}

/** The blood-pressure or sun score of each local day, from readings or sessions of those days. */
export function loggedScoresOfDays(
  kind: 'blood_pressure' | 'sun',
  zone: string,
  items: { readings: readonly PressureReading[]; sun: readonly SunSession[] },
  dates: readonly LocalDate[],
): Score[] {
  const readings = timeline(items.readings, (r) => r.measuredAt);
  const sun = timeline(items.sun, (s) => s.loggedAt);
  return dates.map((date) => {
    const { start, end } = dayBounds(date, zone);
    return kind === 'blood_pressure'
      ? bloodPressureScore(date, slice(readings, start, end))
      : sunScore(date, slice(sun, start, end));
  });
}
