/**
 * The glucose response to a meal (issue 17), pure: no I/O. Formula and thresholds: docs/nutrition.md,
 * "Glucose response of a meal".
 *
 * - Baseline: the mean of the readings in the 30 minutes up to the meal (at least 2 readings).
 * - Peak: the highest reading in the 2 hours after the meal, and the minutes to it.
 * - iAUC: the incremental area under the curve over those 2 hours, above the baseline only
 *   (trapezoids between readings; a segment crossing the baseline counts only its part above),
 *   in mg/dL x minutes.
 * - Return to baseline: the minutes from the meal to the first reading after the peak at or below
 *   baseline + 10 mg/dL, looked for up to 4 hours after the meal (null if it did not come back).
 * - Too sparse: no response (null) with a reason when the readings cannot say: fewer than 2 in the
 *   baseline window, fewer than 6 in the 2 hours, or a gap of more than 30 minutes in the 2 hours
 *   (counting from the meal to the first reading and from the last to the end).
 */

/** One reading: epoch milliseconds and mg/dL. */
export interface GlucoseSample {
  t: number;
  v: number;
}

export const BASELINE_MINUTES = 30;
export const BASELINE_MIN_READINGS = 2;
export const RESPONSE_MINUTES = 120;
export const RESPONSE_MIN_READINGS = 6;
export const MAX_GAP_MINUTES = 30;
export const RETURN_WINDOW_MINUTES = 240;
export const RETURN_MARGIN_MG_DL = 10;

const MINUTE = 60_000;

/** Why a meal has no response. */
export type NoResponseReason = 'no_baseline' | 'too_few_readings' | 'gap_in_readings';

export interface GlucoseResponse {
  baselineMgDl: number;
  peakMgDl: number;
  /** peak minus baseline (may be negative when glucose fell) */
  riseMgDl: number;
  timeToPeakMinutes: number;
  /** incremental area above the baseline over 2 hours, mg/dL x min */
  iaucMgDlMin: number;
  /** minutes from the meal to the return to baseline (+10 mg/dL), null when not within 4 hours */
  returnToBaselineMinutes: number | null;
  /** readings in the 2 hours after the meal */
  readings: number;
}

export type ResponseResult =
  | { response: GlucoseResponse; reason: null }
  | { response: null; reason: NoResponseReason };

/** Index of the first sample at or after `t` in `samples` (sorted by t). */
export function firstAtOrAfter(samples: readonly GlucoseSample[], t: number): number {
  let lo = 0;
  let hi = samples.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (samples[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The area of a segment's part above `base` (trapezoid, or the triangle where it crosses). */
function areaAbove(t0: number, v0: number, t1: number, v1: number, base: number): number {
  const a = v0 - base;
  const b = v1 - base;
  const dt = (t1 - t0) / MINUTE;
  if (a >= 0 && b >= 0) return ((a + b) / 2) * dt;
  if (a <= 0 && b <= 0) return 0;
  // one end above: the triangle up to the crossing
  const up = Math.max(a, b);
  const fraction = up / (Math.abs(a) + Math.abs(b));
  return (up * fraction * dt) / 2;
}

/**
 * The response to a meal eaten at `mealAt` (epoch ms), from `samples` sorted by time (they may
 * cover much more than the meal: it looks only at its windows, by binary search).
 */
export function glucoseResponse(samples: readonly GlucoseSample[], mealAt: number): ResponseResult {
  const baseFrom = firstAtOrAfter(samples, mealAt - BASELINE_MINUTES * MINUTE);
  const afterMeal = firstAtOrAfter(samples, mealAt + 1);
  const baseCount = afterMeal - baseFrom;
  if (baseCount < BASELINE_MIN_READINGS) return { response: null, reason: 'no_baseline' };
  let sum = 0;
  for (let i = baseFrom; i < afterMeal; i++) sum += samples[i].v;
  const baseline = sum / baseCount;

  const end = mealAt + RESPONSE_MINUTES * MINUTE;
  const windowEnd = firstAtOrAfter(samples, end + 1);
  const readings = windowEnd - afterMeal;
  if (readings < RESPONSE_MIN_READINGS) return { response: null, reason: 'too_few_readings' };
  let previous = mealAt;
  for (let i = afterMeal; i < windowEnd; i++) {
    if (samples[i].t - previous > MAX_GAP_MINUTES * MINUTE) {
      return { response: null, reason: 'gap_in_readings' };
    }
    previous = samples[i].t;
  }
  if (end - previous > MAX_GAP_MINUTES * MINUTE)
    return { response: null, reason: 'gap_in_readings' };

  // the curve from the meal (the last baseline reading's value) to the window's last reading
  let peak = samples[afterMeal];
  let area = 0;
  let t0 = mealAt;
  let v0 = samples[afterMeal - 1].v;
  for (let i = afterMeal; i < windowEnd; i++) {
    const s = samples[i];
    if (s.v > peak.v) peak = s;
    area += areaAbove(t0, v0, s.t, s.v, baseline);
    t0 = s.t;
    v0 = s.v;
  }

  let returned: number | null = null;
  const returnEnd = mealAt + RETURN_WINDOW_MINUTES * MINUTE;
  for (let i = firstAtOrAfter(samples, peak.t + 1); i < samples.length; i++) {
    const s = samples[i];
    if (s.t > returnEnd) break;
    if (s.v <= baseline + RETURN_MARGIN_MG_DL) {
      returned = Math.round((s.t - mealAt) / MINUTE);
      break;
    }
  }
  const round1 = (x: number): number => Math.round(x * 10) / 10;
  return {
    reason: null,
    response: {
      baselineMgDl: round1(baseline),
      peakMgDl: round1(peak.v),
      riseMgDl: round1(peak.v - baseline),
      timeToPeakMinutes: Math.round((peak.t - mealAt) / MINUTE),
      iaucMgDlMin: Math.round(area),
      returnToBaselineMinutes: returned,
      readings,
    },
  };
}

/** The readings the response of a meal at `mealAt` needs: [30 min before, 4 h after]. */
export function responseWindow(mealAt: number): { start: Date; end: Date } {
  return {
    start: new Date(mealAt - BASELINE_MINUTES * MINUTE),
    end: new Date(mealAt + RETURN_WINDOW_MINUTES * MINUTE + 1),
  };
}
