/**
 * The medicines and HLA reports (issue 34): started in the background, read back. Resolvers unpack,
 * call the service of the same name and return; the rules are in dna.reports.ts.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { HlaTagReport } from './dna.hla.ts';
import type { DiplotypeCandidate, GeneReport, PgxSite, Vkorc1Report } from './dna.pgx.ts';
import { dnaHla, dnaMedicines, startDnaHla, startDnaMedicines } from './dna.reports.ts';
import type { DnaReportJobView, DnaReportRead, HlaResult, MedicinesResult } from './dna.reports.ts';

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
      description: 'tested, no-call, absent, not-testable (no rsID) or unexpected (bases off)',
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

const Gene = builder.objectRef<GeneReport>('DnaPgxGene').implement({
  description: "One gene's medicines answer: diplotypes, phenotype, sites tested and missing",
  fields: (t) => ({
    gene: t.exposeString('gene'),
    determinable: t.exposeBoolean('determinable', {
      description: 'false for genes array data cannot type (CYP2D6, G6PD, HLA); see reason',
    }),
    reason: t.exposeString('reason', { nullable: true }),
    sites: t.field({ type: [Site], resolve: (g) => g.sites }),
    tested: t.exposeStringList('tested', { description: 'rsIDs of the sites tested' }),
    missing: t.exposeStringList('missing', { description: 'sites not tested (rsID or chr:pos)' }),
    diplotypes: t.field({ type: [Diplotype], resolve: (g) => g.diplotypes }),
    phenotypes: t.exposeStringList('phenotypes', {
      description: 'the distinct phenotypes of the candidates; more than one: cannot be told apart',
    }),
    phenotype: t.exposeString('phenotype', { nullable: true, description: 'when exactly one' }),
    untestedAlleles: t.exposeStringList('untestedAlleles', {
      description: 'named alleles needing a site not tested (assumed absent)',
    }),
    notes: t.exposeStringList('notes'),
    drugs: t.exposeStringList('drugs', { description: 'drugs with a CPIC guideline' }),
    advice: t.exposeString('advice'),
    vkorc1: t.field({ type: Vkorc1, nullable: true, resolve: (g) => g.vkorc1 ?? null }),
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

const Medicines = builder.objectRef<DnaReportRead<MedicinesResult>>('DnaMedicines').implement({
  description: 'The medicines report: its job, and when done one answer per gene; never a dose',
  fields: (t) => ({
    report: t.field({ type: ReportJob, nullable: true, resolve: (r) => r.report }),
    genes: t.field({ type: [Gene], nullable: true, resolve: (r) => r.result?.genes ?? null }),
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
