/**
 * Glucose statistics for trends and the AGP (pure functions, no I/O). Formulas are documented in
 * docs/glucose.md; every input is in canonical mg/dL.
 */

import { localMinutesOf } from '../../platform/local-dates.ts';

/** Expected interval between CGM readings, minutes (coverage is measured against it). */
export const CGM_INTERVAL_MINUTES = 5;

/** A reading as the statistics need it. */
export interface StatPoint {
  timestamp: Date;
  valueMgDl: number;
  /** a reading typed by hand (a fingerstick, source manual): reported apart from the CGM's */
  manual?: boolean;
}

/** The fingerstick readings of a window, reported beside the CGM figures and never mixed in. */
export interface FingerstickStats {
  count: number;
  mean: number | null;
  min: number | null;
  max: number | null;
}

export interface HourlyPercentiles {
  /** hour of day 0..23, the person's local time (the trend's `timezone`) */
  hour: number;
  count: number;
  p5: number | null;
  p25: number | null;
  p50: number | null;
  p75: number | null;
  p95: number | null;
}

export interface TrendStats {
  /** CGM readings (a fingerstick is counted in `fingersticks` only) */
  count: number;
  /** percent of the expected 5-minute readings of the window that are present (0..100) */
  coveragePct: number;
  mean: number | null;
  /** sample standard deviation (n - 1) */
  sd: number | null;
  /** coefficient of variation, percent: 100 * sd / mean */
  cv: number | null;
  /** glucose management indicator, percent: 3.31 + 0.02392 * mean */
  gmi: number | null;
  min: number | null;
  max: number | null;
  /** percent of readings < 54 */
  timeVeryLowPct: number;
  /** percent of readings 54..<70 */
  timeLowPct: number;
  /** percent of readings 70..180 */
  timeInRangePct: number;
  /** percent of readings >180..250 */
  timeHighPct: number;
  /** percent of readings > 250 */
  timeVeryHighPct: number;
  hourly: HourlyPercentiles[];
  fingersticks: FingerstickStats;
}

const round = (v: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
};

/** Percentile p (0..100) of ascending-sorted values, linear interpolation between closest ranks (R type 7). */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const h = (sorted.length - 1) * (p / 100);
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Arithmetic mean; null for no values. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Sample standard deviation (n - 1); null below two values. */
export function standardDeviation(values: readonly number[]): number | null {
  const m = mean(values);
  if (m === null || values.length < 2) return null;
  let s = 0;
  for (const v of values) s += (v - m) ** 2;
  return Math.sqrt(s / (values.length - 1));
}

/** Glucose management indicator (%), Bergenstal et al. 2018: 3.31 + 0.02392 * mean mg/dL. */
export function gmi(meanMgDl: number): number {
  return 3.31 + 0.02392 * meanMgDl;
}

/** Index of the consensus range of a value: 0 <54, 1 54-69, 2 70-180, 3 181-250, 4 >250. */
export function rangeIndex(v: number): number {
  if (v < 54) return 0;
  if (v < 70) return 1;
  if (v <= 180) return 2;
  if (v <= 250) return 3;
  return 4;
}

/** Count, mean and extremes of the fingersticks among `points`. */
function fingerstickStats(points: readonly StatPoint[]): FingerstickStats {
  const values = points.filter((p) => p.manual).map((p) => p.valueMgDl);
  const m = mean(values);
  return {
    count: values.length,
    mean: m === null ? null : round(m),
    min: values.length ? Math.min(...values) : null,
    max: values.length ? Math.max(...values) : null,
  };
}

/**
 * Every trend figure of the CGM readings of the window [start, end); the hourly percentiles (the
 * AGP) by the local hour of `zone` (a reading at 07:30 in Los Angeles is hour 7, not 15). Time in
 * ranges, coverage and the AGP are the CGM's own (the consensus's definitions): fingersticks,
 * taken when something is wrong, would weigh their moments against a reading every 5 minutes, so
 * they are counted apart (`fingersticks`).
 */
export function trendStats(
  all: readonly StatPoint[],
  start: Date,
  end: Date,
  zone = 'UTC',
): TrendStats {
  const points = all.filter((p) => !p.manual);
  const values = points.map((p) => p.valueMgDl);
  const n = values.length;
  const ranges = [0, 0, 0, 0, 0];
  const byHour: number[][] = Array.from({ length: 24 }, () => []);
  for (const p of points) {
    ranges[rangeIndex(p.valueMgDl)]++;
    byHour[Math.floor(localMinutesOf(p.timestamp, zone) / 60)].push(p.valueMgDl);
  }
  const pct = (k: number): number => (n ? round((100 * k) / n, 2) : 0);
  const expected = Math.max(
    1,
    Math.floor((end.getTime() - start.getTime()) / (CGM_INTERVAL_MINUTES * 60_000)),
  );
  const m = mean(values);
  const sd = standardDeviation(values);
  const opt = (v: number | null, digits = 1): number | null =>
    v === null ? null : round(v, digits);
  return {
    count: n,
    coveragePct: round(Math.min(100, (100 * n) / expected), 2),
    mean: opt(m),
    sd: opt(sd),
    cv: m !== null && sd !== null && m > 0 ? round((100 * sd) / m, 2) : null,
    gmi: m !== null ? round(gmi(m), 2) : null,
    min: n ? Math.min(...values) : null,
    max: n ? Math.max(...values) : null,
    timeVeryLowPct: pct(ranges[0]),
    timeLowPct: pct(ranges[1]),
    timeInRangePct: pct(ranges[2]),
    timeHighPct: pct(ranges[3]),
    timeVeryHighPct: pct(ranges[4]),
    hourly: byHour.map((vs, hour) => {
      const s = [...vs].sort((a, b) => a - b);
      return {
        hour,
        count: s.length,
        p5: opt(percentile(s, 5)),
        p25: opt(percentile(s, 25)),
        p50: opt(percentile(s, 50)),
        p75: opt(percentile(s, 75)),
        p95: opt(percentile(s, 95)),
      };
    }),
    fingersticks: fingerstickStats(all),
  };
}

/** GMI's window: at least 14 days (Bergenstal et al. 2018 derived it so) ... */
export const GMI_MIN_DAYS = 14;
/** ... with at least 70 % of the expected 5-minute CGM readings present. */
export const GMI_MIN_COVERAGE_PCT = 70;

/**
 * The GMI a window may show: null with the reason below 14 days or 70 % sensor coverage, since GMI
 * estimates a long-term mean (an HbA1c-like figure) and says nothing from a few hours.
 */
export function gmiOfWindow(
  stats: TrendStats,
  start: Date,
  end: Date,
): { gmi: number | null; gmiNote: string | null } {
  const days = (end.getTime() - start.getTime()) / 86_400_000;
  if (stats.gmi === null) return { gmi: null, gmiNote: 'No readings in the window.' };
  if (days < GMI_MIN_DAYS)
    return {
      gmi: null,
      gmiNote: `GMI needs at least ${GMI_MIN_DAYS} days of CGM data; this window is ${round(days)} days.`,
    };
  if (stats.coveragePct < GMI_MIN_COVERAGE_PCT)
    return {
      gmi: null,
      gmiNote:
        `GMI needs at least ${GMI_MIN_COVERAGE_PCT} % sensor coverage; this window has ` +
        `${stats.coveragePct} %.`,
    };
  return { gmi: stats.gmi, gmiNote: null };
}
