/**
 * Issue 35: deep-time haplogroups, pure. Constructed MT readings carrying the variants of H1, U5a
 * and L3 (and the rCRS itself, H2a2a1) are called as those haplogroups by the Haplogrep-style
 * score over PhyloTree 17; positions left untested do not lower the score; heteroplasmic calls are
 * not read. Constructed Y calls for R1b and E1b1a give those clades; a woman has no Y data; a
 * conflicting call is answered as a conflict. A generated genome's MT markers are read through
 * the store.
 *
 * Issue 46: a line is called only when the file supports its path from the root (MT: 3 confirmed
 * branches, Y: 2 clades, at most 2 untested levels apart); otherwise the deepest supported node
 * (partial) or not determined, with the reason. A 50-position file with one of I3d1's own
 * positions and nothing above it is no longer called I3d1.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  deepTimeReport,
  mtExpectedVariants,
  mtHaplogroup,
  mtLineage,
  mtObservations,
  yHaplogroup,
  type MtObservation,
} from '../../src/domains/dna/dna.haplogroups.ts';
import { fromRoot } from '../../src/base/paths.ts';
import { parseGenome } from '../../src/domains/dna/dna.parse.ts';
import { decodeGenome, encodeGenome } from '../../src/domains/dna/dna.store.ts';
import type { CallLookup } from '../../src/domains/dna/dna.types.ts';
import { generateGenome } from '../fixtures/dna/generate.ts';

/** The rCRS (NC_012920) as shipped with the tree. */
const RCRS = (
  JSON.parse(readFileSync(fromRoot('data', 'dna', 'mtdna', 'phylotree17.json'), 'utf8')) as {
    rcrs: string;
  }
).rcrs;

/** The rCRS positions of the mutations on a haplogroup's lineage from mt-MRCA. */
function lineagePositions(haplogroup: string): number[] {
  const steps = mtLineage(haplogroup);
  if (!steps) throw new Error(`no haplogroup ${haplogroup}`);
  const positions = steps.flatMap((s) =>
    s.mutations.filter((m) => !m.includes('.')).map((m) => Number(/\d+/.exec(m)![0])),
  );
  return [...new Set(positions)].sort((a, b) => a - b);
}

/**
 * An array-like panel: the positions defining the lineages of H1, U5a and L3 (what an array that
 * types the major branches reads), a few hundred sites at most.
 */
const PANEL = [...new Set(['H1', 'U5a', 'L3', 'M', 'J', 'T'].flatMap(lineagePositions))];

/** What a person of `haplogroup` reads at `positions`: its variant there, else the rCRS base. */
function readings(haplogroup: string, positions: number[] = PANEL): MtObservation[] {
  const variants = new Map(mtExpectedVariants(haplogroup)!.map((v) => [v.position, v.allele]));
  return positions.map((position) => ({
    position,
    allele: variants.get(position) ?? RCRS[position - 1],
  }));
}

/** A call lookup over a plain record of rsID -> call. */
function lookup(calls: Record<string, string>): CallLookup {
  return {
    call: (rsid) => (calls[rsid] && calls[rsid] !== '--' ? calls[rsid] : null),
    has: (rsid) => rsid in calls,
    build: 'GRCh37',
  };
}

/** Y calls of a man of R-M269 (R1b), forward strand, with ancestral calls at other clades. */
const R1B_CALLS: Record<string, string> = {
  rs2032595: 'T', // M168 CT
  rs4141886: 'A', // P143 CF
  rs2032652: 'T', // M89 F
  rs3900: 'G', // M9 K
  rs2032631: 'A', // M45 P
  rs2032658: 'G', // M207 R
  rs2032624: 'C', // M173 R1
  rs9786184: 'A', // M343 R1b
  rs9786153: 'C', // M269 R-M269
  rs3848982: 'C', // M145 DE, ancestral
  rs9306841: 'C', // M96 E, ancestral
  rs2032597: 'A', // M170 I, ancestral
  rs13447352: 'A', // M304 J, ancestral
  rs2032636: 'G', // M201 G, ancestral
  rs8179021: 'C', // M242 Q, ancestral
  rs2032674: 'T', // M214 NO, ancestral
};

/** Y calls of a man of E1b1a (E-M2). */
const E1B1A_CALLS: Record<string, string> = {
  rs2032595: 'T', // M168 CT
  rs3848982: 'T', // M145 DE
  rs9306841: 'G', // M96 E
  rs9785941: 'G', // M2 E1b1a
  rs2032654: 'A', // M215 E1b1b, ancestral
  rs2032602: 'T', // M174 D, ancestral
  rs4141886: 'G', // P143 CF, ancestral
  rs2032652: 'C', // M89 F, ancestral
  rs3900: 'C', // M9 K, ancestral
};

describe('mtHaplogroup', () => {
  it('names H1, U5a and L3 from readings at the positions that define them', () => {
    for (const haplogroup of ['H1', 'U5a', 'L3']) {
      const result = mtHaplogroup(readings(haplogroup));
      expect(result.status).toBe('called');
      expect(result.best?.haplogroup).toBe(haplogroup);
      expect(result.best?.quality).toBe(1);
      expect(result.best?.missing).toEqual([]);
      expect(result.best?.extra).toEqual([]);
      expect(result.deepestSupported).toBe(haplogroup);
      expect(result.path.at(-1)?.haplogroup).toBe(haplogroup);
      expect(result.runnersUp.length).toBe(5);
      expect(result.positionsTested).toBe(PANEL.length);
    }
  });

  it('knows the branch mutations PhyloTree gives for H1, U5a and L3', () => {
    expect(mtLineage('H1')?.at(-1)).toEqual({ haplogroup: 'H1', mutations: ['G3010A'] });
    expect(mtLineage('U5a')?.at(-1)?.mutations).toEqual(['A14793G', 'C16256T']);
    expect(mtLineage('L3')?.at(-1)?.mutations).toEqual(['A769G', 'A1018G', 'C16311T']);
    expect(mtLineage('H1')?.map((s) => s.haplogroup)).toEqual(
      expect.arrayContaining(['mt-MRCA', 'L3', 'N', 'R', 'R0', 'HV', 'H', 'H1']),
    );
    expect(mtExpectedVariants('H1')).toContainEqual({ position: 3010, allele: 'A' });
  });

  it('names the rCRS itself (H2a2a1) when every tested position reads the rCRS base', () => {
    const positions = lineagePositions('H2a2a1');
    const result = mtHaplogroup(positions.map((p) => ({ position: p, allele: RCRS[p - 1] })));
    expect(result.best?.haplogroup).toBe('H2a2a1');
    expect(result.best?.quality).toBe(1);
    expect(result.variantsSeen).toBe(0);
    expect(result.positionsTested).toBe(positions.length);
  });

  it('does not lower the score for positions the array did not test', () => {
    const full = mtHaplogroup(readings('U5a'));
    // an array that read only the positions of U5a's own lineage from L3 down
    const lineage = lineagePositions('U5a').filter((p) => !lineagePositions('L3').includes(p));
    const sparse = mtHaplogroup(readings('U5a', lineage));
    expect(full.best?.haplogroup).toBe('U5a');
    expect(sparse.best?.haplogroup).toBe('U5a');
    expect(sparse.best?.quality).toBe(full.best?.quality);
    expect(sparse.best?.quality).toBe(1);
    expect(sparse.best?.untestedExpected).toBeGreaterThan(full.best!.untestedExpected);
    expect(sparse.positionsTested).toBeLessThan(full.positionsTested);
  });

  it('answers only the branch the tested positions reach', () => {
    // U5a's readings where U5 and U5a were not typed: only U can be seen
    const above = lineagePositions('U');
    const result = mtHaplogroup(readings('U5a', above));
    expect(result.best?.haplogroup).toBe('U');
    expect(result.deepestSupported).toBe('U');
    expect(result.notes.join(' ')).toContain('often supports only a major branch');
  });

  it('lowers the score of a branch whose tested variants are absent', () => {
    const withoutH1 = mtHaplogroup(
      readings('H1').map((o) => (o.position === 3010 ? { position: 3010, allele: 'G' } : o)),
    );
    expect(withoutH1.best?.haplogroup).toBe('H');
    expect(withoutH1.deepestSupported).toBe('H');
    // U5a without U's 12308G: U5a loses score, and PhyloTree's U5a2b2, which reverted 12308,
    // fits better (Haplogrep answers the same)
    const without12308 = mtHaplogroup(
      readings('U5a').map((o) => (o.position === 12308 ? { position: 12308, allele: 'A' } : o)),
    );
    expect(without12308.best?.haplogroup).toBe('U5a2b2');
    const u5a = without12308.runnersUp.find((c) => c.haplogroup === 'U5a');
    expect(u5a?.missing).toEqual(['12308G']);
    expect(u5a!.quality).toBeLessThan(without12308.best!.quality);
  });

  it('says when other branches fit just as well', () => {
    // 3010A arose several times in the tree: H1 and a few deeper H branches read the same here
    const result = mtHaplogroup(readings('H1'));
    expect(result.best?.haplogroup).toBe('H1');
    expect(result.runnersUp.filter((c) => c.quality === 1).length).toBeGreaterThan(0);
    expect(result.notes.join(' ')).toContain('fit the tested positions just as well');
  });

  it('does not read heteroplasmic calls or no-calls', () => {
    const result = mtHaplogroup([
      ...readings('H1'),
      { position: 16519, allele: 'CT' },
      { position: 152, allele: '--' },
      { position: 3107, allele: 'C' },
    ]);
    expect(result.best?.haplogroup).toBe('H1');
    expect(result.best?.quality).toBe(1);
    expect(result.callsIgnored).toBe(3);
    expect(result.positionsTested).toBe(PANEL.length);
    // AncestryDNA writes haploid MT calls doubled
    const doubled = readings('H1').map((o) => ({ ...o, allele: o.allele + o.allele }));
    expect(mtHaplogroup(doubled).best?.haplogroup).toBe('H1');
  });

  it('answers no MT data for a file without MT readings', () => {
    const result = mtHaplogroup([]);
    expect(result.status).toBe('no_mt_data');
    expect(result.best).toBeNull();
  });

  it("reads MT observations from a stored genome's markers", async () => {
    const file = generateGenome({ vendor: '23andme', sex: 'female', markers: 3000 });
    const index = decodeGenome(encodeGenome(await parseGenome(Readable.from([file]))));
    const observations = mtObservations(index.markers('MT'));
    expect(observations.length).toBeGreaterThan(0);
    const result = mtHaplogroup(observations);
    // a dozen random MT calls place no maternal line
    expect(result.status).toBe('not_determined');
    expect(result.deepestSupported).toBeNull();
    expect(result.positionsTested + result.callsIgnored).toBe(observations.length);
  });
});

/** The rCRS positions of the mutations on the branch directly above a haplogroup. */
function branchPositions(haplogroup: string): number[] {
  const mutations = mtLineage(haplogroup)?.at(-1)?.mutations ?? [];
  return mutations.filter((m) => !m.includes('.')).map((m) => Number(/\d+/.exec(m)![0]));
}

describe('mtHaplogroup support (issue 46)', () => {
  const I3D1_PATH = lineagePositions('I3d1');
  /** 49 positions off the lineage of I3d1 (none defines a branch above it), evenly spread. */
  const OFF_PATH = Array.from({ length: 60 }, (_, k) => 310 + k * 270)
    .filter((p) => !I3D1_PATH.includes(p))
    .slice(0, 49);

  it('issue 46: does not call I3d1 from one tested position with no branch above it tested', () => {
    // a 50-position file: 382T (one of I3d1's own mutations) and 49 positions off its lineage
    const result = mtHaplogroup(readings('I3d1', [382, ...OFF_PATH]));
    expect(result.positionsTested).toBe(50);
    expect(result.best?.haplogroup).toBe('I3d1');
    expect(result.status).toBe('not_determined');
    expect(result.deepestSupported).toBeNull();
    expect(result.support).toMatchObject({
      levels: 0,
      required: 3,
      testedPositions: 1,
      confirmedLevels: ['I3d1'],
      contradictedLevels: [],
    });
    expect(result.support.missingLevels).toEqual(
      expect.arrayContaining(['L3', 'N', 'N1', 'I', 'I3', 'I3d']),
    );
    expect(result.support.missingLevels).toHaveLength(result.support.pathLevels - 1);
    expect(result.reason).toContain('50 mitochondrial positions');
    expect(result.reason).toContain('I3d');
    expect(result.notes[0]).toContain('do not place the maternal line');
  });

  it('calls I3d1 when its tested positions confirm the branches from the root down', () => {
    const result = mtHaplogroup(readings('I3d1', [...I3D1_PATH, ...OFF_PATH]));
    expect(result.status).toBe('called');
    expect(result.best?.haplogroup).toBe('I3d1');
    expect(result.best?.quality).toBe(1);
    expect(result.deepestSupported).toBe('I3d1');
    expect(result.reason).toBeNull();
    expect(result.support.missingLevels).toEqual([]);
    expect(result.support.contradictedLevels).toEqual([]);
    expect(result.support.levels).toBe(result.support.pathLevels);
    // N's 10398A, reversed on N1a1's branch, is read there: neither branch is contradicted
    expect(result.path.find((s) => s.haplogroup === 'N')?.absent).toBe(0);
    // two untested branches in a row (I2'3 and I3) are bridged
    const bridged = [...branchPositions("I2'3"), ...branchPositions('I3')];
    const gap = mtHaplogroup(
      readings(
        'I3d1',
        I3D1_PATH.filter((p) => !bridged.includes(p)),
      ),
    );
    expect(gap.status).toBe('called');
    expect(gap.deepestSupported).toBe('I3d1');
    expect(gap.support.missingLevels).toEqual(["I2'3", 'I3']);
  });

  it('answers the deepest supported branch when the branches above the best fit were not tested', () => {
    // typed down to N1, then nothing until I3d1's own positions: eight untested branches between
    const below = ['N1a', "N1a1'2", 'N1a1', 'N1a1b', 'I', "I2'3", 'I3', 'I3d'];
    const belowN1 = below.flatMap(branchPositions);
    const upToN1 = lineagePositions('N1').filter((p) => !belowN1.includes(p));
    const result = mtHaplogroup(readings('I3d1', [...upToN1, ...branchPositions('I3d1')]));
    expect(result.best?.haplogroup).toBe('I3d1');
    expect(result.status).toBe('partial');
    expect(result.deepestSupported).toBe('N1');
    expect(result.support.missingLevels).toEqual(below);
    expect(result.support.levels).toBe(result.support.confirmedLevels.length - 1);
    expect(result.reason).toContain('Supported down to N1, not to I3d1');
    expect(result.reason).toContain("(N1a, N1a1'2, N1a1, N1a1b, I, I2'3, I3 and I3d)");
    expect(result.notes[0]).toContain('support only N1');
  });

  it('stops above a branch whose tested position reads against it', () => {
    // I3's only mutation (239C) reads ancestral: I3d and I3d1 below it are two levels, not three
    const result = mtHaplogroup(
      readings('I3d1', I3D1_PATH).map((o) => (o.position === 239 ? { ...o, allele: 'T' } : o)),
    );
    expect(result.best?.haplogroup).toBe('I3d1');
    expect(result.best!.quality).toBeGreaterThan(0.9);
    expect(result.status).toBe('partial');
    expect(result.deepestSupported).toBe("I2'3");
    expect(result.support.contradictedLevels).toEqual(['I3']);
    expect(result.reason).toContain('1 read against it (I3)');
  });

  it('does not count a hotspot reading as support', () => {
    // 152C and 16129A (recurring 60+ times in PhyloTree) and 382T: still one level, not three
    const result = mtHaplogroup(readings('I3d1', [152, 16129, 382, ...OFF_PATH.slice(2)]));
    expect(result.status).toBe('not_determined');
    expect(result.support.confirmedLevels).toEqual(['I3d1']);
    expect(result.path.find((s) => s.haplogroup === 'I')?.tested).toBe(0);
  });

  it('answers not determined for a handful of random calls', () => {
    const result = mtHaplogroup([
      { position: 4000, allele: 'T' },
      { position: 9000, allele: 'C' },
      { position: 12000, allele: 'T' },
    ]);
    expect(result.status).toBe('not_determined');
    expect(result.deepestSupported).toBeNull();
    expect(result.reason).toContain('3 mitochondrial positions');
  });
});

describe('yHaplogroup', () => {
  it('calls R-M269 inside R1b from constructed calls', () => {
    const result = yHaplogroup(lookup(R1B_CALLS), 'male');
    expect(result.status).toBe('called');
    expect(result.clade).toBe('R-M269');
    expect(result.path).toEqual([
      'BT',
      'CT',
      'CF',
      'F',
      'GHIJK',
      'HIJK',
      'IJK',
      'K',
      'K2',
      'P',
      'R',
      'R1',
      'R1b',
      'R-M269',
    ]);
    expect(result.derivedSupport).toBe(9);
    expect(result.ancestralOnPath).toBe(0);
    expect(result.conflicts).toEqual([]);
    expect(result.age?.yfull).toBe('R-M269');
    expect(result.age?.formed).toEqual({ years: 13300, low: 11800, high: 14900 });
  });

  it('stops at R1b when M269 reads ancestral, and says which child it rules out', () => {
    const result = yHaplogroup(lookup({ ...R1B_CALLS, rs9786153: 'T' }), 'male');
    expect(result.clade).toBe('R1b');
    expect(result.notIn).toEqual(['R-M269']);
    expect(result.age?.tmrca).toEqual({ years: 20400, low: 17500, high: 23300 });
    expect(result.notes.join(' ')).toContain('YFull YTree v14.02.0 (CC BY 4.0)');
  });

  it('calls E1b1a from constructed calls (doubled calls read as one allele)', () => {
    const doubled = Object.fromEntries(Object.entries(E1B1A_CALLS).map(([k, v]) => [k, v + v]));
    for (const calls of [E1B1A_CALLS, doubled]) {
      const result = yHaplogroup(lookup(calls), 'male');
      expect(result.clade).toBe('E1b1a');
      expect(result.path).toEqual(['BT', 'CT', 'DE', 'E', 'E1b1a']);
      expect(result.derivedSupport).toBe(4);
      expect(result.notIn).toEqual([]);
      expect(result.conflicts).toEqual([]);
    }
  });

  it('answers no Y data for a woman, even when her file has Y calls', () => {
    const result = yHaplogroup(lookup(R1B_CALLS), 'female');
    expect(result.status).toBe('no_y_data');
    expect(result.clade).toBeNull();
    expect(result.notes[0]).toContain('No Y data');
  });

  it('answers no Y data for a file without calls at the backbone SNPs', () => {
    const result = yHaplogroup(lookup({ rs4244285: 'AG' }), 'male');
    expect(result.status).toBe('no_y_data');
    expect(result.snpsTested).toBe(0);
  });

  it('reports a conflicting call and still answers the best-supported clade', () => {
    const offPath = yHaplogroup(lookup({ ...R1B_CALLS, rs2032597: 'C' }), 'male');
    expect(offPath.clade).toBe('R-M269');
    expect(offPath.conflicts).toEqual([
      { clade: 'I', snp: 'M170', rsid: 'rs2032597', call: 'C', state: 'derived' },
    ]);
    expect(offPath.notes.join(' ')).toContain('1 reading disagrees');

    const onPath = yHaplogroup(lookup({ ...R1B_CALLS, rs2032631: 'G', rs2032658: 'AG' }), 'male');
    expect(onPath.clade).toBe('R-M269');
    expect(onPath.ancestralOnPath).toBe(1);
    expect(onPath.conflicts.map((c) => [c.snp, c.state])).toEqual([
      ['M45', 'ancestral'],
      ['M207', 'unclear'],
    ]);
  });

  it('issue 46: does not call R-M269 from its one SNP with nothing above it read', () => {
    const result = yHaplogroup(lookup({ rs9786153: 'C' }), 'male');
    expect(result.status).toBe('not_determined');
    expect(result.clade).toBeNull();
    expect(result.bestFit).toBe('R-M269');
    expect(result.support).toMatchObject({ levels: 0, required: 2, testedPositions: 1 });
    expect(result.support.missingLevels).toEqual(['CT', 'CF', 'F', 'K', 'P', 'R', 'R1', 'R1b']);
    expect(result.reason).toContain('1 backbone SNP');
  });

  it('answers the deepest supported clade when the SNPs above the best fit were not read', () => {
    const calls = { rs2032595: 'T', rs4141886: 'A', rs2032652: 'T', rs9786153: 'C' };
    const result = yHaplogroup(lookup(calls), 'male');
    expect(result.status).toBe('partial');
    expect(result.clade).toBe('F');
    expect(result.bestFit).toBe('R-M269');
    expect(result.path).toEqual(['BT', 'CT', 'CF', 'F']);
    expect(result.age?.yfull).toBe('F');
    expect(result.support.missingLevels).toEqual(['K', 'P', 'R', 'R1', 'R1b']);
    expect(result.reason).toContain('K, P, R, R1 and R1b');
    const full = yHaplogroup(lookup(R1B_CALLS), 'male');
    expect(full.status).toBe('called');
    expect(full.bestFit).toBe('R-M269');
    expect(full.support).toMatchObject({ levels: 9, missingLevels: [], contradictedLevels: [] });
    expect(full.reason).toBeNull();
  });

  it('calls B from M60 only when M168 reads ancestral beside it', () => {
    const b = yHaplogroup(lookup({ rs2032623: 'I', rs2032595: 'C' }), 'male');
    expect(b.status).toBe('called');
    expect(b.clade).toBe('B');
    expect(b.support.confirmedLevels).toEqual(['BT', 'B']);
    const alone = yHaplogroup(lookup({ rs2032623: 'I' }), 'male');
    expect(alone.status).toBe('not_determined');
    expect(alone.clade).toBeNull();
  });

  it('places a man outside CT in A when B reads ancestral too', () => {
    const result = yHaplogroup(lookup({ rs2032595: 'C', rs2032623: 'D' }), null);
    expect(result.clade).toBe('A');
    expect(result.notes.join(' ')).toContain('outside CT');
    expect(result.support).toMatchObject({ levels: 2, confirmedLevels: ['B', 'CT'] });
    const unsure = yHaplogroup(lookup({ rs2032595: 'C' }), 'male');
    expect(unsure.status).toBe('not_determined');
    expect(unsure.clade).toBeNull();
  });
});

describe('deepTimeReport', () => {
  it('answers both lines with what a haplogroup is and where the ages come from', () => {
    const report = deepTimeReport({ mt: readings('U5a'), calls: lookup(R1B_CALLS), sex: 'male' });
    expect(report.maternal.best?.haplogroup).toBe('U5a');
    expect(report.paternal.clade).toBe('R-M269');
    const words = report.notes.join(' ');
    expect(words).toContain('one line of ancestry among thousands');
    expect(words).toContain('95% intervals');
    expect(report.sources.join(' ')).toContain('CC BY 4.0');
    const woman = deepTimeReport({ mt: readings('L3'), calls: lookup({}), sex: 'female' });
    expect(woman.maternal.best?.haplogroup).toBe('L3');
    expect(woman.paternal.status).toBe('no_y_data');
  });
});
