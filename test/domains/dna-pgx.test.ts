/**
 * Medicines (pharmacogenomics) and HLA tags of the DNA domain (issue 34), as pure functions over
 * an in-memory call lookup: known genotypes give CPIC's phenotypes, unphased ambiguity answers every
 * phenotype, untested sites are listed, CYP2D6/G6PD/HLA are not determinable, no dose is ever
 * written, every rsID the code names is in the shipped tables, and the lookup agrees with
 * PharmCAT's own example reports (test/fixtures/dna/README.md).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/base/paths.ts';
import { hlaReport, HLA_TAG_RSIDS } from '../../src/domains/dna/dna.hla.ts';
import {
  definitionRsids,
  medicinesReport,
  type GeneReport,
  type GenomeFacts,
} from '../../src/domains/dna/dna.pgx.ts';
import type { CallLookup } from '../../src/domains/dna/dna.types.ts';

/** A lookup over rsID -> call ('--' is a no-call). */
function lookup(calls: Record<string, string>): CallLookup {
  const m = new Map(Object.entries(calls));
  return {
    call: (rsid) => {
      const c = m.get(rsid);
      return c === undefined || c === '--' ? null : c;
    },
    has: (rsid) => m.has(rsid),
    build: 'GRCh37',
  };
}

/** Reads a VCF's single-base rows with an rsID into calls by rsID (indels skipped, as on arrays). */
function vcfLookup(file: string): CallLookup {
  const calls: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [, , id, ref, alt, , , , , sample] = line.split('\t');
    const alleles = [ref, ...alt.split(',')];
    if (!alleles.every((a) => /^[ACGT]$/.test(a))) continue;
    const gt = sample.split(':')[0].split(/[/|]/);
    const call = gt.every((g) => /^\d+$/.test(g))
      ? gt.map((g) => alleles[Number(g)]).join('')
      : '--';
    for (const rsid of id.split(';')) if (rsid.startsWith('rs')) calls[rsid] = call;
  }
  return lookup(calls);
}

/** Typical array sites, all reference (forward strand). */
const REFERENCE: Record<string, string> = {
  rs4244285: 'GG',
  rs4986893: 'GG',
  rs12248560: 'CC',
  rs28399504: 'AA',
  rs12769205: 'AA',
  rs3758581: 'GG',
  rs1799853: 'CC',
  rs1057910: 'AA',
  rs9923231: 'CC',
  rs4149056: 'TT',
  rs2306283: 'AA',
  rs1800460: 'CC',
  rs1142345: 'TT',
  rs1800462: 'CC',
  rs116855232: 'CC',
  rs3918290: 'CC',
  rs55886062: 'AA',
  rs67376798: 'TT',
  rs75017182: 'GG',
  rs56038477: 'CC',
  rs776746: 'TT',
  rs2231142: 'GG',
  rs887829: 'CC',
  rs4148323: 'GG',
  rs2108622: 'CC',
};

/** A 23andMe GRCh37 file (strand known) of a person whose sex is not told. */
const FACTS: GenomeFacts = { vendor: '23andme', build: 'GRCh37', sex: null };

const gene = (r: GeneReport[], g: string): GeneReport => r.find((x) => x.gene === g)!;
const report = (over: Record<string, string>): GeneReport[] =>
  medicinesReport(lookup({ ...REFERENCE, ...over }), FACTS);
/** The diplotypes that set the phenotype (not those assumed absent). */
const dips = (r: GeneReport): string[] =>
  r.diplotypes.filter((d) => !d.assumed).map((d) => d.diplotype);

describe('medicinesReport', () => {
  it.each([
    [{}, '*1/*1', 'Normal Metabolizer'],
    [{ rs4244285: 'AG', rs12769205: 'AG' }, '*1/*2', 'Intermediate Metabolizer'],
    [{ rs4244285: 'AA', rs12769205: 'GG' }, '*2/*2', 'Poor Metabolizer'],
    [{ rs12248560: 'CT' }, '*1/*17', 'Rapid Metabolizer'],
    [{ rs12248560: 'TT' }, '*17/*17', 'Ultrarapid Metabolizer'],
  ])('calls CYP2C19 %j as %s (%s)', (over, diplotype, phenotype) => {
    const r = gene(report(over), 'CYP2C19');
    expect(dips(r)).toEqual([diplotype]);
    expect(r.phenotype).toBe(phenotype);
  });

  it('calls CYP2C9 *1/*3 with VKORC1 -1639 AG for warfarin', () => {
    const r = gene(report({ rs1057910: 'AC', rs9923231: 'CT' }), 'CYP2C9');
    expect(dips(r)).toEqual(['*1/*3']);
    expect(r.phenotype).toBe('Intermediate Metabolizer');
    expect(r.diplotypes[0].activityScore).toBe('1.0');
    expect(r.vkorc1).toEqual({
      rsid: 'rs9923231',
      call: 'CT',
      genotype: 'CT',
      phenotype: '-1639 AG',
    });
    expect(r.drugs).toContain('warfarin');
  });

  it('calls SLCO1B1 rs4149056 CC poor function, CYP3A5 *3/*3 and NUDT15 *1/*3', () => {
    const r = report({ rs4149056: 'CC', rs776746: 'CC', rs116855232: 'CT' });
    expect(gene(r, 'SLCO1B1').phenotype).toBe('Poor Function');
    expect(dips(gene(r, 'CYP3A5'))).toEqual(['*3/*3']);
    expect(gene(r, 'CYP3A5').phenotype).toBe('Poor Metabolizer');
    expect(dips(gene(r, 'NUDT15'))).toEqual(['*1/*3']);
    expect(gene(r, 'NUDT15').phenotype).toBe('Intermediate Metabolizer');
  });

  it('calls a DPYD *2A carrier and says absence of rare variants cannot be concluded', () => {
    const r = gene(report({ rs3918290: 'CT' }), 'DPYD');
    expect(dips(r)).toEqual(['Reference/c.1905+1G>A (*2A)']);
    expect(r.phenotype).toBe('Intermediate Metabolizer');
    expect(r.notes.join(' ')).toMatch(/absence of rare DPYD variants cannot be concluded/i);
    expect(gene(report({}), 'DPYD').notes.join(' ')).toMatch(/cannot be concluded/);
  });

  it('answers both TPMT *1/*3A and *3B/*3C when heterozygous at both *3A sites', () => {
    const r = gene(report({ rs1800460: 'CT', rs1142345: 'CT' }), 'TPMT');
    expect(dips(r).sort()).toEqual(['*1/*3A', '*3B/*3C']);
    expect(r.phenotypes.sort()).toEqual(['Intermediate Metabolizer', 'Poor Metabolizer']);
    expect(r.phenotype).toBeNull();
    expect(r.notes.join(' ')).toMatch(/unphased/);
    expect(gene(report({}), 'TPMT').notes.join(' ')).not.toMatch(/unphased/);
  });

  it('lists missing sites and the alleles it could not test', () => {
    const calls = { ...REFERENCE, rs4986893: '--' };
    delete (calls as Record<string, string | undefined>).rs28399504;
    const r = gene(medicinesReport(lookup(calls), FACTS), 'CYP2C19');
    expect(r.missing).toEqual(expect.arrayContaining(['rs4986893', 'rs28399504']));
    expect(r.tested).toContain('rs4244285');
    expect(r.sites.find((s) => s.rsid === 'rs4986893')!.status).toBe('no-call');
    expect(r.sites.find((s) => s.rsid === 'rs28399504')!.status).toBe('absent');
    // *4 fits the sites read but needs rs28399504 (absent): listed as PharmCAT lists it, assumed
    // absent; *5 needs only sites not read: untested; *3's key site is a no-call: *3 stays possible
    expect(r.diplotypes.find((d) => d.diplotype === '*1/*4')?.assumed).toBe(true);
    expect(r.untestedAlleles).toEqual(expect.arrayContaining(['*5']));
    expect(r.untestedAlleles).not.toContain('*4');
    expect(r.untestedAlleles).not.toContain('*3');
    expect(dips(r)).toEqual(expect.arrayContaining(['*1/*1', '*1/*3', '*3/*3']));
    expect(r.notes.join(' ')).toMatch(/untested sites could change it/);
  });

  it('reads a reverse-strand call by its complement, but not at A/T or C/G sites', () => {
    const r = gene(report({ rs4244285: 'CT', rs12769205: 'CT' }), 'CYP2C19');
    expect(dips(r)).toEqual(['*1/*2']);
    expect(r.notes.join(' ')).toMatch(/reverse strand/);
  });

  it('answers CYP2D6 and HLA as not determinable with the reason', () => {
    const r = report({});
    for (const g of ['CYP2D6', 'HLA']) {
      expect(gene(r, g).determinable).toBe(false);
      expect(gene(r, g).status).toBe('not-determinable');
      expect(gene(r, g).reason).toMatch(/not determinable from array data/i);
    }
    expect(r.map((g) => g.gene)).toEqual([
      'CYP2C19',
      'CYP2C9',
      'SLCO1B1',
      'ABCG2',
      'TPMT',
      'NUDT15',
      'DPYD',
      'CYP3A5',
      'UGT1A1',
      'G6PD',
      'CYP2D6',
      'HLA',
    ]);
  });

  it('names drugs with "talk to your prescriber" and never a dose', () => {
    const all = [report({}), report({ rs4244285: 'AA', rs1057910: 'CC', rs3918290: 'CT' })];
    const text = JSON.stringify(all) + JSON.stringify(hlaReport(lookup(REFERENCE)));
    expect(text).not.toMatch(/\d\s*(mg|mcg|µg|g\/day)\b/i);
    expect(text).not.toMatch(/\bdos(e|es|ing|age)\b/i);
    for (const g of all[0]) {
      expect(g.drugs.length).toBeGreaterThan(0);
      expect(g.advice).toMatch(/talk to your prescriber/);
    }
  });
});

describe('issue 46: the rules a warning depends on', () => {
  it('keeps a DPYD *2A/*2A Poor Metabolizer Poor when one HapB3 copy is added', () => {
    const r = gene(report({ rs3918290: 'TT', rs75017182: 'GC', rs56038477: 'CT' }), 'DPYD');
    expect(r.status).toBe('determined');
    expect(r.phenotype).toBe('Poor Metabolizer');
    expect(r.diplotypes[0].activityScore).toBe('0.0');
    expect(dips(r)).toEqual(['c.1905+1G>A (*2A)/c.1905+1G>A (*2A)']);
    expect(r.finding).toMatch(/presuming different variants sit on different copies/);
  });

  it('calls *2A, c.2846A>T and HapB3 all heterozygous a DPYD Poor Metabolizer (two lowest)', () => {
    const r = gene(
      report({ rs3918290: 'CT', rs67376798: 'AT', rs75017182: 'GC', rs56038477: 'CT' }),
      'DPYD',
    );
    expect(r.phenotype).toBe('Poor Metabolizer');
    expect(r.diplotypes[0].activityScore).toBe('0.5');
    expect(r.diplotypes[0].alleles).toContain('c.1905+1G>A (*2A)');
    expect(r.notes.join(' ')).toMatch(/3 variant copies.*two lowest activity values/);
  });

  it('does not call CYP2C19 *1/*1 when rs4244285 is a no-call: not determined, naming it', () => {
    // rs12769205 (also on *2) is absent from many arrays: then rs4244285 alone decides *2
    const calls: Record<string, string> = { ...REFERENCE, rs4244285: '--' };
    delete calls.rs12769205;
    const r = gene(medicinesReport(lookup(calls), FACTS), 'CYP2C19');
    expect(r.status).toBe('not-determined');
    expect(r.phenotype).toBeNull();
    expect(r.keySitesNotRead).toEqual(['rs4244285']);
    expect(r.reason).toMatch(/rs4244285 \(\*2.*\): a no-call in the file/);
    expect(r.phenotypes).toEqual(
      expect.arrayContaining(['Normal Metabolizer', 'Poor Metabolizer']),
    );
  });

  it('does not call CYP3A5 normal when rs776746 is not in the file: not determined, naming it', () => {
    // the *6 site read, *3's not: the earlier rules answered *1/*1 Normal Metabolizer
    const calls: Record<string, string> = { ...REFERENCE, rs10264272: 'CC' };
    delete calls.rs776746;
    const r = gene(medicinesReport(lookup(calls), FACTS), 'CYP3A5');
    expect(r.status).toBe('not-determined');
    expect(r.phenotype).toBeNull();
    expect(r.reason).toMatch(/rs776746 \(\*3.*\): not in the file/);
    expect(r.phenotypes).toEqual(expect.arrayContaining(['Poor Metabolizer']));
    expect(r.finding).toMatch(/^CYP3A5: Not determined/);
  });

  it('keeps a phenotype a missing key site cannot change, and says so', () => {
    const r = gene(report({ rs4244285: 'AA', rs12769205: 'GG', rs12248560: '--' }), 'CYP2C19');
    expect(r.phenotype).toBe('Poor Metabolizer');
    expect(r.keySitesNotRead).toEqual(['rs12248560']);
    expect(r.notes.join(' ')).toMatch(/would not change this phenotype/);
  });

  it("never lists a diplotype's own alleles among its untested alleles", () => {
    const cases: Record<string, string>[] = [
      { rs4149056: 'CT' },
      { rs4244285: 'AG' },
      { rs1057910: 'AC' },
    ];
    // *2/*17 from a file without rs12769205 (also on *2): the earlier rules listed *2 as untested
    const withoutSecondSite: Record<string, string> = {
      ...REFERENCE,
      rs4244285: 'AG',
      rs12248560: 'CT',
    };
    delete withoutSecondSite.rs12769205;
    const reports = [...cases.map(report), medicinesReport(lookup(withoutSecondSite), FACTS)];
    for (const r of reports) {
      for (const g of r) {
        const own = new Set(g.diplotypes.flatMap((d) => d.alleles));
        expect(g.untestedAlleles.filter((a) => own.has(a))).toEqual([]);
      }
    }
    expect(dips(gene(reports[3], 'CYP2C19'))).toEqual(['*2/*17']);
  });

  it('reads UGT1A1 *80 as a likelihood, naming the TA repeat no array reads', () => {
    const one = gene(report({ rs887829: 'CT' }), 'UGT1A1');
    expect(one.status).toBe('not-determined');
    expect(one.keySitesNotRead).toEqual(['rs3064744']);
    expect(one.finding).toMatch(
      /One \*80 copy.*Intermediate Metabolizer is likely.*TA-repeat test/,
    );
    expect(one.drugs).toEqual(['atazanavir']);
    const two = gene(report({ rs887829: 'TT' }), 'UGT1A1');
    expect(two.finding).toMatch(/Poor Metabolizer is likely/);
    const star6 = gene(report({ rs4148323: 'AA' }), 'UGT1A1');
    expect(star6.phenotypes).toEqual(['Poor Metabolizer']);
    expect(star6.status).toBe('determined');
  });

  it('calls ABCG2 rs2231142 and CYP4F2*3 with their CPIC drugs', () => {
    const r = report({ rs2231142: 'GT', rs2108622: 'CT' });
    expect(gene(r, 'ABCG2').phenotype).toBe('Decreased Function');
    expect(gene(r, 'ABCG2').drugs).toEqual(['rosuvastatin']);
    expect(gene(r, 'CYP2C9').cyp4f2).toMatchObject({
      rsid: 'rs2108622',
      phenotype: '*1/*3 (one copy of the *3 variant)',
    });
    expect(gene(r, 'CYP2C9').drugs).toContain('warfarin');
  });

  it('reports a G6PD deficiency variant by sex, and never concludes a normal G6PD', () => {
    const male = gene(
      medicinesReport(lookup({ ...REFERENCE, rs1050828: 'T', rs1050829: 'C' }), {
        ...FACTS,
        sex: 'male',
      }),
      'G6PD',
    );
    expect(male.phenotype).toBe('Deficient');
    expect(male.diplotypes[0].diplotype).toBe('A- 202A_376G (hemizygous)');
    const female = gene(
      medicinesReport(lookup({ ...REFERENCE, rs5030868: 'AG' }), { ...FACTS, sex: 'female' }),
      'G6PD',
    );
    expect(female.phenotype).toBe('Variable');
    expect(female.finding).toMatch(/Mediterranean.*one X.*Variable.*enzyme activity test/);
    const none = gene(
      medicinesReport(lookup({ ...REFERENCE, rs1050828: 'CC', rs5030868: 'GG' }), FACTS),
      'G6PD',
    );
    expect(none.phenotype).toBeNull();
    expect(none.status).toBe('not-determined');
    expect(none.reason).toMatch(/normal G6PD result cannot be concluded from an array/);
    expect(gene(report({}), 'G6PD').drugs).toContain('rasburicase');
  });

  it("reads an A/T site only when the file's vendor fixes the strand", () => {
    const over = { ...REFERENCE, rs67376798: 'AT' };
    const known = gene(medicinesReport(lookup(over), FACTS), 'DPYD');
    expect(known.phenotype).toBe('Intermediate Metabolizer');
    const myheritage = { vendor: 'myheritage', build: 'GRCh37', sex: null } as const;
    const unknown = gene(medicinesReport(lookup(over), myheritage), 'DPYD');
    expect(unknown.sites.find((s) => s.rsid === 'rs67376798')!.status).toBe('strand-unknown');
    // rs75017182 (HapB3, G/C) is strand-ambiguous too
    expect(unknown.keySitesNotRead).toEqual(['rs67376798', 'rs75017182']);
    expect(unknown.status).toBe('not-determined');
    expect(unknown.reason).toMatch(/rs67376798.*A\/T or C\/G site/);
  });
});

describe('shipped tables', () => {
  it('hold every rsID the code and these tests name', () => {
    const known = new Set([...definitionRsids().values()].flatMap((s) => [...s]));
    const sources = [
      'src/domains/dna/dna.pgx.ts',
      'src/domains/dna/dna.pgx.rules.ts',
      'test/domains/dna-pgx.test.ts',
    ];
    const named = sources.flatMap((f) => readFileSync(fromRoot(f), 'utf8').match(/rs\d+/g) ?? []);
    const hla = new Set(HLA_TAG_RSIDS);
    const unknown = [...new Set(named)].filter((r) => !known.has(r) && !hla.has(r));
    expect(unknown).toEqual([]);
    expect(named.length).toBeGreaterThan(10);
  });
});

describe('PharmCAT example reports', () => {
  // Expected values copied from docs/examples/pharmcat.example.report.json and
  // pharmcat.example2.report.json (PharmCAT commit 5431bf1187e50383df7e7db18ef67b36fc8b562e),
  // genes.<gene>.sourceDiplotypes[].label and .phenotypes.
  const common: Record<string, [string, string]> = {
    CYP2C9: ['*1/*1', 'Normal Metabolizer'],
    SLCO1B1: ['*1/*1', 'Normal Function'],
    TPMT: ['*1/*1', 'Normal Metabolizer'],
    NUDT15: ['*1/*1', 'Normal Metabolizer'],
    DPYD: ['Reference/Reference', 'Normal Metabolizer'],
    CYP3A5: ['*1/*1', 'Normal Metabolizer'],
  };
  it.each([
    ['pharmcat.example.vcf', { ...common, CYP2C19: ['*38/*38', 'Normal Metabolizer'] }],
    ['pharmcat.example2.vcf', { ...common, CYP2C19: ['*2/*2', 'Poor Metabolizer'] }],
  ] as const)('agrees with PharmCAT on %s', (file, expected) => {
    const calls = vcfLookup(path.join(fromRoot('test/fixtures/dna'), file));
    const r = medicinesReport(calls, { vendor: 'vcf', build: 'GRCh38', sex: null });
    const got = Object.fromEntries(
      Object.keys(expected).map((g) => [g, [dips(gene(r, g)).join(' | '), gene(r, g).phenotype]]),
    );
    expect(got).toEqual(expected);
    expect(gene(r, 'CYP2C9').vkorc1!.phenotype).toBe('-1639 GG');
  });
});

describe('hlaReport', () => {
  it('answers likelihoods labelled not an HLA type, with ancestry and source', () => {
    const r = hlaReport(
      lookup({ rs2395029: 'TG', rs1061235: 'AT', rs9263726: 'GG', rs2187668: '--' }),
    );
    const by = Object.fromEntries(r.map((t) => [t.rsid, t]));
    expect(by.rs2395029.likelihood).toBe('carrier likely');
    expect(by.rs2395029.validatedIn).toMatch(/European/);
    expect(by.rs1061235.likelihood).toBe('unknown');
    expect(by.rs9263726.likelihood).toBe('carrier unlikely');
    expect(by.rs9263726.validatedIn).toMatch(/Japanese/);
    expect(by.rs2187668.likelihood).toBe('unknown');
    expect(by.rs7454108.likelihood).toBe('unknown');
    expect(r).toHaveLength(5);
    for (const t of r) {
      expect(t.label).toBe('not an HLA type');
      expect(t.source).toMatch(/\d{4}/);
      expect(t.caveat).toMatch(/not an HLA type/);
    }
  });
});
