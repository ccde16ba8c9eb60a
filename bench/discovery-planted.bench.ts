/**
 * Measuring discovery's statistics (src/domains/discovery/discovery.stats.ts) on constructed people
 * (test/fixtures/discovery/: real CGM days with planted driver effects of documented sizes; THE
 * PEOPLE ARE CONSTRUCTED). Each person is one run: every default pair at lags 0 and 1, Benjamini-
 * Hochberg at q = 0.1 within the run. Prints one JSON line: per length of history (days), the
 * recall of each planted effect at each size (found: significant, in the planted direction), and
 * the false discoveries: per null person (nothing planted: every discovery is false), the share of
 * null people with any, and the false discovery rate among the discoveries of planted people (a
 * discovery is false outside the pairs the plantings touch by construction). Issue 47: every
 * figure for both standard errors on the same people, `hac` (the method: prewhitened cosine HAC,
 * autocorrelation-robust) and `independent_days` (the one before, the baseline), and null people
 * whose drivers and glucose level are autocorrelated (AR(1), phi 0.5 / 0.7 / 0.9; the shuffled
 * days of the others hide autocorrelation), whose share of tests at p < 0.05 should stay near
 * 0.05. Run with `npx tsx bench/discovery-planted.bench.ts` (PEOPLE: per size, default 150;
 * NULL_PEOPLE: 2000; AR_NULL_PEOPLE: per phi, 500).
 */
import { DISCOVERY_Q } from '../src/domains/discovery/discovery.types.ts';
import type { PairResult } from '../src/domains/discovery/discovery.types.ts';
import { defaultPairs, testRun } from '../src/domains/discovery/discovery.stats.ts';
import type { TestOptions } from '../src/domains/discovery/discovery.stats.ts';
import {
  buildPeople,
  PLANTED_EFFECTS,
  realSubjects,
  SIGNALS,
  TOUCHED,
} from '../test/fixtures/discovery/planted.ts';

const PEOPLE = Number(process.env.PEOPLE ?? 150);
const NULL_PEOPLE = Number(process.env.NULL_PEOPLE ?? 2000);
const AR_NULL_PEOPLE = Number(process.env.AR_NULL_PEOPLE ?? 500);
const PHIS = [0.5, 0.7, 0.9];
/** The method's standard error and the one before issue 47, on the same people. */
const ESTIMATORS: Record<string, TestOptions> = {
  hac: {},
  independent_days: { independentDays: true },
};
const SIZES = [5, 10, 15, 20];
const DAYS = [28, 56, 90];
const PAIRS = defaultPairs(SIGNALS);
const LAGS = [0, 1] as const;

const key = (r: PairResult): string => `${r.driver}|${r.outcome}|${r.lag}`;
const round = (v: number, d = 3): number => Math.round(v * 10 ** d) / 10 ** d;

/** Each estimator's runs of the same people (one run per person). */
function runs(
  days: number,
  size: number,
  count: number,
  seed: number,
  phi?: number,
): Record<string, PairResult[][]> {
  const people = buildPeople({ count, days, size, seed, phi });
  return Object.fromEntries(
    Object.entries(ESTIMATORS).map(([name, options]) => [
      name,
      people.map((p) => testRun(p.series, { pairs: PAIRS, lags: [...LAGS], ...options })),
    ]),
  );
}

/** Null people's calibration: the share of tests below p, and the discoveries (all false). */
function nullFigures(nulls: PairResult[][]): Record<string, number> {
  const p = nulls.flat().flatMap((r) => (r.p === null ? [] : [r.p]));
  const share = (below: number): number => p.filter((v) => v < below).length / p.length;
  const discoveries = nulls.map((run) => run.filter((r) => r.significant).length);
  return {
    tests_per_person: round(p.length / nulls.length, 1),
    // calibration: a null test's p is uniform, so these shares should be 0.01 and 0.05
    tests_p_below_0_01: round(share(0.01), 4),
    tests_p_below_0_05: round(share(0.05), 4),
    false_discoveries_per_person: round(discoveries.reduce((s, v) => s + v, 0) / nulls.length),
    people_with_any_discovery: round(discoveries.filter((v) => v > 0).length / nulls.length),
  };
}

/** Per planted effect: the share of people where it is found; its mean estimate where tested. */
function recall(results: PairResult[][]): Record<string, { recall: number; mean_effect: number }> {
  const out: Record<string, { recall: number; mean_effect: number }> = {};
  for (const e of PLANTED_EFFECTS) {
    const primary = results
      .map((run) =>
        run.find((r) => r.driver === e.driver && r.outcome === e.outcome && r.lag === e.lag),
      )
      .filter((r): r is PairResult => r !== undefined);
    const found = primary.filter((r) => r.significant && r.direction === e.direction).length;
    const effects = primary.flatMap((r) => (r.effect === null ? [] : [r.effect]));
    out[`${e.driver}->${e.outcome}@lag${e.lag}`] = {
      recall: round(found / results.length),
      mean_effect: round(effects.reduce((s, v) => s + v, 0) / effects.length, 1),
    };
  }
  return out;
}

function measure(days: number): Record<string, unknown> {
  const nulls = runs(days, 0, NULL_PEOPLE, 1000 + days);
  const autocorrelated = PHIS.map((phi) => ({
    phi,
    runs: runs(days, 0, AR_NULL_PEOPLE, 5000 + days * 10 + phi * 10, phi),
  }));
  const planted = SIZES.map((size) => ({
    size,
    runs: runs(days, size, PEOPLE, 2000 + days * 100 + size),
  }));
  const byEstimator: Record<string, unknown> = {};
  for (const name of Object.keys(ESTIMATORS)) {
    const bySize: Record<string, unknown> = {};
    let discoveries = 0;
    let falseDiscoveries = 0;
    const fdp: number[] = [];
    for (const { size, runs: byName } of planted) {
      for (const run of byName[name]) {
        const found = run.filter((r) => r.significant);
        const wrong = found.filter((r) => !TOUCHED.has(key(r))).length;
        discoveries += found.length;
        falseDiscoveries += wrong;
        fdp.push(found.length ? wrong / found.length : 0);
      }
      bySize[`${size}_mg_dl`] = recall(byName[name]);
    }
    byEstimator[name] = {
      recall: bySize,
      null: nullFigures(nulls[name]),
      autocorrelated_null: Object.fromEntries(
        autocorrelated.map(({ phi, runs: byName }) => [`phi_${phi}`, nullFigures(byName[name])]),
      ),
      planted_discoveries: discoveries,
      planted_false_discoveries: falseDiscoveries,
      planted_fdr_pooled: round(discoveries ? falseDiscoveries / discoveries : 0),
      planted_fdp_mean: round(fdp.reduce((s, v) => s + v, 0) / fdp.length),
    };
  }
  return {
    days,
    null_people: NULL_PEOPLE,
    autocorrelated_null_people_per_phi: AR_NULL_PEOPLE,
    planted_people: PEOPLE * SIZES.length,
    ...byEstimator,
  };
}

const started = performance.now();
const subjects = realSubjects();
const byDays = DAYS.map(measure);
console.log(
  JSON.stringify({
    bench: 'discovery-planted',
    q: DISCOVERY_Q,
    real_subjects: subjects.length,
    real_days: subjects.reduce((s, days) => s + days.length, 0),
    pairs: PAIRS.length,
    lags: LAGS,
    planted: PLANTED_EFFECTS.map((e) => e.rule),
    sizes_mg_dl: SIZES,
    people_per_size: PEOPLE,
    phis: PHIS,
    results: byDays,
    seconds: round((performance.now() - started) / 1000, 1),
  }),
);
