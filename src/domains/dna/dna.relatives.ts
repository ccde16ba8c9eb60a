/**
 * Relatives and runs of homozygosity (issue 35), pure: two genomes' shared autosomal markers
 * (dna.relatives.markers.ts) give half-identical segments (no opposite homozygotes), fully identical
 * segments (no difference at all, as full siblings share), the total and longest shared cM, a
 * kinship estimate and a degree RANGE; one genome's calls give its runs of homozygosity. Both carry
 * per-chromosome painting data (positions and cM) for a client to draw. Not served yet.
 *
 * Why these thresholds (RELATIVES_THRESHOLDS):
 * - At least 100,000 markers called in both files. Same-vendor pairs share 500,000-700,000;
 *   cross-vendor pairs often 100,000-200,000. A segment must hold at least 300 markers (below), so
 *   the sparser the overlap, the longer the shortest segment seen (about 11 cM at 100,000, 27 cM at
 *   40,000) and the more a relative's sharing is underestimated. Measured on simulated pairs with
 *   realistic haplotypes (bench/dna-relatives.bench.ts and the same pedigrees cut to fewer
 *   markers): at 80,000-100,000 every 2nd-degree pair still had 2nd degree in its range; at 40,000
 *   a half-sibling pair read as 3rd degree only. Below the floor the pair is refused with the count
 *   rather than answered wrongly.
 * - Half-identical segments of at least 7 cM and 500 markers at a full 640,000-marker overlap (the
 *   usual GEDmatch defaults), the marker minimum scaled with the pair's density (0.4 of the markers
 *   expected in 7 cM) but never under 300: with fewer, chance identity between unrelated people
 *   (common haplotypes, rare alleles that rarely disagree) passed for segments in the benchmark.
 *   Shorter segments are as often shared population history as a recent relative.
 * - A lone opposite homozygote (no other within 50 markers either side) is read as a genotyping
 *   error inside a segment, at most one per 300 markers of it; a run with more is split at each.
 * - Fully identical segments of at least 2 cM: only a double inheritance (siblings, children of
 *   related parents) leaves stretches with no difference that long.
 * - Degrees from the kinship coefficient with KING's cut-offs (Manichaikul et al. 2010,
 *   Bioinformatics 26:2867: 2^-1.5, 2^-2.5, 2^-3.5, 2^-4.5), widened by 10 % into a range near a
 *   cut-off; parent/child and full siblings (both first degree) told apart by the fully identical
 *   share (siblings about 25 %, parent and child about 0) and half-identical coverage (parent and
 *   child about 100 %, siblings about 75 %). The same share keeps siblings apart from 2nd degree
 *   near that cut-off (10 % or more: siblings; 4-10 %: siblings or 2nd degree), since 2nd-degree
 *   relatives other than double first cousins share none.
 * - Runs of homozygosity of at least 4 cM (and 300-500 markers as above): shorter runs are
 *   common in everyone (old shared ancestry in every population).
 * It must never name one exact relationship: a degree range and what it can mean.
 */
import { chromosomeLengthCm, geneticMap } from './dna.genetic-map.ts';
import type { GeneticMap } from './dna.genetic-map.ts';
import { DIPLOID, HETEROZYGOUS, autosomalMarkers, joinMarkers } from './dna.relatives.markers.ts';
import type { ComparableGenome, JoinedMarkers } from './dna.relatives.markers.ts';
import { coveredCm, findRuns } from './dna.relatives.runs.ts';
import type { ChromosomeColumns, Segment } from './dna.relatives.runs.ts';

/** The thresholds (see the header for why). */
export const RELATIVES_THRESHOLDS = {
  /** fewest markers called in both genomes to compare them (and called in one to read its runs) */
  minComparedMarkers: 100_000,
  /** shortest half-identical segment counted, cM */
  minSegmentCm: 7,
  /** fewest markers in a segment at full density (640,000 compared) */
  maxSegmentSnps: 500,
  /** the least that minimum scales down to at a sparse overlap */
  minSegmentSnps: 300,
  /** shortest fully identical segment counted, cM */
  minFullyIdenticalCm: 2,
  /** shortest run of homozygosity reported, cM */
  minRunCm: 4,
  /** a lone break with no other within this many markers each side is a genotyping error */
  errorWindow: 50,
  /** at most one such error per this many markers of a run (more: the run is split at each) */
  markersPerError: 300,
  /** total shared cM from which a pair beyond 3rd degree reads "distant" rather than "distant or unrelated" */
  distantMinCm: 20,
} as const;

/** Degrees, closest first. */
export const DEGREES = [
  'identical',
  'parent_child',
  'full_sibling',
  'second',
  'third',
  'distant',
  'unrelated',
] as const;
/** One degree of relatedness (a band, never one relationship). */
export type Degree = (typeof DEGREES)[number];

/** What each degree can mean, in plain words. */
export const DEGREE_MEANINGS: Record<Degree, string> = {
  identical: 'the same person or identical twins',
  parent_child: 'a parent and child (DNA cannot say which is the parent)',
  full_sibling: 'full siblings (fraternal twins included)',
  second:
    'half siblings, a grandparent and grandchild, an aunt or uncle and a niece or nephew, or double first cousins (2nd degree)',
  third:
    'first cousins, a great-grandparent and great-grandchild, a great-aunt or great-uncle, or a half aunt or uncle (3rd degree)',
  distant: 'second cousins or more distant relatives (4th degree or further)',
  unrelated: 'no recent shared ancestry found (unrelated, or too distantly related to tell)',
};

/** One autosome's shared segments, for drawing. */
export interface SharedChromosome {
  /** "1".."22" */
  chromosome: string;
  /** the chromosome's length on the genetic map, cM */
  lengthCm: number;
  /** half-identical segments (fully identical stretches lie inside them) */
  halfIdentical: Segment[];
  /** fully identical segments */
  fullyIdentical: Segment[];
}

/** Two genomes compared. */
export interface RelativesComparison {
  status: 'compared';
  /** the build the positions are on */
  build: ComparableGenome['build'];
  markers: {
    /** present in both files, called or not */
    overlapping: number;
    /** called in both and comparable: the floor applies to this */
    compared: number;
    /** calls that cannot be one biallelic site (strand or allele naming), left out */
    strandMismatches: number;
    /** the floor (RELATIVES_THRESHOLDS.minComparedMarkers) */
    floor: number;
  };
  /** cM covered by the compared markers (first to last, per autosome) */
  coveredCm: number;
  /** half-identical cM (segments at or above the threshold), and the longest segment */
  sharedCm: number;
  longestCm: number;
  segments: number;
  /** fully identical cM */
  fullyIdenticalCm: number;
  /** sharedCm / coveredCm and fullyIdenticalCm / coveredCm */
  halfIdenticalShare: number;
  fullyIdenticalShare: number;
  /** kinship from the segments: (half-identical share + fully identical share) / 4 */
  kinship: number;
  /** KING-robust kinship from the marker counts alone (a cross-check; unreliable below 0.02) */
  markerKinship: number;
  /** the degree range, closest first (one or more adjacent degrees) */
  degrees: Degree[];
  /** what the range can mean, one line a degree */
  meanings: string[];
  /** one plain sentence */
  summary: string;
  /** thresholds used for this pair (the marker minimum scales with density) */
  thresholds: { minSegmentCm: number; minSegmentSnps: number; minFullyIdenticalCm: number };
  chromosomes: SharedChromosome[];
}

/** A pair or a genome with too few markers to read. */
export interface RelativesRefusal {
  status: 'too_few_markers';
  /** markers called in both (or, for runs of homozygosity, in the genome) */
  compared: number;
  /** present in both files, called or not (for runs of homozygosity, the genome's autosomal markers) */
  overlapping: number;
  floor: number;
  reason: string;
}

/** Options of a comparison. */
export interface RelativesOptions {
  /** the genetic map (default: the shipped map of the positions' build) */
  map?: GeneticMap;
}

const INFORMATIVE_REL = Uint8Array.from([0, 1, 1, 1, 0]);
const BREAK_HALF = Uint8Array.from([0, 1, 0, 0, 0]);
const BREAK_FULL = Uint8Array.from([0, 1, 1, 0, 0]);
const T = RELATIVES_THRESHOLDS;

/** The marker minimum for a run of `minCm` at `density` markers a cM (see the header). */
export function minSnpsFor(
  density: number,
  minCm: number,
  least: number = T.minSegmentSnps,
): number {
  return Math.min(T.maxSegmentSnps, Math.max(least, Math.round(0.4 * density * minCm)));
}

/** Compares two genomes: shared segments, kinship and a degree range, or a refusal with the count. */
export function compareGenomes(
  first: ComparableGenome,
  second: ComparableGenome,
  options: RelativesOptions = {},
): RelativesComparison | RelativesRefusal {
  const joined = joinMarkers(autosomalMarkers(first), autosomalMarkers(second));
  if (joined.compared < T.minComparedMarkers) {
    return refusal(joined.compared, joined.overlapping, 'called in both files');
  }
  const map = options.map ?? geneticMap(joined.build);
  const covered = coveredCm(joined, joined.rel, INFORMATIVE_REL, map);
  const density = joined.compared / covered.total;
  const thresholds = {
    minSegmentCm: T.minSegmentCm,
    minSegmentSnps: minSnpsFor(density, T.minSegmentCm),
    minFullyIdenticalCm: T.minFullyIdenticalCm,
  };
  const rule = {
    informative: INFORMATIVE_REL,
    window: T.errorWindow,
    maxErrorRate: 1 / T.markersPerError,
  };
  const half = findRuns(joined, joined.rel, map, {
    ...rule,
    breaks: BREAK_HALF,
    minCm: thresholds.minSegmentCm,
    minSnps: thresholds.minSegmentSnps,
  });
  const full = findRuns(joined, joined.rel, map, {
    ...rule,
    breaks: BREAK_FULL,
    minCm: T.minFullyIdenticalCm,
    minSnps: minSnpsFor(density, T.minFullyIdenticalCm, 50),
  });
  return summarise(joined, covered.total, half, full, map, thresholds);
}

/** The comparison's figures, degree range and painting from its segments. */
function summarise(
  joined: JoinedMarkers,
  covered: number,
  half: Segment[][],
  full: Segment[][],
  map: GeneticMap,
  thresholds: RelativesComparison['thresholds'],
): RelativesComparison {
  const halfSegments = half.flat();
  const sharedCm = sum(halfSegments.map((s) => s.cM));
  const fullyIdenticalCm = sum(full.flat().map((s) => s.cM));
  const longestCm = Math.max(0, ...halfSegments.map((s) => s.cM));
  const s1 = covered > 0 ? sharedCm / covered : 0;
  const s2 = covered > 0 ? fullyIdenticalCm / covered : 0;
  const kinship = (s1 + s2) / 4;
  const degrees = degreeRange({ kinship, s1, s2, sharedCm, segments: halfSegments.length });
  const { hetHet, ibs0, hetFirst, hetSecond } = joined.king;
  return {
    status: 'compared',
    build: joined.build,
    markers: {
      overlapping: joined.overlapping,
      compared: joined.compared,
      strandMismatches: joined.strandMismatches,
      floor: T.minComparedMarkers,
    },
    coveredCm: round(covered),
    sharedCm: round(sharedCm),
    longestCm: round(longestCm),
    segments: halfSegments.length,
    fullyIdenticalCm: round(fullyIdenticalCm),
    halfIdenticalShare: round(s1, 4),
    fullyIdenticalShare: round(s2, 4),
    kinship: round(kinship, 4),
    markerKinship: round(
      hetFirst + hetSecond > 0 ? (hetHet - 2 * ibs0) / (hetFirst + hetSecond) : 0,
      4,
    ),
    degrees,
    meanings: degrees.map((d) => DEGREE_MEANINGS[d]),
    summary: comparisonSummary(sharedCm, halfSegments.length, longestCm, degrees),
    thresholds,
    chromosomes: Array.from({ length: 22 }, (_, i) => ({
      chromosome: String(i + 1),
      lengthCm: round(lengthOf(map, i + 1)),
      halfIdentical: half[i + 1].map(roundSegment),
      fullyIdentical: full[i + 1].map(roundSegment),
    })),
  };
}

/** What the degree decision reads. */
interface DegreeEvidence {
  kinship: number;
  /** half-identical and fully identical shares of the covered cM */
  s1: number;
  s2: number;
  sharedCm: number;
  segments: number;
}

/** KING's kinship cut-offs between bands (Manichaikul et al. 2010) and the relative margin. */
const KING_CUTS = [2 ** -1.5, 2 ** -2.5, 2 ** -3.5, 2 ** -4.5];
const KING_BANDS = ['identical', 'first', 'second', 'third', 'beyond'] as const;
const MARGIN = 0.1;
/**
 * Parent/child: half-identical nearly everywhere and (unless the parents are related) no fully
 * identical DNA; full siblings: about a quarter fully identical (simulated with crossover
 * interference, never under 0.12); 2nd-degree relatives: none, except double first cousins (about
 * 1/16), so some fully identical DNA keeps "full siblings" in a 2nd-degree range.
 */
export const FIRST_DEGREE_SPLIT = {
  parentMinHalfShare: 0.9,
  siblingMinFullShare: 0.1,
  siblingPossibleFullShare: 0.04,
} as const;

/**
 * The degree range: KING bands near the kinship (widened by MARGIN), first degree split (and
 * kept apart from 2nd degree) by the fully identical share.
 */
export function degreeRange(e: DegreeEvidence): Degree[] {
  const bands: string[] = KING_BANDS.filter((_, i) => {
    const upper = i === 0 ? Infinity : KING_CUTS[i - 1] * (1 + MARGIN);
    const lower = i === KING_CUTS.length ? -Infinity : KING_CUTS[i] * (1 - MARGIN);
    return e.kinship < upper && e.kinship >= lower;
  });
  const out = new Set<Degree>();
  for (const band of bands) {
    if (band === 'first') firstDegree(e, bands.includes('second')).forEach((d) => out.add(d));
    else if (band === 'beyond') beyondThird(e).forEach((d) => out.add(d));
    else if (band === 'second') secondDegree(e, bands.includes('first')).forEach((d) => out.add(d));
    else out.add(band as Degree);
  }
  return DEGREES.filter((d) => out.has(d));
}

/**
 * Parent/child or full siblings. Evidence that fits neither (no full coverage, little fully
 * identical DNA) reads as 2nd degree when the kinship is near that cut-off anyway (`nearSecond`),
 * else as "full siblings or 2nd degree".
 */
function firstDegree(e: DegreeEvidence, nearSecond: boolean): Degree[] {
  const siblingLike = e.s2 >= FIRST_DEGREE_SPLIT.siblingMinFullShare;
  if (e.s1 >= FIRST_DEGREE_SPLIT.parentMinHalfShare && !siblingLike) return ['parent_child'];
  if (siblingLike) return ['full_sibling'];
  if (e.s2 >= FIRST_DEGREE_SPLIT.siblingPossibleFullShare) return ['full_sibling', 'second'];
  return nearSecond ? ['second'] : ['full_sibling', 'second'];
}

/**
 * 2nd degree, unless the kinship is near the 1st-degree cut-off with sibling-like fully identical
 * DNA (`nearFirst`: then full siblings only); some fully identical DNA adds full siblings.
 */
function secondDegree(e: DegreeEvidence, nearFirst: boolean): Degree[] {
  if (nearFirst && e.s2 >= FIRST_DEGREE_SPLIT.siblingMinFullShare) return [];
  if (e.s2 >= FIRST_DEGREE_SPLIT.siblingPossibleFullShare) return ['full_sibling', 'second'];
  return ['second'];
}

/** Beyond 3rd degree: distant when enough is shared, unrelated when nothing is. */
function beyondThird(e: DegreeEvidence): Degree[] {
  if (e.sharedCm >= T.distantMinCm) return ['distant'];
  return e.segments > 0 ? ['distant', 'unrelated'] : ['unrelated'];
}

/** One plain sentence about a comparison. */
function comparisonSummary(
  cm: number,
  segments: number,
  longest: number,
  degrees: Degree[],
): string {
  if (segments === 0) {
    return `No shared segment of ${T.minSegmentCm} cM or more: ${DEGREE_MEANINGS.unrelated}.`;
  }
  const shared = `Shares ${Math.round(cm)} cM in ${segments} segment${segments === 1 ? '' : 's'} (longest ${Math.round(longest)} cM)`;
  const fits = degrees.map((d) => DEGREE_MEANINGS[d]).join('; or ');
  return `${shared}. This fits ${fits}. DNA gives a range: family records tell which relationship it is.`;
}

/** Runs of homozygosity of one genome. */
export interface HomozygosityReport {
  status: 'measured';
  build: ComparableGenome['build'];
  /** autosomal markers called (diploid) */
  markers: number;
  /** cM covered by them */
  coveredCm: number;
  thresholds: { minRunCm: number; minRunSnps: number };
  runs: number;
  totalCm: number;
  longestCm: number;
  /** totalCm / coveredCm */
  share: number;
  /** none: only short runs; some / notable / extensive: see the wording */
  level: 'none' | 'some' | 'notable' | 'extensive';
  /** plain words, always ending with what this is not */
  wording: string;
  chromosomes: { chromosome: string; lengthCm: number; totalCm: number; runs: Segment[] }[];
}

/** Total cM of long runs from which each level starts (see levelOf). */
const ROH_LEVELS = { some: 20, notable: 80, extensive: 300 } as const;
const NOT_A_DIAGNOSIS =
  'Short runs of homozygosity are normal in everyone; long ones can mean related parents (or ancestry from a small, closed community). This is not a diagnosis and says nothing about health on its own.';

/** Runs of homozygosity (at least RELATIVES_THRESHOLDS.minRunCm) of one genome, in cM, with words. */
export function runsOfHomozygosity(
  genome: ComparableGenome,
  options: RelativesOptions = {},
): HomozygosityReport | RelativesRefusal {
  const markers = autosomalMarkers(genome);
  let called = 0;
  for (let i = 0; i < markers.call.length; i++) called += DIPLOID[markers.call[i]];
  if (called < T.minComparedMarkers) return refusal(called, markers.call.length, 'called');
  const map = options.map ?? geneticMap(genome.build);
  const columns: ChromosomeColumns = markers;
  const covered = coveredCm(columns, markers.call, DIPLOID, map);
  const minRunSnps = minSnpsFor(called / covered.total, T.minRunCm);
  const runs = findRuns(columns, markers.call, map, {
    informative: DIPLOID,
    breaks: HETEROZYGOUS,
    window: T.errorWindow,
    maxErrorRate: 1 / T.markersPerError,
    minCm: T.minRunCm,
    minSnps: minRunSnps,
  });
  const all = runs.flat();
  const totalCm = sum(all.map((r) => r.cM));
  const level = levelOf(totalCm);
  return {
    status: 'measured',
    build: genome.build,
    markers: called,
    coveredCm: round(covered.total),
    thresholds: { minRunCm: T.minRunCm, minRunSnps },
    runs: all.length,
    totalCm: round(totalCm),
    longestCm: round(Math.max(0, ...all.map((r) => r.cM))),
    share: round(covered.total > 0 ? totalCm / covered.total : 0, 4),
    level,
    wording: `${ROH_WORDS[level](totalCm, all.length)} ${NOT_A_DIAGNOSIS}`,
    chromosomes: Array.from({ length: 22 }, (_, i) => ({
      chromosome: String(i + 1),
      lengthCm: round(lengthOf(map, i + 1)),
      totalCm: round(sum(runs[i + 1].map((r) => r.cM))),
      runs: runs[i + 1].map(roundSegment),
    })),
  };
}

/** The level of a total of long runs (children of first cousins: about 1/16 of 3,600 cM, 220 cM). */
function levelOf(totalCm: number): HomozygosityReport['level'] {
  if (totalCm >= ROH_LEVELS.extensive) return 'extensive';
  if (totalCm >= ROH_LEVELS.notable) return 'notable';
  return totalCm >= ROH_LEVELS.some ? 'some' : 'none';
}

const ROH_WORDS: Record<HomozygosityReport['level'], (cm: number, runs: number) => string> = {
  none: (cm, runs) =>
    runs === 0
      ? `No run of homozygosity of ${T.minRunCm} cM or more: nothing here suggests your parents are related to each other.`
      : `Only ${Math.round(cm)} cM in long runs, as in many people: nothing here suggests your parents are related to each other.`,
  some: (cm, runs) =>
    `${runs} long run${runs === 1 ? '' : 's'} (${Math.round(cm)} cM in all): this happens by chance, in small or close-knit communities, or when parents are distantly related (around second cousins or further).`,
  notable: (cm) =>
    `Long runs cover ${Math.round(cm)} cM: about what is seen when parents are related about as closely as first cousins, or half first cousins.`,
  extensive: (cm) =>
    `Long runs cover ${Math.round(cm)} cM: about what is seen when parents are closely related (first cousins or closer).`,
};

/** One chromosome to draw: its runs of homozygosity and the segments shared with each relative. */
export interface PaintedChromosome {
  chromosome: string;
  lengthCm: number;
  runsOfHomozygosity: Segment[];
  relatives: { relative: string; halfIdentical: Segment[]; fullyIdentical: Segment[] }[];
}

/** Painting data: per autosome the person's runs of homozygosity and what each relative shares. */
export function paintChromosomes(
  runs: HomozygosityReport | null,
  relatives: { relative: string; comparison: RelativesComparison }[],
): PaintedChromosome[] {
  return Array.from({ length: 22 }, (_, i) => {
    const own = runs?.chromosomes[i];
    const shared = relatives.map((r) => ({ relative: r.relative, c: r.comparison.chromosomes[i] }));
    return {
      chromosome: String(i + 1),
      lengthCm: own?.lengthCm ?? shared[0]?.c.lengthCm ?? 0,
      runsOfHomozygosity: own?.runs ?? [],
      relatives: shared.map(({ relative, c }) => ({
        relative,
        halfIdentical: c.halfIdentical,
        fullyIdentical: c.fullyIdentical,
      })),
    };
  });
}

/** A refusal naming the count and the floor. */
function refusal(compared: number, overlapping: number, what: string): RelativesRefusal {
  return {
    status: 'too_few_markers',
    compared,
    overlapping,
    floor: T.minComparedMarkers,
    reason: `${compared.toLocaleString('en')} autosomal markers ${what}; at least ${T.minComparedMarkers.toLocaleString('en')} are needed to tell shared segments from chance (files from different companies often share too few markers).`,
  };
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const round = (x: number, digits = 2): number => Number(x.toFixed(digits));
const lengthOf = (map: GeneticMap, c: number): number => {
  const m = map.chromosomes[c];
  return m ? chromosomeLengthCm(m) : 0;
};
const roundSegment = (s: Segment): Segment => ({
  ...s,
  startCm: round(s.startCm),
  endCm: round(s.endCm),
  cM: round(s.cM),
});
