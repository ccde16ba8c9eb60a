/**
 * The glucose response of a meal (docs/nutrition.md), as pure functions: constructed curves whose
 * figures are known by hand, the sparse cases, and a real Dexcom G4 trace (Hall 2018, CC BY 4.0)
 * with a constructed meal curve added at a known time.
 */
import { describe, expect, it } from 'vitest';
import {
  firstAtOrAfter,
  glucoseResponse,
  responseWindow,
} from '../../src/domains/nutrition/nutrition.response.ts';
import type { GlucoseSample } from '../../src/domains/nutrition/nutrition.response.ts';
import { hallTrace } from '../factories/insights.ts';

const MIN = 60_000;
const MEAL = Date.UTC(2026, 10, 20, 12, 0);

/** 5-minute readings from `from` to `to` minutes around the meal, valued by `f(minute)`. */
function curve(from: number, to: number, f: (m: number) => number, step = 5): GlucoseSample[] {
  const out: GlucoseSample[] = [];
  for (let m = from; m <= to; m += step) out.push({ t: MEAL + m * MIN, v: f(m) });
  return out;
}

/** A triangle: flat at 100, up to 160 at 45 min, back to 100 at 90 min, flat after. */
const triangle = (m: number): number =>
  m <= 0 ? 100 : m <= 45 ? 100 + (60 * m) / 45 : m <= 90 ? 160 - (60 * (m - 45)) / 45 : 100;

describe('glucoseResponse', () => {
  it('measures a triangle: baseline, peak, time to peak, area and return', () => {
    const { response, reason } = glucoseResponse(curve(-60, 300, triangle), MEAL);
    expect(reason).toBeNull();
    expect(response).toEqual({
      baselineMgDl: 100,
      peakMgDl: 160,
      riseMgDl: 60,
      timeToPeakMinutes: 45,
      iaucMgDlMin: 2700, // 90 min x 60 mg/dL / 2
      returnToBaselineMinutes: 85, // at 80 min 113.3 > 110; at 85 min 106.7 <= baseline + 10
      readings: 24,
    });
  });

  it('counts only the area above the baseline, including the part of a crossing segment', () => {
    // 100 before; -20 at 10 min, +20 at 20 min, then 100: the crossing segment 10..20 gives a
    // triangle of 5 min x 20 / 2 = 50, and 20..25 back to 100 gives 5 x 20 / 2 = 50
    const f = (m: number): number => (m === 10 ? 80 : m === 20 ? 120 : 100);
    const { response } = glucoseResponse(curve(-30, 150, f), MEAL);
    expect(response?.iaucMgDlMin).toBe(100);
    expect(response?.riseMgDl).toBe(20);
    expect(response?.timeToPeakMinutes).toBe(20);
    expect(response?.returnToBaselineMinutes).toBe(25);
  });

  it('says no_baseline with fewer than 2 readings in the 30 minutes before', () => {
    const samples = curve(5, 200, triangle).concat({ t: MEAL - 10 * MIN, v: 100 });
    samples.sort((a, b) => a.t - b.t);
    expect(glucoseResponse(samples, MEAL)).toEqual({ response: null, reason: 'no_baseline' });
  });

  it('says too_few_readings with fewer than 6 readings in the 2 hours (15-minute sensor, 5 left)', () => {
    const samples = curve(-30, 60, triangle, 15); // 0,15,30,45,60 after the meal = 4 + none
    expect(glucoseResponse(samples, MEAL).reason).toBe('too_few_readings');
  });

  it('accepts a 15-minute sensor with no gap over 30 minutes', () => {
    const { response } = glucoseResponse(curve(-30, 240, triangle, 15), MEAL);
    expect(response?.readings).toBe(8);
    expect(response?.peakMgDl).toBe(160);
  });

  it('says gap_in_readings for a gap over 30 minutes inside the 2 hours, or before its end', () => {
    const holed = curve(-30, 200, triangle).filter(
      (s) => s.t < MEAL + 40 * MIN || s.t > MEAL + 75 * MIN,
    );
    expect(glucoseResponse(holed, MEAL).reason).toBe('gap_in_readings');
    const cut = curve(-30, 85, triangle);
    expect(glucoseResponse(cut, MEAL).reason).toBe('gap_in_readings');
    const late = curve(-30, 200, triangle).filter((s) => s.t <= MEAL || s.t >= MEAL + 35 * MIN);
    expect(glucoseResponse(late, MEAL).reason).toBe('gap_in_readings');
  });

  it('gives a null return when glucose stays up for 4 hours', () => {
    const f = (m: number): number => (m <= 0 ? 100 : Math.min(100 + m, 170));
    const { response } = glucoseResponse(curve(-30, 300, f), MEAL);
    expect(response?.returnToBaselineMinutes).toBeNull();
    expect(response?.peakMgDl).toBe(170);
  });

  it('finds a constructed meal curve planted on a real trace (Hall 2018 subject 1636-69-001)', () => {
    const trace = hallTrace().map((p) => ({ t: p.timestamp.getTime(), v: p.valueMgDl }));
    trace.sort((a, b) => a.t - b.t);
    const meal = trace[600].t; // a reading in the middle of the trace
    const plant = (s: GlucoseSample): GlucoseSample => {
      const m = (s.t - meal) / MIN;
      const add = m <= 0 ? 0 : m <= 45 ? (70 * m) / 45 : m <= 105 ? 70 - (70 * (m - 45)) / 60 : 0;
      return { t: s.t, v: s.v + add };
    };
    const before = glucoseResponse(trace, meal);
    const after = glucoseResponse(trace.map(plant), meal);
    expect(before.reason).toBeNull();
    expect(after.reason).toBeNull();
    expect(after.response!.baselineMgDl).toBe(before.response!.baselineMgDl);
    expect(after.response!.riseMgDl).toBeGreaterThan(50);
    expect(Math.abs(after.response!.timeToPeakMinutes - 45)).toBeLessThanOrEqual(10);
    // the planted triangle's own area is 105 x 70 / 2 = 3675 mg/dL x min
    expect(after.response!.iaucMgDlMin - before.response!.iaucMgDlMin).toBeGreaterThan(3000);
  });
});

describe('helpers', () => {
  it('firstAtOrAfter is a lower bound', () => {
    const s = [1, 3, 3, 7].map((t) => ({ t, v: 0 }));
    expect([0, 1, 2, 3, 4, 7, 8].map((t) => firstAtOrAfter(s, t))).toEqual([0, 0, 1, 1, 3, 3, 4]);
  });

  it('responseWindow covers 30 minutes before the meal to 4 hours after it', () => {
    const w = responseWindow(MEAL);
    expect(w.start.getTime()).toBe(MEAL - 30 * MIN);
    expect(w.end.getTime()).toBe(MEAL + 240 * MIN + 1);
  });
});
