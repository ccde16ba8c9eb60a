/**
 * The medicines and HLA reports (issue 34): started in the background, read back. Resolvers unpack,
 * call the service of the same name and return; the rules are in dna.reports.ts.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { HlaTagReport } from './dna.hla.ts';
import type {
  DiplotypeCandidate,
  GeneReport,
  KeySite,
  PgxSite,
  Vkorc1Report,
  WarfarinSite,
} from './dna.pgx.ts';
import { summarise, type GeneSummary } from './dna.pgx.summary.ts';
import { dnaHla, dnaMedicines, startDnaHla, startDnaMedicines } from './dna.reports.ts';
import type { DnaReportJobView, DnaReportRead, HlaResult, MedicinesRead } from './dna.reports.ts';

export const ReportJob = builder.objectRef<DnaReportJobView>('DnaReportJob').implement({
  description: 'A medicines, HLA or ancestry report made in the background from the stored genome',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'pass it as report_id to read this report' }),
    kind: t.exposeString('kind', { description: 'medicines, hla or ancestry' }),
    status: t.exposeString('status', { description: 'queued, running, done or failed' }),
    error: t.exposeString('error', { nullable: true, description: 'why it failed' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const Site = builder.objectRef<PgxSite>('DnaPgxSite').implement({
  description: "One site of a gene's CPIC allele definitions, and how it fared in the file",
  fields: (t) => ({
    rsid: t.exposeString('rsid', { nullable: true, description: 'null: CPIC names no rsID' }),
    chromosome: t.exposeString('chromosome'),
    position: t.exposeInt('position', { description: 'GRCh38' }),
    ref: t.exposeString('ref', { description: 'forward-strand reference base(s)' }),
    alts: t.exposeStringList('alts'),
    call: t.exposeString('call', {
      nullable: true,
      description: 'the call as read (null: not in the file, or left out over OAuth)',
    }),
    genotype: t.exposeString('genotype', {
      nullable: true,
      description: 'the call as two forward-strand bases used for matching',
    }),
    status: t.exposeString('status', {
      description:
        'tested, no-call, absent, not-testable (no rsID, or not a single base), unexpected ' +
        "(bases off) or strand-unknown (an A/T or C/G site the file's vendor does not fix)",
    }),
    strandAmbiguous: t.exposeBoolean('strandAmbiguous', {
      description: 'an A/T or C/G site: the strand of the call cannot be checked',
    }),
  }),
});

const Diplotype = builder.objectRef<DiplotypeCandidate>('DnaDiplotype').implement({
  description: 'A diplotype consistent with the unphased calls',
  fields: (t) => ({
    diplotype: t.exposeString('diplotype'),
    alleles: t.exposeStringList('alleles'),
    functions: t.field({
      type: ['String'],
      nullable: { list: false, items: true },
      description: "each allele's CPIC function",
      resolve: (d) => d.functions,
    }),
    phenotype: t.exposeString('phenotype', { nullable: true }),
    activityScore: t.exposeString('activityScore', { nullable: true }),
    assumed: t.boolean({
      description:
        'true: needs a variant at a site not read, so listed but assumed absent (it does not set ' +
        'the phenotype)',
      resolve: (d) => d.assumed ?? false,
    }),
  }),
});

const Vkorc1 = builder.objectRef<Vkorc1Report>('DnaVkorc1').implement({
  description: 'The VKORC1 -1639 site (rs9923231), read with CYP2C9 for warfarin',
  fields: (t) => ({
    rsid: t.exposeString('rsid'),
    call: t.exposeString('call', { nullable: true }),
    genotype: t.exposeString('genotype', { nullable: true }),
    phenotype: t.exposeString('phenotype', { nullable: true, description: "CPIC's label" }),
  }),
});

const WarfarinSiteRef = builder.objectRef<WarfarinSite>('DnaWarfarinSite').implement({
  description: 'A single site read with CYP2C9 for warfarin (CYP4F2*3, rs2108622)',
  fields: (t) => ({
    rsid: t.exposeString('rsid'),
    call: t.exposeString('call', { nullable: true }),
    genotype: t.exposeString('genotype', { nullable: true }),
    phenotype: t.exposeString('phenotype', { nullable: true, description: 'the diplotype read' }),
  }),
});

const KeySiteRef = builder.objectRef<KeySite>('DnaPgxKeySite').implement({
  description: "A site whose absence changes a gene's phenotype for many people, and its state",
  fields: (t) => ({
    rsid: t.exposeString('rsid'),
    alleles: t.exposeString('alleles', { description: 'the named alleles it defines' }),
    status: t.exposeString('status', { description: 'as a site status; only tested is read' }),
  }),
});

const Gene = builder.objectRef<GeneReport>('DnaPgxGene').implement({
  description: "One gene's medicines answer: diplotypes, phenotype, sites tested and missing",
  fields: (t) => ({
    gene: t.exposeString('gene'),
    status: t.exposeString('status', {
      description: 'determined, not-determined (see reason) or not-determinable (CYP2D6, HLA)',
    }),
    determinable: t.exposeBoolean('determinable', {
      description: 'false for genes array data cannot type (CYP2D6, HLA) or with no site tested',
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'why the phenotype is not determined, naming the sites',
    }),
    finding: t.exposeString('finding', { description: 'the answer in one sentence' }),
    sites: t.field({ type: [Site], resolve: (g) => g.sites }),
    tested: t.exposeStringList('tested', { description: 'rsIDs of the sites tested' }),
    missing: t.exposeStringList('missing', { description: 'sites not tested (rsID or chr:pos)' }),
    keySites: t.field({ type: [KeySiteRef], resolve: (g) => g.keySites }),
    keySitesNotRead: t.exposeStringList('keySitesNotRead', {
      description: 'key sites not read: each can change the phenotype',
    }),
    diplotypes: t.field({ type: [Diplotype], resolve: (g) => g.diplotypes }),
    phenotypes: t.exposeStringList('phenotypes', {
      description: 'the distinct phenotypes of the candidates; more than one: cannot be told apart',
    }),
    phenotype: t.exposeString('phenotype', { nullable: true, description: 'when determined' }),
    untestedAlleles: t.exposeStringList('untestedAlleles', {
      description: 'named alleles needing a site not tested (assumed absent)',
    }),
    notes: t.exposeStringList('notes'),
    drugs: t.exposeStringList('drugs', { description: 'drugs with a CPIC guideline' }),
    advice: t.exposeString('advice'),
    vkorc1: t.field({ type: Vkorc1, nullable: true, resolve: (g) => g.vkorc1 ?? null }),
    cyp4f2: t.field({ type: WarfarinSiteRef, nullable: true, resolve: (g) => g.cyp4f2 ?? null }),
  }),
});

const GeneSummaryRef = builder.objectRef<GeneSummary>('DnaPgxGeneSummary').implement({
  description: "One gene's medicines answer in a line",
  fields: (t) => ({
    gene: t.exposeString('gene'),
    status: t.exposeString('status', {
      description: 'determined, not-determined or not-determinable',
    }),
    phenotype: t.exposeString('phenotype', { nullable: true }),
    diplotype: t.exposeString('diplotype', { nullable: true, description: 'when exactly one' }),
    finding: t.exposeString('finding'),
    keySitesNotRead: t.exposeStringList('keySitesNotRead'),
    drugs: t.exposeStringList('drugs', { description: 'drugs with a CPIC guideline' }),
  }),
});

const HlaTag = builder.objectRef<HlaTagReport>('DnaHlaTag').implement({
  description: 'A tag-SNP likelihood of carrying an HLA allele: not an HLA type',
  fields: (t) => ({
    hla: t.exposeString('hla'),
    relevance: t.exposeString('relevance'),
    rsid: t.exposeString('rsid'),
    alleles: t.exposeStringList('alleles'),
    riskAllele: t.exposeString('riskAllele'),
    source: t.exposeString('source'),
    validatedIn: t.exposeString('validatedIn', { description: 'the ancestry it was validated in' }),
    call: t.exposeString('call', { nullable: true, description: 'null over OAuth' }),
    likelihood: t.exposeString('likelihood', {
      description: 'carrier likely, carrier unlikely or unknown',
    }),
    explanation: t.exposeString('explanation'),
    caveat: t.exposeString('caveat'),
    label: t.exposeString('label'),
  }),
});

const readFields = {
  genotypesShown: 'false over OAuth: the calls at each site are left out (findings only)',
  next: 'what to do next',
};

const Medicines = builder.objectRef<MedicinesRead>('DnaMedicines').implement({
  description: 'The medicines report: its job, and when done one answer per gene; never a dose',
  fields: (t) => ({
    report: t.field({ type: ReportJob, nullable: true, resolve: (r) => r.report }),
    summary: t.field({
      type: [GeneSummaryRef],
      nullable: true,
      description: 'one line per gene (after the filters)',
      resolve: (r) => (r.result ? summarise(r.result.genes) : null),
    }),
    genes: t.field({
      type: [Gene],
      nullable: true,
      description: "each gene's full answer (sites, candidates, notes); null when detail is false",
      resolve: (r) => (r.detail ? (r.result?.genes ?? null) : null),
    }),
    genotypesShown: t.exposeBoolean('genotypesShown', { description: readFields.genotypesShown }),
    next: t.exposeString('next', { description: readFields.next }),
  }),
});

const Hla = builder.objectRef<DnaReportRead<HlaResult>>('DnaHla').implement({
  description: 'The HLA tag report: its job, and when done one likelihood per tag',
  fields: (t) => ({
    report: t.field({ type: ReportJob, nullable: true, resolve: (r) => r.report }),
    tags: t.field({ type: [HlaTag], nullable: true, resolve: (r) => r.result?.tags ?? null }),
    genotypesShown: t.exposeBoolean('genotypesShown', { description: readFields.genotypesShown }),
    next: t.exposeString('next', { description: readFields.next }),
  }),
});

const reportId = z.string().trim().min(1).max(64);

builder.queryFields((t) => ({
  dnaMedicines: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Medicines,
    description: 'The medicines report (newest, or report_id) with its status and next step',
    args: {
      reportId: t.arg.string({
        description: 'a report id from dna_medicines_start; omit for the newest',
        validate: reportId,
      }),
      gene: t.arg.string({
        description: 'only this gene (CYP2C19, DPYD, ...; VKORC1 and CYP4F2 read with CYP2C9)',
        validate: z.string().trim().min(1).max(16),
      }),
      drug: t.arg.string({
        description: 'only genes with a CPIC guideline for this drug (clopidogrel, warfarin, ...)',
        validate: z.string().trim().min(1).max(40),
      }),
      detail: t.arg.boolean({
        description:
          "true: each gene's sites, candidate diplotypes and notes too (genes); false or omitted: " +
          'the one-line summary per gene only',
      }),
    },
    resolve: (_root, args, ctx) => dnaMedicines(ctx, args),
  }),
  dnaHla: t.withAuth({ scope: 'health:dna:read' }).field({
    type: Hla,
    description: 'The HLA tag report (newest, or report_id) with its status and next step',
    args: {
      reportId: t.arg.string({
        description: 'a report id from dna_hla_start; omit for the newest',
        validate: reportId,
      }),
    },
    resolve: (_root, args, ctx) => dnaHla(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  startDnaMedicines: t.withAuth({ scope: 'health:dna:read' }).field({
    type: ReportJob,
    description:
      'Starts the medicines report in the background, or answers the one already queued or done',
    resolve: (_root, _args, ctx) => startDnaMedicines(ctx),
  }),
  startDnaHla: t.withAuth({ scope: 'health:dna:read' }).field({
    type: ReportJob,
    description: 'Starts the HLA tag report in the background, or answers the one already made',
    resolve: (_root, _args, ctx) => startDnaHla(ctx),
  }),
}));
