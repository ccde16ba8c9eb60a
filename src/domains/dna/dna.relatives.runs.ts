/**
 * Runs along a chromosome (issue 35): the stretches between "break" markers, measured on the genetic
 * map. One rule serves three questions: half-identical segments (a break is an opposite homozygote),
 * fully identical segments (a break is any difference) and runs of homozygosity (a break is a
 * heterozygous call). A break with no other break within `window` informative markers on either
 * side is read as a genotyping error and tolerated (counted in the run's `tolerated`): in a true
 * run such errors are rare and scattered (well under 1 %), outside one breaks come every few dozen
 * markers. A run is kept only when it holds at least `minSnps` informative markers and spans at
 * least `minCm`; it must never report a run shorter than either.
 */
import { cmAt } from './dna.genetic-map.ts';
import type { GeneticMap } from './dna.genetic-map.ts';

/** One run: a shared segment or a run of homozygosity, as a client draws it. */
export interface Segment {
  /** first and last informative marker's position (bp, the build of the comparison) */
  start: number;
  end: number;
  /** their places on the genetic map */
  startCm: number;
  endCm: number;
  /** endCm - startCm */
  cM: number;
  /** informative markers in the run */
  snps: number;
  /** breaks inside the run read as genotyping errors */
  tolerated: number;
}

/** What makes a run, over per-marker classes (small integers, tables indexed by class). */
export interface RunRule {
  /** 1 for the classes that count as a marker of the run (the rest are skipped: no-calls) */
  informative: Uint8Array;
  /** 1 for the classes that end a run */
  breaks: Uint8Array;
  /** a lone break with no other within this many informative markers each side is tolerated */
  window: number;
  /** shortest run kept, in cM */
  minCm: number;
  /** fewest informative markers in a run kept */
  minSnps: number;
  /**
   * most tolerated breaks a run may hold per informative marker: a run holding more is split at
   * every one of them (a short stretch with several "errors" is more likely chance than a segment)
   */
  maxErrorRate: number;
}

/** Markers in chromosome order: chromosome c (1..22) at [start[c], start[c + 1]). */
export interface ChromosomeColumns {
  start: Int32Array;
  pos: Uint32Array;
}

/** The runs of every autosome: `runs[c]` for c in 1..22 (empty arrays elsewhere). */
export function findRuns(
  columns: ChromosomeColumns,
  classes: Uint8Array,
  map: GeneticMap,
  rule: RunRule,
): Segment[][] {
  const runs: Segment[][] = Array.from({ length: 23 }, () => []);
  let longest = 0;
  for (let c = 1; c <= 22; c++)
    longest = Math.max(longest, columns.start[c + 1] - columns.start[c]);
  // scratch: informative markers' indexes, and the ordinals of the breaks among them
  const info = new Int32Array(longest);
  const breaks = new Int32Array(longest);
  for (let c = 1; c <= 22; c++) {
    const chromosome = map.chromosomes[c];
    if (!chromosome) continue;
    let n = 0;
    let e = 0;
    for (let i = columns.start[c]; i < columns.start[c + 1]; i++) {
      const k = classes[i];
      if (!rule.informative[k]) continue;
      if (rule.breaks[k]) breaks[e++] = n;
      info[n++] = i;
    }
    const measure = (from: number, to: number, tolerated: number): void => {
      if (to < from || to - from + 1 < rule.minSnps) return;
      const start = columns.pos[info[from]];
      const end = columns.pos[info[to]];
      const startCm = cmAt(chromosome, start);
      const endCm = cmAt(chromosome, end);
      if (endCm - startCm < rule.minCm) return;
      runs[c].push({
        start,
        end,
        startCm,
        endCm,
        cM: endCm - startCm,
        snps: to - from + 1,
        tolerated,
      });
    };
    splitAtBreaks(breaks, e, n, rule.window, (from, to, tolerated) => {
      if (tolerated <= (to - from + 1) * rule.maxErrorRate) return measure(from, to, tolerated);
      // too many tolerated breaks for its length: every break inside ends a run
      let at = from;
      for (let j = 0; j < e; j++) {
        if (breaks[j] < from || breaks[j] > to) continue;
        measure(at, breaks[j] - 1, 0);
        at = breaks[j] + 1;
      }
      measure(at, to, 0);
    });
  }
  return runs;
}

/**
 * Calls `run(from, to, tolerated)` for each stretch of informative ordinals between breaks that are
 * not lone (a lone break has no other break within `window` on either side; the chromosome's ends
 * count as far away).
 */
function splitAtBreaks(
  breaks: Int32Array,
  count: number,
  informative: number,
  window: number,
  run: (from: number, to: number, tolerated: number) => void,
): void {
  let previous = -1;
  let tolerated = 0;
  for (let j = 0; j <= count; j++) {
    let at = informative;
    if (j < count) {
      at = breaks[j];
      const before = j > 0 ? at - breaks[j - 1] : Infinity;
      const after = j + 1 < count ? breaks[j + 1] - at : Infinity;
      if (before > window && after > window) {
        tolerated++;
        continue;
      }
    }
    if (at - 1 >= previous + 1) run(previous + 1, at - 1, tolerated);
    previous = at;
    tolerated = 0;
  }
}

/** cM the markers span: per autosome from its first to its last informative marker, summed. */
export function coveredCm(
  columns: ChromosomeColumns,
  classes: Uint8Array,
  informative: Uint8Array,
  map: GeneticMap,
): { total: number; perChromosome: Float64Array } {
  const perChromosome = new Float64Array(23);
  let total = 0;
  for (let c = 1; c <= 22; c++) {
    const chromosome = map.chromosomes[c];
    if (!chromosome) continue;
    let first = -1;
    let last = -1;
    for (let i = columns.start[c]; i < columns.start[c + 1]; i++) {
      if (!informative[classes[i]]) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first < 0) continue;
    perChromosome[c] = cmAt(chromosome, columns.pos[last]) - cmAt(chromosome, columns.pos[first]);
    total += perChromosome[c];
  }
  return { total, perChromosome };
}
