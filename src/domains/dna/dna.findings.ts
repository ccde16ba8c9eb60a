/**
 * The findings of issue 35 that read the caller's own genome (and their relatives' comparisons):
 * a named ancestry calculator run now (`dnaCalculator`), the maternal and paternal haplogroups
 * (`dnaDeepTime`), runs of homozygosity (`dnaParentsRelated`), the painting data and its findings
 * in words (`dnaPainting`, `dnaPaintingFindings`), a relative's ancestry beside the caller's
 * (`compareDnaRelativeAncestry`) and a short text of findings the person picks (`dnaStory`).
 *
 * Over OAuth these are findings: no answer carries a genotype. The haplogroup answers list the
 * person's mitochondrial variants and Y calls behind them, so over OAuth those lists are emptied
 * (the haplogroup, its quality and the counts stay). Nothing here writes, and the story is only
 * text: it sends nothing anywhere.
 */
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { dnaOwnerOf, isOAuth } from './dna.access.ts';
import {
  ANCESTRY_CALCULATORS,
  SUB_CONTINENTAL_CALCULATORS,
  estimateAncestry,
  runCalculator,
} from './dna.ancestry.ts';
import type { AncestryAnswer, AncestryCalculator } from './dna.ancestry.ts';
import { caller, comparedRelatives, linkOf, viewOf } from './dna.family.ts';
import type { DnaRelativeView } from './dna.family.ts';
import { openGenome } from './dna.genome.ts';
import type { GenomeView } from './dna.genome.ts';
import { deepTimeReport, mtObservations } from './dna.haplogroups.ts';
import type { DeepTimeReport, YHaplogroupResult, YSnpReading } from './dna.haplogroups.ts';
import { PGX_RULES_VERSION } from './dna.pgx.ts';
import { NO_GENOME } from './dna.reads.ts';
import { columnsOf } from './dna.relatives.markers.ts';
import { paintChromosomes, runsOfHomozygosity } from './dna.relatives.ts';
import type { HomozygosityReport, PaintedChromosome, RelativesRefusal } from './dna.relatives.ts';
import { latestResult } from './dna.reports.ts';
import type { AncestryResult, MedicinesResult } from './dna.reports.ts';
import type { GenomeIndex } from './dna.store.ts';
import { genomeDeps } from './dna.upload.ts';

/** The caller's genome, opened, or null. */
async function ownGenome(
  ctx: AuthedContext,
): Promise<{ view: GenomeView; calls: GenomeIndex } | null> {
  return openGenome(genomeDeps(ctx), dnaOwnerOf(ctx));
}

// ---------------------------------------------------------------------------------------------
// calculators

/** A calculator run: the answer and every calculator there is. */
export interface CalculatorRun {
  /** null while no genome is stored (note says so) */
  result: AncestryAnswer | null;
  calculators: AncestryCalculator[];
  /** names that ask for population-level ancestry: refused with the reason */
  refusedNames: string[];
  note: string;
}

/**
 * Runs a named calculator now over the caller's genome (about 0.1 s): a continental one estimates,
 * a population-level one is refused with the reason, any other name is a 422 listing what exists.
 */
export async function dnaCalculator(
  ctx: AuthedContext,
  options: { calculator?: string | null },
): Promise<CalculatorRun> {
  const name = options.calculator ?? ANCESTRY_CALCULATORS[0].name;
  const known = [...ANCESTRY_CALCULATORS.map((c) => c.name), ...SUB_CONTINENTAL_CALCULATORS];
  if (!known.includes(name)) {
    throw validationError([
      {
        loc: ['calculator'],
        msg: `Unknown calculator "${name}". Calculators: ${ANCESTRY_CALCULATORS.map((c) => c.name).join(', ')} (population-level names are refused with the reason).`,
        type: 'value_error',
      },
    ]);
  }
  const genome = await ownGenome(ctx);
  const base = {
    calculators: [...ANCESTRY_CALCULATORS],
    refusedNames: [...SUB_CONTINENTAL_CALCULATORS],
  };
  if (!genome) return { ...base, result: null, note: NO_GENOME };
  const result = runCalculator(name, genome.calls);
  return { ...base, result, note: result.note };
}

// ---------------------------------------------------------------------------------------------
// deep time

/** A disagreeing Y SNP as answered: its call is null over OAuth. */
export type YReadingView = Omit<YSnpReading, 'call'> & { call: string | null };

/** The deep-time report as answered (over OAuth without the person's variants and calls). */
export type DeepTimeView = Omit<DeepTimeReport, 'paternal'> & {
  paternal: Omit<YHaplogroupResult, 'conflicts'> & { conflicts: YReadingView[] };
};

/** The haplogroups, or a note while no genome is stored. */
export interface DeepTimeRead {
  report: DeepTimeView | null;
  /** false over OAuth: the variants and calls behind the haplogroups are left out */
  genotypesShown: boolean;
  note: string;
}

/** The report without the person's own variants and calls (findings only). */
function deepTimeFindings(r: DeepTimeReport): DeepTimeView {
  const strip = <T extends { missing: string[]; extra: string[] }>(c: T): T => ({
    ...c,
    missing: [],
    extra: [],
  });
  return {
    ...r,
    maternal: {
      ...r.maternal,
      best: r.maternal.best ? strip(r.maternal.best) : null,
      runnersUp: r.maternal.runnersUp.map(strip),
    },
    paternal: { ...r.paternal, conflicts: r.paternal.conflicts.map((c) => ({ ...c, call: null })) },
  };
}

/** The maternal (mtDNA, PhyloTree 17) and paternal (Y backbone, YFull ages) haplogroups. */
export async function dnaDeepTime(ctx: AuthedContext): Promise<DeepTimeRead> {
  const genome = await ownGenome(ctx);
  const oauth = isOAuth(ctx);
  if (!genome) return { report: null, genotypesShown: !oauth, note: NO_GENOME };
  const report = deepTimeOf(genome);
  return {
    report: oauth ? deepTimeFindings(report) : report,
    genotypesShown: !oauth,
    note: report.notes[0],
  };
}

const deepTimeOf = (genome: { view: GenomeView; calls: GenomeIndex }): DeepTimeReport =>
  deepTimeReport({
    mt: mtObservations(genome.calls.markers('MT')),
    calls: genome.calls,
    sex: genome.view.sex,
  });

// ---------------------------------------------------------------------------------------------
// runs of homozygosity

/** Runs of homozygosity, or why there are none to read. */
export interface ParentsRelatedRead {
  /** measured, too_few_markers or no_genome */
  status: 'measured' | 'too_few_markers' | 'no_genome';
  report: HomozygosityReport | null;
  refusal: RelativesRefusal | null;
  note: string;
}

/** The caller's runs of homozygosity in cM, in plain words (short runs are normal). */
export async function dnaParentsRelated(ctx: AuthedContext): Promise<ParentsRelatedRead> {
  const genome = await ownGenome(ctx);
  if (!genome) return { status: 'no_genome', report: null, refusal: null, note: NO_GENOME };
  return homozygosityOf(genome.calls);
}

function homozygosityOf(calls: GenomeIndex): ParentsRelatedRead {
  const r = runsOfHomozygosity(columnsOf(calls));
  return r.status === 'measured'
    ? { status: 'measured', report: r, refusal: null, note: r.wording }
    : { status: 'too_few_markers', report: null, refusal: r, note: r.reason };
}

// ---------------------------------------------------------------------------------------------
// painting

const NO_ANCESTRY_PAINTING =
  'Ancestry painting (which continent each stretch of a chromosome comes from) is not available: ' +
  'it needs tens of thousands of ancestry-informative markers phased into the two parental copies, ' +
  'and the reference here has 169 markers, enough for overall proportions but not for placing ' +
  'segments.';

/** Painting data: per autosome the runs of homozygosity and each relative's shared segments. */
export interface PaintingRead {
  chromosomes: PaintedChromosome[];
  /** the relatives drawn (their link id is the `relative` of each segment list) */
  relatives: { id: string; email: string; name: string | null }[];
  homozygosity: ParentsRelatedRead['status'];
  ancestryPainting: { available: false; reason: string };
  note: string;
}

/**
 * The painting data a client draws as an ideogram: the caller's runs of homozygosity and the
 * segments shared with each compared relative, per autosome (positions and cM).
 */
export async function dnaPainting(ctx: AuthedContext): Promise<PaintingRead> {
  const genome = await ownGenome(ctx);
  const own = genome ? homozygosityOf(genome.calls) : null;
  const { rows } = genome ? await comparedRelatives(ctx) : { rows: [] };
  const compared = rows.flatMap(({ view, outcome }) =>
    outcome.status === 'compared' ? [{ view, comparison: outcome.comparison }] : [],
  );
  const chromosomes = paintChromosomes(
    own?.report ?? null,
    compared.map((c) => ({ relative: c.view.id, comparison: c.comparison })),
  );
  return {
    chromosomes,
    relatives: compared.map(({ view }) => ({ id: view.id, email: view.email, name: view.name })),
    homozygosity: own?.status ?? 'no_genome',
    ancestryPainting: { available: false, reason: NO_ANCESTRY_PAINTING },
    note: genome
      ? `${compared.length} relative${compared.length === 1 ? '' : 's'} compared; segments of ${compared.length ? 'each' : 'none'} drawn with runs of homozygosity.`
      : NO_GENOME,
  };
}

/** The painting in words. */
export interface PaintingFindings {
  findings: string[];
  ancestryPainting: { available: false; reason: string };
}

/** What the painting shows, in sentences: each relative's segments and the long runs. */
export async function dnaPaintingFindings(ctx: AuthedContext): Promise<PaintingFindings> {
  const painting = await dnaPainting(ctx);
  const findings: string[] = [];
  if (painting.homozygosity === 'no_genome') findings.push(NO_GENOME);
  for (const r of painting.relatives) {
    const per = painting.chromosomes
      .map((c) => ({
        chromosome: c.chromosome,
        segments: c.relatives.find((x) => x.relative === r.id)?.halfIdentical ?? [],
      }))
      .filter((c) => c.segments.length > 0);
    const who = r.name ? `${r.name} (${r.email})` : r.email;
    if (per.length === 0) {
      findings.push(`You and ${who} share no segment long enough to count.`);
      continue;
    }
    const longest = per
      .flatMap((c) => c.segments.map((s) => ({ chromosome: c.chromosome, cM: s.cM })))
      .sort((a, b) => b.cM - a.cM)[0];
    findings.push(
      `You and ${who} share segments on chromosome${per.length === 1 ? '' : 's'} ${per.map((c) => c.chromosome).join(', ')}; the longest is on chromosome ${longest.chromosome} (${Math.round(longest.cM)} cM).`,
    );
  }
  const runs = painting.chromosomes.filter((c) => c.runsOfHomozygosity.length > 0);
  if (painting.homozygosity === 'measured') {
    findings.push(
      runs.length === 0
        ? 'No long run of homozygosity on any chromosome (short runs are normal and not drawn).'
        : `Long runs of homozygosity on chromosome${runs.length === 1 ? '' : 's'} ${runs.map((c) => c.chromosome).join(', ')}: dna_family_parents_related says what they can and cannot mean.`,
    );
  } else if (painting.homozygosity === 'too_few_markers') {
    findings.push('Runs of homozygosity are not drawn: the file has too few markers to read them.');
  }
  if (painting.relatives.length === 0 && painting.homozygosity !== 'no_genome') {
    findings.push('No relative compared yet: invite one with dna_family_invite.');
  }
  return { findings, ancestryPainting: painting.ancestryPainting };
}

// ---------------------------------------------------------------------------------------------
// a relative's ancestry

/** One continental group, both sides. */
export interface AncestryDifference {
  superpopulation: string;
  name: string;
  mine: number;
  theirs: number;
  /** theirs - mine */
  difference: number;
  /** whether the two 95% intervals overlap (the shares cannot then be told apart) */
  overlapping: boolean;
}

/** Both people's continental ancestry, side by side. */
export interface RelativeAncestry {
  relative: DnaRelativeView;
  /** compared, not_shared (one side shares no ancestry), not_accepted, no_genome or refused */
  status: 'compared' | 'not_shared' | 'not_accepted' | 'no_genome' | 'refused';
  groups: AncestryDifference[];
  note: string;
}

/** A person's ancestry: their newest done estimate, or one made now from their genome. */
async function ancestryOfPerson(
  ctx: AuthedContext,
  userId: number,
): Promise<AncestryAnswer | null> {
  const done = await latestResult<AncestryResult>(ctx, userId, 'ancestry');
  if (done) return done.ancestry;
  const genome = await openGenome(genomeDeps(ctx), userId);
  return genome ? estimateAncestry(genome.calls) : null;
}

/**
 * A relative's continental ancestry beside the caller's, where both have shared it with each other
 * (dna_family_update). Each side's newest ancestry estimate is used, or one is made now.
 */
export async function compareDnaRelativeAncestry(
  ctx: AuthedContext,
  options: { id: string },
): Promise<RelativeAncestry> {
  const me = await caller(ctx);
  const row = await linkOf(ctx, me, options.id);
  const relative = viewOf(row, me);
  const answer = (status: RelativeAncestry['status'], note: string): RelativeAncestry => ({
    relative,
    status,
    groups: [],
    note,
  });
  if (relative.status !== 'accepted' || row.inviteeId === null) {
    return answer('not_accepted', 'Not compared: the invitation has not been accepted yet.');
  }
  if (!relative.myShares.ancestry || !relative.theirShares.ancestry) {
    return answer(
      'not_shared',
      relative.theirShares.ancestry
        ? 'You have not shared your ancestry with them: turn it on with dna_family_update (share_ancestry) to compare.'
        : 'They have not shared their ancestry with you; only they can turn it on.',
    );
  }
  const theirId = row.inviterId === me.id ? row.inviteeId : row.inviterId;
  const [mine, theirs] = [await ancestryOfPerson(ctx, me.id), await ancestryOfPerson(ctx, theirId)];
  if (!mine || !theirs)
    return answer('no_genome', `Not compared: ${mine ? 'they have' : 'you have'} no DNA file.`);
  if (mine.status !== 'estimated' || theirs.status !== 'estimated') {
    return answer('refused', (mine.status === 'refused' ? mine : theirs).note);
  }
  const groups = mine.proportions.map((m) => {
    const t = theirs.proportions.find((x) => x.superpopulation === m.superpopulation) ?? m;
    return {
      superpopulation: m.superpopulation,
      name: m.name,
      mine: m.proportion,
      theirs: t.proportion,
      difference: Math.round((t.proportion - m.proportion) * 1000) / 1000,
      overlapping: m.low <= t.high && t.low <= m.high,
    };
  });
  const apart = groups.filter((g) => !g.overlapping).map((g) => g.name);
  return {
    relative,
    status: 'compared',
    groups,
    note:
      (apart.length
        ? `Your shares differ beyond their intervals for ${apart.join(', ')}. `
        : 'Your shares are within each other’s intervals: they cannot be told apart. ') +
      'Relatives inherit different halves of each parent, so even full siblings differ by a few ' +
      'percent; a difference says nothing about who is related to whom, and these are likenesses ' +
      'to present-day reference groups, not a family tree.',
  };
}

// ---------------------------------------------------------------------------------------------
// the story

/** What a story can tell; medicines only when picked. */
export const STORY_ITEMS = [
  'ancestry',
  'maternal_line',
  'paternal_line',
  'relatives',
  'parents_related',
  'medicines',
] as const;
export type StoryItem = (typeof STORY_ITEMS)[number];
/** What a story tells when the person picks nothing: never a medical finding. */
export const DEFAULT_STORY: StoryItem[] = ['ancestry', 'maternal_line', 'paternal_line'];

/** A story: the text, what went in, what was left out and why. */
export interface DnaStory {
  text: string;
  included: StoryItem[];
  leftOut: { item: StoryItem; reason: string }[];
  note: string;
}

/**
 * A short text of the findings the person picks (default: ancestry and both haplogroups; medical
 * findings only when picked). It answers the text and sends nothing: sharing it is the person's.
 */
export async function dnaStory(
  ctx: AuthedContext,
  options: { include?: StoryItem[] | null },
): Promise<DnaStory> {
  const items = [...new Set(options.include?.length ? options.include : DEFAULT_STORY)];
  const userId = dnaOwnerOf(ctx);
  const genome = await ownGenome(ctx);
  if (!genome) throw appError('NOT_FOUND', NO_GENOME);
  const lines: string[] = [];
  const included: StoryItem[] = [];
  const leftOut: DnaStory['leftOut'] = [];
  const deep = items.some((i) => i === 'maternal_line' || i === 'paternal_line')
    ? deepTimeOf(genome)
    : null;
  const input: StoryInput = { ctx, userId, calls: genome.calls, deep };
  for (const item of items) {
    const told = await STORY_LINES[item](input);
    if (told.text) {
      lines.push(told.text);
      included.push(item);
    } else leftOut.push({ item, reason: told.reason });
  }
  return {
    text: lines.join(' '),
    included,
    leftOut,
    note: 'Nothing was sent or shared: this is text for the person to keep or pass on as they choose.',
  };
}

type Line = { text: string; reason: string };
const none = (reason: string): Line => ({ text: '', reason });
const line = (text: string): Line => ({ text, reason: '' });

/** What a story line reads. */
interface StoryInput {
  ctx: AuthedContext;
  userId: number;
  calls: GenomeIndex;
  deep: DeepTimeReport | null;
}

async function ancestryLine({ ctx, userId }: StoryInput): Promise<Line> {
  const done = await latestResult<AncestryResult>(ctx, userId, 'ancestry');
  if (!done) return none('No ancestry estimate yet: start one with dna_ancestry_start.');
  if (done.ancestry.status !== 'estimated') return none(done.ancestry.note);
  const shown = done.ancestry.proportions.filter((p, i) => i === 0 || p.proportion >= 0.05);
  const groups = shown.map((p) => `${p.name} (${Math.round(p.proportion * 100)}%)`).join(', ');
  return line(
    `My DNA is most like ${groups} reference groups, estimated from ${done.ancestry.markersUsed} markers.`,
  );
}

function maternalLine({ deep }: StoryInput): Line {
  const m = deep?.maternal;
  if (!m?.best) return none('No mitochondrial markers in the file to place the maternal line.');
  // issue 46: only the branch the file supports is named, never an uncorroborated best fit
  if (!m.deepestSupported) {
    return none('The mitochondrial markers in the file are too few to place the maternal line.');
  }
  return line(`My maternal line (mother to mother) belongs to haplogroup ${m.deepestSupported}.`);
}

function paternalLine({ deep }: StoryInput): Line {
  const p = deep?.paternal;
  if (!p?.clade) {
    return none(
      p?.status === 'no_y_data'
        ? 'No Y data in the file (women have no Y chromosome; a father or brother can test it).'
        : 'The paternal line could not be placed from the Y markers in the file.',
    );
  }
  const formed = p.age?.formed;
  const age = formed ? `, a branch about ${Math.round(formed.years / 1000)},000 years old` : '';
  return line(`My paternal line (father to father) belongs to haplogroup ${p.clade}${age}.`);
}

async function relativesLine({ ctx }: StoryInput): Promise<Line> {
  const { rows } = await comparedRelatives(ctx);
  const n = rows.filter((r) => r.outcome.status === 'compared').length;
  if (n === 0) return none('No relative compared yet.');
  return line(`I have compared my DNA with ${n} relative${n === 1 ? '' : 's'}.`);
}

function parentsRelatedLine({ calls }: StoryInput): Line {
  const r = homozygosityOf(calls);
  return r.report ? line(r.report.wording) : none(r.note);
}

async function medicinesLine({ ctx, userId }: StoryInput): Promise<Line> {
  const done = await latestResult<MedicinesResult>(ctx, userId, 'medicines');
  if (!done) return none('No medicines report yet: start one with dna_medicines_start.');
  if (done.rules !== PGX_RULES_VERSION)
    return none(
      'The medicines report was made with earlier rules: start it again with dna_medicines_start.',
    );
  const found = done.genes.filter((g) => g.determinable && g.phenotype);
  if (found.length === 0) return none('No gene with a single phenotype in the report.');
  const genes = found.map((g) => `${g.gene} ${g.phenotype}`).join('; ');
  return line(`Medicines genes: ${genes} (to talk over with a prescriber; not a dose).`);
}

const STORY_LINES: Record<StoryItem, (input: StoryInput) => Line | Promise<Line>> = {
  ancestry: ancestryLine,
  maternal_line: maternalLine,
  paternal_line: paternalLine,
  relatives: relativesLine,
  parents_related: parentsRelatedLine,
  medicines: medicinesLine,
};
