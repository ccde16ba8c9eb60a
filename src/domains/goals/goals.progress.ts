/**
 * Progress of the person's goals (rules: README.md), computed from per-day SQL aggregates of the
 * health domain (dailyHealth), the glucose domain (dailyTimeInRange) and the logs domain
 * (dailyHydration): one statement per source for the whole span, whatever the number of goals and
 * periods. Days are local dates in the person's zone; a week is Monday..Sunday.
 */
import { dailyTimeInRange } from '../glucose/index.ts';
import type { DailyGlucoseView } from '../glucose/index.ts';
import { dailyHealth } from '../health/index.ts';
import type { DailyHealthView } from '../health/index.ts';
import { dailyHydration } from '../logs/index.ts';
import { personZone } from '../profile/index.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import {
  addDays,
  dayBounds,
  daysBetween,
  isoWeekday,
  localDateOf,
} from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { GOAL_METRIC_RULES } from './goals.metrics.ts';
import type { GoalMetric, GoalPeriod } from './goals.metrics.ts';
import { goals } from './goals.service.ts';
import type { GoalView } from './goals.service.ts';
import { clock } from '../../base/clock.ts';

/** Most periods one progress read answers per goal (the current one and 11 before it). */
export const PROGRESS_PERIODS_MAX = 12;

export const PROGRESS_STATUSES = ['met', 'on_track', 'behind', 'missed', 'no_data'] as const;
export type ProgressStatus = (typeof PROGRESS_STATUSES)[number];

export interface PeriodProgressView {
  /** first and last local date of the period */
  start: LocalDate;
  end: LocalDate;
  /** the period that contains today */
  current: boolean;
  /** the period's value in the goal's unit, or null without data */
  value: number | null;
  /** value as a percent of the target (rounded), or null */
  percent: number | null;
  /** at_least: value >= target; at_most: value <= target (so far, for the current period) */
  met: boolean;
  status: ProgressStatus;
}

export interface GoalProgressView {
  goal: GoalView;
  /** the current period first, then the ones before it */
  periods: PeriodProgressView[];
}

export interface GoalProgressListView {
  date: LocalDate;
  timezone: string;
  goals: GoalProgressView[];
}

export interface GoalProgressOptions {
  /** periods per goal, the current one included (1..12) */
  periods: number;
  /** only this metric's goal */
  metric?: GoalMetric | null;
}

/** What the progress of goals needs: the person's days, glucose and hydration, by local date. */
interface DayData {
  health: Map<LocalDate, DailyHealthView>;
  glucose: Map<LocalDate, DailyGlucoseView>;
  /** the day's logged hydration, ml (days without entries are absent) */
  hydration: Map<LocalDate, number>;
}

/** The first date of the period containing `date`. */
export function periodStart(date: LocalDate, period: GoalPeriod): LocalDate {
  return period === 'day' ? date : addDays(date, 1 - isoWeekday(date));
}

const periodLength = (period: GoalPeriod): number => (period === 'day' ? 1 : 7);

/**
 * Loads the person's days from..to (one statement per source). Glucose is read only when asked;
 * hydration unless `hydration: false` (callers that may meet a hydration goal need not know it).
 */
export async function loadDays(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string; glucose: boolean; hydration?: boolean },
): Promise<DayData> {
  const [health, glucose, hydration] = await Promise.all([
    dailyHealth(ctx, options),
    options.glucose ? dailyTimeInRange(ctx, options) : Promise.resolve([]),
    options.hydration === false ? Promise.resolve([]) : dailyHydration(ctx, options),
  ]);
  return {
    health: new Map(health.map((d) => [d.date, d])),
    glucose: new Map(glucose.map((d) => [d.date, d])),
    hydration: new Map(hydration.map((d) => [d.date, d.ml])),
  };
}

/** A metric's value on one day (glucose time in range is made from counts: periodValue). */
const dailyValue = (data: DayData, metric: GoalMetric, date: LocalDate): number | null => {
  if (metric === 'hydration') return data.hydration.get(date) ?? null;
  const d = data.health.get(date);
  if (!d) return null;
  switch (metric) {
    case 'steps':
      return d.steps;
    case 'active_energy':
      return d.activeEnergyKcal;
    case 'exercise_minutes':
      return d.exerciseMinutes;
    case 'sleep_minutes':
      return d.sleepMinutes;
    case 'body_weight':
      return d.bodyWeightKg;
    default:
      return null;
  }
};

const round1 = (v: number): number => Math.round(v * 10) / 10;

/** The value of a metric over the dates start..end (README.md: how a week is made from its days). */
export function periodValue(
  data: DayData,
  metric: GoalMetric,
  start: LocalDate,
  end: LocalDate,
): number | null {
  const dates = Array.from({ length: daysBetween(start, end) + 1 }, (_, i) => addDays(start, i));
  if (metric === 'glucose_time_in_range') {
    let n = 0;
    let inRange = 0;
    for (const d of dates) {
      const g = data.glucose.get(d);
      if (g) {
        n += g.readings;
        inRange += g.inRange;
      }
    }
    return n ? round1((100 * inRange) / n) : null;
  }
  const values = dates
    .map((d) => dailyValue(data, metric, d))
    .filter((v): v is number => v !== null);
  if (!values.length) return null;
  switch (GOAL_METRIC_RULES[metric].week) {
    case 'sum':
      return round1(values.reduce((a, b) => a + b, 0));
    case 'mean':
      return round1(values.reduce((a, b) => a + b, 0) / values.length);
    default:
      return round1(values.at(-1)!);
  }
}

/** Progress of one goal over one period (README.md: statuses). */
export function progressOf(
  goal: Pick<GoalView, 'metric' | 'target' | 'direction'>,
  value: number | null,
  period: { start: LocalDate; end: LocalDate; current: boolean; elapsed: number },
): PeriodProgressView {
  const base = { start: period.start, end: period.end, current: period.current };
  if (value === null) return { ...base, value, percent: null, met: false, status: 'no_data' };
  const percent = Math.round((100 * value) / goal.target);
  const cumulative = GOAL_METRIC_RULES[goal.metric].week === 'sum';
  if (goal.direction === 'at_least') {
    const met = value >= goal.target;
    let status: ProgressStatus = met ? 'met' : period.current ? 'behind' : 'missed';
    if (!met && period.current && cumulative && value >= goal.target * period.elapsed) {
      status = 'on_track';
    }
    return { ...base, value, percent, met, status };
  }
  const met = value <= goal.target;
  let status: ProgressStatus = met ? 'met' : period.current ? 'behind' : 'missed';
  if (met && period.current && cumulative) status = 'on_track';
  return { ...base, value, percent, met, status };
}

/** Each active goal's progress for the current period and the ones before it. */
export async function goalProgress(
  ctx: AuthedContext,
  options: GoalProgressOptions,
): Promise<GoalProgressListView> {
  const zone = await personZone(ctx);
  const now = clock.now();
  const today = localDateOf(now, zone);
  const active = (await goals(ctx)).filter((g) => !options.metric || g.metric === options.metric);
  const firstOf = (g: GoalView) =>
    addDays(periodStart(today, g.period), -(options.periods - 1) * periodLength(g.period));
  const from = active.map(firstOf).sort()[0] ?? today;
  const data = await loadDays(ctx, {
    from,
    to: today,
    zone,
    glucose: active.some((g) => g.metric === 'glucose_time_in_range'),
    hydration: active.some((g) => g.metric === 'hydration'),
  });
  return {
    date: today,
    timezone: zone,
    goals: active.map((goal) => ({
      goal,
      periods: Array.from({ length: options.periods }, (_, i) => {
        const start = addDays(periodStart(today, goal.period), -i * periodLength(goal.period));
        const end = addDays(start, periodLength(goal.period) - 1);
        const bounds = { start: dayBounds(start, zone).start, end: dayBounds(end, zone).end };
        const elapsed =
          i === 0
            ? (now.getTime() - bounds.start.getTime()) /
              (bounds.end.getTime() - bounds.start.getTime())
            : 1;
        const value = periodValue(data, goal.metric, start, i === 0 ? today : end);
        return progressOf(goal, value, { start, end, current: i === 0, elapsed });
      }),
    })),
  };
}
