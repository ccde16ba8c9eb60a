/**
 * The markers two genomes share, on the compact columns (issue 35): each genome's autosomal
 * markers sorted by chromosome and position (typed arrays, no object per marker), then joined by
 * position when both files are on the same build, or by rsID when they are not, each shared marker
 * reduced to one small class: how the two calls compare (identical, one allele shared, opposite
 * homozygotes, or alleles that cannot be one biallelic site, usually a strand difference between
 * vendors). dna.relatives.ts finds segments over those classes. Nothing here reads the X, Y or
 * mitochondrial markers: half-identity and kinship are measured on chromosomes 1-22.
 * It must never match two markers on different chromosomes, nor count a no-call as a comparison.
 */
import type { GenomeIndex } from './dna.store.ts';
import type { GenomeBuild } from './dna.types.ts';
import type { GenomeMarkers } from './dna.parse.ts';

/** A genome as the comparison reads it: the parser's columns and the build of their positions. */
export interface ComparableGenome {
  build: GenomeBuild;
  markers: GenomeMarkers;
}

/** Autosomal markers by chromosome and position, one per position (a called one preferred). */
export interface AutosomalMarkers {
  build: GenomeBuild;
  /** markers of chromosome c (1..22) are [start[c], start[c + 1]); 24 entries */
  start: Int32Array;
  pos: Uint32Array;
  /** call codes (dna.parse.ts: 0 no call, a * 7 + b two alleles) */
  call: Uint8Array;
  /** the rsID's number, 0 when the marker has none */
  rs: Uint32Array;
}

/** How two calls at one marker compare (the values of JoinedMarkers.rel). */
export const REL = { none: 0, ibs0: 1, ibs1: 2, ibs2: 3, strand: 4 } as const;

/** Both genomes' shared autosomal markers, in chromosome and position order. */
export interface JoinedMarkers {
  /** the build of `pos` (the genetic map to read them on) */
  build: GenomeBuild;
  /** shared markers of chromosome c (1..22) are [start[c], start[c + 1]) */
  start: Int32Array;
  pos: Uint32Array;
  /** REL class of each shared marker */
  rel: Uint8Array;
  /** markers present in both files, called or not */
  overlapping: number;
  /** markers called in both (diploid) whose alleles can be one site: the comparisons made */
  compared: number;
  /** shared markers whose calls hold three or four alleles (a strand or allele-naming difference) */
  strandMismatches: number;
  /** KING's counts over the compared markers: both heterozygous, opposite homozygotes, each's hets */
  king: { hetHet: number; ibs0: number; hetFirst: number; hetSecond: number };
}

/** Marker indexes stay below 2^24 (the parser refuses more than 16 M markers). */
const SHIFT = 2 ** 24;
const CODES = 49;

/** The two alleles of a diploid call code, or null for a no-call, a haploid call or a bad code. */
function alleles(code: number): [number, number] | null {
  const a = Math.floor(code / 7);
  const b = code % 7;
  return code >= 8 && code < CODES && a > 0 && b > 0 ? [a, b] : null;
}

/** The REL class of two call codes (see REL). */
function relationOf(first: number, second: number): number {
  const x = alleles(first);
  const y = alleles(second);
  if (!x || !y) return REL.none;
  if (new Set([...x, ...y]).size > 2) return REL.strand;
  const sameSet = (x[0] === y[0] && x[1] === y[1]) || (x[0] === y[1] && x[1] === y[0]);
  if (sameSet) return REL.ibs2;
  return x[0] === x[1] && y[0] === y[1] ? REL.ibs0 : REL.ibs1;
}

/** REL of every pair of call codes: `RELATION[first * 49 + second]`. */
const RELATION = Uint8Array.from({ length: CODES * CODES }, (_, i) =>
  relationOf(Math.floor(i / CODES), i % CODES),
);
/** 1 for a heterozygous diploid call code. */
export const HETEROZYGOUS = Uint8Array.from({ length: CODES }, (_, code) => {
  const x = alleles(code);
  return x && x[0] !== x[1] ? 1 : 0;
});
/** 1 for a diploid call code (two alleles). */
export const DIPLOID = Uint8Array.from({ length: CODES }, (_, code) => (alleles(code) ? 1 : 0));

/** Whether the keys are already in ascending order. */
function ascending(keys: Float64Array): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i] < keys[i - 1]) return false;
  return true;
}

/**
 * A genome's autosomal markers sorted by chromosome and position. Sorting packs position and index
 * into one float (position * 2^24 + index, exact below 2^53) so the native numeric sort does it.
 */
export function autosomalMarkers(genome: ComparableGenome): AutosomalMarkers {
  const m = genome.markers;
  const start = new Int32Array(24);
  for (let i = 0; i < m.count; i++)
    if (m.chrom[i] >= 1 && m.chrom[i] <= 22) start[m.chrom[i] + 1]++;
  for (let c = 2; c <= 23; c++) start[c] += start[c - 1];
  const fill = start.slice();
  const keys = new Float64Array(start[23]);
  for (let i = 0; i < m.count; i++) {
    const c = m.chrom[i];
    if (c >= 1 && c <= 22) keys[fill[c]++] = m.pos[i] * SHIFT + i;
  }
  const n = start[23];
  const out = { pos: new Uint32Array(n), call: new Uint8Array(n), rs: new Uint32Array(n) };
  const kept = new Int32Array(24);
  let k = 0;
  for (let c = 1; c <= 22; c++) {
    kept[c] = k;
    const part = keys.subarray(start[c], start[c + 1]);
    if (!ascending(part)) part.sort(); // files and decoded genomes come in order: no sort then
    for (let j = 0; j < part.length; j++) {
      const p = Math.floor(part[j] / SHIFT);
      const i = part[j] - p * SHIFT;
      if (k > kept[c] && out.pos[k - 1] === p) {
        // a repeated position (an rsID and a vendor id for one site): keep a called one
        if (out.call[k - 1] === 0) out.call[k - 1] = m.call[i];
        continue;
      }
      out.pos[k] = p;
      out.call[k] = m.call[i];
      out.rs[k] = m.idKind[i] === 0 ? m.idNum[i] : 0;
      k++;
    }
  }
  kept[23] = k;
  return {
    build: genome.build,
    start: kept,
    pos: out.pos.subarray(0, k),
    call: out.call.subarray(0, k),
    rs: out.rs.subarray(0, k),
  };
}

/** An empty join of room for `n` markers. */
function emptyJoin(build: GenomeBuild, n: number): JoinedMarkers {
  return {
    build,
    start: new Int32Array(24),
    pos: new Uint32Array(n),
    rel: new Uint8Array(n),
    overlapping: 0,
    compared: 0,
    strandMismatches: 0,
    king: { hetHet: 0, ibs0: 0, hetFirst: 0, hetSecond: 0 },
  };
}

/** Adds one shared marker to a join (and its counts). */
function push(j: JoinedMarkers, position: number, first: number, second: number): void {
  const rel = RELATION[first * CODES + second];
  const k = j.overlapping++;
  j.pos[k] = position;
  j.rel[k] = rel;
  if (rel === REL.strand) j.strandMismatches++;
  if (rel === REL.none || rel === REL.strand) return;
  j.compared++;
  const h1 = HETEROZYGOUS[first];
  const h2 = HETEROZYGOUS[second];
  j.king.hetFirst += h1;
  j.king.hetSecond += h2;
  j.king.hetHet += h1 & h2;
  if (rel === REL.ibs0) j.king.ibs0++;
}

/** Cuts a join's columns to the markers written. */
function trimmed(j: JoinedMarkers): JoinedMarkers {
  return { ...j, pos: j.pos.subarray(0, j.overlapping), rel: j.rel.subarray(0, j.overlapping) };
}

/** Shared markers of two genomes on the same build: a merge by position, chromosome by chromosome. */
function joinByPosition(a: AutosomalMarkers, b: AutosomalMarkers): JoinedMarkers {
  const j = emptyJoin(a.build, Math.min(a.pos.length, b.pos.length));
  for (let c = 1; c <= 22; c++) {
    j.start[c] = j.overlapping;
    let x = a.start[c];
    let y = b.start[c];
    const xEnd = a.start[c + 1];
    const yEnd = b.start[c + 1];
    while (x < xEnd && y < yEnd) {
      const px = a.pos[x];
      const py = b.pos[y];
      if (px < py) x++;
      else if (px > py) y++;
      else push(j, px, a.call[x++], b.call[y++]);
    }
  }
  j.start[23] = j.overlapping;
  return trimmed(j);
}

/**
 * Shared markers of genomes on different builds: by rsID, on the positions of `a` (the genome whose
 * build the map is read on). Markers without an rsID cannot be matched across builds.
 */
function joinByRsid(a: AutosomalMarkers, b: AutosomalMarkers): JoinedMarkers {
  const index = new Map<number, number>();
  const chromOf = new Uint8Array(b.pos.length);
  for (let c = 1; c <= 22; c++) {
    for (let y = b.start[c]; y < b.start[c + 1]; y++) {
      chromOf[y] = c;
      if (b.rs[y]) index.set(b.rs[y], y);
    }
  }
  const j = emptyJoin(a.build, Math.min(a.pos.length, b.pos.length));
  for (let c = 1; c <= 22; c++) {
    j.start[c] = j.overlapping;
    for (let x = a.start[c]; x < a.start[c + 1]; x++) {
      const y = a.rs[x] ? index.get(a.rs[x]) : undefined;
      if (y !== undefined && chromOf[y] === c) push(j, a.pos[x], a.call[x], b.call[y]);
    }
  }
  j.start[23] = j.overlapping;
  return trimmed(j);
}

/**
 * The two genomes' shared autosomal markers: by position on one build, by rsID across builds (read
 * on the GRCh37 genome's positions). The order of the two genomes does not change any count.
 */
export function joinMarkers(first: AutosomalMarkers, second: AutosomalMarkers): JoinedMarkers {
  if (first.build === second.build) return joinByPosition(first, second);
  if (first.build === 'GRCh37') return joinByRsid(first, second);
  const j = joinByRsid(second, first);
  // the counts are symmetric but the KING heterozygote tallies name the genomes: put them back
  const { hetFirst, hetSecond } = j.king;
  return { ...j, king: { ...j.king, hetFirst: hetSecond, hetSecond: hetFirst } };
}

/**
 * The columns of a decoded genome with its build, for compareGenomes and runsOfHomozygosity:
 * GenomeIndex.columns() (dna.store.ts), copies of the stored typed arrays in stored order (by id;
 * autosomalMarkers sorts each chromosome by position). The same markers, ids, chromosomes,
 * positions and call codes the marker iterator gives, without an object per marker (rebuilding
 * them through the iterator took 0.4-0.9 s for 640,000 markers on a busy 2-core machine).
 */
export function columnsOf(index: GenomeIndex): ComparableGenome {
  return { build: index.build, markers: index.columns() };
}
