/**
 * Reads a person's raw genome file (issue 34): 23andMe (v3-v5), AncestryDNA, MyHeritage, FTDNA,
 * LivingDNA and single-sample VCF (GRCh37 or GRCh38), plain, gzip or a zip holding the one file.
 * The bytes are decompressed and read line by line as they arrive (never whole, except a zip's
 * bytes, which are bounded by the upload limit), the vendor, version and build are told from the
 * header and first lines, and the markers land in typed columns (dna.store.ts encodes them) with a
 * summary: counts, call rate and sex from X heterozygosity.
 *
 * It runs in a worker thread (dna.genome.job.ts, issue 45), never on the thread that answers
 * requests, and describes real files (GENOME_LIMITS, docs/decisions.md "Hostile files and heavy
 * requests (issue 45)"): one call per rsID and per position (a repeat is counted once, the first
 * kept, except that an rsID takes the place of an internal id at its position; a file of more
 * than 2% repeats is refused), between 100 markers and 2,000,000 rows (6,000,000 for a VCF),
 * refused as soon as the count passes; every door that inflates (gzip, zip) gives at most 20 times
 * the bytes sent, and 400 MB in all.
 *
 * It must never crash or hang on hostile input: every limit (compressed and decompressed bytes, the
 * inflation ratio, line length, header size, rows, repeats, malformed share) ends in a
 * `GenomeFormatError` whose message says what was wrong and which formats are read, for the caller
 * to answer 422. It reads nothing but the stream.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';
import type { GenomeBuild, GenomeSummary, GenomeVendor } from './dna.types.ts';

// ---------------------------------------------------------------------------------------------
// calls and chromosomes as small numbers (the store keeps these codes)

/** Allele letters by code 1..6 (0 is no allele). */
const ALLELES = ['', 'A', 'C', 'G', 'T', 'D', 'I'];
const ALLELE_OF = new Uint8Array(128);
ALLELES.forEach((a, i) => {
  if (a) ALLELE_OF[a.charCodeAt(0)] = ALLELE_OF[a.toLowerCase().charCodeAt(0)] = i;
});
/** Spellings of "no call" across vendors. */
const NO_CALLS = new Set(['--', '-', '00', '0', '', '??', '?', 'NN', 'N', 'NC', '.']);
/** The text of every call code: 0 no call, 1..6 one allele, a * 7 + b two alleles in file order. */
const CALL_TEXT: string[] = Array.from({ length: 49 }, (_, code) =>
  code === 0
    ? '--'
    : code < 7
      ? ALLELES[code]
      : ALLELES[Math.floor(code / 7)] && ALLELES[code % 7]
        ? ALLELES[Math.floor(code / 7)] + ALLELES[code % 7]
        : '--',
);

/** An allele letter's code (1..6), 0 when it is not A, C, G, T, D or I. */
export function alleleCode(letter: string): number {
  return letter.length === 1 ? (ALLELE_OF[letter.charCodeAt(0)] ?? 0) : 0;
}

/** A call's code (see CALL_TEXT): 0 for a no-call spelling, -1 when unreadable. */
export function callCodeOf(text: string): number {
  if (text.length === 2) {
    const a = ALLELE_OF[text.charCodeAt(0)] ?? 0;
    const b = ALLELE_OF[text.charCodeAt(1)] ?? 0;
    if (a && b) return a * 7 + b;
  } else if (text.length === 1) {
    const a = ALLELE_OF[text.charCodeAt(0)] ?? 0;
    if (a) return a;
  }
  return NO_CALLS.has(text) ? 0 : -1;
}

/** A call code as text: "AG", "A" (haploid), "DI", "--" (no call). */
export function decodeCall(code: number): string {
  return CALL_TEXT[code] ?? '--';
}

/** Whether a call code is two different alleles. */
export const isHeterozygous = (code: number): boolean =>
  code >= 8 && Math.floor(code / 7) !== code % 7;

/** Stored chromosome codes and their names. */
export const CHROMOSOME_NAMES = [
  '',
  ...Array.from({ length: 22 }, (_, i) => String(i + 1)),
  'X',
  'Y',
  'MT',
];
/**
 * Chromosome spellings (after "chr" is dropped) to codes; 26 is the pseudo-autosomal X
 * (AncestryDNA's 25, PLINK's XY), stored as X but left out of the sex tally; 0 unplaced.
 */
const CHROMOSOME_CODES = new Map<string, number>([
  ...Array.from({ length: 22 }, (_, i) => [String(i + 1), i + 1] as [string, number]),
  ['X', 23],
  ['23', 23],
  ['Y', 24],
  ['24', 24],
  ['MT', 25],
  ['M', 25],
  ['26', 25],
  ['25', 26],
  ['XY', 26],
  ['PAR', 26],
  ['0', 0],
]);

// ---------------------------------------------------------------------------------------------
// sex from X heterozygosity and Y calls

/**
 * Thresholds (first principles, no study behind them): a male has one X, so outside the
 * pseudo-autosomal regions every true X call is homozygous and heterozygous calls are genotyping
 * errors (well under 1 % on arrays); a female's two X differ at a fair share of polymorphic array
 * sites (about 0.2-0.35 of called X markers). At or below MALE_MAX_X_HET the X reads male, at or
 * above FEMALE_MIN_X_HET female, between is ambiguous (mosaicism, contamination, a noisy file).
 * Y: a male's Y markers are mostly called, a female's mostly not (cross-hybridisation gives a few).
 */
export const SEX_THRESHOLDS = {
  /** fewest called non-PAR X markers to tell anything */
  minXMarkers: 100,
  maleMaxXHet: 0.03,
  femaleMinXHet: 0.1,
  /** fewest Y markers for the Y call rate to count */
  minYMarkers: 20,
  /** Y call rate at or above: male-like; at or below yFemaleMax: female-like */
  yMaleMin: 0.5,
  yFemaleMax: 0.2,
} as const;

/** Pseudo-autosomal regions of X per build: [PAR1 start, end, PAR2 start, end]. */
const PAR: Record<GenomeBuild, [number, number, number, number]> = {
  GRCh37: [60001, 2699520, 154931044, 155260560],
  GRCh38: [10001, 2781479, 155701383, 156030895],
};
const BUILDS: GenomeBuild[] = ['GRCh37', 'GRCh38'];

const inPar = (build: GenomeBuild, pos: number): boolean => {
  const p = PAR[build];
  return (pos >= p[0] && pos <= p[1]) || (pos >= p[2] && pos <= p[3]);
};

/** X and Y figures, kept for both builds while the build may still be unknown. */
class SexTally {
  readonly xCalled = [0, 0];
  readonly xHet = [0, 0];
  yMarkers = 0;
  yCalled = 0;

  add(chrom: number, pos: number, call: number): void {
    if (chrom === 24) {
      this.yMarkers++;
      if (call !== 0) this.yCalled++;
      return;
    }
    if (chrom !== 23 || call === 0) return;
    const het = isHeterozygous(call);
    for (let b = 0; b < 2; b++) {
      if (inPar(BUILDS[b], pos)) continue;
      this.xCalled[b]++;
      if (het) this.xHet[b]++;
    }
  }
}

type SexFigures = Pick<GenomeSummary, 'sex' | 'sexNote' | 'xHeterozygosity'>;

/** Sex from the tally (null with the reason when it cannot be told). */
function inferSex(tally: SexTally, build: GenomeBuild): SexFigures {
  const t = SEX_THRESHOLDS;
  const b = build === 'GRCh38' ? 1 : 0;
  const xCalled = tally.xCalled[b];
  if (xCalled < t.minXMarkers) {
    return {
      sex: null,
      sexNote: `too few called X markers outside the pseudo-autosomal regions (${xCalled}, at least ${t.minXMarkers} needed)`,
      xHeterozygosity: xCalled ? tally.xHet[b] / xCalled : null,
    };
  }
  const het = tally.xHet[b] / xCalled;
  const yRate = tally.yMarkers >= t.minYMarkers ? tally.yCalled / tally.yMarkers : null;
  const x = het <= t.maleMaxXHet ? 'male' : het >= t.femaleMinXHet ? 'female' : null;
  const y =
    yRate === null ? null : yRate >= t.yMaleMin ? 'male' : yRate <= t.yFemaleMax ? 'female' : null;
  const figures = `X heterozygosity ${het.toFixed(3)} over ${xCalled} markers, ${
    yRate === null ? 'too few Y markers to read' : `Y call rate ${yRate.toFixed(2)}`
  }`;
  if (x === null) {
    return { sex: null, sexNote: `ambiguous: ${figures}`, xHeterozygosity: het };
  }
  if (y !== null && y !== x) {
    const why =
      x === 'female'
        ? 'two X with Y calls (XXY or a mixed sample?)'
        : 'one X without Y calls (X0, or Y left out of the file?)';
    return { sex: null, sexNote: `X and Y disagree, ${why}: ${figures}`, xHeterozygosity: het };
  }
  return { sex: x, sexNote: figures, xHeterozygosity: het };
}

/** The formats read, named in every refusal. */
export const FORMATS_READ =
  'raw data of 23andMe (v3-v5), AncestryDNA, MyHeritage, FamilyTreeDNA and LivingDNA, or a ' +
  'single-sample VCF (GRCh37 or GRCh38), as plain text, gzip or a zip holding that one file';

/** A file this parser refuses: the message is for the person (what was wrong, what is read). */
export class GenomeFormatError extends Error {
  constructor(problem: string) {
    super(`${problem}. Files read: ${FORMATS_READ}.`);
    this.name = 'GenomeFormatError';
  }

  /** The refusal again from its whole message (as it crossed from a worker thread). */
  static fromMessage(message: string): GenomeFormatError {
    const error = new GenomeFormatError('');
    error.message = message;
    return error;
  }
}

/**
 * What a real genome file is (issue 45; the reasons in docs/decisions.md, "Hostile files and heavy
 * requests (issue 45)"). Consumer arrays hold about 550,000-1,000,000 markers (23andMe v3 about
 * 960,000) and single-sample VCFs of a sequenced genome 4-5 million variants. The floor only
 * refuses snippets: targeted files are read on purpose (PharmCAT's example VCF holds 1,202 markers,
 * the tests' files 169-5,000). Vendor files compress 3-6 times (generated ones 2.7-5.0, PharmCAT's
 * VCF 5.7).
 */
export const GENOME_LIMITS = {
  /** data rows of an array vendor's file (23andMe, AncestryDNA, MyHeritage, FTDNA, LivingDNA) */
  maxArrayRows: 2_000_000,
  /** data rows of a VCF */
  maxVcfRows: 6_000_000,
  /** fewest distinct markers kept */
  minMarkers: 100,
  /** the most text one compressed byte may give, through every door that inflates (gzip, zip) */
  maxInflation: 20,
  /** text any compressed file may give whatever its size (a tiny gzip of a header) */
  inflationFloorBytes: 1024 * 1024,
  /** largest text after decompression in bytes */
  maxDecompressedBytes: 400 * 1024 * 1024,
  /** most rows unreadable or repeating a marker, as a share of the rows (and at least 100) */
  maxBadShare: 0.02,
} as const;

/** Limits of one parse (GENOME_LIMITS by default). */
export interface ParseGenomeOptions {
  /** largest upload in bytes as received (compressed or not); default 50 MB */
  maxBytes?: number;
  /** largest text after decompression in bytes (zip bombs); default 400 MB */
  maxDecompressedBytes?: number;
  /** the most text one compressed byte may give (gzip, zip); default 20 */
  maxInflation?: number;
  /** the most data rows of an array vendor's file; default 2,000,000 */
  maxArrayRows?: number;
  /** the most data rows of a VCF; default 6,000,000 */
  maxVcfRows?: number;
}

/**
 * The markers in file order, one entry per column index. Id kinds: 0 an rsID (`idNum` its
 * number), 1 a vendor's internal id `i<number>` (23andMe), 2 any other id (kept by position only).
 * Chromosome codes 1..22, 23 X (PAR included), 24 Y, 25 MT; call codes as in dna.calls.ts.
 */
export interface GenomeMarkers {
  count: number;
  idKind: Uint8Array;
  idNum: Uint32Array;
  chrom: Uint8Array;
  pos: Uint32Array;
  call: Uint8Array;
}

/** What parseGenome answers. */
export interface ParsedGenome {
  summary: GenomeSummary;
  markers: GenomeMarkers;
  /** lines skipped as unreadable (too few columns, bad position, unknown call letters) */
  malformed: number;
  /** rows read but not kept: unplaced chromosomes (0, alt contigs), position 0 */
  skipped: number;
  /**
   * rows repeating an rsID or a position read before: not kept (the first is), except an rsID
   * taking the place of an internal id or an unnamed marker at its position
   */
  repeated: number;
  /** markers kept without a call because their alleles cannot be letters or D/I (VCF) */
  uncallable: number;
  /** how the build was told: 'header', 'contig lengths', 'marker positions' or 'default' */
  buildSource: string;
}

const MB = 1024 * 1024;
const MAX_LINE = MB;
const MAX_HEADER = 4 * MB;
/** Refused when more than this share of rows is unreadable, or repeats (and at least BAD_MIN). */
const BAD_SHARE = GENOME_LIMITS.maxBadShare;
const BAD_MIN = 100;
/** Largest position on any chromosome of either build (chr1 GRCh37: 249,250,621). */
const MAX_POSITION = 250_000_000;

/**
 * Positions of markers that differ between builds (dbSNP; the same table the `snps` package
 * uses): chromosome, NCBI36, GRCh37, GRCh38.
 */
const BUILD_MARKERS = new Map<number, [number, number, number, number]>([
  [3094315, [1, 742429, 752566, 817186]],
  [11928389, [1, 50908372, 50927009, 50889578]],
  [2500347, [1, 143649677, 144938320, 148946169]],
  [964481, [20, 27566744, 27656823, 27638706]],
  [2341354, [1, 908436, 918573, 983193]],
  [3850290, [2, 22315141, 23245301, 22776092]],
  [1329546, [1, 135302086, 135474420, 136392261]],
]);

/** Lengths of chromosome 1 and X that name a build in VCF `##contig` lines. */
const CONTIG_LENGTHS: Record<string, 36 | 37 | 38> = {
  '247249719': 36,
  '249250621': 37,
  '248956422': 38,
  '154913754': 36,
  '155270560': 37,
  '156040895': 38,
};

type Format = GenomeVendor;
type Row = (line: string) => void;

/** What Columns.add did with a marker. */
const KEPT = 0;
const REPEATED = 1;
const REPLACED = 2;
const INITIAL_ROWS = 1 << 16;

/** A slot of an open-addressing table for the pair (a, b) (a 32-bit mix, then the mask). */
function slotOf(a: number, b: number, mask: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h & mask;
}

/**
 * Growable typed columns holding one marker per id and per position. Ids: an open-addressing table
 * of column indexes (plus one; 0 is empty) on (id kind, id number), a typed array of twice the
 * columns' capacity (8 bytes a marker), rebuilt as the columns grow. Positions: while each
 * chromosome's positions ascend (vendors write them so), a new position is one past the highest
 * and a repeat is the highest, so only those are kept; the first position out of order builds a
 * second table like the first, used from then on.
 */
class Columns implements GenomeMarkers {
  count = 0;
  idKind = new Uint8Array(INITIAL_ROWS);
  idNum = new Uint32Array(INITIAL_ROWS);
  chrom = new Uint8Array(INITIAL_ROWS);
  pos = new Uint32Array(INITIAL_ROWS);
  call = new Uint8Array(INITIAL_ROWS);
  private byId = new Uint32Array(INITIAL_ROWS * 2);
  /** null while every chromosome's positions ascend */
  private byPos: Uint32Array | null = null;
  /** per chromosome code: the highest position kept and its column index */
  private readonly topPos = new Uint32Array(32);
  private readonly topAt = new Int32Array(32);
  /** entries of byId, stale ones included (a replaced internal id stays until the next rebuild) */
  private idEntries = 0;

  /**
   * Keeps a marker unless its id or its position is held already (KEPT, REPEATED). At a position
   * held by a marker without an rsID (an internal id `i123`, or none), a marker with an rsID not
   * yet held takes its place (REPLACED): the readers look markers up by rsID.
   */
  add(kind: number, num: number, chrom: number, pos: number, call: number): number {
    if (this.count === this.idKind.length) this.grow();
    if (this.idEntries * 4 >= this.byId.length * 3) this.rebuild();
    const idSlot = kind === 2 ? -1 : this.idSlot(kind, num);
    if (idSlot >= 0 && this.byId[idSlot] !== 0) return REPEATED;
    let held = -1;
    let posSlot = -1;
    if (!this.byPos && pos < this.topPos[chrom]) this.byPos = this.positionTable();
    if (this.byPos) {
      posSlot = this.posSlot(this.byPos, chrom, pos);
      held = this.byPos[posSlot] - 1;
    } else if (pos === this.topPos[chrom]) {
      held = this.topAt[chrom];
    }
    if (held >= 0) {
      if (kind !== 0 || this.idKind[held] === 0) return REPEATED;
      this.idKind[held] = 0;
      this.idNum[held] = num;
      this.call[held] = call;
      this.byId[idSlot] = held + 1;
      this.idEntries++;
      return REPLACED;
    }
    const i = this.count++;
    this.idKind[i] = kind;
    this.idNum[i] = num;
    this.chrom[i] = chrom;
    this.pos[i] = pos;
    this.call[i] = call;
    if (this.byPos) this.byPos[posSlot] = i + 1;
    if (pos > this.topPos[chrom]) {
      this.topPos[chrom] = pos;
      this.topAt[chrom] = i;
    }
    if (idSlot >= 0) {
      this.byId[idSlot] = i + 1;
      this.idEntries++;
    }
    return KEPT;
  }

  /** The slot holding the marker with this id, or the empty slot where it would go. */
  private idSlot(kind: number, num: number): number {
    const table = this.byId;
    const mask = table.length - 1;
    for (let s = slotOf(kind, num, mask); ; s = (s + 1) & mask) {
      const i = table[s] - 1;
      if (i < 0 || (this.idKind[i] === kind && this.idNum[i] === num)) return s;
    }
  }

  /** The slot of `table` holding the marker at this position, or the empty slot for it. */
  private posSlot(table: Uint32Array, chrom: number, pos: number): number {
    const mask = table.length - 1;
    for (let s = slotOf(chrom, pos, mask); ; s = (s + 1) & mask) {
      const i = table[s] - 1;
      if (i < 0 || (this.chrom[i] === chrom && this.pos[i] === pos)) return s;
    }
  }

  private grow(): void {
    const size = this.count * 2;
    const more = <T extends Uint8Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.idKind = more(this.idKind, (n) => new Uint8Array(n));
    this.idNum = more(this.idNum, (n) => new Uint32Array(n));
    this.chrom = more(this.chrom, (n) => new Uint8Array(n));
    this.pos = more(this.pos, (n) => new Uint32Array(n));
    this.call = more(this.call, (n) => new Uint8Array(n));
    this.rebuild();
  }

  /** The tables again at twice the capacity, from the columns (stale id entries dropped). */
  private rebuild(): void {
    this.byId = new Uint32Array(this.idKind.length * 2);
    this.idEntries = 0;
    for (let i = 0; i < this.count; i++) {
      if (this.idKind[i] === 2) continue;
      this.byId[this.idSlot(this.idKind[i], this.idNum[i])] = i + 1;
      this.idEntries++;
    }
    if (this.byPos) this.byPos = this.positionTable();
  }

  /** A table of the columns' positions at twice their capacity. */
  private positionTable(): Uint32Array {
    const table = new Uint32Array(this.idKind.length * 2);
    for (let i = 0; i < this.count; i++) {
      table[this.posSlot(table, this.chrom[i], this.pos[i])] = i + 1;
    }
    return table;
  }

  /** The columns cut to their length (copies, so the spare capacity and the tables are freed). */
  trimmed(): GenomeMarkers {
    const n = this.count;
    return {
      count: n,
      idKind: this.idKind.slice(0, n),
      idNum: this.idNum.slice(0, n),
      chrom: this.chrom.slice(0, n),
      pos: this.pos.slice(0, n),
      call: this.call.slice(0, n),
    };
  }
}

const RS_ID = /^rs(\d{1,10})$/i;
const INTERNAL_ID = /^i(\d{1,10})$/;

/** Column index of the id kind and number of a marker name. */
function idOf(name: string): [number, number] {
  let m = RS_ID.exec(name);
  if (m && Number(m[1]) <= 0xffffffff) return [0, Number(m[1])];
  m = INTERNAL_ID.exec(name);
  if (m && Number(m[1]) <= 0xffffffff) return [1, Number(m[1])];
  return [2, 0];
}

/** A position: 1..MAX_POSITION, 0 for "none" (unplaced), -1 when unreadable. */
function positionOf(text: string): number {
  if (!/^\d{1,10}$/.test(text)) return -1;
  const n = Number(text);
  return n > MAX_POSITION ? -1 : n;
}

/** The state of one parse: header, detected format, columns and tallies. */
class GenomeReader {
  constructor(private readonly rowLimits: { array: number; vcf: number }) {}

  readonly columns = new Columns();
  readonly sex = new SexTally();
  malformed = 0;
  skipped = 0;
  repeated = 0;
  uncallable = 0;
  /** data rows read (kept, repeated, skipped and malformed) */
  rows = 0;
  format: Format | null = null;
  private headerLines: string[] = [];
  private headerChars = 0;
  private lineNo = 0;
  private row: Row | null = null;
  private vcfGt = -1;
  private markerBuild: 36 | 37 | 38 | null = null;

  /** Reads one line (without its line ending). */
  line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    this.lineNo++;
    if (this.row) {
      if (line === '' || line.startsWith('#')) return;
      this.dataRow(line);
      return;
    }
    this.headerLine(this.lineNo === 1 ? line.replace(/^\uFEFF|^\xEF\xBB\xBF/, '') : line);
  }

  /** Reads one data row; refuses as soon as the rows pass the format's maximum. */
  private dataRow(line: string): void {
    if (++this.rows > this.maxRows) {
      throw new GenomeFormatError(
        this.format === 'vcf'
          ? `The VCF holds more than ${count(this.maxRows)} rows, more than a single-sample VCF ` +
            '(a sequenced genome holds 4-5 million variants)'
          : `The ${this.format} file holds more than ${count(this.maxRows)} rows, more than a ` +
            'consumer array file (they hold about 550,000-1,000,000 markers)',
      );
    }
    this.row?.(line);
  }

  /** The most data rows of the detected format. */
  private get maxRows(): number {
    return this.format === 'vcf' ? this.rowLimits.vcf : this.rowLimits.array;
  }

  private headerLine(line: string): void {
    if (line.includes('\0'))
      throw new GenomeFormatError('The file is not text (binary bytes found)');
    if (this.lineNo === 1 && line.startsWith('##fileformat=VCF')) this.format = 'vcf';
    if (this.format === 'vcf') return this.vcfHeaderLine(line);
    if (line.trim() === '') return;
    if (line.startsWith('#')) return this.keepHeader(line);
    this.detect(line);
  }

  private keepHeader(line: string): void {
    this.headerChars += line.length;
    if (this.headerChars > MAX_HEADER) {
      throw new GenomeFormatError('The file starts with more than 4 MB of comments and no markers');
    }
    this.headerLines.push(line);
  }

  private vcfHeaderLine(line: string): void {
    if (line.startsWith('##')) return this.keepHeader(line);
    if (!line.startsWith('#CHROM')) {
      throw new GenomeFormatError('The VCF has no #CHROM column header before its records');
    }
    const cols = line.split('\t');
    if (cols.length < 10 || cols[8] !== 'FORMAT') {
      throw new GenomeFormatError('The VCF has no sample column (FORMAT and one sample are read)');
    }
    this.row = (l) => this.vcfRow(l);
  }

  /** Tells the vendor from the comments and the first line that is not one. */
  private detect(first: string): void {
    const header = this.headerLines.join('\n').toLowerCase();
    const unquoted = first.replace(/"/g, '').toUpperCase();
    const tabs = first.split('\t');
    if (unquoted.startsWith('RSID,CHROMOSOME,POSITION,RESULT')) {
      this.format = header.includes('myheritage') ? 'myheritage' : 'ftdna';
      this.row = (l) => this.csvRow(l);
      return;
    }
    if (/^rsid\tchromosome\tposition\tallele1\tallele2$/i.test(first.trim())) {
      this.format = 'ancestrydna';
      this.row = (l) => this.ancestryRow(l);
      return;
    }
    const vendor: Format | null = header.includes('23andme')
      ? '23andme'
      : header.includes('living dna') || header.includes('livingdna')
        ? 'livingdna'
        : null;
    if (vendor && tabs.length === 4) {
      this.format = vendor;
      this.row = (l) => this.tabRow(l);
      if (tabs[0].toLowerCase() !== 'rsid') this.dataRow(first);
      return;
    }
    throw new GenomeFormatError(
      vendor
        ? `The ${vendor === '23andme' ? '23andMe' : 'LivingDNA'} file's rows are not four tab-separated columns`
        : 'The file is not a raw genome file this service recognises',
    );
  }

  /** 23andMe and LivingDNA: rsid, chromosome, position, genotype. */
  private tabRow(line: string): void {
    const f = line.split('\t');
    if (f.length !== 4) return this.bad('malformed');
    this.add(f[0], f[1], f[2], callCodeOf(f[3]));
  }

  /** AncestryDNA: rsid, chromosome (23 X, 24 Y, 25 PAR, 26 MT), position, allele1, allele2. */
  private ancestryRow(line: string): void {
    const f = line.split('\t');
    if (f.length !== 5) return this.bad('malformed');
    const a = f[3].trim();
    const b = f[4].trim();
    const call = a === '0' || b === '0' ? 0 : callCodeOf(a + b);
    this.add(f[0], f[1], f[2], call);
  }

  /** MyHeritage and FTDNA: quoted CSV (also the variant with doubled quotes). */
  private csvRow(line: string): void {
    const f = line.replace(/"/g, '').split(',');
    if (f.length !== 4) return this.bad('malformed');
    this.add(f[0].trim(), f[1].trim(), f[2].trim(), callCodeOf(f[3].trim()));
  }

  /** VCF: CHROM POS ID REF ALT QUAL FILTER INFO FORMAT SAMPLE; the first sample's GT. */
  private vcfRow(line: string): void {
    const f = line.split('\t');
    if (f.length < 10) return this.bad('malformed');
    const gtAt = this.vcfGtIndex(f[8]);
    if (gtAt < 0) return this.bad('malformed');
    const gt = f[9].split(':')[gtAt] ?? '';
    const call = vcfCall(gt, f[3].toUpperCase(), f[4].toUpperCase());
    if (call === -1) return this.bad('malformed');
    if (call === -2) this.uncallable++;
    const name = f[2].split(';').find((n) => RS_ID.test(n)) ?? f[2];
    this.add(name, f[0], f[1], Math.max(call, 0));
  }

  private vcfFormat = '';
  private vcfGtIndex(format: string): number {
    if (format !== this.vcfFormat) {
      this.vcfFormat = format;
      this.vcfGt = format.split(':').indexOf('GT');
    }
    return this.vcfGt;
  }

  /** Keeps one marker (call -1: unreadable call). */
  private add(name: string, chromText: string, posText: string, call: number): void {
    const pos = positionOf(posText);
    if (pos < 0 || call < 0 || name === '') return this.bad('malformed');
    const chrom = CHROMOSOME_CODES.get(chromText.replace(/^chr/i, '').toUpperCase());
    if (chrom === undefined) {
      if (/^[\w.:-]{1,100}$/.test(chromText)) return void this.skipped++;
      return this.bad('malformed');
    }
    if (chrom === 0 || pos === 0) return void this.skipped++;
    const [kind, num] = idOf(name);
    // AncestryDNA's 25 and PLINK's XY are the pseudo-autosomal X: stored as X, left out of sex
    const stored = chrom === 26 ? 23 : chrom;
    const kept = this.columns.add(kind, num, stored, pos, call);
    if (kept !== KEPT) this.bad('repeated');
    if (kept === REPEATED) return;
    if (kind === 0) this.noteBuildMarker(num, chrom, pos);
    // a position counts toward sex once, with its first call
    if (kept === KEPT) this.sex.add(chrom, pos, call);
  }

  /** Counts a malformed or repeated row; refuses as soon as the file can no longer be read. */
  private bad(what: 'malformed' | 'repeated'): void {
    const n = ++this[what];
    const kept = this.columns.count;
    const doing = what === 'malformed' ? 'are unreadable' : 'repeat a marker read before';
    if (n >= 10_000 && n > kept) {
      throw new GenomeFormatError(`Most rows of the ${this.format} file ${doing} (${n} so far)`);
    }
    // beyond this share of the most rows a file may have, no end of the file can bring it under
    const most = Math.floor(BAD_SHARE * this.maxRows);
    if (n > most) {
      throw new GenomeFormatError(
        `More than ${count(most)} rows of the ${this.format} file ${doing}${
          what === 'repeated' ? ' (a genome file has one call for each rsID and position)' : ''
        }`,
      );
    }
  }

  private noteBuildMarker(rs: number, chrom: number, pos: number): void {
    const known = BUILD_MARKERS.get(rs);
    if (!known || known[0] !== chrom) return;
    const at = known.indexOf(pos, 1);
    if (at > 0) this.markerBuild = ([36, 37, 38] as const)[at - 1];
  }

  /** The build: contig lengths, then the header's words, then known marker positions. */
  build(): { build: GenomeBuild; source: string } {
    const header = this.headerLines.join('\n');
    const fromContigs = contigBuild(header);
    const fromHeader = headerBuild(header);
    const [named, source] = fromContigs
      ? [fromContigs, 'contig lengths']
      : fromHeader
        ? [fromHeader, 'header']
        : this.markerBuild
          ? [this.markerBuild, 'marker positions']
          : [null, 'default'];
    if (named === 36) {
      throw new GenomeFormatError(
        'The file is on build 36 (NCBI36/hg18), which is not read: download it again from the ' +
          'vendor (current files are GRCh37) or convert it',
      );
    }
    if (named) return { build: named === 38 ? 'GRCh38' : 'GRCh37', source };
    if (this.format === 'vcf') {
      throw new GenomeFormatError(
        'The VCF does not say its build (no ##reference, ##contig lengths or known markers)',
      );
    }
    // array vendors report GRCh37 (their current files say so; FTDNA's say nothing)
    return { build: 'GRCh37', source };
  }

  /** The vendor's format version where the header says it. */
  version(): string | null {
    const header = this.headerLines.join('\n');
    const patterns: Partial<Record<Format, RegExp>> = {
      '23andme': /\b(v[2-5])\b/i,
      ancestrydna: /array version:\s*(v?[\d.]+)/i,
      livingdna: /file version:\s*([\d.]+)/i,
      myheritage: /##format=(mhv[\d.]+)/i,
      vcf: /^##fileformat=(VCFv[\d.]+)/,
    };
    const re = this.format ? patterns[this.format] : undefined;
    return re?.exec(header)?.[1] ?? (this.format === 'vcf' ? 'VCFv4' : null);
  }

  get headerText(): string {
    return this.headerLines.join('\n');
  }
}

/** The build a VCF's `##contig` lengths of chromosome 1 or X name. */
function contigBuild(header: string): 36 | 37 | 38 | null {
  const re = /^##contig=<ID=(?:chr)?(?:1|X),[^>]*?length=(\d+)/gim;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    const build = CONTIG_LENGTHS[m[1]];
    if (build) return build;
  }
  return null;
}

/** The build the header's words name (GRCh38, hg19, "build 37", hs37d5 ...). */
function headerBuild(header: string): 36 | 37 | 38 | null {
  if (/GRCh38|hg38|build\s*38\b|GCA_000001405\.15/i.test(header)) return 38;
  if (/GRCh37|hg19|build\s*37\b|build\s*37\.\d|hs37d5|human_g1k_v37|\bb37\b/i.test(header)) {
    return 37;
  }
  if (/NCBI36|hg18|build\s*36\b/i.test(header)) return 36;
  return null;
}

/**
 * A VCF genotype as a call code: letters on SNV sites, D/I on indel sites (the shorter allele D,
 * the longer I, as 23andMe writes them); -2 for a call that cannot be written so (symbolic
 * alleles, multi-nucleotide or multi-allelic indels mixing longer and shorter alleles: kept as no
 * call), -1 unreadable.
 */
function vcfCall(gt: string, ref: string, alt: string): number {
  if (gt === '' || gt === '.' || gt === './.' || gt === '.|.') return 0;
  const parts = gt.split(/[/|]/);
  if (parts.length > 2) return -1;
  if (parts.includes('.')) return 0;
  const alts = alt === '.' ? [] : alt.split(',');
  const alleles = [ref, ...alts];
  let text = '';
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) >= alleles.length) return -1;
    const letter = vcfAllele(alleles[Number(p)], ref, alts);
    if (letter === null) return -2;
    text += letter;
  }
  return callCodeOf(text);
}

function vcfAllele(allele: string, ref: string, alts: string[]): string | null {
  if (!/^[ACGTN]+$/.test(allele)) return null;
  const snv = ref.length === 1 && alts.every((a) => a.length === 1);
  if (snv) return alleleCode(allele) ? allele : null;
  if (allele !== ref)
    return allele.length > ref.length ? 'I' : allele.length < ref.length ? 'D' : null;
  const shorter = alts.some((a) => a.length < ref.length);
  const longer = alts.some((a) => a.length > ref.length);
  return shorter === longer ? null : shorter ? 'I' : 'D';
}

// ---------------------------------------------------------------------------------------------
// bytes in: size limits, compression, lines

const sizeText = (bytes: number): string =>
  bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${bytes} bytes`;

/** A number as the messages write it (2,000,000). */
const count = (n: number): string => n.toLocaleString('en-US');

/** Bytes counted as they pass. */
interface Tally {
  bytes: number;
}

/** What the doors that inflate may give: `ratio` times the bytes sent, at least `floor`. */
interface Inflation {
  ratio: number;
  floor: number;
}

/** Counts the bytes of `source` (into `tally`) and refuses beyond `max`. */
async function* bounded(
  source: AsyncIterable<Buffer | string>,
  max: number,
  what: string,
  tally: Tally = { bytes: 0 },
): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    tally.bytes += buf.length;
    if (tally.bytes > max) {
      throw new GenomeFormatError(`The ${what} is larger than ${sizeText(max)}`);
    }
    yield buf;
  }
}

/** The refusal of a door that would give more than the inflation allows for `sent` bytes. */
const overInflated = (door: string, sent: number, limit: Inflation): GenomeFormatError =>
  new GenomeFormatError(
    `The ${door} inflates to more than ${limit.ratio} times the ${sizeText(sent)} sent ` +
      '(genome files compress 3 to 6 times): it is not a genome file this reads',
  );

/**
 * The output of a door that inflates (gzip, a zip entry), refused as soon as it passes the
 * inflation allowed for the compressed bytes sent so far: `sent` counts what entered the door, so
 * the bound holds at every moment, not only at the end.
 */
async function* inflating(
  source: AsyncIterable<Buffer>,
  sent: Tally,
  limit: Inflation,
  door: string,
): AsyncGenerator<Buffer> {
  let out = 0;
  for await (const chunk of source) {
    out += chunk.length;
    if (out > limit.floor && out > limit.ratio * sent.bytes) {
      throw overInflated(door, sent.bytes, limit);
    }
    yield chunk;
  }
}

/** The first `n` bytes (fewer at the end) and an iterator over everything, those bytes included. */
async function peek(
  source: AsyncIterable<Buffer>,
  n: number,
): Promise<{ head: Buffer; all: AsyncIterable<Buffer> }> {
  const it = source[Symbol.asyncIterator]();
  const seen: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const next = await it.next();
    if (next.done) break;
    seen.push(next.value);
    size += next.value.length;
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* seen;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  }
  return { head: Buffer.concat(seen).subarray(0, n), all: all() };
}

async function* gunzip(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const z = createGunzip();
  const input = Readable.from(source);
  input.on('error', (e) => z.destroy(e));
  input.pipe(z);
  try {
    for await (const chunk of z) yield chunk as Buffer;
  } catch (e) {
    if (e instanceof GenomeFormatError) throw e;
    throw new GenomeFormatError('The gzip file is truncated or damaged');
  } finally {
    input.destroy();
    z.destroy();
  }
}

async function collect(source: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(chunk);
  return Buffer.concat(parts);
}

/**
 * The one genome file of a zip (macOS resource forks and folders aside); refused before it is
 * inflated when its declared size passes the inflation allowed (yauzl checks the declared size
 * against what the entry gives).
 */
async function unzip(
  source: AsyncIterable<Buffer>,
  limit: Inflation,
): Promise<AsyncIterable<Buffer>> {
  const bytes = await collect(source);
  const fail = (): GenomeFormatError => new GenomeFormatError('The zip file is damaged');
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true, validateEntrySizes: true }, (err, z) =>
      err || !z ? reject(fail()) : resolve(z),
    ),
  );
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const name = entry.fileName;
      const junk = name.endsWith('/') || /(^|\/)(__MACOSX\/|\.)/.test(name);
      if (!junk) entries.push(entry);
      if (entries.length > 20) return resolve();
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', () => reject(fail()));
    zip.readEntry();
  });
  if (entries.length !== 1) {
    zip.close();
    const names = entries.map((e) => e.fileName.slice(0, 80)).slice(0, 5);
    throw new GenomeFormatError(
      entries.length === 0
        ? 'The zip file holds no file'
        : `The zip file holds ${entries.length > 20 ? 'many' : entries.length} files (${names.join(', ')}): upload the genome file alone or a zip of just that file`,
    );
  }
  if (entries[0].uncompressedSize > Math.max(limit.floor, limit.ratio * bytes.length)) {
    zip.close();
    throw overInflated('zip file', bytes.length, limit);
  }
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entries[0], (err, s) =>
      err || !s
        ? reject(new GenomeFormatError('The zip entry cannot be read (encrypted or damaged)'))
        : resolve(s),
    ),
  );
  return (async function* (): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of stream) yield chunk as Buffer;
    } catch (e) {
      if (e instanceof GenomeFormatError) throw e;
      throw new GenomeFormatError('The zip entry is truncated or damaged');
    }
  })();
}

const isGzip = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const isZip = (b: Buffer): boolean =>
  b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/**
 * The text bytes: gzip and zip undone (a gzip inside the zip too), every size bounded: each door
 * that inflates against the bytes sent (`sent`, counted as they are read), the text in all.
 */
async function textOf(
  source: AsyncIterable<Buffer>,
  sent: Tally,
  maxText: number,
  limit: Inflation,
): Promise<AsyncIterable<Buffer>> {
  let { head, all } = await peek(source, 4);
  if (head.length === 0) throw new GenomeFormatError('The file is empty');
  if (isZip(head)) {
    ({ head, all } = await peek(inflating(await unzip(all, limit), sent, limit, 'zip file'), 4));
  } else if (head.length >= 2 && head[0] === 0x50 && head[1] === 0x4b) {
    throw new GenomeFormatError('The zip file is damaged or empty');
  }
  if (isGzip(head)) all = inflating(gunzip(all), sent, limit, 'gzip file');
  return bounded(all, maxText, 'decompressed text');
}

/** Calls `onLine` with every line of the text (CR kept: the reader drops it), lines bounded. */
async function eachLine(
  source: AsyncIterable<Buffer>,
  onLine: (line: string) => void,
): Promise<void> {
  let carry = '';
  for await (const chunk of source) {
    const text = carry + chunk.toString('latin1');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      if (nl - start > MAX_LINE) break;
      onLine(text.slice(start, nl));
      start = nl + 1;
    }
    carry = text.slice(start);
    if (carry.length > MAX_LINE) {
      throw new GenomeFormatError(`A line of the file is longer than ${MAX_LINE / MB} MB`);
    }
  }
  if (carry !== '') onLine(carry);
}

function iterate(input: AsyncIterable<Buffer> | NodeJS.ReadableStream): AsyncIterable<Buffer> {
  return Symbol.asyncIterator in input
    ? (input as AsyncIterable<Buffer>)
    : new Readable().wrap(input);
}

/**
 * Reads a raw genome file from a stream or an async iterable of chunks: detects compression,
 * vendor, version and build, keeps the markers in typed columns and answers a summary with the
 * call rate and the sex told from X heterozygosity. Throws `GenomeFormatError` for anything it
 * does not read (unknown format, too many unreadable rows, sizes beyond the limits).
 */
export async function parseGenome(
  input: AsyncIterable<Buffer> | NodeJS.ReadableStream,
  options: ParseGenomeOptions = {},
): Promise<ParsedGenome> {
  const maxBytes = options.maxBytes ?? 50 * MB;
  const maxText = options.maxDecompressedBytes ?? GENOME_LIMITS.maxDecompressedBytes;
  const limit: Inflation = {
    ratio: options.maxInflation ?? GENOME_LIMITS.maxInflation,
    floor: GENOME_LIMITS.inflationFloorBytes,
  };
  const reader = new GenomeReader({
    array: options.maxArrayRows ?? GENOME_LIMITS.maxArrayRows,
    vcf: options.maxVcfRows ?? GENOME_LIMITS.maxVcfRows,
  });
  const sent: Tally = { bytes: 0 };
  const text = await textOf(bounded(iterate(input), maxBytes, 'file', sent), sent, maxText, limit);
  await eachLine(text, (line) => reader.line(line));
  return finish(reader);
}

function finish(reader: GenomeReader): ParsedGenome {
  if (!reader.format) {
    throw new GenomeFormatError(
      reader.headerText === ''
        ? 'The file has no readable lines'
        : 'The file has comments but no markers in a known layout',
    );
  }
  const markers = reader.columns.trimmed();
  const rows = reader.rows;
  if (markers.count === 0) {
    throw new GenomeFormatError(`The ${reader.format} file holds no readable markers`);
  }
  const bad: [number, string][] = [
    [reader.malformed, 'are unreadable'],
    [reader.repeated, 'repeat an rsID or a position read before (one call for each is read)'],
  ];
  for (const [n, doing] of bad) {
    if (n >= BAD_MIN && n > rows * BAD_SHARE) {
      throw new GenomeFormatError(`${n} of ${rows} rows of the ${reader.format} file ${doing}`);
    }
  }
  if (markers.count < GENOME_LIMITS.minMarkers) {
    throw new GenomeFormatError(
      `The ${reader.format} file holds ${count(markers.count)} markers, fewer than the ` +
        `${count(GENOME_LIMITS.minMarkers)} a genome file holds at the least (consumer arrays ` +
        'hold about 550,000, targeted VCFs a thousand or more)',
    );
  }
  const { build, source } = reader.build();
  let called = 0;
  for (let i = 0; i < markers.count; i++) if (markers.call[i] !== 0) called++;
  const sex = inferSex(reader.sex, build);
  const summary: GenomeSummary = {
    vendor: reader.format,
    version: reader.version(),
    build,
    markers: markers.count,
    called,
    callRate: called / markers.count,
    ...sex,
  };
  return {
    summary,
    markers,
    malformed: reader.malformed,
    skipped: reader.skipped,
    repeated: reader.repeated,
    uncallable: reader.uncallable,
    buildSource: source,
  };
}
