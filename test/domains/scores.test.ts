/** Daily scores (pure): every formula, threshold and missing-data reason of docs/scores.md. */
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dayBounds,
  isLocalDate,
  localDateOf,
  localTime,
} from '../../src/platform/local-dates.ts';
import { isTimeZone, zoneOrUtc } from '../../src/platform/time-zones.ts';
import {
  activityScore,
  band,
  combine,
  dailyTotal,
  glucoseScore,
  nightOf,
  nutritionScore,
  overallScore,
  ramp,
  recoveryScore,
  scoresOfDays,
  sleepScore,
  unionMinutes,
} from '../../src/domains/insights/insights.scores.ts';
import type {
  MetricSample,
  Score,
  ScoreInputs,
  SleepInterval,
} from '../../src/domains/insights/insights.scores.ts';
import { hallTrace } from '../factories/insights.ts';

const at = (iso: string): Date => new Date(iso);
const clamp = (v: number): number => Math.min(100, Math.max(0, v));
const D = '2026-03-10';
const points = (n: number, value: (i: number) => number, start = at(`${D}T00:00:00Z`)) =>
  Array.from({ length: n }, (_, i) => ({
    timestamp: new Date(start.getTime() + i * 300_000),
    valueMgDl: value(i),
  }));
const dayOf = (date: string) => dayBounds(date, 'UTC');
const comp = (s: Score, name: string) => s.components.find((c) => c.name === name)!;

describe('score helpers', () => {
  it('ramps linearly between the two points, either way round, clamped to 0..100', () => {
    expect([
      ramp(-1, 0, 10),
      ramp(0, 0, 10),
      ramp(5, 0, 10),
      ramp(10, 0, 10),
      ramp(11, 0, 10),
    ]).toEqual([0, 0, 50, 100, 100]);
    expect([ramp(50, 50, 20), ramp(35, 50, 20), ramp(20, 50, 20), ramp(10, 50, 20)]).toEqual([
      0, 50, 100, 100,
    ]);
  });

  it('gives 100 inside a band and falls to 0 at its outer edges', () => {
    expect([4, 5.5, 7, 8, 9, 10.5, 12, 13].map((h) => band(h, 4, 7, 9, 12))).toEqual([
      0, 50, 100, 100, 100, 50, 0, 0,
    ]);
  });

  it('combines the components with data by weight, leaving out those without', () => {
    const c = (score: number | null, weight: number) => ({
      name: 'x',
      value: score,
      unit: '',
      reference: null,
      score,
      weight,
    });
    expect(combine([c(100, 0.5), c(0, 0.5)])).toBe(50);
    expect(combine([c(80, 0.6), c(null, 0.4)])).toBe(80);
    expect(combine([c(null, 1)])).toBeNull();
  });
});

describe('local days', () => {
  it('validates dates and falls back to UTC for a missing or unknown zone', () => {
    expect(['2026-02-28', '2024-02-29'].map(isLocalDate)).toEqual([true, true]);
    expect(['2026-02-29', '2026-13-01', '26-01-01', '2026-1-1', 'today'].map(isLocalDate)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([
      zoneOrUtc(null),
      zoneOrUtc(''),
      zoneOrUtc('Mars/Olympus'),
      zoneOrUtc('Europe/Berlin'),
    ]).toEqual(['UTC', 'UTC', 'UTC', 'Europe/Berlin']);
    // names only: an offset means opposite things to Intl and PostgreSQL's AT TIME ZONE
    expect(
      [
        '+01:00',
        'UTC+1',
        '../etc',
        'Europe/Berlin\u0000',
        'Etc/GMT+1',
        'America/Argentina/Buenos_Aires',
      ].map(isTimeZone),
    ).toEqual([false, false, false, false, true, true]);
  });

  it('bounds a local day in its zone, 23 hours long on the spring DST change', () => {
    expect(dayBounds('2026-01-15', 'Europe/Berlin')).toEqual({
      start: at('2026-01-14T23:00:00Z'),
      end: at('2026-01-15T23:00:00Z'),
    });
    const dst = dayBounds('2026-03-29', 'Europe/Berlin');
    expect(dst).toEqual({ start: at('2026-03-28T23:00:00Z'), end: at('2026-03-29T22:00:00Z') });
    expect(localTime('2026-03-29', 18, 'America/New_York')).toEqual(at('2026-03-29T22:00:00Z'));
    expect(localDateOf(at('2026-01-14T23:30:00Z'), 'Europe/Berlin')).toBe('2026-01-15');
    expect(localDateOf(at('2026-01-14T23:30:00Z'), 'UTC')).toBe('2026-01-14');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});

describe('glucose score', () => {
  it('matches the score computed independently from the raw readings of a real day (Hall 2018, CC BY 4.0)', () => {
    const day = hallTrace().filter((p) => p.timestamp.toISOString().startsWith('2014-02-04'));
    const v = day.map((p) => p.valueMgDl);
    const n = v.length;
    const tir = (100 * v.filter((x) => x >= 70 && x <= 180).length) / n;
    const tbr = (100 * v.filter((x) => x < 70).length) / n;
    const m = v.reduce((a, b) => a + b, 0) / n;
    const cv = (100 * Math.sqrt(v.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1))) / m;
    const expected = Math.round(
      0.6 * tir + 0.2 * clamp(100 - 10 * tbr) + 0.2 * clamp((100 * (50 - cv)) / 30),
    );
    const { start, end } = dayOf('2014-02-04');
    const s = glucoseScore('2014-02-04', day, start, end);
    expect(n).toBe(287);
    expect(s.score).toBe(expected);
    expect(s.score).toBe(88); // the same figures from Python's statistics module: TIR 93.03, TBR 0, CV 32.05
    expect(s.components.map((c) => [c.name, c.value])).toEqual([
      ['time_in_range', 93],
      ['time_below_range', 0],
      ['coefficient_of_variation', 32.1],
    ]);
  });

  it('scores a flat day in range 100 and weighs lows and variability', () => {
    const { start, end } = dayOf(D);
    expect(
      glucoseScore(
        D,
        points(288, () => 120),
        start,
        end,
      ).score,
    ).toBe(100);
    // 10% of readings at 60: TIR 90 (54 points), TBR 10% (0 points), CV of 90% 120 / 10% 60
    const mixed = glucoseScore(
      D,
      points(280, (i) => (i % 10 === 0 ? 60 : 120)),
      start,
      end,
    );
    expect(comp(mixed, 'time_below_range')).toMatchObject({ value: 10, score: 0 });
    expect(mixed.score).toBe(
      Math.round(
        0.6 * comp(mixed, 'time_in_range').score! +
          0.2 * comp(mixed, 'coefficient_of_variation').score!,
      ),
    );
  });

  it('needs readings for half of the day and at least 12 of them; none gives no_glucose_data', () => {
    const { start, end } = dayOf(D);
    expect(
      glucoseScore(
        D,
        points(143, () => 100),
        start,
        end,
      ),
    ).toMatchObject({ score: null, reason: 'insufficient_glucose_data' });
    expect(
      glucoseScore(
        D,
        points(144, () => 100),
        start,
        end,
      ),
    ).toMatchObject({ score: 100, reason: null });
    expect(glucoseScore(D, [], start, end)).toMatchObject({
      score: null,
      reason: 'no_glucose_data',
    });
    expect(
      glucoseScore(D, [], start, end).components.every((c) => c.value === null && c.score === null),
    ).toBe(true);
    // one elapsed hour (12 slots): 12 readings are enough, 11 are not
    const hour = new Date(start.getTime() + 3_600_000);
    expect(
      glucoseScore(
        D,
        points(12, () => 100),
        start,
        hour,
      ).score,
    ).toBe(100);
    expect(
      glucoseScore(
        D,
        points(11, () => 100),
        start,
        hour,
      ).reason,
    ).toBe('insufficient_glucose_data');
  });
});

describe('sleep score', () => {
  const iv = (stage: string, from: string, to: string): SleepInterval => ({
    stage,
    startAt: at(from),
    endAt: at(to),
  });

  it('counts overlapping intervals once', () => {
    expect(
      unionMinutes([
        iv('asleep', '2026-03-10T00:00:00Z', '2026-03-10T02:00:00Z'),
        iv('asleep', '2026-03-10T01:00:00Z', '2026-03-10T03:00:00Z'),
      ]),
    ).toBe(180);
    expect(
      unionMinutes([
        iv('asleep', '2026-03-10T00:00:00Z', '2026-03-10T01:00:00Z'),
        iv('asleep', '2026-03-10T02:00:00Z', '2026-03-10T03:00:00Z'),
      ]),
    ).toBe(120);
  });

  it('assigns a night to the day it ends on, from 18:00 the day before to 18:00 local', () => {
    const sleep = [
      iv('asleep', '2026-03-09T17:00:00Z', '2026-03-09T17:59:00Z'), // ends before 18:00 the day before: the 9th
      iv('asleep', '2026-03-09T23:00:00Z', '2026-03-10T07:00:00Z'),
      iv('asleep', '2026-03-10T14:00:00Z', '2026-03-10T17:59:00Z'), // a nap before 18:00
      iv('asleep', '2026-03-10T17:00:00Z', '2026-03-10T18:00:00Z'), // ends at 18:00: the 11th
    ];
    expect(nightOf(D, sleep, 'UTC')).toEqual([sleep[1], sleep[2]]);
    // in Berlin (UTC+1) the first ends at 18:59 local on the 9th and the last two on the 10th after 18:00
    expect(nightOf(D, sleep, 'Europe/Berlin')).toEqual([sleep[0], sleep[1]]);
  });

  it('scores duration in a band, efficiency only with in-bed data, deep + REM only with stages', () => {
    const eight = [iv('asleep', '2026-03-09T23:00:00Z', '2026-03-10T07:00:00Z')];
    expect(sleepScore(D, eight)).toMatchObject({ score: 100, reason: null });
    expect(comp(sleepScore(D, eight), 'efficiency')).toMatchObject({ value: null, score: null });
    expect(comp(sleepScore(D, eight), 'deep_and_rem')).toMatchObject({ value: null, score: null });
    const five = [iv('asleep', '2026-03-10T02:00:00Z', '2026-03-10T07:00:00Z')];
    expect(sleepScore(D, five).score).toBe(Math.round(band(5, 4, 7, 9, 12)));
    // 6 h asleep in 8 h in bed (75%), 1 h deep + 1 h REM of 6 h (33.3%)
    const staged = [
      iv('in_bed', '2026-03-09T23:00:00Z', '2026-03-10T07:00:00Z'),
      iv('core', '2026-03-10T00:00:00Z', '2026-03-10T04:00:00Z'),
      iv('deep', '2026-03-10T04:00:00Z', '2026-03-10T05:00:00Z'),
      iv('rem', '2026-03-10T05:00:00Z', '2026-03-10T06:00:00Z'),
    ];
    const s = sleepScore(D, staged);
    expect(s.components.map((c) => [c.name, c.value, c.score])).toEqual([
      ['time_asleep', 6, 66.7],
      ['efficiency', 75, 40],
      ['deep_and_rem', 33.3, 77.8],
    ]);
    expect(s.score).toBe(
      Math.round(0.5 * band(6, 4, 7, 9, 12) + 0.3 * 40 + 0.2 * ramp(100 / 3, 10, 40)),
    );
  });

  it('answers no_sleep_data for a night without sleep (in bed or awake only)', () => {
    expect(sleepScore(D, [])).toMatchObject({ score: null, reason: 'no_sleep_data' });
    expect(
      sleepScore(D, [iv('in_bed', '2026-03-09T23:00:00Z', '2026-03-10T07:00:00Z')]).reason,
    ).toBe('no_sleep_data');
  });
});

describe('activity score', () => {
  const m = (metricType: string, value: number, source = 'phone'): MetricSample => ({
    metricType,
    value,
    source,
    timestamp: at(`${D}T12:00:00Z`),
  });

  it('totals each source and takes the largest, so a phone and a watch are not added up', () => {
    expect(
      dailyTotal(
        [m('steps', 3000, 'phone'), m('steps', 2000, 'phone'), m('steps', 4000, 'watch')],
        'steps',
      ),
    ).toBe(5000);
    expect(dailyTotal([m('hrv', 40)], 'steps')).toBeNull();
  });

  it('scores steps to 10,000, active energy to 500 kcal and workouts to 30 minutes', () => {
    const full = activityScore(
      D,
      [m('steps', 12_000), m('active_energy', 600)],
      [{ startAt: at(`${D}T07:00:00Z`), durationMinutes: 45 }],
    );
    expect(full.score).toBe(100);
    const half = activityScore(
      D,
      [m('steps', 5000), m('active_energy', 250)],
      [{ startAt: at(`${D}T07:00:00Z`), durationMinutes: 15 }],
    );
    expect(half.score).toBe(50);
  });

  it('counts a tracked day without workouts as 0 exercise minutes; an untracked day is null', () => {
    const noWorkout = activityScore(D, [m('steps', 10_000)], []);
    expect(comp(noWorkout, 'exercise_minutes')).toMatchObject({ value: 0, score: 0 });
    expect(comp(noWorkout, 'active_energy')).toMatchObject({ value: null, score: null });
    expect(noWorkout.score).toBe(Math.round((0.5 * 100 + 0.25 * 0) / 0.75));
    expect(activityScore(D, [m('hrv', 50)], [])).toMatchObject({
      score: null,
      reason: 'no_activity_data',
    });
  });
});

describe('recovery score', () => {
  const history = (v: number, days: number) => [
    ...Array(28 - days).fill(null),
    ...Array(days).fill(v),
  ];

  it('scores HRV and resting heart rate against the mean of the previous days', () => {
    const at75 = recoveryScore(D, {
      hrv: 50,
      restingHeartRate: 60,
      hrvHistory: history(50, 28),
      restingHeartRateHistory: history(60, 28),
    });
    expect(at75).toMatchObject({ score: 75, reason: null });
    expect(comp(at75, 'hrv')).toMatchObject({ value: 50, reference: 50, score: 75 });
    // HRV 20% above (100 points), resting HR 10% above (50 points)
    const mixed = recoveryScore(D, {
      hrv: 60,
      restingHeartRate: 66,
      hrvHistory: history(50, 3),
      restingHeartRateHistory: history(60, 3),
    });
    expect(mixed.score).toBe(Math.round(0.6 * 100 + 0.4 * 50));
    // HRV 60% below: 0 points
    expect(
      recoveryScore(D, {
        hrv: 20,
        restingHeartRate: null,
        hrvHistory: history(50, 5),
        restingHeartRateHistory: [],
      }).score,
    ).toBe(0);
  });

  it('takes the baseline from the 28 days before the day only', () => {
    const hrvOn = (daysBefore: number[]): MetricSample[] =>
      [0, ...daysBefore].map((n) => ({
        metricType: 'hrv',
        value: 50,
        source: '',
        timestamp: at(`${addDays(D, -n)}T06:00:00Z`),
      }));
    const inputs = (metrics: MetricSample[]): ScoreInputs => ({
      timezone: 'UTC',
      now: at('2026-04-01T00:00:00Z'),
      glucose: [],
      sleep: [],
      metrics,
      workouts: [],
      meals: [],
    });
    expect(scoresOfDays(inputs(hrvOn([26, 27, 28])), [D])[0].recovery).toMatchObject({ score: 75 });
    expect(scoresOfDays(inputs(hrvOn([27, 28, 29])), [D])[0].recovery).toMatchObject({
      score: null,
      reason: 'no_recovery_baseline',
    });
  });

  it('needs 3 baseline days: fewer gives no_recovery_baseline; no data today gives no_recovery_data', () => {
    const two = recoveryScore(D, {
      hrv: 50,
      restingHeartRate: 60,
      hrvHistory: history(50, 2),
      restingHeartRateHistory: history(60, 2),
    });
    expect(two).toMatchObject({ score: null, reason: 'no_recovery_baseline' });
    const none = recoveryScore(D, {
      hrv: null,
      restingHeartRate: null,
      hrvHistory: history(50, 28),
      restingHeartRateHistory: history(60, 28),
    });
    expect(none).toMatchObject({ score: null, reason: 'no_recovery_data' });
  });
});

describe('nutrition score', () => {
  const meal = (
    o: Partial<{
      kcal: number;
      proteinG: number;
      carbsG: number;
      fatG: number;
      fiberG: number;
      sugarG: number;
    }>,
  ) => ({
    eatenAt: at(`${D}T12:00:00Z`),
    kcal: 0,
    proteinG: 0,
    carbsG: 0,
    fatG: 0,
    fiberG: 0,
    sugarG: 0,
    ...o,
  });

  it("scores protein share, fiber density and sugar share of the day's energy", () => {
    // 2000 kcal: protein 100 g = 20%, fiber 28 g = 14 g/1000 kcal, sugar 50 g = 10%
    const good = nutritionScore(D, [
      meal({ kcal: 1200, proteinG: 60, fiberG: 20, sugarG: 30 }),
      meal({ kcal: 800, proteinG: 40, fiberG: 8, sugarG: 20 }),
    ]);
    expect(good.components.map((c) => [c.name, c.value, c.score])).toEqual([
      ['protein_energy_pct', 20, 100],
      ['fiber_per_1000_kcal', 14, 100],
      ['sugar_energy_pct', 10, 100],
    ]);
    // protein 5% (0), fiber 7 g/1000 kcal (50), sugar 30% (0)
    const poor = nutritionScore(D, [meal({ kcal: 2000, proteinG: 25, fiberG: 14, sugarG: 150 })]);
    expect(poor.score).toBe(Math.round(0.35 * 0 + 0.35 * 50 + 0.3 * 0));
  });

  it('falls back to 4/4/9 kcal per gram when meals carry macros but no energy', () => {
    const s = nutritionScore(D, [meal({ proteinG: 25, carbsG: 50, fatG: 0, fiberG: 3 })]); // 300 kcal
    expect(comp(s, 'protein_energy_pct').value).toBe(33.3);
    expect(comp(s, 'fiber_per_1000_kcal').value).toBe(10);
  });

  it('answers no_meals without meals and no_nutrient_data for meals without energy', () => {
    expect(nutritionScore(D, [])).toMatchObject({ score: null, reason: 'no_meals' });
    expect(nutritionScore(D, [meal({ fiberG: 5 })])).toMatchObject({
      score: null,
      reason: 'no_nutrient_data',
    });
  });
});

describe('overall score and a whole day', () => {
  const nul = (kind: Score['kind']): Score => ({
    kind,
    date: D,
    score: null,
    reason: 'x',
    components: [],
  });
  const of = (kind: Score['kind'], score: number): Score => ({
    kind,
    date: D,
    score,
    reason: null,
    components: [],
  });

  it('is the weighted mean of the scores that exist; none gives no_scores', () => {
    const parts = {
      glucose: of('glucose', 80),
      sleep: of('sleep', 60),
      activity: nul('activity'),
      recovery: nul('recovery'),
      nutrition: nul('nutrition'),
    };
    expect(overallScore(D, parts).score).toBe(Math.round((0.3 * 80 + 0.2 * 60) / 0.5));
    const none = {
      glucose: nul('glucose'),
      sleep: nul('sleep'),
      activity: nul('activity'),
      recovery: nul('recovery'),
      nutrition: nul('nutrition'),
    };
    expect(overallScore(D, none)).toMatchObject({ score: null, reason: 'no_scores' });
  });

  it('splits inputs by local day in the zone and counts only the elapsed part of today for coverage', () => {
    const zone = 'Europe/Berlin';
    const { start } = dayBounds(D, zone);
    const now = new Date(start.getTime() + 2 * 3_600_000); // 02:00 local
    const inputs: ScoreInputs = {
      timezone: zone,
      now,
      glucose: points(24, () => 110, start), // two hours of readings, all of today so far
      sleep: [],
      metrics: [
        {
          metricType: 'steps',
          value: 800,
          source: '',
          timestamp: new Date(start.getTime() - 60_000),
        },
      ], // yesterday
      workouts: [],
      meals: [],
    };
    const [yesterday, today] = scoresOfDays(inputs, [addDays(D, -1), D]);
    expect(today).toMatchObject({
      date: D,
      timezone: zone,
      glucose: { score: 100 },
      activity: { reason: 'no_activity_data' },
    });
    expect(yesterday).toMatchObject({
      glucose: { reason: 'no_glucose_data' },
      activity: { score: Math.round((0.5 * 8 + 0.25 * 0) / 0.75) },
    });
  });
});
