/**
 * Detected meals (issue 17), pure: no I/O. A rise in glucose that looks like a meal, found in the
 * readings alone; the service then hides rises with a logged meal nearby and dismissed ones.
 * Rule, thresholds and their measured precision and recall: docs/nutrition.md, "Detected meals".
 *
 * A rise is detected at reading i when, with the nadir n the lowest reading in the 60 minutes up to
 * i (and after the previous rise's peak):
 * - amplitude: v(i) - v(n) >= 30 mg/dL;
 * - slope: somewhere between n and i, glucose climbed at least 1.0 mg/dL/min over 15 minutes
 *   (two readings 10..15 minutes apart, so one noisy reading cannot make it);
 * - continuity: no gap of more than 15 minutes between n and i.
 * Its start (the meal's estimated time) is the onset: the last reading within 5 mg/dL of the nadir
 * before the climb. Its peak is the highest reading in the 2 hours after the start (until a gap).
 * The next rise's nadir comes after this peak.
 */
import type { GlucoseSample } from './nutrition.response.ts';

export const DETECT_AMPLITUDE_MG_DL = 30;
export const DETECT_WINDOW_MINUTES = 60;
export const DETECT_SLOPE_MG_DL_PER_MIN = 1.0;
export const DETECT_SLOPE_SPAN_MINUTES = 15;
export const DETECT_MAX_GAP_MINUTES = 15;
export const DETECT_PEAK_MINUTES = 120;
/** The onset is the last reading within this much of the nadir before the climb. */
export const DETECT_ONSET_MG_DL = 5;
/** A logged meal from this many minutes before a rise's start ... */
export const MEAL_BEFORE_MINUTES = 60;
/** ... to this many minutes after it hides the rise. */
export const MEAL_AFTER_MINUTES = 30;
/** Readings loaded before a range so that a rise's nadir and the previous peak are seen. */
export const DETECT_LEAD_MINUTES = 180;

const MINUTE = 60_000;

/** The thresholds of the rule (the measurement script tries others). */
export interface DetectRule {
  /** least rise from the nadir, mg/dL */
  amplitudeMgDl: number;
  /** the nadir is the lowest reading this many minutes before */
  windowMinutes: number;
  /** least steepest 15-minute climb, mg/dL per minute */
  slopeMgDlPerMin: number;
}

/** The rule as documented. */
export const DETECT_RULE: DetectRule = {
  amplitudeMgDl: DETECT_AMPLITUDE_MG_DL,
  windowMinutes: DETECT_WINDOW_MINUTES,
  slopeMgDlPerMin: DETECT_SLOPE_MG_DL_PER_MIN,
};

/** One detected rise. */
export interface DetectedRise {
  /** stable per person and rise: dm-<epoch seconds of the start reading> */
  id: string;
  /** the onset's time: the meal's estimated time */
  startedAt: number;
  nadirMgDl: number;
  peakAt: number;
  peakMgDl: number;
  /** peak minus nadir */
  riseMgDl: number;
  /** the steepest 15-minute climb, mg/dL per minute */
  maxSlopeMgDlPerMin: number;
}

/** The id of a rise starting at `t` (epoch ms). */
export function detectedMealId(t: number): string {
  return `dm-${Math.floor(t / 1000)}`;
}

/** The start (epoch ms) named by a detected meal id, or null when it is not one. */
export function detectedMealStart(id: string): number | null {
  const m = /^dm-(\d{1,11})$/.exec(id);
  return m ? Number(m[1]) * 1000 : null;
}

/** The steepest climb over 10..15 minutes among samples[from..to], mg/dL per minute. */
function steepest(samples: readonly GlucoseSample[], from: number, to: number): number {
  let best = -Infinity;
  let j = from;
  for (let k = from + 1; k <= to; k++) {
    while (j < k && samples[k].t - samples[j].t > DETECT_SLOPE_SPAN_MINUTES * MINUTE) j++;
    const minutes = (samples[k].t - samples[j].t) / MINUTE;
    if (minutes >= 10) best = Math.max(best, (samples[k].v - samples[j].v) / minutes);
  }
  return best;
}

/** Every rise in `samples` (sorted by time), oldest first. */
export function detectRises(
  samples: readonly GlucoseSample[],
  rule: DetectRule = DETECT_RULE,
): DetectedRise[] {
  const out: DetectedRise[] = [];
  let floor = 0; // nadirs come at or after this index
  let windowStart = 0;
  let segmentStart = 0; // the first index after the last gap > 15 min
  for (let i = 0; i < samples.length; i++) {
    if (i > 0 && samples[i].t - samples[i - 1].t > DETECT_MAX_GAP_MINUTES * MINUTE) {
      segmentStart = i;
    }
    while (samples[i].t - samples[windowStart].t > rule.windowMinutes * MINUTE) windowStart++;
    const from = Math.max(floor, windowStart, segmentStart);
    if (from >= i) continue;
    let n = from;
    for (let j = from + 1; j < i; j++) if (samples[j].v <= samples[n].v) n = j;
    if (samples[i].v - samples[n].v < rule.amplitudeMgDl) continue;
    const slope = steepest(samples, n, i);
    if (slope < rule.slopeMgDlPerMin) continue;
    // the peak: the highest reading within 2 h of the start, until a gap
    let p = i;
    for (let k = i + 1; k < samples.length; k++) {
      if (samples[k].t - samples[n].t > DETECT_PEAK_MINUTES * MINUTE) break;
      if (samples[k].t - samples[k - 1].t > DETECT_MAX_GAP_MINUTES * MINUTE) break;
      if (samples[k].v > samples[p].v) p = k;
    }
    // the onset: the last reading still within 5 mg/dL of the nadir before the climb
    let o = n;
    for (let j = n + 1; j < i; j++) if (samples[j].v <= samples[n].v + DETECT_ONSET_MG_DL) o = j;
    const start = samples[o];
    out.push({
      id: detectedMealId(start.t),
      startedAt: start.t,
      nadirMgDl: samples[n].v,
      peakAt: samples[p].t,
      peakMgDl: samples[p].v,
      riseMgDl: Math.round((samples[p].v - samples[n].v) * 10) / 10,
      maxSlopeMgDlPerMin: Math.round(Math.max(slope, steepest(samples, n, p)) * 100) / 100,
    });
    floor = p + 1;
    i = p;
  }
  return out;
}

/**
 * The rises with no meal eaten from 60 minutes before their start to 30 minutes after it.
 * `mealTimes` need not be sorted.
 */
export function unloggedRises(
  rises: readonly DetectedRise[],
  mealTimes: readonly number[],
): DetectedRise[] {
  const meals = [...mealTimes].sort((a, b) => a - b);
  return rises.filter((r) => {
    const lo = r.startedAt - MEAL_BEFORE_MINUTES * MINUTE;
    const hi = r.startedAt + MEAL_AFTER_MINUTES * MINUTE;
    let a = 0;
    let b = meals.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (meals[mid] < lo) a = mid + 1;
      else b = mid;
    }
    return !(a < meals.length && meals[a] <= hi);
  });
}
