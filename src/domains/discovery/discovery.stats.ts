/**
 * Discovery's statistics (issue 33), pure: no I/O, no clock. One driver -> outcome test pairs the
 * driver's day d with the outcome's day d + shift + lag, where the shift (0 or 1) makes the
 * outcome's period begin after the driver's ends (a day's steps -> the night after it, issue 47),
 * splits the paired days into high and low driver days (with and without, for a 0/1 driver), and
 * fits the outcome by OLS on the group and the day of week; the group's coefficient, its 95%
 * interval and a two-sided p are the result, with a standard error that holds when days are
 * autocorrelated (equal-weighted cosine, Student t with as many degrees of freedom as cosine terms:
 * issue 47). A run tests every pair x lag, then Benjamini-Hochberg adjusts the p of every tested
 * pair at once. The rules and why: docs/discovery.md.
 *
 * Never answers NaN or Infinity: a test that cannot be computed (too few days, no spread, a group
 * that only falls on some days of the week) answers null figures and says why in notEnoughData.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { addDays, daysBetween, isoWeekday } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { DISCOVERY_Q, MIN_PAIRED_DAYS, MIN_PER_GROUP } from './discovery.types.ts';
import type { DailySeries, Lag, PairResult, SignalDomain, SignalInfo } from './discovery.types.ts';

/** One paired day: the driver's value on `driverDate`, the outcome's on `outcomeDate` (+ lag). */
export interface PairedDay {
  driverDate: LocalDate;
  outcomeDate: LocalDate;
  x: number;
  y: number;
}

/** A driver -> outcome pair of signal keys. */
export interface SignalPair {
  driver: string;
  outcome: string;
}

/** How one pair is tested. */
export interface TestOptions {
  /**
   * true: the standard error of independent days (RSS / (n - p), t with n - p degrees of freedom),
   * the method before issue 47, which rejects too often on autocorrelated days; kept only as the
   * baseline of bench/discovery-planted.bench.ts and its test. Default false (cosine HAC).
   */
  independentDays?: boolean;
}

/** What a run tests: every pair at every lag. */
export interface RunOptions extends TestOptions {
  /** driver -> outcome pairs, by signal key (defaultPairs or explorePairs) */
  pairs: SignalPair[];
  /** lags to test each pair at (the default run: 0 and 1; explore: 0..3) */
  lags: Lag[];
}

/**
 * Where in its local date a signal's value happens: a night (sleep and sleep factors: the night
 * ending that morning), a morning (fasting glucose, 05:00-07:00, before the day's meals and
 * steps), or the day (every other signal: the day's waking hours). In time the periods of a date
 * come in this order, and the night after the day belongs to the next date.
 */
export type SignalPeriod = 'night' | 'morning' | 'day';

const PERIOD_ORDER: Record<SignalPeriod, number> = { night: 0, morning: 1, day: 2 };
/** Outcomes measured at waking (docs/discovery.md, "Time order"). */
const MORNING_KEYS = new Set(['glucose_fasting']);

/** The period of a signal (SignalPeriod). */
export function signalPeriod(info: Pick<SignalInfo, 'key' | 'domain'>): SignalPeriod {
  if (isNight(info)) return 'night';
  return MORNING_KEYS.has(info.key) ? 'morning' : 'day';
}

/**
 * Days from the driver's date to the outcome's date at lag 0 (issue 47: time runs forward): 1 when
 * the outcome's period of the same date comes before the driver's (a day -> the night after it,
 * which ends the next morning; a day -> the next morning's fasting glucose), else 0 (a night -> the
 * day after it, the same date; two periods of one kind: the same day or the same night, which
 * daily values cannot order further).
 */
export function alignShift(
  driver: Pick<SignalInfo, 'key' | 'domain'>,
  outcome: Pick<SignalInfo, 'key' | 'domain'>,
): 0 | 1 {
  return PERIOD_ORDER[signalPeriod(outcome)] < PERIOD_ORDER[signalPeriod(driver)] ? 1 : 0;
}

/**
 * Domains whose signals are summaries of one measured stream (glucose mean, time in range and CV
 * are the same readings; sleep minutes and efficiency the same nights): two signals of one of them
 * are never paired. Logs and observations are separate records each, so two different ones may be.
 */
export const SAME_STREAM_DOMAINS: readonly SignalDomain[] = [
  'sleep',
  'activity',
  'heart',
  'glucose',
  'meals',
  'room',
];

const TWO_SIDED_95 = 0.975;
/** A pivot this small relative to its column's scale means the design is singular. */
const SINGULAR_TOLERANCE = 1e-9;
/** Residual spread this small relative to the outcome's total spread counts as none. */
const NO_SPREAD = 1e-12;

/** Dates already worked out (a run asks the same few hundred thousands of times); bounded. */
const MEMO_MAX = 20_000;
const laterMemo = new Map<string, LocalDate>();
const weekdayMemo = new Map<LocalDate, number>();

function later(date: LocalDate, days: number): LocalDate {
  const key = `${date}+${days}`;
  let out = laterMemo.get(key);
  if (out === undefined) {
    if (laterMemo.size >= MEMO_MAX) laterMemo.clear();
    laterMemo.set(key, (out = addDays(date, days)));
  }
  return out;
}

function weekdayOf(date: LocalDate): number {
  let out = weekdayMemo.get(date);
  if (out === undefined) {
    if (weekdayMemo.size >= MEMO_MAX) weekdayMemo.clear();
    weekdayMemo.set(date, (out = isoWeekday(date)));
  }
  return out;
}

/**
 * The paired days of a driver and an outcome at `lag`: driver day d with outcome day
 * d + alignShift + lag (so that the outcome's period begins after the driver's ends), for every d
 * where both have a finite value, in date order.
 */
export function pairDays(driver: DailySeries, outcome: DailySeries, lag: Lag): PairedDay[] {
  const days: PairedDay[] = [];
  const shift = alignShift(driver, outcome) + lag;
  for (const driverDate of [...driver.values.keys()].sort()) {
    const x = driver.values.get(driverDate);
    const outcomeDate = later(driverDate, shift);
    const y = outcome.values.get(outcomeDate);
    if (x === undefined || y === undefined || !Number.isFinite(x) || !Number.isFinite(y)) continue;
    days.push({ driverDate, outcomeDate, x, y });
  }
  return days;
}

/**
 * Which paired days are high driver days. A 0/1 driver: the days with it (value other than 0). Any
 * other driver: the days above a split value chosen among its distinct values so that the two
 * groups are as equal as they can be; on a tie of balance the larger split value wins, so without
 * ties this is "above the median vs at or below it", and with ties (an intensity that is 0 on most
 * days) the tied values all go to one side, the side that lets the smaller group be largest.
 */
export function splitHigh(xs: readonly number[], binary: boolean): boolean[] {
  if (binary) return xs.map((x) => x !== 0);
  const sorted = [...xs].sort((a, b) => a - b);
  const n = sorted.length;
  let split = sorted[n - 1];
  let best = Infinity;
  for (let i = 0; i < n - 1; i++) {
    if (sorted[i] === sorted[i + 1]) continue; // not the last of its value
    const imbalance = Math.abs(2 * (n - i - 1) - n);
    if (imbalance <= best) {
      best = imbalance;
      split = sorted[i];
    }
  }
  return xs.map((x) => x > split);
}

/** The OLS fit of one coefficient: estimate, standard error and the t's degrees of freedom. */
export interface Coefficient {
  estimate: number;
  se: number;
  df: number;
}

/**
 * Cosine terms of the equal-weighted cosine (EWC) long-run variance for a series spanning `span`
 * days: 0.3 T^(2/3), rounded down, at least 2 (14 and 28 days: 2, 56: 4, 90: 6, 366: 15). The t
 * of the effect then has as many degrees of freedom (fixed-b: exact for Gaussian days whose
 * autocorrelation is smooth over the span). Lazarus, Lewis, Stock & Watson (2018) recommend
 * 0.4 T^(2/3), tuned for a persistence of about 0.7; 0.3 keeps days as streaky as AR(1) 0.9 at
 * or below 6% at p < 0.05 from 28 days on (docs/discovery.md, issue 47), for some power.
 */
export function cosineTerms(span: number): number {
  return Math.max(2, Math.floor(0.3 * span ** (2 / 3)));
}

/**
 * The EWC estimate of Var(sum of v) for values `v` on day positions `positions` (0-based, any gaps
 * count as 0) over `span` days: (2 / B) x sum over j = 1..B of (sum_t v_t cos(pi j (t + 1/2) / T))^2.
 * Its expectation is sum of v_t^2 for independent days; with autocorrelated days it includes the
 * covariances, which the independent-days formula leaves out.
 */
export function cosineVariance(
  v: readonly number[],
  positions: readonly number[],
  span: number,
  terms: number,
): number {
  let sum = 0;
  for (let j = 1; j <= terms; j++) {
    let c = 0;
    for (let i = 0; i < v.length; i++)
      c += v[i] * Math.cos((Math.PI * j * (positions[i] + 0.5)) / span);
    sum += c * c;
  }
  return (2 / terms) * sum;
}

/** Why an OLS fit could not be made. */
type FitFailure = 'singular' | 'no_residual_spread';

/**
 * Ordinary least squares of y on the columns of `x` (rows = observations, the first column the
 * intercept): the coefficient of column `column` with its standard error. Without `positions`,
 * the standard error of independent days from the residual variance RSS / (n - p), t with n - p
 * degrees of freedom (the method before issue 47). With `positions` (each row's day, 0-based from
 * the first, in order), the one that holds when days are autocorrelated (autocorrelationVariance).
 * Solved through the normal equations by Gauss-Jordan elimination with partial pivoting (p is at
 * most 8 here, and the columns are 0/1 indicators, so this is well conditioned); a pivot below
 * SINGULAR_TOLERANCE answers 'singular'.
 */
export function olsCoefficient(
  x: readonly number[][],
  y: readonly number[],
  column: number,
  positions?: readonly number[],
): Coefficient | FitFailure {
  const n = y.length;
  const p = x[0]?.length ?? 0;
  if (n <= p) return 'singular';
  const inverse = invert(crossProduct(x));
  if (!inverse) return 'singular';
  const xty = Array.from({ length: p }, (_, j) => x.reduce((s, row, i) => s + row[j] * y[i], 0));
  const beta = inverse.map((row) => row.reduce((s, v, k) => s + v * xty[k], 0));
  const mean = y.reduce((s, v) => s + v, 0) / n;
  let rss = 0;
  let tss = 0;
  const residuals = x.map((row, i) => {
    const r = y[i] - row.reduce((s, v, j) => s + v * beta[j], 0);
    rss += r ** 2;
    tss += (y[i] - mean) ** 2;
    return r;
  });
  if (!(rss > NO_SPREAD * tss) || !(tss > 0)) return 'no_residual_spread';
  let se: number;
  let df = n - p;
  if (positions) {
    const robust = autocorrelationVariance(x, inverse, column, residuals, positions);
    if (!robust) return 'no_residual_spread';
    se = Math.sqrt(robust.variance);
    df = robust.df;
  } else se = Math.sqrt((rss / df) * inverse[column][column]);
  if (!Number.isFinite(se) || se <= 0) return 'no_residual_spread';
  return { estimate: beta[column], se, df };
}

/** AR(1) prewhitening uses at most this coefficient (recolouring by at most 1 / 0.1^2). */
const PREWHITEN_MAX = 0.9;

/**
 * The variance of an OLS coefficient that holds when days are autocorrelated (issue 47). The
 * coefficient is sum_t w_t y_t (w: the column's row of (X'X)^-1 X'), so its error is sum_t v_t
 * with v_t = w_t x residual_t, and its variance is the long-run variance of v:
 *
 *  1. prewhitening by an AR(1) coefficient r, e_t = v_t - r v_(t-1): the larger of v's lag-1
 *     autocorrelation over consecutive days with Kendall's bias correction (+ (1 + 3r) / n) and
 *     the decay from lag 1 to lag 2 (gamma_2 / gamma_1: a day's own noise, white, dilutes the
 *     lag-1 correlation of a streaky series but not its decay), clamped to 0..PREWHITEN_MAX;
 *  2. the equal-weighted cosine estimate of e's long-run variance (cosineVariance, with
 *     cosineTerms(span) terms), recoloured by 1 / (1 - r)^2;
 *  3. a small-sample scaling that makes it exact in expectation for independent days of equal
 *     variance: divided by kappa = (2 / B) sum_j a_j' M a_j / sum_t w_t^2, a_j = w x cos_j and M
 *     the residual maker of X (the residuals are shorter than the errors by the fitted columns);
 *
 * and the t has B (cosine terms) degrees of freedom, the fixed-b distribution of the EWC t
 * (Lazarus, Lewis, Stock & Watson 2018). Null when the variance is not positive.
 */
export function autocorrelationVariance(
  x: readonly number[][],
  inverse: readonly number[][],
  column: number,
  residuals: readonly number[],
  positions: readonly number[],
): { variance: number; df: number } | null {
  const n = x.length;
  const p = x[0].length;
  const span = positions[n - 1] - positions[0] + 1;
  const terms = cosineTerms(span);
  const w = x.map((row) => row.reduce((s, v, k) => s + v * inverse[column][k], 0));
  const v = w.map((wi, i) => wi * residuals[i]);
  const byDay = new Map(positions.map((t, i) => [t, v[i]]));
  let lagged = 0;
  let lagged2 = 0;
  let squares = 0;
  v.forEach((vi, i) => {
    squares += vi * vi;
    const next = byDay.get(positions[i] + 1);
    if (next !== undefined) lagged += vi * next;
    const next2 = byDay.get(positions[i] + 2);
    if (next2 !== undefined) lagged2 += vi * next2;
  });
  const raw = squares > 0 ? lagged / squares : 0;
  const first = raw + (1 + 3 * raw) / n;
  const decay = lagged > 0 && lagged2 > 0 ? lagged2 / lagged : 0;
  const r = Math.min(PREWHITEN_MAX, Math.max(0, first, decay));
  const e = v.map((vi, i) => vi - r * (byDay.get(positions[i] - 1) ?? 0));
  const recoloured = cosineVariance(e, positions, span, terms) / (1 - r) ** 2;
  let expected = 0;
  for (let j = 1; j <= terms; j++) {
    const a = w.map((wi, i) => wi * Math.cos((Math.PI * j * (positions[i] + 0.5)) / span));
    const xa = Array.from({ length: p }, (_, k) => x.reduce((s, row, i) => s + row[k] * a[i], 0));
    let fitted = 0;
    for (let k = 0; k < p; k++) for (let l = 0; l < p; l++) fitted += xa[k] * inverse[k][l] * xa[l];
    expected += a.reduce((s, ai) => s + ai * ai, 0) - fitted;
  }
  const kappa = ((2 / terms) * expected) / w.reduce((s, wi) => s + wi * wi, 0);
  const variance = recoloured / kappa;
  return Number.isFinite(variance) && variance > 0 ? { variance, df: terms } : null;
}

function crossProduct(x: readonly number[][]): number[][] {
  const p = x[0].length;
  const out = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  for (const row of x)
    for (let j = 0; j < p; j++) for (let k = 0; k < p; k++) out[j][k] += row[j] * row[k];
  return out;
}

/** The inverse of a symmetric matrix by Gauss-Jordan with partial pivoting; null when singular. */
function invert(m: readonly number[][]): number[][] | null {
  const p = m.length;
  const a = m.map((row, i) => [...row, ...row.map((_, j) => (i === j ? 1 : 0))]);
  const scale = Math.max(...m.map((row, i) => Math.abs(row[i])), 1);
  for (let col = 0; col < p; col++) {
    let pivot = col;
    for (let r = col + 1; r < p; r++) if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) pivot = r;
    if (Math.abs(a[pivot][col]) < SINGULAR_TOLERANCE * scale) return null;
    [a[col], a[pivot]] = [a[pivot], a[col]];
    const lead = a[col][col];
    for (let k = 0; k < 2 * p; k++) a[col][k] /= lead;
    for (let r = 0; r < p; r++) {
      if (r === col || a[r][col] === 0) continue;
      const f = a[r][col];
      for (let k = 0; k < 2 * p; k++) a[r][k] -= f * a[col][k];
    }
  }
  return a.map((row) => row.slice(p));
}

/**
 * The design of a difference test: intercept, the high-day indicator, and one 0/1 column per day
 * of week of the outcome's day except the first present (the reference), leaving out weekdays no
 * paired day falls on (a column of zeros has no variation to fit).
 */
export function designRows(days: readonly PairedDay[], high: readonly boolean[]): number[][] {
  const weekday = days.map((d) => weekdayOf(d.outcomeDate));
  const dummies = [...new Set(weekday)].sort((a, b) => a - b).slice(1);
  return days.map((_, i) => [
    1,
    high[i] ? 1 : 0,
    ...dummies.map((w) => (weekday[i] === w ? 1 : 0)),
  ]);
}

function groupWords(driver: SignalInfo): { high: string; low: string } {
  const days = isNight(driver) ? 'nights' : 'days';
  return driver.binary
    ? { high: `${days} with ${lowerFirst(driver.label)}`, low: `${days} without` }
    : { high: `high ${days}`, low: `low ${days}` };
}

/** What is missing for a test, in words; null when the thresholds are met. */
export function missingData(
  n: number,
  nHigh: number,
  nLow: number,
  driver: SignalInfo,
): string | null {
  const words = groupWords(driver);
  const parts: string[] = [];
  if (n < MIN_PAIRED_DAYS) parts.push(`${n} paired days of the ${MIN_PAIRED_DAYS} needed`);
  if (nHigh < MIN_PER_GROUP) parts.push(`${nHigh} ${words.high} of the ${MIN_PER_GROUP} needed`);
  if (nLow < MIN_PER_GROUP) parts.push(`${nLow} ${words.low} of the ${MIN_PER_GROUP} needed`);
  return parts.length ? parts.join('; ') : null;
}

function untested(
  driver: string,
  outcome: string,
  lag: Lag,
  counts: { n: number; nHigh: number; nLow: number },
  reason: string,
): PairResult {
  return {
    driver,
    outcome,
    lag,
    ...counts,
    method: 'difference',
    effect: null,
    ciLow: null,
    ciHigh: null,
    p: null,
    q: null,
    significant: false,
    direction: null,
    notEnoughData: reason,
  };
}

const FIT_FAILURE_WORDS: Record<FitFailure, string> = {
  singular:
    'the high and low days fall on different days of the week, so the two cannot be told apart',
  no_residual_spread: 'the outcome does not vary once the day of week is accounted for',
};

/**
 * One driver -> outcome test at `lag` (method `difference`, docs/discovery.md): the outcome's
 * difference between high (with) and low (without) driver days, adjusted for the outcome day's day
 * of week by OLS, with its 95% interval and two-sided p. q stays null and significant false until
 * adjustRun; fewer than MIN_PAIRED_DAYS paired days or MIN_PER_GROUP days in a group answers null
 * figures with notEnoughData saying what is missing.
 */
export function testPair(
  driver: DailySeries,
  outcome: DailySeries,
  lag: Lag,
  options: TestOptions = {},
): PairResult {
  const days = pairDays(driver, outcome, lag);
  const high = splitHigh(
    days.map((d) => d.x),
    driver.binary,
  );
  const nHigh = high.filter(Boolean).length;
  const counts = { n: days.length, nHigh, nLow: days.length - nHigh };
  const missing = missingData(counts.n, nHigh, counts.nLow, driver);
  if (missing) return untested(driver.key, outcome.key, lag, counts, missing);
  const y = days.map((d) => d.y);
  if (y.every((v) => v === y[0]))
    return untested(
      driver.key,
      outcome.key,
      lag,
      counts,
      'the outcome had the same value on every paired day',
    );
  const first = days[0].outcomeDate;
  const positions = options.independentDays
    ? undefined
    : days.map((d) => daysBetween(first, d.outcomeDate));
  const fit = olsCoefficient(designRows(days, high), y, 1, positions);
  if (typeof fit === 'string')
    return untested(driver.key, outcome.key, lag, counts, FIT_FAILURE_WORDS[fit]);
  const half = tQuantile(TWO_SIDED_95, fit.df) * fit.se;
  const p = Math.min(1, 2 * tCdf(-Math.abs(fit.estimate / fit.se), fit.df));
  return {
    driver: driver.key,
    outcome: outcome.key,
    lag,
    ...counts,
    method: 'difference',
    effect: fit.estimate,
    ciLow: fit.estimate - half,
    ciHigh: fit.estimate + half,
    p,
    q: null,
    significant: false,
    direction: fit.estimate > 0 ? 'higher' : fit.estimate < 0 ? 'lower' : null,
    notEnoughData: null,
  };
}

/**
 * Benjamini-Hochberg over every tested result of a run (p !== null): q is the step-up adjusted p
 * (min over j >= i of p_(j) m / j, capped at 1, so monotone in p), significant is q <= `q`.
 * Untested results keep q null and significant false. Answers new objects in the same order.
 */
export function adjustRun(results: readonly PairResult[], q: number = DISCOVERY_Q): PairResult[] {
  const tested = results
    .map((r, index) => ({ index, p: r.p }))
    .filter((t): t is { index: number; p: number } => t.p !== null)
    .sort((a, b) => a.p - b.p);
  const m = tested.length;
  const adjusted = new Map<number, number>();
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const t = tested[rank - 1];
    running = Math.min(running, (t.p * m) / rank);
    adjusted.set(t.index, running);
  }
  return results.map((r, index) => {
    const qValue = adjusted.get(index);
    if (qValue === undefined) return { ...r, q: null, significant: false };
    return { ...r, q: qValue, significant: qValue <= q };
  });
}

/**
 * A run: testPair for every pair at every lag, then adjustRun across all of them. A pair naming a
 * signal that is not in `series` answers an untested result saying so.
 */
export function testRun(series: readonly DailySeries[], options: RunOptions): PairResult[] {
  const byKey = new Map(series.map((s) => [s.key, s]));
  const results: PairResult[] = [];
  for (const pair of options.pairs) {
    const driver = byKey.get(pair.driver);
    const outcome = byKey.get(pair.outcome);
    for (const lag of options.lags) {
      if (!driver || !outcome) {
        const absent = !driver ? pair.driver : pair.outcome;
        const counts = { n: 0, nHigh: 0, nLow: 0 };
        results.push(untested(pair.driver, pair.outcome, lag, counts, `no days of ${absent}`));
      } else results.push(testPair(driver, outcome, lag, options));
    }
  }
  return adjustRun(results);
}

/**
 * Whether `driver` -> `outcome` may be tested: a driver (role driver or both) and an outcome (role
 * outcome or both), never a signal with itself, never two signals of one SAME_STREAM_DOMAINS
 * domain.
 */
export function pairable(driver: SignalInfo, outcome: SignalInfo): boolean {
  if (driver.key === outcome.key) return false;
  if (driver.role === 'outcome' || outcome.role === 'driver') return false;
  return !(driver.domain === outcome.domain && SAME_STREAM_DOMAINS.includes(driver.domain));
}

/** Every pairable driver -> outcome pair of the series, drivers in series order, then outcomes. */
export function defaultPairs(series: readonly SignalInfo[]): SignalPair[] {
  const pairs: SignalPair[] = [];
  for (const driver of series)
    for (const outcome of series)
      if (pairable(driver, outcome)) pairs.push({ driver: driver.key, outcome: outcome.key });
  return pairs;
}

/**
 * The explore variant: the pairable pairs with `focus` as the driver (against every outcome) and as
 * the outcome (against every driver), as its role allows; none when `focus` is not in the series.
 */
export function explorePairs(series: readonly SignalInfo[], focus: string): SignalPair[] {
  const chosen = series.find((s) => s.key === focus);
  if (!chosen) return [];
  const asDriver = series
    .filter((o) => pairable(chosen, o))
    .map((o) => ({ driver: chosen.key, outcome: o.key }));
  const asOutcome = series
    .filter((d) => pairable(d, chosen))
    .map((d) => ({ driver: d.key, outcome: chosen.key }));
  return [...asDriver, ...asOutcome];
}

// ---- wording ----

/** Lag k between two periods of one kind: the same day (or night), the next, ... */
const SAME_PERIOD_WORDS: Record<'day' | 'night' | 'morning', Record<Lag, string>> = {
  day: { 0: 'the same day', 1: 'the next day', 2: 'two days later', 3: 'three days later' },
  night: {
    0: 'the same night',
    1: 'the next night',
    2: 'two nights later',
    3: 'three nights later',
  },
  morning: {
    0: 'the same morning',
    1: 'the next morning',
    2: 'two mornings later',
    3: 'three mornings later',
  },
};
const ORDINAL: Record<Lag, string> = { 0: '', 1: 'second ', 2: 'third ', 3: 'fourth ' };

/**
 * Which outcome period a result pairs with the driver's, in words (issue 47: the statement names
 * the night and the day): "the night after the day", "the day after the night", "the second day
 * after the night", "the morning after the day"; two periods of one kind: "the same day", "the
 * next day".
 */
export function whenWords(driver: SignalInfo, outcome: SignalInfo, lag: Lag): string {
  const from = signalPeriod(driver);
  const to = signalPeriod(outcome);
  if (from === to) return SAME_PERIOD_WORDS[from][lag];
  return `the ${ORDINAL[lag]}${to} after the ${from}`;
}
/** Units of an amount: "more steps", not "higher steps". */
const AMOUNT_UNITS = new Set(['min', 'steps', 'g', 'kcal', 'ml', 'units', 'doses']);

/** A label mid-sentence: "Fasting glucose" -> "fasting glucose", "HRV" stays. */
export function lowerFirst(label: string): string {
  if (label.length > 1 && /[A-Z]/.test(label[1])) return label;
  return label.charAt(0).toLowerCase() + label.slice(1);
}

function isHour(info: SignalInfo): boolean {
  return info.unit === 'hour of day';
}

function isNight(info: Pick<SignalInfo, 'key' | 'domain'>): boolean {
  return info.domain === 'sleep' || info.key.startsWith('log:sleep_factor:');
}

/** How an outcome's difference is written: its unit and the words for up and down. */
function outcomeUnit(info: SignalInfo): { unit: string; up: string; down: string; scale: number } {
  if (info.binary)
    return { unit: 'percentage points', up: 'more often', down: 'less often', scale: 100 };
  if (info.unit === '%')
    return { unit: 'percentage points', up: 'higher', down: 'lower', scale: 1 };
  if (isHour(info)) return { unit: 'hours', up: 'later', down: 'earlier', scale: 1 };
  if (info.unit === '0-5')
    return { unit: 'points on the 0-5 scale', up: 'higher', down: 'lower', scale: 1 };
  return { unit: info.unit, up: 'higher', down: 'lower', scale: 1 };
}

/** A figure for people: no more decimals than it can carry. */
export function formatAmount(v: number): string {
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 1 ? 1 : 2;
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

function signed(v: number): string {
  return v > 0 ? `+${formatAmount(v)}` : formatAmount(v);
}

function driverPhrases(info: SignalInfo): { high: string; low: string } {
  const label = lowerFirst(info.label);
  const unit = isNight(info) ? 'night' : 'day';
  if (info.binary) return { high: `A ${unit} with ${label}`, low: `a ${unit} without` };
  if (isHour(info))
    return {
      high: `A ${unit} with a later ${label} (after your median time)`,
      low: 'an earlier one',
    };
  const more = AMOUNT_UNITS.has(info.unit) ? 'more' : 'higher';
  return {
    high: `A ${unit} with ${more} ${label} (above your median)`,
    low: `a ${unit} at or below it`,
  };
}

/**
 * The hypothesis in a sentence, "is associated with" (an association between days, never a cause,
 * no dose, no diagnosis): the effect and its 95% interval in the outcome's unit, the lag in words,
 * the paired days. A result that was not tested says what is missing. `zone` (the person's time
 * zone) is named when a signal is a time of day.
 */
export function hypothesisText(
  result: PairResult,
  driverInfo: SignalInfo,
  outcomeInfo: SignalInfo,
  zone?: string,
): string {
  const outcome = lowerFirst(outcomeInfo.label);
  const when = whenWords(driverInfo, outcomeInfo, result.lag);
  const times =
    zone && (isHour(driverInfo) || isHour(outcomeInfo)) ? ` Times are local (${zone}).` : '';
  const { effect, ciLow, ciHigh } = result;
  if (effect === null || ciLow === null || ciHigh === null) {
    const reason = result.notEnoughData ?? 'not tested';
    const driver = lowerFirst(driverInfo.label);
    const question = `whether ${driver} is associated with ${outcome} ${when}`;
    return `Not enough data yet to say ${question}: ${reason}.${times}`;
  }
  const u = outcomeUnit(outcomeInfo);
  const phrases = driverPhrases(driverInfo);
  const change =
    effect === 0
      ? `no different`
      : `${formatAmount(Math.abs(effect) * u.scale)} ${u.unit} ${effect > 0 ? u.up : u.down}`;
  const [low, high] = [signed(ciLow * u.scale), signed(ciHigh * u.scale)];
  const interval = `95% interval ${low} to ${high} ${u.unit}`;
  return (
    `${phrases.high} is associated with ${outcome} ${when} ${change} than ${phrases.low} ` +
    `(${interval}; ${result.n} paired days, adjusted for day of week).${times}`
  );
}
