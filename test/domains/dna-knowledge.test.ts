/**
 * The curated DNA knowledge (issue 34): the shipped cards validate and stay honest (sources,
 * dates, no causal wording, no doses, no reading worded as a diagnosis: issue 46), and lookups
 * read an in-memory genome the way a parsed file would be read (called, no-call, absent,
 * strand-ambiguous by vendor and build, rare carriers, the 50-rsID limit).
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
import type { VariantCard } from '../../src/domains/dna/dna.knowledge.ts';
import { VENDOR_NAMES, strandKnown } from '../../src/domains/dna/dna.strand.ts';
import type {
  CallLookup,
  GenomeBuild,
  GenomeSummary,
  GenomeVendor,
} from '../../src/domains/dna/dna.types.ts';
import { DEFAULT_CALLS, generateGenome } from '../fixtures/dna/generate.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();

/** A genome held in memory: rsID -> call, '--' for a no-call. */
function genome(calls: Record<string, string>): CallLookup {
  return {
    call: (rsid) => (calls[rsid] === undefined || calls[rsid] === '--' ? null : calls[rsid]),
    has: (rsid) => calls[rsid] !== undefined,
    build: 'GRCh37',
  };
}

/** What a file was found to be: a female 23andMe GRCh37 file unless told otherwise. */
function summary(vendor: GenomeVendor = '23andme', build: GenomeBuild = 'GRCh37'): GenomeSummary {
  return {
    vendor,
    version: null,
    build,
    markers: 640_000,
    called: 630_000,
    callRate: 0.98,
    sex: 'female',
    sexNote: '',
    xHeterozygosity: 0.3,
  };
}

/** The file the lookups read unless a test says otherwise: strand known. */
const FORWARD = summary();

/** The genotype keys of a card that carry at least one effect allele. */
function carrying(v: VariantCard): string[] {
  return Object.keys(v.genotypes).filter((g) => g.includes(v.effectAllele));
}

/**
 * Wording that reads as a diagnosis or a settled status from one array call (issue 46): said of
 * the reader, as the match of a disease, as being affected, as a likely deficiency, or as what
 * copies "mean" or "give" without a condition. "not a diagnosis" is the opposite and is allowed.
 */
const DIAGNOSIS_WORDING: RegExp[] = [
  /\bconsistent with\b/i,
  /\byou (have|are)\b/i,
  /\byou're\b/i,
  /\bdiagnos/i,
  /\baffected\b/i,
  /\blikely (\S+ )?deficien/i,
  /\bcop(y|ies) (\(\w+\) )?(mean|means|give|gives|make|makes)\b/i,
  /:\s*(sickle cell trait|carrier)\b/i,
];

/** A finding worded as what it may mean: a condition, or the call's confirmation. */
const HEDGE = /\b(may|might|could|would|if confirmed)\b|needs clinical confirmation/i;

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
      expect(['2026-11-29', '2026-12-07'], v.rsid).toContain(v.checked);
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

  it('gives A/T and C/G cards complementary alleles and a clinical test (issue 46)', () => {
    const ambiguous = variantCards().filter((v) => v.strandAmbiguous);
    expect(ambiguous.map((v) => v.rsid)).toContain('rs334');
    for (const v of ambiguous) {
      const pair = [v.otherAllele, v.effectAllele].sort().join('');
      expect(['AT', 'CG'], v.rsid).toContain(pair);
      expect(v.kind, v.rsid).toBe('snv');
      expect(v.clinicalTest ?? '', v.rsid).toMatch(/\btest/);
    }
  });

  it('words no reading or summary as a diagnosis from one array call (issue 46)', () => {
    const k = knowledge();
    const texts = [
      ...k.variants.flatMap((v) =>
        [v.summary, ...Object.values(v.genotypes)].map((t) => [v.rsid, t]),
      ),
      ...k.haplotypes.flatMap((h) => Object.values(h.combinations).map((t) => [h.id, t])),
    ];
    for (const [id, text] of texts) {
      const said = text.replace(/\bnot an? diagnosis\b/gi, '');
      for (const wording of DIAGNOSIS_WORDING) expect(said, `${id}: ${text}`).not.toMatch(wording);
    }
  });

  it('words medicine, carrier and rare findings as what they may mean, with a test (issue 46)', () => {
    const cards = variantCards().filter(
      (v) =>
        v.category !== 'trait' && (v.category !== 'risk_factor' || v.needsClinicalConfirmation),
    );
    expect(cards.length).toBeGreaterThan(40);
    for (const v of cards) {
      for (const g of carrying(v)) {
        const text = v.genotypes[g];
        expect(text, `${v.rsid} ${g}`).toMatch(HEDGE);
        expect(text, `${v.rsid} ${g}`).toMatch(/\btest/i);
      }
    }
    for (const v of variantCards().filter((c) => c.rare)) {
      for (const g of carrying(v)) {
        expect(v.genotypes[g], `${v.rsid} ${g}`).toMatch(/needs clinical confirmation/);
      }
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
    const [r] = lookupVariants(person, ['rs4244285'], FORWARD);
    expect(r.status).toBe('called');
    expect(r.call).toBe('AG');
    expect(r.card?.gene).toBe('CYP2C19');
    expect(r.effectAlleleCopies).toBe(1);
    expect(r.interpretation).toMatch(/intermediate/);
    expect(r.needsClinicalConfirmation).toBe(false);
  });

  it('says "no call" and "not in your file"', () => {
    const [noCall, absent] = lookupVariants(person, ['rs1801133', 'rs4149056'], FORWARD);
    expect(noCall).toMatchObject({ status: 'no_call', call: null, note: 'no call' });
    expect(noCall.card?.gene).toBe('MTHFR');
    expect(absent).toMatchObject({ status: 'not_in_file', call: null, note: 'not in your file' });
  });

  it('flags a strand-ambiguous site', () => {
    const [r] = lookupVariants(person, ['rs1799945'], FORWARD);
    expect(r.strandAmbiguous).toBe(true);
    expect(r.effectAlleleCopies).toBe(1);
    expect(r.note).toMatch(/strand/);
  });

  it('flags a carried rare variant as needing clinical confirmation, and not a non-carrier', () => {
    const [brca2, lrrk2] = lookupVariants(person, ['rs80359550', 'rs34637584'], FORWARD);
    expect(brca2.needsClinicalConfirmation).toBe(true);
    expect(brca2.note).toMatch(/needs clinical confirmation/);
    expect(lrrk2.needsClinicalConfirmation).toBe(false);
    expect(lrrk2.effectAlleleCopies).toBe(0);
  });

  it('does not read letters outside the card alleles', () => {
    const [r] = lookupVariants(person, ['rs6025'], FORWARD);
    expect(r.interpretation).toBeNull();
    expect(r.effectAlleleCopies).toBeNull();
    expect(r.note).toMatch(/does not match/);
  });

  it('answers an uncurated rsID with the call only', () => {
    const [r] = lookupVariants(person, ['RS9999999'], FORWARD);
    expect(r).toMatchObject({ rsid: 'rs9999999', call: 'AA', card: null, interpretation: null });
    expect(r.note).toBe('no curated card: this says nothing about health');
  });

  it('refuses more than 50 rsIDs with VALIDATION_FAILED', () => {
    const many = Array.from({ length: MAX_LOOKUP_RSIDS + 1 }, (_, i) => `rs${i + 1}`);
    expect(lookupVariants(person, many.slice(0, MAX_LOOKUP_RSIDS), FORWARD)).toHaveLength(50);
    let thrown: unknown;
    try {
      lookupVariants(person, many, FORWARD);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(GraphQLError);
    expect((thrown as GraphQLError).extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('strand-ambiguous sites by vendor and build (issue 46)', () => {
  const person = genome({ rs334: 'AT', rs1799945: 'CG', rs4244285: 'AG' });
  const card = (rsid: string): VariantCard => variantCards().find((v) => v.rsid === rsid)!;

  it('knows the strand of 23andMe and AncestryDNA on GRCh37 and of VCF, and no other', () => {
    const known = (['23andme', 'ancestrydna', 'myheritage', 'ftdna', 'livingdna', 'vcf'] as const)
      .flatMap((vendor) => (['GRCh37', 'GRCh38'] as const).map((build) => [vendor, build] as const))
      .filter(([vendor, build]) => strandKnown(vendor, build))
      .map(([vendor, build]) => `${vendor} ${build}`);
    expect(known).toEqual(['23andme GRCh37', 'ancestrydna GRCh37', 'vcf GRCh37', 'vcf GRCh38']);
  });

  it('gives no finding at A/T or C/G sites of MyHeritage, FTDNA or LivingDNA files, saying why', () => {
    for (const vendor of ['myheritage', 'ftdna', 'livingdna'] as const) {
      const [hbb, hfe, cyp] = lookupVariants(
        person,
        ['rs334', 'rs1799945', 'rs4244285'],
        summary(vendor),
      );
      expect(hbb, vendor).toMatchObject({
        status: 'called',
        call: 'AT',
        strandAmbiguous: true,
        effectAlleleCopies: null,
        needsClinicalConfirmation: false,
      });
      expect(hbb.interpretation).not.toBe(card('rs334').genotypes.AT);
      expect(hbb.interpretation).toMatch(/^A\/T site/);
      expect(hbb.interpretation).toContain(`cannot be checked for ${VENDOR_NAMES[vendor]} files`);
      expect(hbb.interpretation).toMatch(/no finding/);
      expect(hbb.interpretation).toContain(card('rs334').clinicalTest);
      expect(hbb.interpretation).toMatch(/haemoglobin test/);
      expect(hbb.note).toMatch(/strand/);
      expect(hfe.effectAlleleCopies).toBeNull();
      expect(hfe.interpretation).toMatch(/^C\/G site/);
      // a site whose letters tell the strand is read as before
      expect(cyp.interpretation).toBe(card('rs4244285').genotypes.AG);
      expect(cyp.effectAlleleCopies).toBe(1);
    }
  });

  it('gives the reading from a 23andMe GRCh37 file (and not from a 23andMe file on GRCh38)', () => {
    const [hbb] = lookupVariants(person, ['rs334'], summary('23andme', 'GRCh37'));
    expect(hbb).toMatchObject({ effectAlleleCopies: 1, needsClinicalConfirmation: true });
    expect(hbb.interpretation).toBe(card('rs334').genotypes.AT);
    expect(hbb.note).toMatch(/A\/T site/);
    const [vcf] = lookupVariants(person, ['rs334'], summary('vcf', 'GRCh38'));
    expect(vcf.interpretation).toBe(card('rs334').genotypes.AT);
    const [lifted] = lookupVariants(person, ['rs334'], summary('23andme', 'GRCh38'));
    expect(lifted.effectAlleleCopies).toBeNull();
  });

  it("keeps an unread site out of the overview's findings and says why", () => {
    const calls = genome({ rs334: 'AT', rs1800462: 'CG', rs80359550: 'DI' });
    const unknown = reportOverview(calls, summary('myheritage'));
    expect(unknown.needsClinicalConfirmation.map((r) => r.rsid)).toEqual(['rs80359550']);
    expect(unknown.unreadable.map((r) => r.rsid)).toEqual(['rs1800462', 'rs334']);
    expect(unknown.byCategory.carrier.carrying).toBe(0);
    expect(unknown.notes.join(' ')).toMatch(/MyHeritage.*A\/T and C\/G/);
    const known = reportOverview(calls, summary('ancestrydna'));
    expect(known.needsClinicalConfirmation.map((r) => r.rsid)).toEqual([
      'rs1800462',
      'rs334',
      'rs80359550',
    ]);
    expect(known.unreadable).toEqual([]);
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
      FORWARD,
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

describe('strand-ambiguous sites through the stored genome (issue 46)', () => {
  /** A person whose file of this vendor carries HbS and TPMT*2 (both at A/T or C/G sites). */
  async function reader(vendor: GenomeVendor) {
    const me = await seedUser(app);
    const calls = { ...DEFAULT_CALLS, rs334: 'AT', rs1800462: 'CG' };
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(generateGenome({ vendor, calls }))]), 'dna.txt');
    const res = await app.fetch('/api/v1/dna/upload', {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${me.token}` },
    });
    expect(res.status).toBe(200);
    return mcpClient(app, await seedPersonalToken(app, me.user.id, ['health:dna:read']));
  }
  const read = async (client: Awaited<ReturnType<typeof reader>>, tool: string, args = {}) =>
    (await callTool(client, tool, args)).structuredContent as any;

  it("reads the file's vendor from the stored summary: no finding from MyHeritage, one from 23andMe", async () => {
    const myheritage = await reader('myheritage');
    const unknown = await read(myheritage, 'dna_variants_lookup', {
      rsids: ['rs334', 'rs4244285'],
    });
    expect(unknown.lookups[0]).toMatchObject({
      call: 'AT',
      effect_allele_copies: null,
      needs_clinical_confirmation: false,
    });
    expect(unknown.lookups[0].interpretation).toMatch(
      /^A\/T site: the file's strand cannot be checked for MyHeritage files, so no finding/,
    );
    expect(unknown.lookups[1].interpretation).toMatch(/intermediate metabolizer/);
    const report = await read(myheritage, 'dna_report_read');
    expect(report.overview.needs_clinical_confirmation).toEqual([]);
    expect(report.overview.notes.join(' ')).toMatch(/strand of MyHeritage files/);

    const twentyThree = await reader('23andme');
    const known = await read(twentyThree, 'dna_variants_lookup', { rsids: ['rs334'] });
    expect(known.lookups[0]).toMatchObject({
      effect_allele_copies: 1,
      needs_clinical_confirmation: true,
    });
    expect(known.lookups[0].interpretation).toMatch(/^One HbS allele as called: if confirmed/);
    const gene = await read(twentyThree, 'dna_gene_read', { symbol: 'TPMT' });
    const tpmt2 = gene.sites.find((s: any) => s.rsid === 'rs1800462');
    expect(tpmt2).toMatchObject({ call: 'CG', effect_allele_copies: 1 });
  });
});
