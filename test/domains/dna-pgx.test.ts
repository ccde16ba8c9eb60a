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
  rs776746: 'TT',
};

const gene = (r: GeneReport[], g: string): GeneReport => r.find((x) => x.gene === g)!;
const report = (over: Record<string, string>): GeneReport[] =>
  medicinesReport(lookup({ ...REFERENCE, ...over }));
const dips = (r: GeneReport): string[] => r.diplotypes.map((d) => d.diplotype);

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
    const r = gene(medicinesReport(lookup(calls)), 'CYP2C19');
    expect(r.missing).toEqual(expect.arrayContaining(['rs4986893', 'rs28399504']));
    expect(r.tested).toContain('rs4244285');
    expect(r.sites.find((s) => s.rsid === 'rs4986893')!.status).toBe('no-call');
    expect(r.sites.find((s) => s.rsid === 'rs28399504')!.status).toBe('absent');
    expect(r.untestedAlleles).toEqual(expect.arrayContaining(['*3', '*4']));
    expect(r.notes.join(' ')).toMatch(/untested sites could change it/);
  });

  it('reads a reverse-strand call by its complement, but not at A/T or C/G sites', () => {
    const r = gene(report({ rs4244285: 'CT', rs12769205: 'CT' }), 'CYP2C19');
    expect(dips(r)).toEqual(['*1/*2']);
    expect(r.notes.join(' ')).toMatch(/reverse strand/);
  });

  it('answers CYP2D6, G6PD and HLA as not determinable with the reason', () => {
    const r = report({});
    for (const g of ['CYP2D6', 'G6PD', 'HLA']) {
      expect(gene(r, g).determinable).toBe(false);
      expect(gene(r, g).reason).toMatch(/not determinable from array data/i);
    }
    expect(r.map((g) => g.gene)).toEqual([
      'CYP2C19',
      'CYP2C9',
      'SLCO1B1',
      'TPMT',
      'NUDT15',
      'DPYD',
      'CYP3A5',
      'CYP2D6',
      'G6PD',
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

describe('shipped tables', () => {
  it('hold every rsID the code and these tests name', () => {
    const known = new Set([...definitionRsids().values()].flatMap((s) => [...s]));
    const sources = ['src/domains/dna/dna.pgx.ts', 'test/domains/dna-pgx.test.ts'];
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
    const r = medicinesReport(vcfLookup(path.join(fromRoot('test/fixtures/dna'), file)));
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
