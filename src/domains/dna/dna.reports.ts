/**
 * The medicines and HLA reports (issue 34) and the ancestry estimate (issue 35) of a person's stored
 * genome: started as background jobs (`startDnaMedicines`, `startDnaHla`, `startDnaAncestry`; the
 * worker is dna.worker.ts) and read back (`dnaMedicines`, `dnaHla`, `dnaAncestry`). A report reads the genome stored when it ran; a new upload deletes the person's
 * reports (dna.genome.ts), so every report on record reads the current file. A start while a report
 * of that kind is queued, running or done answers that report instead of queueing another (the
 * tools are safe to call again); a failed one is replaced.
 *
 * Over OAuth a report carries findings only: the per-site calls are left out (they are genotypes,
 * which an assistant's connection reads through the counted lookups, dna.access.ts).
 */
import { appError } from '../../base/errors.ts';
import type { DnaReport } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { dnaOwnerOf, isOAuth } from './dna.access.ts';
import type { AncestryAnswer } from './dna.ancestry.ts';
import type { HlaTagReport } from './dna.hla.ts';
import { PGX_RULES_VERSION, type GeneReport } from './dna.pgx.ts';
import { filterGenes, type GeneFilter } from './dna.pgx.summary.ts';
import { decryptGenome, genomeKey } from './dna.store.ts';

/** The reports a job makes. */
export type DnaReportKind = 'medicines' | 'hla' | 'ancestry';

/** The pg-boss queue of report jobs. */
export const DNA_REPORT_QUEUE = 'dna-report';
/** Starts before a report interrupted by restarts is failed. */
export const DNA_REPORT_MAX_ATTEMPTS = 3;
/** A running report without a heartbeat for this long is orphaned (a report takes about a second). */
export const DNA_REPORT_STALE_MS = 2 * 60_000;
/** How often a running app looks for orphaned reports. */
export const DNA_REPORT_STALE_CHECK_MS = 60_000;
/** Reports kept per person and kind (the newest); older ones are deleted on a new start. */
export const DNA_REPORTS_KEPT = 5;

const START_TOOL: Record<DnaReportKind, string> = {
  medicines: 'dna_medicines_start',
  hla: 'dna_hla_start',
  ancestry: 'dna_ancestry_start',
};
const READ_TOOL: Record<DnaReportKind, string> = {
  medicines: 'dna_medicines_read',
  hla: 'dna_hla_read',
  ancestry: 'dna_ancestry_read',
};

/** A report job as the person sees it. */
export interface DnaReportJobView {
  id: string;
  kind: DnaReportKind;
  /** queued, running, done or failed */
  status: string;
  /** why it failed and what to do, or null */
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** What a report read answers: the job, its result when done, and the next step in words. */
export interface DnaReportRead<R> {
  report: DnaReportJobView | null;
  result: R | null;
  /** false over OAuth: per-site calls are left out (findings only) */
  genotypesShown: boolean;
  next: string;
}

/** What the medicines job stores. */
export interface MedicinesResult {
  genes: GeneReport[];
  /** the rules' version it was made with (absent: issue 34's first rules) */
  rules?: number;
}

/** A medicines read: `detail` false leaves each gene's sites and candidates out (the summary). */
export type MedicinesRead = DnaReportRead<MedicinesResult> & { detail: boolean };

/** What the HLA job stores. */
export interface HlaResult {
  tags: HlaTagReport[];
}

/** What the ancestry job stores: the default calculator's estimate (or its refusal). */
export interface AncestryResult {
  ancestry: AncestryAnswer;
}

const viewOf = (row: DnaReport): DnaReportJobView => ({
  id: row.id,
  kind: row.kind as DnaReportKind,
  status: row.status,
  error: row.error,
  createdAt: row.createdAt,
  finishedAt: row.finishedAt,
});

const NO_GENOME =
  'No genome is stored: upload a raw DNA file first (23andMe, AncestryDNA, MyHeritage, FTDNA, ' +
  'LivingDNA or VCF; POST /api/v1/dna/upload from the app).';

/**
 * Whether a report on record answers with today's rules: a medicines report made by earlier rules
 * (issue 46 changed them) is made again rather than answered.
 */
function isCurrent(ctx: AuthedContext, row: DnaReport): boolean {
  if (row.kind !== 'medicines' || row.status !== 'done') return true;
  return resultOf<MedicinesResult>(ctx, row)?.rules === PGX_RULES_VERSION;
}

/** Starts a report of `kind` for the caller's genome, or answers the one already queued or done. */
async function startReport(ctx: AuthedContext, kind: DnaReportKind): Promise<DnaReportJobView> {
  const userId = dnaOwnerOf(ctx);
  const genome = await ctx.prisma.dnaGenome.findUnique({ where: { userId }, select: { id: true } });
  if (!genome) throw appError('NOT_FOUND', NO_GENOME);
  const current = await ctx.prisma.dnaReport.findFirst({
    where: { userId, kind, status: { in: ['queued', 'running', 'done'] } },
    orderBy: { createdAt: 'desc' },
  });
  if (current && isCurrent(ctx, current)) return viewOf(current);
  const row = await ctx.prisma.dnaReport.create({ data: { userId, kind } });
  await ctx.jobs.send(DNA_REPORT_QUEUE, { id: row.id });
  const old = await ctx.prisma.dnaReport.findMany({
    where: { userId, kind },
    orderBy: { createdAt: 'desc' },
    skip: DNA_REPORTS_KEPT,
    select: { id: true },
  });
  await ctx.prisma.dnaReport.deleteMany({ where: { id: { in: old.map((r) => r.id) } } });
  return viewOf(row);
}

/** Starts the medicines report (the seven CPIC genes) in the background. */
export const startDnaMedicines = (ctx: AuthedContext): Promise<DnaReportJobView> =>
  startReport(ctx, 'medicines');

/** Starts the HLA tag report in the background. */
export const startDnaHla = (ctx: AuthedContext): Promise<DnaReportJobView> =>
  startReport(ctx, 'hla');

/** Starts the continental ancestry estimate (continental-combined, with intervals) in the background. */
export const startDnaAncestry = (ctx: AuthedContext): Promise<DnaReportJobView> =>
  startReport(ctx, 'ancestry');

/** The next step for a report in `status` (or none yet), in words an assistant can follow. */
function nextStep(ctx: AuthedContext, kind: DnaReportKind, row: DnaReport | null): string {
  if (!row) return `No ${kind} report yet: start one with ${START_TOOL[kind]}.`;
  if (row.status === 'queued' || row.status === 'running')
    return `The report is being made (usually seconds): call ${READ_TOOL[kind]} again shortly.`;
  if (row.status === 'failed')
    return `${row.error ?? 'It failed.'} Start again with ${START_TOOL[kind]}.`;
  if (!isCurrent(ctx, row))
    return `This report was made with earlier rules: start it again with ${START_TOOL[kind]}.`;
  return 'Done. It reads the genome stored now; a new upload replaces it (start again then).';
}

/** Opens a done report's sealed result. */
export function resultOf<R>(ctx: AuthedContext, row: DnaReport | null): R | null {
  if (row?.status !== 'done' || !row.sealed) return null;
  const plain = decryptGenome(Buffer.from(row.sealed), genomeKey(ctx.config));
  return JSON.parse(plain.toString('utf8')) as R;
}

/** Reads the caller's report `id` of `kind`, or their newest one. Another person's id answers 404. */
async function readReport<R>(
  ctx: AuthedContext,
  kind: DnaReportKind,
  id: string | null | undefined,
  findingsOnly: (result: R) => R,
): Promise<DnaReportRead<R>> {
  const userId = dnaOwnerOf(ctx);
  const row = await ctx.prisma.dnaReport.findFirst({
    where: { userId, kind, ...(id ? { id } : {}) },
    orderBy: { createdAt: 'desc' },
  });
  if (id && !row)
    throw appError(
      'NOT_FOUND',
      `No ${kind} report with this id: read your newest one without an id.`,
    );
  const result = resultOf<R>(ctx, row);
  const oauth = isOAuth(ctx);
  return {
    report: row ? viewOf(row) : null,
    result: result && oauth ? findingsOnly(result) : result,
    genotypesShown: !oauth,
    next: nextStep(ctx, kind, row),
  };
}

/** A medicines result without the person's calls at each site (findings only). */
function medicinesFindings(result: MedicinesResult): MedicinesResult {
  return {
    ...result,
    genes: result.genes.map((g) => ({
      ...g,
      sites: g.sites.map((s) => ({ ...s, call: null, genotype: null })),
      ...(g.vkorc1 ? { vkorc1: { ...g.vkorc1, call: null, genotype: null } } : {}),
      ...(g.cyp4f2 ? { cyp4f2: { ...g.cyp4f2, call: null, genotype: null } } : {}),
    })),
  };
}

/** An HLA result without the person's calls at the tags (findings only). */
const hlaFindings = (result: HlaResult): HlaResult => ({
  tags: result.tags.map((t) => ({ ...t, call: null })),
});

/**
 * The caller's medicines report (newest, or `id`), with its status and the next step; `gene` and
 * `drug` narrow it to the genes they name (a 422 listing the names when none matches).
 */
export async function dnaMedicines(
  ctx: AuthedContext,
  options: { reportId?: string | null; detail?: boolean | null } & GeneFilter,
): Promise<MedicinesRead> {
  const read = await readReport(ctx, 'medicines', options.reportId, medicinesFindings);
  const detail = options.detail ?? false;
  // a report made by earlier rules is not shown (its `next` says to start it again)
  if (read.result?.rules !== PGX_RULES_VERSION) return { ...read, result: null, detail };
  const genes = filterGenes(read.result.genes, options);
  return { ...read, result: { ...read.result, genes }, detail };
}

/** The caller's HLA tag report (newest, or `id`), with its status and the next step. */
export function dnaHla(
  ctx: AuthedContext,
  options: { reportId?: string | null },
): Promise<DnaReportRead<HlaResult>> {
  return readReport(ctx, 'hla', options.reportId, hlaFindings);
}

/** The caller's ancestry estimate (newest, or `id`), with its status and the next step. */
export function dnaAncestry(
  ctx: AuthedContext,
  options: { reportId?: string | null },
): Promise<DnaReportRead<AncestryResult>> {
  // proportions are findings, not genotypes: the same over OAuth
  return readReport(ctx, 'ancestry', options.reportId, (r) => r);
}

/** The person's newest done report of `kind`, opened, or null (for answers built on it). */
export async function latestResult<R>(
  ctx: AuthedContext,
  userId: number,
  kind: DnaReportKind,
): Promise<R | null> {
  const row = await ctx.prisma.dnaReport.findFirst({
    where: { userId, kind, status: 'done' },
    orderBy: { createdAt: 'desc' },
  });
  return resultOf<R>(ctx, row);
}
