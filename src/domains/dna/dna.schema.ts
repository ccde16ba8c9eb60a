/**
 * DNA (issue 34): the upload of a raw genome file, the report, a gene, named variants, the curated
 * knowledge and the deletion of every DNA row. Resolvers unpack, call the service of the same name
 * and return; who may read which genome, and how much over OAuth, is dna.access.ts's.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import type { GenomeView } from './dna.genome.ts';
import { MAX_LOOKUP_RSIDS, VARIANT_CATEGORIES } from './dna.knowledge.ts';
import type {
  GeneCard,
  HaplotypeCard,
  KnowledgeSearchResult,
  NotDeterminable,
  VariantCard,
} from './dna.knowledge.ts';
import { deleteDnaData, dnaGene, dnaKnowledge, dnaReport, dnaVariants } from './dna.reads.ts';
import type {
  ApoeView,
  CategoryCountView,
  DnaDataDeletedView,
  DnaGeneView,
  DnaReportView,
  DnaVariantsView,
  OverviewView,
  SiteCallView,
  SiteView,
} from './dna.reads.ts';
import { uploadGenome } from './dna.upload.ts';

const CALL_STATUSES = ['called', 'no_call', 'not_in_file', 'no_genome'] as const;

const Genome = builder.objectRef<GenomeView>('DnaGenome').implement({
  description: 'The stored raw genome file: what it was found to be, never a genotype',
  fields: (t) => ({
    vendor: t.exposeString('vendor', {
      description: '23andme, ancestrydna, myheritage, ftdna, livingdna or vcf',
    }),
    version: t.exposeString('version', { nullable: true, description: 'the format version' }),
    build: t.exposeString('build', { description: 'GRCh37 or GRCh38' }),
    markers: t.exposeInt('markers', { description: 'markers read' }),
    called: t.exposeInt('called', { description: 'markers with a call' }),
    callRate: t.exposeFloat('callRate', { description: 'called / markers, 0..1' }),
    sex: t.exposeString('sex', {
      nullable: true,
      description: 'female or male from X heterozygosity; null when it cannot be told',
    }),
    sexNote: t.exposeString('sexNote', { description: 'the figures, or why sex is not told' }),
    xHeterozygosity: t.exposeFloat('xHeterozygosity', { nullable: true }),
    fileBytes: t.exposeInt('fileBytes', { description: 'bytes uploaded' }),
    uploadedAt: t.expose('uploadedAt', { type: 'DateTime' }),
  }),
});

const Category = builder.enumType('DnaVariantCategory', {
  description: 'What a curated variant is about',
  values: enumValues(VARIANT_CATEGORIES),
});

const CallStatus = builder.enumType('DnaCallStatus', {
  description: 'called; no_call (in the file, no call); not_in_file; no_genome (none uploaded)',
  values: enumValues(CALL_STATUSES),
});

const Reading = builder
  .objectRef<{ genotype: string; reading: string }>('DnaGenotypeReading')
  .implement({
    description: "A card's reading of one genotype (or haplotype combination)",
    fields: (t) => ({ genotype: t.exposeString('genotype'), reading: t.exposeString('reading') }),
  });

const readings = (record: Record<string, string>) =>
  Object.entries(record).map(([genotype, reading]) => ({ genotype, reading }));

const VariantCardRef = builder.objectRef<VariantCard>('DnaVariantCard').implement({
  description: "A curated variant card (the project's own words, with sources)",
  fields: (t) => ({
    rsid: t.exposeString('rsid'),
    gene: t.exposeString('gene'),
    name: t.exposeString('name'),
    category: t.field({ type: Category, resolve: (c) => c.category }),
    effectAllele: t.exposeString('effectAllele', { description: 'forward strand, GRCh37' }),
    otherAllele: t.exposeString('otherAllele'),
    strandAmbiguous: t.exposeBoolean('strandAmbiguous'),
    rare: t.exposeBoolean('rare'),
    summary: t.exposeString('summary'),
    genotypes: t.field({ type: [Reading], resolve: (c) => readings(c.genotypes) }),
    arrayNote: t.exposeString('arrayNote', { nullable: true }),
    sources: t.exposeStringList('sources'),
    checked: t.exposeString('checked', { description: 'the date the card was checked' }),
  }),
});

const Lookup = builder.objectRef<SiteView>('DnaVariantLookup').implement({
  description: "The person's call at one site, read against its curated card",
  fields: (t) => ({
    rsid: t.exposeString('rsid'),
    status: t.field({ type: CallStatus, resolve: (s) => s.status }),
    call: t.exposeString('call', { nullable: true, description: 'forward strand, e.g. AG' }),
    card: t.field({ type: VariantCardRef, nullable: true, resolve: (s) => s.card }),
    interpretation: t.exposeString('interpretation', { nullable: true }),
    effectAlleleCopies: t.exposeInt('effectAlleleCopies', { nullable: true }),
    strandAmbiguous: t.exposeBoolean('strandAmbiguous'),
    needsClinicalConfirmation: t.exposeBoolean('needsClinicalConfirmation'),
    note: t.exposeString('note'),
  }),
});

const CategoryCount = builder.objectRef<CategoryCountView>('DnaCategoryCount').implement({
  description: "A category's curated variants in the file",
  fields: (t) => ({
    category: t.field({ type: Category, resolve: (c) => c.category }),
    curated: t.exposeInt('curated'),
    called: t.exposeInt('called', { description: 'called in the file' }),
    carrying: t.exposeInt('carrying', { description: 'with at least one effect allele' }),
  }),
});

const SiteCall = builder.objectRef<SiteCallView>('DnaSiteCall').implement({
  description: 'A site and the call the file has there',
  fields: (t) => ({
    rsid: t.exposeString('rsid'),
    call: t.exposeString('call', { nullable: true }),
  }),
});

const Apoe = builder.objectRef<ApoeView>('DnaApoe').implement({
  description: 'The APOE type from rs429358 and rs7412',
  fields: (t) => ({
    combination: t.exposeString('combination', { nullable: true, description: 'e.g. e3/e4' }),
    alternative: t.exposeString('alternative', {
      nullable: true,
      description: 'the combination the same unphased calls also allow',
    }),
    interpretation: t.exposeString('interpretation', { nullable: true }),
    calls: t.field({ type: [SiteCall], resolve: (a) => a.calls }),
    note: t.exposeString('note'),
  }),
});

const NotDeterminableRef = builder.objectRef<NotDeterminable>('DnaNotDeterminable').implement({
  description: 'What an array file cannot tell, and why',
  fields: (t) => ({
    id: t.exposeString('id'),
    topic: t.exposeString('topic'),
    genes: t.exposeStringList('genes'),
    reason: t.exposeString('reason'),
  }),
});

const Overview = builder.objectRef<OverviewView>('DnaOverview').implement({
  description: 'What the file says at the curated variants',
  fields: (t) => ({
    knowledgeVersion: t.exposeString('knowledgeVersion'),
    curatedVariants: t.exposeInt('curatedVariants'),
    inFile: t.exposeInt('inFile', { description: 'curated sites in the file' }),
    called: t.exposeInt('called', { description: 'curated sites with a call' }),
    categories: t.field({ type: [CategoryCount], resolve: (o) => o.categories }),
    needsClinicalConfirmation: t.field({
      type: [Lookup],
      description: 'carried rare variants: array calls of these are often false',
      resolve: (o) => o.needsClinicalConfirmation,
    }),
    unreadable: t.field({
      type: [Lookup],
      description: 'calls not readable against their card (not listed over OAuth)',
      resolve: (o) => o.unreadable,
    }),
    unreadableCount: t.exposeInt('unreadableCount'),
    apoe: t.field({ type: Apoe, resolve: (o) => o.apoe }),
    notes: t.exposeStringList('notes'),
  }),
});

const Report = builder.objectRef<DnaReportView>('DnaReport').implement({
  description: 'The DNA overview: the file, what was found, what is not determinable and why',
  fields: (t) => ({
    genome: t.field({ type: Genome, nullable: true, resolve: (r) => r.genome }),
    note: t.exposeString('note', { description: 'how to upload, while no file is stored' }),
    overview: t.field({ type: Overview, nullable: true, resolve: (r) => r.overview }),
    notDeterminable: t.field({ type: [NotDeterminableRef], resolve: (r) => r.notDeterminable }),
  }),
});

const GeneCardRef = builder.objectRef<GeneCard>('DnaGeneCard').implement({
  description: "A curated gene card (the project's own words, with sources)",
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    name: t.exposeString('name'),
    aliases: t.exposeStringList('aliases'),
    function: t.exposeString('function'),
    arrays: t.exposeString('arrays', { description: 'what array files read of it' }),
    sources: t.exposeStringList('sources'),
    checked: t.exposeString('checked'),
  }),
});

const Gene = builder.objectRef<DnaGeneView>('DnaGene').implement({
  description: "A gene's card and the person's genotypes at its curated sites",
  fields: (t) => ({
    gene: t.field({ type: GeneCardRef, resolve: (g) => g.gene }),
    hasGenome: t.exposeBoolean('hasGenome'),
    sites: t.field({ type: [Lookup], resolve: (g) => g.sites }),
    more: t.exposeInt('more', { description: 'curated sites not answered here' }),
    apoe: t.field({ type: Apoe, nullable: true, resolve: (g) => g.apoe }),
    notDeterminable: t.field({ type: [NotDeterminableRef], resolve: (g) => g.notDeterminable }),
    note: t.exposeString('note'),
  }),
});

const Variants = builder.objectRef<DnaVariantsView>('DnaVariants').implement({
  description: "The person's genotypes at named rsIDs",
  fields: (t) => ({
    hasGenome: t.exposeBoolean('hasGenome'),
    lookups: t.field({ type: [Lookup], resolve: (v) => v.lookups }),
    note: t.exposeString('note'),
  }),
});

const HaplotypeCardRef = builder.objectRef<HaplotypeCard>('DnaHaplotypeCard').implement({
  description: 'A curated haplotype card: sites read together (APOE)',
  fields: (t) => ({
    id: t.exposeString('id'),
    gene: t.exposeString('gene'),
    rsids: t.exposeStringList('rsids'),
    summary: t.exposeString('summary'),
    combinations: t.field({ type: [Reading], resolve: (h) => readings(h.combinations) }),
    sources: t.exposeStringList('sources'),
    checked: t.exposeString('checked'),
  }),
});

const Knowledge = builder.objectRef<KnowledgeSearchResult>('DnaKnowledge').implement({
  description: 'Curated cards matching a search',
  fields: (t) => ({
    genes: t.field({ type: [GeneCardRef], resolve: (k) => k.genes }),
    variants: t.field({ type: [VariantCardRef], resolve: (k) => k.variants }),
    haplotypes: t.field({ type: [HaplotypeCardRef], resolve: (k) => k.haplotypes }),
    truncated: t.exposeBoolean('truncated', { description: 'more cards matched (20 a kind)' }),
  }),
});

const TableRows = builder.objectRef<{ table: string; rows: number }>('DnaTableRows').implement({
  description: 'Rows removed from one DNA table',
  fields: (t) => ({ table: t.exposeString('table'), rows: t.exposeInt('rows') }),
});

const Deleted = builder.objectRef<DnaDataDeletedView>('DnaDataDeleted').implement({
  description: "What deleting the person's DNA data removed",
  fields: (t) => ({
    deleted: t.exposeBoolean('deleted', { description: 'whether there was anything' }),
    tables: t.field({ type: [TableRows], resolve: (d) => d.tables }),
    note: t.exposeString('note'),
  }),
});

const rsid = z
  .string()
  .trim()
  .regex(/^rs\d{1,12}$/i, 'an rsID such as rs4244285');

builder.queryFields((t) => ({
  dnaReport: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Report,
    description: "The person's DNA overview: the file, findings, what is not determinable",
    resolve: (_root, _args, ctx) => dnaReport(ctx),
  }),
  dnaGene: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Gene,
    description: "A gene's curated card and the person's genotypes at its curated sites",
    args: {
      symbol: t.arg.string({
        required: true,
        description: 'gene symbol or alias, e.g. CYP2C19',
        validate: z.string().trim().min(1).max(40),
      }),
    },
    resolve: (_root, args, ctx) => dnaGene(ctx, args),
  }),
  dnaVariants: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Variants,
    description: "The person's genotypes at named rsIDs, with curated readings",
    args: {
      rsids: t.arg.stringList({
        required: true,
        description: 'rsIDs, e.g. rs4244285',
        validate: z.array(rsid).min(1).max(MAX_LOOKUP_RSIDS),
      }),
    },
    resolve: (_root, args, ctx) => dnaVariants(ctx, args),
  }),
  dnaKnowledge: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Knowledge,
    description: 'Searches the curated gene, variant and haplotype cards',
    args: {
      query: t.arg.string({
        required: true,
        description: 'an rsID, a gene, or words ("warfarin")',
        validate: z.string().trim().min(2).max(100),
      }),
    },
    resolve: (_root, args, ctx) => dnaKnowledge(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  uploadGenome: t.withAuth({ loginSession: true }).field({
    type: Genome,
    description: "Stores the person's raw genome file, replacing an earlier one",
    args: {
      file: t.arg({
        type: 'File',
        required: true,
        description: 'the raw data file: 23andMe, AncestryDNA, MyHeritage, FTDNA, LivingDNA, VCF',
      }),
    },
    resolve: (_root, args, ctx) => uploadGenome(ctx, args),
  }),
  deleteDnaData: t.withAuth({ scope: 'health:dna:write' }).field({
    type: Deleted,
    description: "Deletes the person's DNA data: the genome and everything read from it",
    resolve: (_root, _args, ctx) => deleteDnaData(ctx),
  }),
}));
