/** Suggestions, predictive alerts and cards (pure): each rule of docs/scores.md firing and not firing. */
import { describe, expect, it } from 'vitest';
import { trendStats } from '../../src/domains/glucose/glucose.stats.ts';
import type { StatPoint, TrendStats } from '../../src/domains/glucose/glucose.stats.ts';
import {
  cardsFrom,
  linearFit,
  alertsFrom,
  suggestions,
} from '../../src/domains/insights/insights.rules.ts';
import type { PredictiveAlert } from '../../src/domains/insights/insights.rules.ts';
import type { DayScores, Score, ScoreKind } from '../../src/domains/insights/insights.scores.ts';
import { hallTrace } from '../factories/insights.ts';

const D = '2026-03-10';
const at = (iso: string): Date => new Date(iso);

function score(
  kind: ScoreKind,
  value: number | null,
  components: Record<string, number | null> = {},
): Score {
  return {
    kind,
    date: D,
    score: value,
    reason: value === null ? 'no_data' : null,
    components: Object.entries(components).map(([name, v]) => ({
      name,
      value: v,
      unit: 'u',
      reference: null,
      score: v,
      weight: 1,
    })),
  };
}

function day(parts: Partial<Record<ScoreKind, Score>> = {}): DayScores {
  const base = Object.fromEntries(
    (['overall', 'glucose', 'sleep', 'activity', 'recovery', 'nutrition'] as const).map((k) => [
      k,
      score(k, null),
    ]),
  );
  return { date: D, timezone: 'UTC', ...base, ...parts } as DayScores;
}

/** A week of CGM (2016 readings) with the given shares below 70 and above 180. */
function week(belowPct: number, abovePct: number): TrendStats {
  const n = 2016;
  const below = Math.round((n * belowPct) / 100);
  const above = Math.round((n * abovePct) / 100);
  const start = at('2026-03-03T00:00:00Z');
  const points = Array.from({ length: n }, (_, i) => ({
    timestamp: new Date(start.getTime() + i * 300_000),
    valueMgDl: i < below ? 60 : i < below + above ? 200 : 120,
  }));
  return trendStats(points, start, at('2026-03-10T00:00:00Z'));
}

const codes = (input: Parameters<typeof suggestions>[0]): string[] =>
  suggestions(input).map((s) => s.code);
const quiet = { today: day(), week: [] as DayScores[], weekGlucose: week(0, 0) };

describe('suggestions', () => {
  it('suggests nothing on a week without findings', () => {
    const good = Array.from({ length: 7 }, () =>
      day({
        activity: score('activity', 90, { steps: 9000 }),
        nutrition: score('nutrition', 90, { fiber_per_1000_kcal: 15 }),
      }),
    );
    const today = day({
      sleep: score('sleep', 90, { time_asleep: 7.5 }),
      recovery: score('recovery', 70),
    });
    expect(codes({ today, week: good, weekGlucose: week(1, 10) })).toEqual([]);
  });

  it('review_lows: 4% or more of the week below 70 mg/dL', () => {
    expect(codes({ ...quiet, weekGlucose: week(4, 0) })).toEqual(['review_lows']);
    expect(codes({ ...quiet, weekGlucose: week(3.9, 0) })).toEqual([]);
    expect(suggestions({ ...quiet, weekGlucose: week(5, 0) })[0]).toMatchObject({
      priority: 1,
      value: 5,
      unit: '%',
      threshold: 4,
    });
  });

  it('walk_after_meals: 25% or more of the week above 180 mg/dL', () => {
    expect(codes({ ...quiet, weekGlucose: week(0, 25) })).toEqual(['walk_after_meals']);
    expect(codes({ ...quiet, weekGlucose: week(0, 24.9) })).toEqual([]);
  });

  it('weekly glucose rules need about a day of readings', () => {
    const start = at('2026-03-03T00:00:00Z');
    const few: StatPoint[] = Array.from({ length: 287 }, (_, i) => ({
      timestamp: new Date(start.getTime() + i * 300_000),
      valueMgDl: 60,
    }));
    expect(
      codes({ ...quiet, weekGlucose: trendStats(few, start, at('2026-03-10T00:00:00Z')) }),
    ).toEqual([]);
    few.push({ timestamp: at('2026-03-05T00:00:00Z'), valueMgDl: 60 });
    expect(
      codes({ ...quiet, weekGlucose: trendStats(few, start, at('2026-03-10T00:00:00Z')) }),
    ).toEqual(['review_lows']);
  });

  it('sleep_more: last night under 7 hours asleep', () => {
    expect(
      codes({ ...quiet, today: day({ sleep: score('sleep', 60, { time_asleep: 6.9 }) }) }),
    ).toEqual(['sleep_more']);
    expect(
      codes({ ...quiet, today: day({ sleep: score('sleep', 80, { time_asleep: 7 }) }) }),
    ).toEqual([]);
  });

  it("take_it_easy: today's recovery score under 40", () => {
    expect(codes({ ...quiet, today: day({ recovery: score('recovery', 39) }) })).toEqual([
      'take_it_easy',
    ]);
    expect(codes({ ...quiet, today: day({ recovery: score('recovery', 40) }) })).toEqual([]);
  });

  it('move_more: under 7,000 steps a day on average, over at least 3 days with step data', () => {
    const steps = (...v: (number | null)[]) =>
      v.map((s) => day({ activity: score('activity', 50, { steps: s }) }));
    expect(codes({ ...quiet, week: steps(6000, 7000, 7999, null) })).toEqual(['move_more']);
    expect(codes({ ...quiet, week: steps(7000, 7000, 7000) })).toEqual([]);
    expect(codes({ ...quiet, week: steps(1000, 1000, null, null) })).toEqual([]);
  });

  it('more_fiber: under 10 g per 1,000 kcal on average, over at least 3 days with meals', () => {
    const fiber = (...v: number[]) =>
      v.map((f) => day({ nutrition: score('nutrition', 50, { fiber_per_1000_kcal: f }) }));
    expect(codes({ ...quiet, week: fiber(8, 9, 12) })).toEqual(['more_fiber']);
    expect(codes({ ...quiet, week: fiber(10, 10, 10) })).toEqual([]);
    expect(codes({ ...quiet, week: fiber(2, 2) })).toEqual([]);
  });

  it('orders the most urgent first, then by code', () => {
    const today = day({
      sleep: score('sleep', 40, { time_asleep: 5 }),
      recovery: score('recovery', 20),
    });
    expect(codes({ today, week: [], weekGlucose: week(5, 30) })).toEqual([
      'review_lows',
      'sleep_more',
      'take_it_easy',
      'walk_after_meals',
    ]);
  });
});

describe('predictive alerts', () => {
  const trace = hallTrace();
  const nowAt = (iso: string): Date => at(iso);

  it('fits a least-squares line', () => {
    const pts = [0, 5, 10].map((m, i) => ({
      timestamp: new Date(m * 60_000),
      valueMgDl: [100, 90, 80][i],
    }));
    expect(linearFit(pts, 10 * 60_000)).toEqual({ slope: -2, intercept: 80 });
    expect(linearFit(pts.slice(0, 1), 0)).toBeNull();
  });

  it('predicts the real low of a Hall 2018 trace ten minutes before it came (CC BY 4.0)', () => {
    // 2015-03-30: 140, 137, 126, 114, 100, 86 (18:28-18:53), then 72 at 18:58 and 64 at 19:03
    const now = nowAt('2015-03-30T18:53:23Z');
    const [alert] = alertsFrom(trace, now);
    expect(alert).toMatchObject({
      kind: 'predicted_low',
      thresholdMgDl: 70,
      currentMgDl: 86,
      readingsUsed: 6,
    });
    expect(alert.minutesAhead).toBeLessThanOrEqual(30);
    const actualLow = trace.find((p) => p.timestamp > now && p.valueMgDl < 70)!;
    expect(actualLow.timestamp.getTime() - now.getTime()).toBeLessThanOrEqual(30 * 60_000);
    expect(alertsFrom(trace, nowAt('2015-03-30T18:53:23Z')).map((a) => a.kind)).toEqual([
      'predicted_low',
    ]);
  });

  it('predicts the real high after a meal on the same trace, and nothing on a steady stretch', () => {
    // 2014-02-04: 109 .. 155 (07:32-07:57), above 180 at 08:12
    const [high] = alertsFrom(trace, nowAt('2014-02-04T07:57:05Z'));
    expect(high).toMatchObject({ kind: 'predicted_high', thresholdMgDl: 180, currentMgDl: 155 });
    expect(high.minutesAhead).toBeLessThanOrEqual(30);
    expect(alertsFrom(trace, nowAt('2015-03-30T18:23:23Z'))).toEqual([]); // 139-143 for half an hour
  });

  const series = (values: number[], now: Date): StatPoint[] =>
    values.map((v, i) => ({
      timestamp: new Date(now.getTime() - (values.length - 1 - i) * 5 * 60_000),
      valueMgDl: v,
    }));
  const now = at('2026-03-10T12:00:00Z');
  const kinds = (alerts: PredictiveAlert[]): string[] => alerts.map((a) => a.kind);

  it('fires only when the crossing is within 30 minutes', () => {
    // falling 1 mg/dL a minute from 100: 70 in 30 minutes
    expect(kinds(alertsFrom(series([125, 120, 115, 110, 105, 100], now), now))).toEqual([
      'predicted_low',
    ]);
    expect(alertsFrom(series([125, 120, 115, 110, 105, 100], now), now)[0]).toMatchObject({
      minutesAhead: 30,
      slopeMgDlPerMin: -1,
    });
    expect(kinds(alertsFrom(series([126, 121, 116, 111, 106, 101], now), now))).toEqual([]);
    // rising 1 mg/dL a minute from 150: 180 in 30 minutes
    expect(kinds(alertsFrom(series([125, 130, 135, 140, 145, 150], now), now))).toEqual([
      'predicted_high',
    ]);
    expect(kinds(alertsFrom(series([124, 129, 134, 139, 144, 149], now), now))).toEqual([]);
  });

  it('stays quiet once the reading is past the threshold, with stale or too few readings', () => {
    expect(kinds(alertsFrom(series([90, 80, 69], now), now))).toEqual([]);
    expect(kinds(alertsFrom(series([160, 170, 181], now), now))).toEqual([]);
    expect(kinds(alertsFrom(series([90, 80], now), now))).toEqual([]);
    const stale = series([100, 90, 80, 75], new Date(now.getTime() - 11 * 60_000));
    expect(kinds(alertsFrom(stale, now))).toEqual([]);
    expect(
      kinds(alertsFrom(series([100, 90, 80, 75], new Date(now.getTime() - 10 * 60_000)), now)),
    ).toEqual(['predicted_low']);
  });

  it('uses only the last 30 minutes: an older fall does not count', () => {
    const older = [
      ...series([200, 180, 160, 140], new Date(now.getTime() - 35 * 60_000)),
      ...series([120, 120, 120], now),
    ];
    expect(kinds(alertsFrom(older, now))).toEqual([]);
  });
});

describe('insight cards', () => {
  const alert: PredictiveAlert = {
    kind: 'predicted_low',
    thresholdMgDl: 70,
    currentMgDl: 80,
    slopeMgDlPerMin: -1,
    predictedAt: at('2026-03-10T12:10:00Z'),
    minutesAhead: 10,
    readingsUsed: 6,
    message: 'Glucose is falling',
  };
  const none = {
    today: day(),
    alerts: [],
    weekGlucose: week(0, 0),
    previousWeekGlucose: week(0, 0),
  };

  it('has no cards on a day without scores, alerts or a trend', () => {
    expect(cardsFrom(none)).toEqual([]);
  });

  it('puts an alert card first, then the trend card, then a card per score naming its weakest part', () => {
    const today = day({
      sleep: score('sleep', 70, { time_asleep: 90, efficiency: 40 }),
      glucose: score('glucose', 88, { time_in_range: 93 }),
    });
    const cards = cardsFrom({
      today,
      alerts: [alert],
      weekGlucose: week(0, 0),
      previousWeekGlucose: week(0, 10),
    });
    expect(cards.map((c) => [c.id, c.priority])).toEqual([
      [`alert:predicted_low:${D}`, 1],
      [`trend:time_in_range:${D}`, 2],
      [`score:glucose:${D}`, 3],
      [`score:sleep:${D}`, 3],
    ]);
    expect(cards[1]).toMatchObject({
      title: 'Time in range is up',
      body: expect.stringContaining('10 points more'),
    });
    expect(cards[3]).toMatchObject({
      title: 'Sleep score 70',
      score: 70,
      body: expect.stringContaining('efficiency 40'),
    });
  });

  it('shows the trend card only for a change of 5 points or more with a day of readings in both weeks', () => {
    const trend = (now: TrendStats, before: TrendStats) =>
      cardsFrom({ ...none, weekGlucose: now, previousWeekGlucose: before }).map((c) => c.title);
    expect(trend(week(0, 10), week(0, 5))).toEqual(['Time in range is down']);
    expect(trend(week(0, 9), week(0, 5))).toEqual([]);
    const start = at('2026-02-24T00:00:00Z');
    const short = trendStats(
      [{ timestamp: start, valueMgDl: 300 }],
      start,
      at('2026-03-03T00:00:00Z'),
    );
    expect(trend(week(0, 0), short)).toEqual([]);
  });
});
