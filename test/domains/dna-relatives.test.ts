/**
 * Relatives and runs of homozygosity (issue 35), pure: simulated pedigrees on a 150,000-marker
 * panel (test/fixtures/dna/relatives.ts; founders from allele frequencies, 0.2 % genotyping errors,
 * 1 % no-calls) land in the right degree range; a pair sharing too few markers is refused with the
 * count; a constructed run of homozygosity is found at its length in cM; no segment or run is
 * shorter than its threshold. The benchmark (bench/dna-relatives.bench.ts) measures accuracy at
 * 640,000 markers on realistic haplotypes.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chromosomeLengthCm, cmAt, geneticMap } from '../../src/domains/dna/dna.genetic-map.ts';
import { CHROMOSOME_NAMES, callCodeOf, parseGenome } from '../../src/domains/dna/dna.parse.ts';
import type { GenomeMarkers } from '../../src/domains/dna/dna.parse.ts';
import { autosomalMarkers, columnsOf } from '../../src/domains/dna/dna.relatives.markers.ts';
import type { ComparableGenome } from '../../src/domains/dna/dna.relatives.markers.ts';
import {
  RELATIVES_THRESHOLDS,
  compareGenomes,
  degreeRange,
  paintChromosomes,
  runsOfHomozygosity,
} from '../../src/domains/dna/dna.relatives.ts';
import type {
  HomozygosityReport,
  RelativesComparison,
} from '../../src/domains/dna/dna.relatives.ts';
import { decodeGenome, encodeGenome } from '../../src/domains/dna/dna.store.ts';
import type { GenomeIndex } from '../../src/domains/dna/dna.store.ts';
import type { GenomeBuild, GenomeSummary } from '../../src/domains/dna/dna.types.ts';
import { genomeText } from '../fixtures/dna/generate.ts';
import { founder, genomeOf, makePanel, rng, simulatePair } from '../fixtures/dna/relatives.ts';
import type { Person, SimulatedRelation } from '../fixtures/dna/relatives.ts';

const map = geneticMap('GRCh37');
const panel = makePanel(map, { markers: 150_000, seed: 35 });
const random = rng(3501);
const T = RELATIVES_THRESHOLDS;

/** Two simulated people of a relation, compared (throws when refused). */
function comparePair(relation: SimulatedRelation): RelativesComparison {
  const [x, y] = simulatePair(panel, relation, random);
  const c = compareGenomes(genomeOf(panel, x, random), genomeOf(panel, y, random));
  if (c.status !== 'compared') throw new Error(c.reason);
  return c;
}

/** Every segment of a comparison is at least its thresholds. */
function expectSegmentsAboveThresholds(c: RelativesComparison): void {
  for (const chromosome of c.chromosomes) {
    for (const s of chromosome.halfIdentical) {
      expect(s.cM).toBeGreaterThanOrEqual(T.minSegmentCm);
      expect(s.snps).toBeGreaterThanOrEqual(c.thresholds.minSegmentSnps);
      expect(s.end).toBeGreaterThan(s.start);
    }
    for (const s of chromosome.fullyIdentical) expect(s.cM).toBeGreaterThanOrEqual(2);
  }
}

describe('geneticMap', () => {
  it('reads the thinned GRCh37 map: chromosome lengths and interpolation between points', () => {
    const chr1 = map.chromosomes[1]!;
    expect(chromosomeLengthCm(chr1)).toBeCloseTo(286.28, 1);
    expect(chromosomeLengthCm(map.chromosomes[21]!)).toBeCloseTo(62.79, 1);
    expect(map.chromosomes[23]).toBeDefined(); // X
    const [p0, p1] = [chr1.pos[100], chr1.pos[101]];
    expect(cmAt(chr1, (p0 + p1) / 2)).toBeCloseTo((chr1.cm[100] + chr1.cm[101]) / 2, 6);
    expect(cmAt(chr1, 1)).toBe(chr1.cm[0]);
    expect(cmAt(chr1, 300_000_000)).toBe(chr1.cm[chr1.cm.length - 1]);
  });
});

describe('compareGenomes', () => {
  it('places a simulated parent and child in the parent/child range only', () => {
    const c = comparePair('parent_child');
    expect(c.degrees).toEqual(['parent_child']);
    expect(c.halfIdenticalShare).toBeGreaterThan(0.9);
    expect(c.fullyIdenticalShare).toBeLessThan(0.02);
    expect(c.kinship).toBeGreaterThan(0.22);
    expect(c.summary).toContain('parent and child');
    expectSegmentsAboveThresholds(c);
  });

  it('places simulated full siblings in the full sibling range, told apart by fully identical DNA', () => {
    const c = comparePair('full_siblings');
    expect(c.degrees).toEqual(['full_sibling']);
    expect(c.fullyIdenticalShare).toBeGreaterThan(0.1);
    expect(c.halfIdenticalShare).toBeLessThan(0.9);
    expectSegmentsAboveThresholds(c);
  });

  it('places simulated half siblings in the 2nd-degree range', () => {
    const c = comparePair('half_siblings');
    expect(c.degrees).toContain('second');
    expect(c.degrees.every((d) => d === 'second' || d === 'third')).toBe(true);
    expect(c.fullyIdenticalCm).toBe(0);
    expectSegmentsAboveThresholds(c);
  });

  it('finds nothing shared between two unrelated people', () => {
    const c = comparePair('unrelated');
    expect(c.degrees).toEqual(['unrelated']);
    expect(c.sharedCm).toBe(0);
    expect(c.segments).toBe(0);
    expect(Math.abs(c.markerKinship)).toBeLessThan(0.02);
    expect(c.markers.compared).toBeGreaterThan(T.minComparedMarkers);
  });

  it('refuses a pair sharing fewer markers than the floor, with the count', () => {
    const [x, y] = simulatePair(panel, 'parent_child', random);
    const keep = Uint8Array.from({ length: panel.count }, () => (random() < 0.6 ? 1 : 0));
    const c = compareGenomes(genomeOf(panel, x, random), genomeOf(panel, y, random, { keep }));
    expect(c.status).toBe('too_few_markers');
    if (c.status !== 'too_few_markers') return;
    expect(c.compared).toBeLessThan(T.minComparedMarkers);
    expect(c.compared).toBeGreaterThan(80_000);
    expect(c.floor).toBe(100_000);
    expect(c.reason).toContain(c.compared.toLocaleString('en'));
  });

  it('matches markers by rsID when the two files are on different builds', () => {
    const [x, y] = simulatePair(panel, 'parent_child', random);
    const a = genomeOf(panel, x, random);
    const b38 = genomeOf(panel, y, random);
    // GRCh38 positions differ from GRCh37's: shift them so only the rsIDs can match
    const shifted: ComparableGenome = {
      build: 'GRCh38',
      markers: { ...b38.markers, pos: b38.markers.pos.map((p) => p + 1_234) },
    };
    const c = compareGenomes(shifted, a);
    if (c.status !== 'compared') throw new Error(c.reason);
    expect(c.build).toBe('GRCh37');
    expect(c.markers.overlapping).toBe(panel.count);
    expect(c.degrees).toEqual(['parent_child']);
  });

  it('reads its input in any order (the store keeps markers by rsID)', () => {
    const g = genomeOf(panel, founder(panel, random), random);
    const m = g.markers;
    const reversed: ComparableGenome = {
      build: 'GRCh37',
      markers: {
        count: m.count,
        idKind: m.idKind.slice().reverse(),
        idNum: m.idNum.slice().reverse(),
        chrom: m.chrom.slice().reverse(),
        pos: m.pos.slice().reverse(),
        call: m.call.slice().reverse(),
      },
    };
    const sorted = autosomalMarkers(g);
    const fromReversed = autosomalMarkers(reversed);
    // (element by element: deep equality of 150,000-entry arrays takes seconds)
    expect(fromReversed.pos.length).toBe(sorted.pos.length);
    expect(fromReversed.pos.every((p, i) => p === sorted.pos[i])).toBe(true);
    expect(fromReversed.call.every((c, i) => c === sorted.call[i])).toBe(true);
    const self = compareGenomes(reversed, g);
    expect(self.status === 'compared' && self.degrees).toEqual(['identical']);
  });

  it('compares stored genomes through GenomeIndex.columns() exactly as through the marker iterator', async () => {
    /** The columns rebuilt one marker object at a time (columnsOf before the accessor). */
    function columnsByIterator(index: GenomeIndex): ComparableGenome {
      const m: GenomeMarkers = {
        count: 0,
        idKind: new Uint8Array(index.count),
        idNum: new Uint32Array(index.count),
        chrom: new Uint8Array(index.count),
        pos: new Uint32Array(index.count),
        call: new Uint8Array(index.count),
      };
      for (const marker of index.markers()) {
        const i = m.count++;
        const id = marker.id ?? '';
        const kind = id.startsWith('rs') ? 0 : id.startsWith('i') ? 1 : 2;
        m.idKind[i] = kind;
        m.idNum[i] = kind === 2 ? 0 : Number(id.slice(kind === 0 ? 2 : 1));
        m.chrom[i] = Math.max(0, CHROMOSOME_NAMES.indexOf(marker.chromosome));
        m.pos[i] = marker.position;
        m.call[i] = Math.max(0, callCodeOf(marker.call));
      }
      return { build: index.build, markers: m };
    }
    /** A 23andMe file (X, Y, MT, haploid and D/I calls, internal ids, no-calls), some ids renamed. */
    async function vendorFile(seed: number): Promise<GenomeMarkers> {
      const text = genomeText({ vendor: '23andme', markers: 5000, seed, noCallRate: 0.05 });
      // ids ending in 7 become names the parser keeps by position only
      const renamed = text.replace(/^rs(\d*7)\t/gm, 'VG$1\t');
      return (await parseGenome(Readable.from([Buffer.from(renamed)]))).markers;
    }
    /**
     * A person's panel genome joined to a vendor file, stored and decoded: every 23rd panel marker
     * relabelled an internal id and every 31st position-only, and 500 internal ids repeating
     * chromosome 2's first positions (half no-calls, the rsIDs there no-calls every third).
     */
    function stored(
      person: Person,
      file: GenomeMarkers,
      build: GenomeBuild,
      shift = 0,
    ): GenomeIndex {
      const g = genomeOf(panel, person, random).markers;
      const dup = 500;
      const n = g.count + file.count + dup;
      const m: GenomeMarkers = {
        count: n,
        idKind: new Uint8Array(n),
        idNum: new Uint32Array(n),
        chrom: new Uint8Array(n),
        pos: new Uint32Array(n),
        call: new Uint8Array(n),
      };
      for (const key of ['idKind', 'idNum', 'chrom', 'pos', 'call'] as const) {
        m[key].set(g[key]);
        m[key].set(file[key], g.count);
      }
      for (let i = 0; i < g.count; i++) {
        if (i % 31 === 0) [m.idKind[i], m.idNum[i]] = [2, 0];
        else if (i % 23 === 0) [m.idKind[i], m.idNum[i]] = [1, 9_000_000 + i];
      }
      const chr2 = panel.start[2];
      for (let k = 0, i = g.count + file.count; k < dup; k++, i++) {
        if (k % 3 === 0) m.call[chr2 + k] = 0;
        [m.idKind[i], m.idNum[i], m.chrom[i], m.pos[i]] = [1, 8_000_000 + k, 2, g.pos[chr2 + k]];
        m.call[i] = k % 2 ? 0 : g.call[chr2 + k] || 8; // 8: AA
      }
      for (let i = 0; i < n; i++) m.pos[i] += shift;
      return decodeGenome(encodeGenome({ markers: m, summary: { build } as GenomeSummary }));
    }
    /** Each marker as one line, sorted: the same lines whatever order the columns are in. */
    const rows = (m: GenomeMarkers): string[] =>
      Array.from(
        { length: m.count },
        (_, i) => `${m.idKind[i]} ${m.idNum[i]} ${m.chrom[i]} ${m.pos[i]} ${m.call[i]}`,
      ).sort();
    const firstDifference = (
      x: ArrayLike<number | string>,
      y: ArrayLike<number | string>,
    ): string | null => {
      if (x.length !== y.length) return `lengths ${x.length} and ${y.length}`;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `at ${i}: ${x[i]} vs ${y[i]}`;
      return null;
    };

    const [x, y] = simulatePair(panel, 'parent_child', random);
    const [fileX, fileY] = [await vendorFile(36), await vendorFile(37)];
    const first = stored(x, fileX, 'GRCh37');
    const second = stored(y, fileY, 'GRCh37');
    // on GRCh38 positions (shifted): only rsIDs can match it to the first
    const second38 = stored(y, fileY, 'GRCh38', 1_234);
    for (const index of [first, second, second38]) {
      const direct = index.columns();
      const old = columnsByIterator(index).markers;
      // the genome holds every id kind, chromosomes beyond 1-22, no-calls and haploid calls
      for (const kind of [0, 1, 2]) expect(direct.idKind.includes(kind)).toBe(true);
      expect(direct.idNum.some((v, i) => direct.idKind[i] === 1 && v > 0)).toBe(true);
      expect([23, 24, 25].every((c) => direct.chrom.includes(c))).toBe(true);
      expect(direct.call.includes(0) && direct.call.some((c) => c >= 1 && c <= 6)).toBe(true);
      expect(direct.count).toBe(index.count);
      expect(firstDifference(rows(direct), rows(old))).toBeNull();
      expect(columnsOf(index).build).toBe(index.build);
      const a = autosomalMarkers(columnsOf(index));
      const b = autosomalMarkers(columnsByIterator(index));
      for (const key of ['start', 'pos', 'call', 'rs'] as const) {
        expect(firstDifference(a[key], b[key])).toBeNull();
      }
      // fresh copies: changing them leaves the index as it was
      const calls = direct.call.slice();
      direct.call.fill(0);
      direct.idNum.fill(0);
      expect(firstDifference(index.columns().call, calls)).toBeNull();
      expect(index.columns().idNum.some((v) => v > 0)).toBe(true);
    }
    for (const [a, b] of [
      [first, second],
      [second38, first],
    ]) {
      const direct = compareGenomes(columnsOf(a), columnsOf(b));
      expect(direct.status).toBe('compared');
      expect(direct).toEqual(compareGenomes(columnsByIterator(a), columnsByIterator(b)));
    }
    expect(runsOfHomozygosity(columnsOf(first))).toEqual(
      runsOfHomozygosity(columnsByIterator(first)),
    );
  });
});

describe('degreeRange', () => {
  it('gives a range, not one label, near a kinship cut-off', () => {
    // 2nd/3rd cut-off: 2^-3.5 = 0.0884
    expect(degreeRange({ kinship: 0.09, s1: 0.36, s2: 0, sharedCm: 1290, segments: 30 })).toEqual([
      'second',
      'third',
    ]);
    expect(degreeRange({ kinship: 0.125, s1: 0.5, s2: 0, sharedCm: 1790, segments: 40 })).toEqual([
      'second',
    ]);
    // parent/child and siblings told apart by fully identical share and coverage
    expect(degreeRange({ kinship: 0.25, s1: 1, s2: 0, sharedCm: 3580, segments: 70 })).toEqual([
      'parent_child',
    ]);
    expect(
      degreeRange({ kinship: 0.25, s1: 0.75, s2: 0.25, sharedCm: 2690, segments: 70 }),
    ).toEqual(['full_sibling']);
    expect(degreeRange({ kinship: 0.003, s1: 0.012, s2: 0, sharedCm: 9, segments: 1 })).toEqual([
      'distant',
      'unrelated',
    ]);
  });
});

describe('runsOfHomozygosity', () => {
  /** A founder made homozygous over markers [from, to) of one chromosome. */
  function withRun(person: Person, from: number, to: number): Person {
    const h1 = person.h[1].slice();
    h1.set(person.h[0].subarray(from, to), from);
    return { h: [person.h[0], h1], origin: person.origin };
  }

  it('finds one constructed long run at its length in cM, with plain words', () => {
    const chr = 5;
    const first = panel.start[chr];
    const startCm = panel.cm[first] + 40;
    let from = first;
    while (panel.cm[from] < startCm) from++;
    let to = from;
    while (panel.cm[to] < startCm + 25) to++;
    const person = withRun(founder(panel, random), from, to);
    // no genotyping errors here: an error next to either end can cut up to the error window
    // (50 markers, about 1.2 cM at this density) off a run
    const r = runsOfHomozygosity(
      genomeOf(panel, person, random, { errorRate: 0 }),
    ) as HomozygosityReport;
    expect(r.status).toBe('measured');
    expect(r.runs).toBe(1);
    const run = r.chromosomes[chr - 1].runs[0];
    const truth = panel.cm[to - 1] - panel.cm[from];
    // a run ends at the first heterozygous call beyond it: chance homozygous markers just outside
    // the constructed stretch (a few, about 0.1-0.3 cM each side here) lengthen it a little
    expect(Math.abs(run.cM - truth)).toBeLessThan(1);
    expect(run.start).toBeLessThanOrEqual(panel.pos[from + 5]);
    expect(run.end).toBeGreaterThanOrEqual(panel.pos[to - 6]);
    expect(r.totalCm).toBeCloseTo(run.cM, 1);
    expect(r.level).toBe('some');
    expect(r.wording).toContain('Short runs of homozygosity are normal in everyone');
    expect(r.wording).toContain('not a diagnosis');
  });

  it('reports no run in an outbred founder, and no run shorter than the threshold', () => {
    const r = runsOfHomozygosity(genomeOf(panel, founder(panel, random), random));
    if (r.status !== 'measured') throw new Error(r.reason);
    expect(r.runs).toBe(0);
    expect(r.level).toBe('none');
    const short = withRun(founder(panel, random), panel.start[2] + 1000, panel.start[2] + 1060);
    const s = runsOfHomozygosity(genomeOf(panel, short, random));
    if (s.status !== 'measured') throw new Error(s.reason);
    for (const c of s.chromosomes)
      for (const run of c.runs) expect(run.cM).toBeGreaterThanOrEqual(4);
  });
});

describe('paintChromosomes', () => {
  it('lays out each autosome with its runs and each relative’s segments', () => {
    const c = comparePair('parent_child');
    const r = runsOfHomozygosity(genomeOf(panel, founder(panel, random), random));
    if (r.status !== 'measured') throw new Error(r.reason);
    const painting = paintChromosomes(r, [{ relative: 'mother', comparison: c }]);
    expect(painting).toHaveLength(22);
    expect(painting[0].chromosome).toBe('1');
    expect(painting[0].lengthCm).toBeCloseTo(286.28, 1);
    expect(painting[0].relatives[0].relative).toBe('mother');
    const segments = painting.flatMap((p) => p.relatives[0].halfIdentical);
    expect(segments.length).toBe(c.segments);
    expect(Object.keys(segments[0]).sort()).toEqual(
      ['cM', 'end', 'endCm', 'snps', 'start', 'startCm', 'tolerated'].sort(),
    );
  });
});
