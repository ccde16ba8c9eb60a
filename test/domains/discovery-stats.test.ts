/**
 * Discovery's statistics and experiment proposals (issue 33), pure: the 14-day / 5-per-group rule,
 * the high/low split and its ties, lag pairing, the OLS effect against independently computed
 * figures, the day-of-week adjustment, Benjamini-Hochberg against Benjamini & Hochberg (1995)'s own
 * example, pair exclusions, the wording ("is associated with", never a cause), proposals within
 * insights_experiment_start's bounds, and a seeded run on constructed people (real CGM days with
 * planted effects, test/fixtures/discovery/): a large planted effect is found, and null people's
 * false discoveries stay within q. Issue 47: the standard error holds on autocorrelated days (the
 * independent-days one does not), and every pair runs forward in time (a day's steps -> the night
 * after it, named in the statement).
 */
import { describe, expect, it } from 'vitest';
import {
  adjustRun,
  alignShift,
  defaultPairs,
  explorePairs,
  hypothesisText,
  pairDays,
  signalPeriod,
  splitHigh,
  testPair,
  testRun,
} from '../../src/domains/discovery/discovery.stats.ts';
import {
  PROPOSAL_MEAL_TYPES,
  proposeExperiment,
} from '../../src/domains/discovery/discovery.experiments.ts';
import { DISCOVERY_Q } from '../../src/domains/discovery/discovery.types.ts';
import type {
  DailySeries,
  PairResult,
  SignalInfo,
} from '../../src/domains/discovery/discovery.types.ts';
import {
  EXPERIMENT_MEAL_TYPES,
  PERIOD_DAYS_MAX,
  PERIOD_DAYS_MIN,
} from '../../src/domains/experiments/experiments.service.ts';
import { addDays } from '../../src/platform/local-dates.ts';
import { seeded } from '../../bench/meal-detection.ts';
import { buildPeople, PLANTED_EFFECTS, SIGNALS, TOUCHED } from '../fixtures/discovery/planted.ts';

const MONDAY = '2024-01-01';
const info = (key: string): SignalInfo => {
  const found = SIGNALS.find((s) => s.key === key);
  if (!found) throw new Error(key);
  return found;
};

/** A series of `values` on consecutive days from `start` (null: no value that day). */
function series(key: string, values: (number | null)[], start = MONDAY): DailySeries {
  const map = new Map<string, number>();
  values.forEach((v, i) => {
    if (v !== null) map.set(addDays(start, i), v);
  });
  return { ...info(key), values: map };
}

const alcohol = (v: (number | null)[], start?: string): DailySeries =>
  series('log:sleep_factor:alcohol', v, start);
const fasting = (v: (number | null)[], start?: string): DailySeries =>
  series('glucose_fasting', v, start);
const steps = (v: (number | null)[], start?: string): DailySeries => series('steps', v, start);
const glucoseMean = (v: (number | null)[], start?: string): DailySeries =>
  series('glucose_mean', v, start);
const sleep = (v: (number | null)[], start?: string): DailySeries =>
  series('sleep_minutes', v, start);
/** The standard error before issue 47 (independent days), for the figures checked against it. */
const OLS = { independentDays: true };

function noise(seed: number, n: number, scale: number): number[] {
  const random = seeded(seed);
  return Array.from({ length: n }, () => (random() - 0.5) * 2 * scale);
}

describe('testPair: not enough data', () => {
  it('answers not enough data with 13 paired days and tests with 14', () => {
    const driver = [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0];
    const outcome = driver.map((d, i) => 100 + 5 * d + (i % 3));
    const short = testPair(alcohol(driver.slice(0, 13)), fasting(outcome.slice(0, 13)), 0);
    expect(short).toMatchObject({ n: 13, effect: null, ciLow: null, p: null, q: null });
    expect(short.notEnoughData).toBe('13 paired days of the 14 needed');
    const enough = testPair(alcohol(driver), fasting(outcome), 0);
    expect(enough).toMatchObject({ n: 14, nHigh: 7, nLow: 7, notEnoughData: null });
    expect(enough.effect).not.toBeNull();
  });

  it('answers not enough data with 4 days in a group and tests with 5', () => {
    const four = [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0];
    const outcome = four.map((_, i) => 100 + (i % 4));
    const r = testPair(alcohol(four), fasting(outcome), 0);
    expect(r).toMatchObject({ n: 14, nHigh: 4, nLow: 10, effect: null, p: null });
    expect(r.notEnoughData).toBe('4 nights with alcohol of the 5 needed');
    const five = [1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0];
    expect(testPair(alcohol(five), fasting(outcome), 0).notEnoughData).toBeNull();
  });

  it('says every missing part: paired days and a small low group together', () => {
    // a continuous driver with ties at the top: the most balanced split leaves 3 low days
    const r = testPair(
      steps([1, 2, 3, 9, 9, 9, 9, 9, 9, 9]),
      glucoseMean([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
      0,
    );
    expect(r.notEnoughData).toBe('10 paired days of the 14 needed; 3 low days of the 5 needed');
  });

  it('does not test an outcome without spread or a group tied to days of the week', () => {
    const driver = Array.from({ length: 21 }, (_, i) => i % 2);
    const flat = testPair(alcohol(driver), fasting(driver.map(() => 90)), 0);
    expect(flat).toMatchObject({ effect: null, p: null });
    expect(flat.notEnoughData).toMatch(/same value/);
    // "with" exactly on the weekends of 4 weeks: the group is the sum of two weekday columns
    const weekends = Array.from({ length: 28 }, (_, i) => (i % 7 >= 5 ? 1 : 0));
    const tied = testPair(alcohol(weekends), fasting(noise(3, 28, 10).map((v) => 100 + v)), 0);
    expect(tied).toMatchObject({ effect: null, p: null, nHigh: 8, nLow: 20 });
    expect(tied.notEnoughData).toMatch(/days of the week/);
  });

  it('never answers NaN or Infinity', () => {
    const random = seeded(11);
    for (let k = 0; k < 200; k++) {
      const n = 10 + Math.floor(random() * 30);
      const x = Array.from({ length: n }, () => (random() < 0.3 ? null : Math.round(random() * 3)));
      const y = Array.from({ length: n }, () => (random() < 0.2 ? 5 : Math.round(random() * 4)));
      const r = testPair(steps(x), fasting(y), (k % 4) as 0 | 1 | 2 | 3);
      for (const v of [r.effect, r.ciLow, r.ciHigh, r.p])
        expect(v === null || Number.isFinite(v)).toBe(true);
      expect((r.effect === null) === (r.notEnoughData !== null)).toBe(true);
    }
  });
});

describe('splitHigh', () => {
  it('splits at the median: above it high, at or below it low', () => {
    const xs = [5, 1, 9, 3, 7, 2, 8, 4, 6, 10, 11, 12, 13, 14, 15];
    const high = splitHigh(xs, false);
    expect(high.filter(Boolean)).toHaveLength(7); // 15 days: the median (8) is low
    expect(xs.filter((_, i) => high[i]).every((x) => x > 8)).toBe(true);
  });

  it('puts tied values on the side that balances the groups', () => {
    // median 1: "above the median" would leave 4 high days; the 0s as low gives 8 / 6
    const xs = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
    expect(splitHigh(xs, false).filter(Boolean)).toHaveLength(8);
    // an intensity that is 0 on 9 of 14 days: with and without
    expect(
      splitHigh([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5], false).filter(Boolean),
    ).toHaveLength(5);
    expect(splitHigh([3, 3, 3, 3], false).filter(Boolean)).toHaveLength(0);
  });

  it('compares with and without for a 0/1 driver', () => {
    expect(splitHigh([1, 0, 0, 0, 1, 0], true)).toEqual([true, false, false, false, true, false]);
  });
});

describe('lag pairing', () => {
  it('pairs a day driver of day d with a day outcome of day d + lag', () => {
    const driver = steps(Array.from({ length: 20 }, (_, i) => 1000 + i));
    const outcome = glucoseMean(
      Array.from({ length: 20 }, (_, i) => 90 + i),
      addDays(MONDAY, 1),
    );
    const lag1 = pairDays(driver, outcome, 1);
    expect(lag1).toHaveLength(20);
    expect(lag1[0]).toEqual({ driverDate: MONDAY, outcomeDate: '2024-01-02', x: 1000, y: 90 });
    expect(lag1.every((d) => d.y - d.x === 90 - 1000)).toBe(true);
    expect(pairDays(driver, outcome, 0)).toHaveLength(19);
    // driver days 1..18 meet outcome days 4..21
    expect(pairDays(driver, outcome, 3)).toHaveLength(18);
  });

  it('finds an effect on the next day at lag 1 and not at lag 0', () => {
    const random = seeded(5);
    const x = Array.from({ length: 43 }, () => (random() < 0.5 ? 1 : 0));
    const e = noise(6, 43, 4);
    const y = x.map((_, i) => 100 + (i > 0 ? 10 * x[i - 1] : 0) + e[i]);
    const lag1 = testPair(alcohol(x), fasting(y), 1);
    expect(Math.abs((lag1.effect ?? NaN) - 10)).toBeLessThan(2);
    expect(lag1.p).toBeLessThan(1e-3);
    expect(testPair(alcohol(x), fasting(y), 1, OLS).p).toBeLessThan(1e-6);
    expect(lag1.direction).toBe('higher');
    expect(Math.abs(testPair(alcohol(x), fasting(y), 0).effect ?? NaN)).toBeLessThan(5);
  });
});

describe('testPair: the OLS effect', () => {
  it('matches an independent OLS fit (numpy lstsq, scipy t) with day-of-week columns', () => {
    const g = [1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0];
    const y = [
      100, 92, 95, 108, 90, 104, 110, 97, 103, 91, 94, 105, 112, 99, 106, 101, 93, 96, 92, 107, 98,
    ];
    const r = testPair(alcohol(g), fasting(y), 0, OLS);
    // numpy.linalg.lstsq on [1, g, Tue..Sun] and scipy.stats.t (df = 21 - 8 = 13)
    expect(r.effect).toBeCloseTo(10.9, 9);
    expect(r.ciLow).toBeCloseTo(7.764172187263201, 9);
    expect(r.ciHigh).toBeCloseTo(14.035827812736793, 9);
    expect(Math.abs((r.p ?? 0) / 4.440131682567533e-6 - 1)).toBeLessThan(1e-6);
    expect(r).toMatchObject({ method: 'difference', n: 21, nHigh: 10, nLow: 11, q: null });
  });

  it('equals a paired t-test when each weekday has one high and one low day', () => {
    // two weeks, high in the first: OLS with weekday columns compares each weekday with itself
    const g = [1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
    const y = [104, 98, 110, 101, 99, 120, 115, 100, 95, 101, 99, 94, 111, 108];
    const d = y.slice(0, 7).map((v, i) => v - y[i + 7]);
    const mean = d.reduce((s, v) => s + v, 0) / 7;
    const sd = Math.sqrt(d.reduce((s, v) => s + (v - mean) ** 2, 0) / 6);
    const r = testPair(alcohol(g), fasting(y), 0, OLS);
    expect(r.effect).toBeCloseTo(mean, 9);
    expect(r.ciHigh).toBeCloseTo(mean + 2.446911851144969 * (sd / Math.sqrt(7)), 9); // t(0.975, 6)
  });

  it('removes a pure weekday effect from a driver that goes with weekends', () => {
    // 35 days; the outcome is 20 higher on weekends and nothing else; alcohol mostly on weekends
    const e = noise(9, 35, 2);
    const weekend = (i: number): boolean => i % 7 >= 5;
    const x = Array.from({ length: 35 }, (_, i) =>
      weekend(i) ? (i % 7 === 5 && i > 20 ? 0 : 1) : [2, 9, 16, 24, 31].includes(i) ? 1 : 0,
    );
    const y = x.map((_, i) => 100 + (weekend(i) ? 20 : 0) + e[i]);
    const mean = (f: (i: number) => boolean): number => {
      const v = y.filter((_, i) => f(i));
      return v.reduce((s, a) => s + a, 0) / v.length;
    };
    const raw = mean((i) => x[i] === 1) - mean((i) => x[i] === 0);
    expect(raw).toBeGreaterThan(8); // unadjusted, alcohol would look like +8 mg/dL or more
    const r = testPair(alcohol(x), fasting(y), 0);
    expect(Math.abs(r.effect ?? NaN)).toBeLessThan(2);
    expect(r.ciLow).toBeLessThan(0);
    expect(r.ciHigh).toBeGreaterThan(0);
  });
});

describe('adjustRun (Benjamini-Hochberg)', () => {
  // Benjamini & Hochberg (1995), section 4: 15 p-values; at q = 0.05 the first four are rejected
  const P = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719,
    0.6528, 0.759, 1.0,
  ];
  const result = (p: number | null, i: number): PairResult => ({
    driver: `d${i}`,
    outcome: 'o',
    lag: 0,
    n: 30,
    nHigh: 15,
    nLow: 15,
    method: 'difference',
    effect: p === null ? null : 1,
    ciLow: p === null ? null : 0,
    ciHigh: p === null ? null : 2,
    p,
    q: null,
    significant: false,
    direction: p === null ? null : 'higher',
    notEnoughData: p === null ? '3 paired days of the 14 needed' : null,
  });

  it('rejects the four of the paper at q = 0.05 and nine at 0.1, with monotone q', () => {
    const shuffled = [...P].reverse().map(result);
    const at05 = adjustRun(shuffled, 0.05);
    expect(at05.filter((r) => r.significant).map((r) => r.p)).toEqual([
      0.0095, 0.0019, 0.0004, 0.0001,
    ]);
    const at10 = adjustRun(shuffled);
    expect(at10.filter((r) => r.significant)).toHaveLength(9);
    // adjusted p as R's p.adjust(method = "BH")
    const expected = [
      0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.063857, 0.063857, 0.0645, 0.0765, 0.486, 0.581182,
      0.714875, 0.753231, 0.813214, 1,
    ];
    const q = [...at10].reverse().map((r) => r.q ?? NaN);
    q.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 6));
  });

  it('counts only tested pairs and leaves untested ones without q', () => {
    const withUntested = [...P.map(result), result(null, 99), result(null, 98)];
    const adjusted = adjustRun(withUntested, DISCOVERY_Q);
    expect(adjusted[3].q).toBeCloseTo(0.035625, 9); // m = 15, not 17
    expect(adjusted.slice(15)).toEqual([
      expect.objectContaining({ q: null, significant: false }),
      expect.objectContaining({ q: null, significant: false }),
    ]);
  });
});

describe('pairs', () => {
  it('never pairs a signal with itself or two signals of one measured stream', () => {
    const pairs = defaultPairs(SIGNALS);
    const domain = (k: string): string => info(k).domain;
    expect(pairs.some((p) => p.driver === p.outcome)).toBe(false);
    expect(
      pairs.some((p) => domain(p.driver) === 'glucose' && domain(p.outcome) === 'glucose'),
    ).toBe(false);
    expect(pairs).not.toContainEqual({ driver: 'sleep_minutes', outcome: 'sleep_minutes' });
    expect(pairs).toContainEqual({ driver: 'last_meal_hour', outcome: 'glucose_fasting' });
    expect(pairs).toContainEqual({ driver: 'observation:headache', outcome: 'sleep_minutes' });
    expect(
      pairs.every((p) => info(p.driver).role !== 'outcome' && info(p.outcome).role !== 'driver'),
    ).toBe(true);
    expect(pairs).toHaveLength(34); // 6 drivers x 6 outcomes - sleep/sleep - headache/headache
  });

  it('pairs two different observations, which are separate records', () => {
    const stress: SignalInfo = {
      ...info('observation:headache'),
      key: 'observation:stress',
      label: 'Stress',
    };
    expect(defaultPairs([...SIGNALS, stress])).toContainEqual({
      driver: 'observation:stress',
      outcome: 'observation:headache',
    });
  });

  it('explores one signal as driver and as outcome', () => {
    const pairs = explorePairs(SIGNALS, 'sleep_minutes');
    expect(pairs.filter((p) => p.driver === 'sleep_minutes').map((p) => p.outcome)).toEqual([
      'observation:headache',
      'glucose_mean',
      'glucose_time_in_range_pct',
      'glucose_cv_pct',
      'glucose_fasting',
    ]);
    expect(pairs.filter((p) => p.outcome === 'sleep_minutes').map((p) => p.driver)).toEqual([
      'last_meal_hour',
      'carbs_g',
      'steps',
      'log:sleep_factor:alcohol',
      'observation:headache',
    ]);
    expect(
      explorePairs(SIGNALS, 'glucose_time_in_range_pct').every(
        (p) => p.outcome === 'glucose_time_in_range_pct',
      ),
    ).toBe(true);
    expect(explorePairs(SIGNALS, 'unknown')).toEqual([]);
  });

  it('tests every pair at every lag and says when a signal has no days', () => {
    const run = testRun([alcohol([1, 0]), fasting([90, 91])], {
      pairs: [
        { driver: 'log:sleep_factor:alcohol', outcome: 'glucose_fasting' },
        { driver: 'steps', outcome: 'glucose_fasting' },
      ],
      lags: [0, 1, 2],
    });
    expect(run).toHaveLength(6);
    expect(run[3].notEnoughData).toBe('no days of steps');
  });
});

const tested = (over: Partial<PairResult>): PairResult => ({
  driver: 'last_meal_hour',
  outcome: 'glucose_fasting',
  lag: 0,
  n: 42,
  nHigh: 21,
  nLow: 21,
  method: 'difference',
  effect: 9.84,
  ciLow: 4.1,
  ciHigh: 15.53,
  p: 0.001,
  q: 0.02,
  significant: true,
  direction: 'higher',
  notEnoughData: null,
  ...over,
});

describe('hypothesisText', () => {
  it('says "is associated with", the effect, its interval, the unit and the lag', () => {
    const text = hypothesisText(
      tested({}),
      info('last_meal_hour'),
      info('glucose_fasting'),
      'Europe/Zurich',
    );
    expect(text).toBe(
      'A day with a later last meal (after your median time) is associated with fasting glucose ' +
        'the morning after the day 9.8 mg/dL higher than an earlier one (95% interval +4.1 to +15.5 mg/dL; ' +
        '42 paired days, adjusted for day of week). Times are local (Europe/Zurich).',
    );
  });

  it('writes a lower effect, a 0/1 driver and a percentage outcome', () => {
    const text = hypothesisText(
      tested({
        driver: 'log:sleep_factor:alcohol',
        outcome: 'glucose_time_in_range_pct',
        lag: 0,
        effect: -6.25,
        ciLow: -11,
        ciHigh: -1.5,
        direction: 'lower',
      }),
      info('log:sleep_factor:alcohol'),
      info('glucose_time_in_range_pct'),
    );
    expect(text).toContain(
      'A night with alcohol is associated with time in range the day after the night ' +
        '6.3 percentage points lower than a night without',
    );
    expect(text).toContain('95% interval -11 to -1.5 percentage points');
  });

  it('never says cause, on every result of a constructed run', () => {
    const [person] = buildPeople({ count: 1, days: 56, size: 20, seed: 3 });
    const results = testRun(person.series, { pairs: defaultPairs(SIGNALS), lags: [0, 1, 2, 3] });
    const untested = tested({
      effect: null,
      ciLow: null,
      ciHigh: null,
      p: null,
      direction: null,
      notEnoughData: '9 paired days of the 14 needed',
    });
    for (const r of [...results, untested]) {
      const text = hypothesisText(r, info(r.driver), info(r.outcome));
      expect(text).toMatch(/is associated with/);
      expect(text).not.toMatch(/caus/i);
      expect(text).not.toMatch(/NaN|Infinity|undefined/);
    }
    expect(hypothesisText(untested, info('last_meal_hour'), info('glucose_fasting'))).toBe(
      'Not enough data yet to say whether last meal is associated with fasting glucose the ' +
        'morning after the day: 9 paired days of the 14 needed.',
    );
  });
});

describe('proposeExperiment', () => {
  it('proposes an earlier last meal when a later one goes with higher fasting glucose', () => {
    expect(proposeExperiment(tested({}), info('last_meal_hour'), info('glucose_fasting'))).toEqual({
      name: 'Earlier last meal',
      intervention: 'Finish the last meal of the day by 19:00',
      meal_type: 'dinner',
      baseline_days: 7,
      intervention_days: 7,
    });
    // a later meal with *higher* time in range: eating later is not proposed
    const tir = tested({ outcome: 'glucose_time_in_range_pct', direction: 'higher', effect: 3 });
    expect(
      proposeExperiment(tir, info('last_meal_hour'), info('glucose_time_in_range_pct')),
    ).toBeNull();
  });

  it('proposes more steps only where more steps go with better glucose', () => {
    const lower = tested({
      driver: 'steps',
      outcome: 'glucose_mean',
      direction: 'lower',
      effect: -8,
    });
    expect(proposeExperiment(lower, info('steps'), info('glucose_mean'))?.intervention).toBe(
      'A 10-minute walk after dinner',
    );
    const higher = { ...lower, direction: 'higher' as const, effect: 8 };
    expect(proposeExperiment(higher, info('steps'), info('glucose_mean'))).toBeNull();
  });

  it('proposes nothing for a non-glucose outcome, a symptom driver or an untested pair', () => {
    expect(proposeExperiment(tested({}), info('steps'), info('sleep_minutes'))).toBeNull();
    expect(
      proposeExperiment(tested({}), info('observation:headache'), info('glucose_fasting')),
    ).toBeNull();
    expect(
      proposeExperiment(
        tested({ effect: null, direction: null }),
        info('last_meal_hour'),
        info('glucose_fasting'),
      ),
    ).toBeNull();
  });

  it('never proposes a medication, and proposes an earlier bedtime for a later one', () => {
    const medication: SignalInfo = {
      key: 'medication',
      label: 'Medication',
      unit: 'doses',
      domain: 'logs',
      role: 'driver',
      aggregation: 'count',
      binary: false,
    };
    const bedtime: SignalInfo = {
      ...medication,
      key: 'bedtime_hour',
      label: 'Bedtime',
      unit: 'hour of day',
      domain: 'sleep',
    };
    for (const direction of ['higher', 'lower'] as const)
      expect(
        proposeExperiment(tested({ direction }), medication, info('glucose_fasting')),
      ).toBeNull();
    // a later bedtime with lower time in range: to bed earlier
    const r = tested({
      outcome: 'glucose_time_in_range_pct',
      direction: 'lower',
      effect: -4,
      lag: 1,
    });
    expect(proposeExperiment(r, bedtime, info('glucose_time_in_range_pct'))?.name).toBe(
      'Earlier bedtime',
    );
    expect(hypothesisText(r, bedtime, info('glucose_time_in_range_pct'))).toMatch(
      /^A night with a later bedtime \(after your median time\) is associated with time in range the second day after the night 4 percentage points lower/,
    );
  });

  it("stays within insights_experiment_start's bounds for any driver, outcome, direction", () => {
    expect([...PROPOSAL_MEAL_TYPES]).toEqual([...EXPERIMENT_MEAL_TYPES]);
    const longLabel: SignalInfo = { ...info('log:sleep_factor:alcohol'), label: 'x'.repeat(300) };
    let proposals = 0;
    for (const driver of [...SIGNALS, longLabel])
      for (const outcome of SIGNALS)
        for (const direction of ['higher', 'lower'] as const) {
          const p = proposeExperiment(tested({ direction }), driver, outcome);
          if (!p) continue;
          proposals++;
          expect(p.name.length).toBeGreaterThanOrEqual(1);
          expect(p.name.length).toBeLessThanOrEqual(80);
          expect(p.intervention.length).toBeGreaterThanOrEqual(1);
          expect(p.intervention.length).toBeLessThanOrEqual(200);
          if (p.meal_type) expect(EXPERIMENT_MEAL_TYPES).toContain(p.meal_type);
          for (const days of [p.baseline_days, p.intervention_days]) {
            expect(days).toBeGreaterThanOrEqual(PERIOD_DAYS_MIN);
            expect(days).toBeLessThanOrEqual(PERIOD_DAYS_MAX);
          }
          expect(`${p.name} ${p.intervention}`).not.toMatch(/caus|mg|dose|diagnos/i);
        }
    expect(proposals).toBeGreaterThanOrEqual(10);
  });
});

describe('constructed people (real CGM days, planted effects)', () => {
  const run = (p: { series: DailySeries[] }): PairResult[] =>
    testRun(p.series, { pairs: defaultPairs(SIGNALS), lags: [0, 1] });

  it('finds a large planted effect (20 mg/dL, 90 days) in at least 80% of people', () => {
    const runs = buildPeople({ count: 20, days: 90, size: 20, seed: 4242 }).map(run);
    for (const e of PLANTED_EFFECTS) {
      const found = runs.filter((rs) =>
        rs.some(
          (r) =>
            r.driver === e.driver &&
            r.outcome === e.outcome &&
            r.lag === e.lag &&
            r.significant &&
            r.direction === e.direction,
        ),
      ).length;
      expect(found / runs.length, `${e.driver} -> ${e.outcome}`).toBeGreaterThanOrEqual(0.8);
    }
    // false discoveries among these people's discoveries: mean proportion within q (+ sampling)
    const fdp = runs.map((rs) => {
      const found = rs.filter((r) => r.significant);
      const wrong = found.filter((r) => !TOUCHED.has(`${r.driver}|${r.outcome}|${r.lag}`)).length;
      return found.length ? wrong / found.length : 0;
    });
    expect(fdp.reduce((s, v) => s + v, 0) / fdp.length).toBeLessThanOrEqual(DISCOVERY_Q);
  });

  it("keeps null people's false discoveries within q", () => {
    // nothing planted: any discovery is false, and BH at q bounds the share of people with any at
    // q; 300 people, so the bound is q plus two binomial standard errors (0.135)
    const people = 300;
    const runs = buildPeople({ count: people, days: 56, size: 0, seed: 7 }).map(run);
    const withAny = runs.filter((rs) => rs.some((r) => r.significant)).length / people;
    expect(withAny).toBeLessThanOrEqual(
      DISCOVERY_Q + 2 * Math.sqrt((DISCOVERY_Q * (1 - DISCOVERY_Q)) / people),
    );
    // without the adjustment (p <= q), nearly every null person would have a discovery
    const unadjusted = runs.filter((rs) =>
      rs.some((r) => r.p !== null && r.p <= DISCOVERY_Q),
    ).length;
    expect(unadjusted / people).toBeGreaterThan(0.9);
  });
});

/** A standard AR(1) series of `n` days: a_t = phi a_(t-1) + sqrt(1 - phi^2) e_t. */
function ar1(random: () => number, n: number, phi: number): number[] {
  const normal = (): number =>
    Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const out = [normal()];
  for (let i = 1; i < n; i++) out.push(phi * out[i - 1] + Math.sqrt(1 - phi * phi) * normal());
  return out;
}

describe('issue 47: streaky days make no false findings', () => {
  // driver and outcome independent, each AR(1) with phi 0.7 (as habits and weight are), 90 days:
  // a null pair, so a calibrated test is below p = 0.05 in 5% of the series
  const random = seeded(47);
  const series90 = Array.from({ length: 400 }, () => ({
    x: ar1(random, 90, 0.7),
    y: ar1(random, 90, 0.7),
  }));
  const share = (options: { independentDays?: boolean }): number =>
    series90.filter(
      ({ x, y }) =>
        (testPair(steps(x.map((v) => 8000 + 2000 * v)), glucoseMean(y), 0, options).p ?? 1) < 0.05,
    ).length / series90.length;

  it('rejects far more than 5% with the independent-days standard error', () => {
    expect(share(OLS)).toBeGreaterThan(0.12);
  });

  it('rejects about 5% with the autocorrelation-robust one', () => {
    // 400 series: 0.05 plus two binomial standard errors is 0.072
    expect(share({})).toBeLessThanOrEqual(0.072);
  });

  it('still finds an effect planted in streaky days', () => {
    const found = Array.from({ length: 50 }, () => {
      const x = ar1(random, 90, 0.5);
      const y = ar1(random, 90, 0.5).map((v, i) => 100 + 5 * v + (x[i] > 0 ? 8 : 0));
      const r = testPair(steps(x.map((v) => 8000 + 2000 * v)), glucoseMean(y), 0);
      return r.p !== null && r.p < 0.05 && r.direction === 'higher';
    }).filter(Boolean).length;
    expect(found / 50).toBeGreaterThanOrEqual(0.8);
  });
});

describe('issue 47: time runs forward', () => {
  const days = 28;
  const stepsDays = Array.from({ length: days }, (_, i) => 6000 + ((i * 37) % 11) * 500);

  it('pairs a day of steps with the night after it at lag 0, and says so', () => {
    // the night after day d ends the morning of d + 1, so it is recorded on d + 1
    const nights = Array.from({ length: days + 1 }, (_, i) => 400 + ((i * 13) % 7) * 10);
    const paired = pairDays(steps(stepsDays), sleep(nights), 0);
    expect(paired[0]).toMatchObject({ driverDate: MONDAY, outcomeDate: addDays(MONDAY, 1) });
    expect(paired.every((d) => d.outcomeDate === addDays(d.driverDate, 1))).toBe(true);
    // the night's value follows the steps of the day before it: found at lag 0, not at the
    // night that ended the morning of the steps' day
    const after = [0, ...stepsDays.map((s) => (s > 8000 ? 460 : 400) + (s % 3))];
    const forward = testPair(steps(stepsDays), sleep(after), 0, OLS);
    expect(forward.effect).toBeGreaterThan(50);
    const r = testPair(steps(stepsDays), sleep(after), 0);
    const text = hypothesisText(r, info('steps'), info('sleep_minutes'));
    expect(text).toMatch(
      /^A day with more steps \(above your median\) is associated with sleep the night after the day /,
    );
    expect(hypothesisText({ ...r, lag: 1 }, info('steps'), info('sleep_minutes'))).toMatch(
      /sleep the second night after the day/,
    );
  });

  it('pairs a night with the day after it and a day with the next morning', () => {
    const nights = alcohol(Array.from({ length: days }, (_, i) => i % 2));
    const dayAfter = pairDays(nights, glucoseMean(stepsDays), 0);
    expect(dayAfter.every((d) => d.outcomeDate === d.driverDate)).toBe(true);
    expect(
      hypothesisText(tested({ lag: 0 }), info('log:sleep_factor:alcohol'), info('glucose_mean')),
    ).toMatch(/^A night with alcohol is associated with mean glucose the day after the night /);
    // fasting glucose (05:00-07:00) is the morning after the day's last meal, never before it
    const meals = series(
      'last_meal_hour',
      stepsDays.map((s) => 18 + (s % 4)),
    );
    const morning = pairDays(meals, fasting(stepsDays), 0);
    expect(morning.every((d) => d.outcomeDate === addDays(d.driverDate, 1))).toBe(true);
    // two nights (a sleep factor and the night's sleep): the same night
    const sameNight = pairDays(nights, sleep(stepsDays), 0);
    expect(sameNight.every((d) => d.outcomeDate === d.driverDate)).toBe(true);
    expect(
      hypothesisText(tested({}), info('log:sleep_factor:alcohol'), info('sleep_minutes')),
    ).toMatch(/sleep the same night/);
  });

  it('never pairs an outcome period that begins before the driver period ends', () => {
    // in time a date has its night (ending that morning), its morning, then its day; a pair at
    // lag 0 may share a period kind (the same day, the same night) but never go back
    const order = { night: 0, morning: 1, day: 2 } as const;
    for (const d of SIGNALS)
      for (const o of SIGNALS) {
        const shift = alignShift(d, o);
        const from = 3 * 0 + order[signalPeriod(d)];
        const to = 3 * shift + order[signalPeriod(o)];
        expect(to, `${d.key} -> ${o.key}`).toBeGreaterThanOrEqual(from);
        expect(to - from, `${d.key} -> ${o.key}`).toBeLessThan(3);
      }
  });
});
