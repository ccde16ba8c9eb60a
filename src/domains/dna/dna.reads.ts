/**
 * The reads of a person's DNA (issue 34) and its deletion: the report (the file, what was found,
 * what is not determinable and why), a gene's card with the person's genotypes at its curated sites,
 * lookups of named rsIDs, the curated knowledge (no genome needed), and deleting every DNA row.
 *
 * Whose genome and how much of it an answer may carry is dna.access.ts's: every read here opens
 * only `dnaOwnerOf(ctx)`'s genome, and over OAuth counts the sites it answers (`chargeGenotypes`)
 * before reading them. It must never answer more than the curated sites or the named rsIDs: there
 * is no read of the whole genome.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import type { DbTx } from '../../db/client.ts';
import { chargeGenotypes, dnaOwnerOf, genotypesPerAnswer, isOAuth } from './dna.access.ts';
import { genomeSummaryOf, openGenome } from './dna.genome.ts';
import type { GenomeView } from './dna.genome.ts';
import type { CallLookup } from './dna.types.ts';
import {
  apoeHaplotype,
  geneCard,
  knowledge,
  knowledgeLookup,
  lookupVariants,
  reportOverview,
  variantCards,
  VARIANT_CATEGORIES,
} from './dna.knowledge.ts';
import type {
  ApoeResult,
  GeneCard,
  KnowledgeSearchResult,
  NotDeterminable,
  VariantCategory,
  VariantCard,
  VariantLookupResult,
} from './dna.knowledge.ts';
import { genomeDeps } from './dna.upload.ts';

/** What a read answers in place of readings while no genome is stored. */
export const NO_GENOME =
  'No DNA file uploaded yet. The person uploads the raw data file from 23andMe, AncestryDNA, ' +
  'MyHeritage, FamilyTreeDNA, LivingDNA or a VCF in the phone app (it is sent to ' +
  'POST /api/v1/dna/upload); an assistant cannot upload it.';

/** A site's answer: a lookup, or a curated card without readings while no genome is stored. */
export interface SiteView extends Omit<VariantLookupResult, 'status'> {
  status: VariantLookupResult['status'] | 'no_genome';
}

/** A site before any genome: its card (when curated), no reading. */
const unread = (rsid: string, card: VariantCard | null): SiteView => ({
  rsid,
  status: 'no_genome',
  call: null,
  card,
  interpretation: null,
  effectAlleleCopies: null,
  strandAmbiguous: card?.strandAmbiguous ?? false,
  needsClinicalConfirmation: false,
  note: 'no genome uploaded',
});

/** Whether the person has a genome stored (its summary row only: nothing is unsealed). */
async function hasGenome(ctx: AuthedContext, userId: number): Promise<boolean> {
  return (await genomeSummaryOf(genomeDeps(ctx), userId)) !== null;
}

/**
 * The person's calls at curated or named sites (and the calls, for readings of several sites), or
 * the cards alone when no genome is stored.
 */
async function sitesOf(
  ctx: AuthedContext,
  userId: number,
  rsids: string[],
): Promise<{ calls: CallLookup | null; sites: SiteView[] }> {
  const opened = await openGenome(genomeDeps(ctx), userId);
  // the stored summary's vendor and build tell whether the file's A/T and C/G sites can be read
  if (opened)
    return { calls: opened.calls, sites: lookupVariants(opened.calls, rsids, opened.view) };
  const cards = new Map(variantCards().map((c) => [c.rsid, c]));
  const wanted = [...new Set(rsids.map((r) => r.trim().toLowerCase()))];
  return { calls: null, sites: wanted.map((rsid) => unread(rsid, cards.get(rsid) ?? null)) };
}

// ---- the report -------------------------------------------------------------------------------

/** A category's curated cards in the file. */
export interface CategoryCountView {
  category: VariantCategory;
  curated: number;
  called: number;
  carrying: number;
}

/** One of the two APOE sites. */
export interface SiteCallView {
  rsid: string;
  call: string | null;
}

export interface ApoeView extends Omit<ApoeResult, 'calls'> {
  calls: SiteCallView[];
}

export interface OverviewView {
  knowledgeVersion: string;
  curatedVariants: number;
  inFile: number;
  called: number;
  categories: CategoryCountView[];
  needsClinicalConfirmation: VariantLookupResult[];
  unreadable: VariantLookupResult[];
  unreadableCount: number;
  apoe: ApoeView;
  notes: string[];
}

export interface DnaReportView {
  genome: GenomeView | null;
  /** how to upload while no genome is stored; what the report is otherwise */
  note: string;
  overview: OverviewView | null;
  notDeterminable: NotDeterminable[];
}

const apoeView = (apoe: ApoeResult): ApoeView => ({
  ...apoe,
  calls: Object.entries(apoe.calls).map(([rsid, call]) => ({ rsid, call })),
});

const OAUTH_REPORT_NOTE =
  "Over an assistant's connection the report names findings only: the curated sites whose call " +
  'could not be read are counted, not listed. Look a site up with dna_variants_lookup.';

/**
 * The overview of the person's genome: the file, what was found among the curated variants (counts
 * by category, carried rare variants needing clinical confirmation, APOE), what arrays cannot tell
 * and why. Over OAuth, findings only: the unreadable sites are counted, not listed, and the
 * genotypes answered count against the connection's day.
 */
export async function dnaReport(ctx: AuthedContext): Promise<DnaReportView> {
  const userId = dnaOwnerOf(ctx);
  const notDeterminable = knowledge().notDeterminable;
  const opened = await openGenome(genomeDeps(ctx), userId);
  if (!opened) return { genome: null, note: NO_GENOME, overview: null, notDeterminable };
  const o = reportOverview(opened.calls, opened.view);
  const oauth = isOAuth(ctx);
  const apoe = apoeView(o.apoe);
  const apoeSites = apoe.calls.filter((c) => c.call !== null).length;
  // the carried rare variants are few (the cards say which), but an answer stays within its bound
  const confirm = o.needsClinicalConfirmation.slice(0, genotypesPerAnswer(ctx) - apoeSites);
  const unreadable = oauth ? [] : o.unreadable;
  await chargeGenotypes(ctx, confirm.length + unreadable.length + apoeSites);
  return {
    genome: opened.view,
    note: oauth
      ? OAUTH_REPORT_NOTE
      : 'What the file says at the curated sites; look any site up with dnaVariants.',
    overview: {
      knowledgeVersion: o.knowledgeVersion,
      curatedVariants: o.curatedVariants,
      inFile: o.inFile,
      called: o.called,
      categories: VARIANT_CATEGORIES.map((category) => ({ category, ...o.byCategory[category] })),
      needsClinicalConfirmation: confirm,
      unreadable,
      unreadableCount: o.unreadable.length,
      apoe,
      notes: o.notes,
    },
    notDeterminable,
  };
}

// ---- a gene -----------------------------------------------------------------------------------

export interface DnaGeneOptions {
  /** a gene symbol or alias with a curated card, any case ("cyp2c19", "HLA-B") */
  symbol: string;
}

export interface DnaGeneView {
  gene: GeneCard;
  /** whether the person has a genome stored (else the sites carry their cards only) */
  hasGenome: boolean;
  /** the gene's curated sites with the person's calls and readings */
  sites: SiteView[];
  /** curated sites not answered (over OAuth, beyond an answer's bound) */
  more: number;
  /** the APOE type, for APOE only */
  apoe: ApoeView | null;
  /** what arrays cannot tell about this gene, and why */
  notDeterminable: NotDeterminable[];
  note: string;
}

/**
 * A gene's curated card and the person's genotypes at its curated sites, with what arrays cannot
 * tell about it. An unknown symbol answers 404 naming the genes that have a card.
 */
export async function dnaGene(ctx: AuthedContext, options: DnaGeneOptions): Promise<DnaGeneView> {
  const userId = dnaOwnerOf(ctx);
  const gene = geneCard(options.symbol);
  if (!gene) {
    const symbols = knowledge().genes.map((g) => g.symbol);
    throw appError(
      'NOT_FOUND',
      `No curated card for the gene "${options.symbol}". Genes with a card: ${symbols.join(', ')}`,
    );
  }
  const all = variantCards()
    .filter((c) => geneCard(c.gene)?.symbol === gene.symbol)
    .map((c) => c.rsid);
  const rsids = all.slice(0, genotypesPerAnswer(ctx));
  const more = all.length - rsids.length;
  if (await hasGenome(ctx, userId)) await chargeGenotypes(ctx, rsids.length);
  const { calls, sites } = await sitesOf(ctx, userId, rsids);
  const notes = [
    calls ? '' : NO_GENOME,
    more > 0
      ? `${more} more curated sites of ${gene.symbol} are not answered here: look them up with dna_variants_lookup (${all.slice(rsids.length).join(', ')}).`
      : '',
  ].filter(Boolean);
  return {
    gene,
    hasGenome: calls !== null,
    sites,
    more,
    apoe: gene.symbol === 'APOE' && calls ? apoeView(apoeHaplotype(calls)) : null,
    notDeterminable: knowledge().notDeterminable.filter((n) =>
      n.genes.some((g) => geneCard(g)?.symbol === gene.symbol),
    ),
    note: notes.join(' '),
  };
}

// ---- variants ---------------------------------------------------------------------------------

export interface DnaVariantsOptions {
  /** rsIDs ("rs4244285"), at most 50 (duplicates answered once) */
  rsids: string[];
}

export interface DnaVariantsView {
  hasGenome: boolean;
  lookups: SiteView[];
  note: string;
}

/**
 * The person's genotype at each named rsID with its curated card and reading, at most 50 rsIDs
 * (a 422 beyond); a carried very rare variant says "needs clinical confirmation".
 */
export async function dnaVariants(
  ctx: AuthedContext,
  options: DnaVariantsOptions,
): Promise<DnaVariantsView> {
  const userId = dnaOwnerOf(ctx);
  const distinct = new Set(options.rsids.map((r) => r.trim().toLowerCase())).size;
  // NOTE: counted before the genome is opened: a refused lookup reads nothing
  if (await hasGenome(ctx, userId)) await chargeGenotypes(ctx, distinct);
  const { calls, sites } = await sitesOf(ctx, userId, options.rsids);
  return { hasGenome: calls !== null, lookups: sites, note: calls ? '' : NO_GENOME };
}

// ---- knowledge --------------------------------------------------------------------------------

export interface DnaKnowledgeOptions {
  /** an rsID, a gene symbol or alias, or words that must all appear in a card */
  query: string;
}

/** The curated gene, variant and haplotype cards matching a query; reads no genome. */
export function dnaKnowledge(
  _ctx: AuthedContext,
  options: DnaKnowledgeOptions,
): KnowledgeSearchResult {
  return knowledgeLookup(options.query);
}

// ---- deletion ---------------------------------------------------------------------------------

/** Removes a person's rows from one table; answers how many went. */
type Remove = (tx: DbTx, userId: number) => Promise<{ count: number }>;

/**
 * Every DNA table that holds rows of a person, each removed by its owner's id: adding a DNA table
 * is one line here (account deletion needs nothing: every one cascades from User).
 */
const DNA_TABLES: [table: string, remove: Remove][] = [
  ['dna_genomes', (tx, userId) => tx.dnaGenome.deleteMany({ where: { userId } })],
  ['dna_reports', (tx, userId) => tx.dnaReport.deleteMany({ where: { userId } })],
  [
    'dna_relatives',
    async (tx, userId) => {
      // both sides, and invitations sent to the person's address before they had an account
      const me = await tx.user.findUniqueOrThrow({
        where: { id: userId },
        select: { email: true },
      });
      return tx.dnaRelative.deleteMany({
        where: {
          OR: [
            { inviterId: userId },
            { inviteeId: userId },
            { inviteeId: null, inviteeEmail: me.email },
          ],
        },
      });
    },
  ],
];

export interface DnaDataDeletedView {
  /** whether there was anything to delete */
  deleted: boolean;
  /** rows removed per table */
  tables: { table: string; rows: number }[];
  note: string;
}

/**
 * Deletes every DNA row of the person in one transaction: the genome, everything read from it, and
 * their relatives (both sides' links and comparisons: a relative without a genome compares nothing).
 */
export async function deleteDnaData(ctx: AuthedContext): Promise<DnaDataDeletedView> {
  const userId = dnaOwnerOf(ctx);
  const tables = await ctx.prisma.$transaction(async (tx) => {
    const out: { table: string; rows: number }[] = [];
    for (const [table, remove] of DNA_TABLES) {
      out.push({ table, rows: (await remove(tx, userId)).count });
    }
    return out;
  });
  const deleted = tables.some((t) => t.rows > 0);
  return {
    deleted,
    tables,
    note: deleted
      ? 'Your DNA data is deleted: the genome file, everything read from it and your DNA relatives.'
      : 'There was no DNA data to delete.',
  };
}
