/**
 * The curated DNA knowledge (issue 34): the shipped cards validate and stay honest (sources,
 * dates, no causal wording, no doses), and lookups read an in-memory genome the way a parsed file
 * would be read (called, no-call, absent, strand-ambiguous, rare carriers, the 50-rsID limit).
 */
import { readFileSync } from 'node:fs';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  KNOWLEDGE_PATH,
  KnowledgeSchema,
  MAX_LOOKUP_RSIDS,
  MAX_SEARCH_RESULTS,
  apoeHaplotype,
  geneCard,
  knowledge,
  knowledgeLookup,
  lookupVariants,
  reportOverview,
  variantCards,
} from '../../src/domains/dna/dna.knowledge.ts';
import type { CallLookup } from '../../src/domains/dna/dna.types.ts';

/** A genome held in memory: rsID -> call, '--' for a no-call. */
function genome(calls: Record<string, string>): CallLookup {
  return {
    call: (rsid) => (calls[rsid] === undefined || calls[rsid] === '--' ? null : calls[rsid]),
    has: (rsid) => calls[rsid] !== undefined,
    build: 'GRCh37',
  };
}

/** Every text a person may read from a card. */
function cardTexts(): string[] {
  const k = knowledge();
  return [
    ...k.variants.flatMap((v) => [v.summary, ...Object.values(v.genotypes)]),
    ...k.genes.flatMap((g) => [g.function, g.arrays]),
    ...k.haplotypes.flatMap((h) => [h.summary, ...Object.values(h.combinations)]),
    ...k.notDeterminable.map((n) => n.reason),
  ];
}

describe('data/dna/knowledge.json', () => {
  it('validates against the schema', () => {
    const parsed = KnowledgeSchema.safeParse(JSON.parse(readFileSync(KNOWLEDGE_PATH, 'utf8')));
    expect(parsed.success).toBe(true);
  });

  it('holds between 50 and 200 variants, each with a source and a checked date', () => {
    const cards = variantCards();
    expect(cards.length).toBeGreaterThanOrEqual(50);
    expect(cards.length).toBeLessThanOrEqual(200);
    for (const v of cards) {
      expect(v.sources.length, v.rsid).toBeGreaterThan(0);
      expect(v.checked, v.rsid).toBe('2026-11-29');
    }
  });

  it('has no duplicate rsIDs', () => {
    const ids = variantCards().map((v) => v.rsid);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keys every genotype reading by a valid call of the card alleles', () => {
    for (const v of variantCards()) {
      const alleles = [v.otherAllele, v.effectAllele];
      const diploid = [
        [v.otherAllele, v.otherAllele],
        [v.otherAllele, v.effectAllele],
        [v.effectAllele, v.effectAllele],
      ].map((p) => p.sort().join(''));
      for (const key of Object.keys(v.genotypes)) {
        const valid = key.length === 1 ? alleles.includes(key) : diploid.includes(key);
        expect(valid, `${v.rsid} ${key}`).toBe(true);
      }
      for (const key of diploid) expect(v.genotypes[key], `${v.rsid} ${key}`).toBeTruthy();
    }
  });

  it('flags every A/T and C/G site as strand-ambiguous, and only those', () => {
    for (const v of variantCards()) {
      const pair = [v.otherAllele, v.effectAllele].sort().join('');
      const ambiguous = v.kind === 'snv' && (pair === 'AT' || pair === 'CG');
      expect(v.strandAmbiguous, v.rsid).toBe(ambiguous);
    }
  });

  it('marks every rare card as needing clinical confirmation', () => {
    for (const v of variantCards().filter((c) => c.rare)) {
      expect(v.needsClinicalConfirmation, v.rsid).toBe(true);
    }
  });

  it('has gene cards for the pharmacogenes, HLA and every variant card gene', () => {
    for (const s of ['CYP2C19', 'CYP2C9', 'VKORC1', 'SLCO1B1', 'TPMT', 'NUDT15', 'DPYD']) {
      expect(geneCard(s)?.symbol).toBe(s);
    }
    for (const s of ['CYP3A5', 'CYP2D6', 'G6PD', 'HLA-B', 'HLA-A', 'HLA-DQB1']) {
      expect(geneCard(s), s).not.toBeNull();
    }
    for (const v of variantCards()) expect(geneCard(v.gene), v.gene).not.toBeNull();
  });

  it('says no card text "causes" and names no dose', () => {
    for (const text of cardTexts()) {
      expect(text).not.toMatch(/\bcause[sd]?\b/i);
      expect(text).not.toMatch(/\b\d+(\.\d+)?\s*(mg|mcg|µg|ml|iu|units?)\b|\bmg\b/i);
    }
  });
});

describe('lookupVariants', () => {
  const person = genome({
    rs4244285: 'AG', // CYP2C19*2 heterozygous
    rs1801133: '--', // MTHFR C677T, no call
    rs1799945: 'CG', // HFE H63D, a C/G site
    rs80359550: 'DI', // BRCA2 6174delT reported as carried
    rs34637584: 'GG', // LRRK2, not carried
    rs6025: 'AG', // letters that are not the card's alleles
    rs9999999: 'AA', // not curated
  });

  it('reads a called curated site with its interpretation', () => {
    const [r] = lookupVariants(person, ['rs4244285']);
    expect(r.status).toBe('called');
    expect(r.call).toBe('AG');
    expect(r.card?.gene).toBe('CYP2C19');
    expect(r.effectAlleleCopies).toBe(1);
    expect(r.interpretation).toMatch(/intermediate/);
    expect(r.needsClinicalConfirmation).toBe(false);
  });

  it('says "no call" and "not in your file"', () => {
    const [noCall, absent] = lookupVariants(person, ['rs1801133', 'rs4149056']);
    expect(noCall).toMatchObject({ status: 'no_call', call: null, note: 'no call' });
    expect(noCall.card?.gene).toBe('MTHFR');
    expect(absent).toMatchObject({ status: 'not_in_file', call: null, note: 'not in your file' });
  });

  it('flags a strand-ambiguous site', () => {
    const [r] = lookupVariants(person, ['rs1799945']);
    expect(r.strandAmbiguous).toBe(true);
    expect(r.effectAlleleCopies).toBe(1);
    expect(r.note).toMatch(/strand/);
  });

  it('flags a carried rare variant as needing clinical confirmation, and not a non-carrier', () => {
    const [brca2, lrrk2] = lookupVariants(person, ['rs80359550', 'rs34637584']);
    expect(brca2.needsClinicalConfirmation).toBe(true);
    expect(brca2.note).toMatch(/needs clinical confirmation/);
    expect(lrrk2.needsClinicalConfirmation).toBe(false);
    expect(lrrk2.effectAlleleCopies).toBe(0);
  });

  it('does not read letters outside the card alleles', () => {
    const [r] = lookupVariants(person, ['rs6025']);
    expect(r.interpretation).toBeNull();
    expect(r.effectAlleleCopies).toBeNull();
    expect(r.note).toMatch(/does not match/);
  });

  it('answers an uncurated rsID with the call only', () => {
    const [r] = lookupVariants(person, ['RS9999999']);
    expect(r).toMatchObject({ rsid: 'rs9999999', call: 'AA', card: null, interpretation: null });
    expect(r.note).toBe('no curated card: this says nothing about health');
  });

  it('refuses more than 50 rsIDs with VALIDATION_FAILED', () => {
    const many = Array.from({ length: MAX_LOOKUP_RSIDS + 1 }, (_, i) => `rs${i + 1}`);
    expect(lookupVariants(person, many.slice(0, MAX_LOOKUP_RSIDS))).toHaveLength(50);
    let thrown: unknown;
    try {
      lookupVariants(person, many);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(GraphQLError);
    expect((thrown as GraphQLError).extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('apoeHaplotype', () => {
  const apoe = (rs429358: string, rs7412: string) => apoeHaplotype(genome({ rs429358, rs7412 }));

  it('reads e3/e3, e3/e4, e4/e4 and e2/e3', () => {
    expect(apoe('TT', 'CC').combination).toBe('e3/e3');
    expect(apoe('CT', 'CC').combination).toBe('e3/e4');
    expect(apoe('CC', 'CC').combination).toBe('e4/e4');
    expect(apoe('TT', 'CT').combination).toBe('e2/e3');
    expect(apoe('CT', 'CC').interpretation).toMatch(/Alzheimer/);
  });

  it('names the e1/e3 alternative of a double heterozygote and says phase is assumed', () => {
    const r = apoe('CT', 'CT');
    expect(r).toMatchObject({ combination: 'e2/e4', alternative: 'e1/e3' });
    expect(r.note).toMatch(/phase/);
  });

  it('is not determinable when a site is missing', () => {
    const r = apoeHaplotype(genome({ rs429358: 'TT' }));
    expect(r.combination).toBeNull();
    expect(r.note).toMatch(/Not determinable/);
  });
});

describe('knowledgeLookup', () => {
  it('finds by rsID, by symbol and by word', () => {
    expect(knowledgeLookup('rs6025').variants.map((v) => v.gene)).toEqual(['F5']);
    const cyp = knowledgeLookup('cyp2c19');
    expect(cyp.genes.map((g) => g.symbol)).toContain('CYP2C19');
    expect(cyp.variants.map((v) => v.rsid)).toEqual(
      expect.arrayContaining(['rs4244285', 'rs4986893', 'rs12248560']),
    );
    expect(knowledgeLookup('warfarin').variants.map((v) => v.rsid)).toContain('rs9923231');
    expect(knowledgeLookup('zzzz-nothing')).toMatchObject({ genes: [], variants: [] });
  });

  it('answers at most MAX_SEARCH_RESULTS cards of each kind', () => {
    const r = knowledgeLookup('allele');
    expect(r.variants.length).toBeLessThanOrEqual(MAX_SEARCH_RESULTS);
    expect(r.truncated).toBe(true);
  });
});

describe('reportOverview', () => {
  it('counts by category, flags carried rare variants and lists what is not determinable', () => {
    const r = reportOverview(
      genome({ rs4244285: 'AG', rs80359550: 'DI', rs429358: 'CT', rs7412: 'CC', rs671: '--' }),
    );
    expect(r.curatedVariants).toBe(variantCards().length);
    expect(r.inFile).toBe(5);
    expect(r.called).toBe(4);
    expect(r.byCategory.medicine).toMatchObject({ called: 1, carrying: 1 });
    expect(r.byCategory.trait.called).toBe(0);
    expect(r.needsClinicalConfirmation.map((x) => x.rsid)).toEqual(['rs80359550']);
    expect(r.apoe.combination).toBe('e3/e4');
    const ids = r.notDeterminable.map((n) => n.id);
    for (const id of ['cyp2d6_copy_number', 'hla_typing', 'g6pd_status', 'malignant_hyperthermia'])
      expect(ids).toContain(id);
    expect(ids).toEqual(expect.arrayContaining(['absence_of_rare_variants', 'polygenic_risk']));
    for (const n of r.notDeterminable) expect(n.reason.length).toBeGreaterThan(20);
  });
});
