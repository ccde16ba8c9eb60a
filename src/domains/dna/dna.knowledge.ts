/**
 * The curated DNA knowledge (issue 34): gene and variant cards written in the project's own words
 * (data/dna/knowledge.json), read against a person's calls. It answers what a file says at a few
 * well-known sites, and just as plainly what it cannot say (CYP2D6 copies, HLA types, the absence
 * of rare variants, overall disease risk).
 *
 * The file is read and validated with zod once, on first use; a broken file fails loudly rather
 * than answering half a card. Calls are compared on the forward strand of GRCh37 as consumer files
 * report them. An A/T or C/G site reads the same on both strands, so it is read only from a file
 * whose strand is known for its vendor and build (dna.strand.ts); from any other file its card
 * shows the call, says why there is no finding and names the clinical test that answers it.
 *
 * It must never turn a call into a diagnosis or a dose (a reading says what a genotype may mean
 * and which test answers it: issue 46), never present an uncurated rsID as meaningful for health,
 * and never show a carried rare variant without "needs clinical confirmation" (array calls of
 * very rare variants are often false: Weedon et al., BMJ 2021).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fromRoot } from '../../base/paths.ts';
import { validationError } from '../../base/errors.ts';
import { strandKnown, VENDOR_NAMES } from './dna.strand.ts';
import type { Call, CallLookup, GenomeSummary } from './dna.types.ts';

/** At most this many rsIDs are answered per lookup (the caller answers 422 beyond). */
export const MAX_LOOKUP_RSIDS = 50;
/** At most this many cards of each kind are answered by a knowledge search. */
export const MAX_SEARCH_RESULTS = 20;
/** Longest search query read (the rest is ignored). */
const MAX_QUERY_CHARS = 100;

const NO_CARD = 'no curated card: this says nothing about health';
const CONFIRM = 'needs clinical confirmation';

const base = z.string().regex(/^[ACGTDI]$/);
const checked = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const sources = z.array(z.string().min(3)).min(1);

const GeneCardSchema = z.object({
  symbol: z.string().min(2),
  name: z.string().min(3),
  aliases: z.array(z.string()),
  function: z.string().min(10),
  arrays: z.string().min(10),
  sources,
  checked,
});

export const VARIANT_CATEGORIES = [
  'medicine',
  'trait',
  'carrier',
  'risk_factor',
  'rare_pathogenic',
] as const;
export type VariantCategory = (typeof VARIANT_CATEGORIES)[number];

const VariantCardSchema = z
  .object({
    rsid: z.string().regex(/^rs\d+$/),
    gene: z.string().min(2),
    name: z.string().min(3),
    category: z.enum(VARIANT_CATEGORIES),
    kind: z.enum(['snv', 'indel']),
    /** the allele not described (forward strand, GRCh37); I/D for indels */
    otherAllele: base,
    /** the risk or effect allele the summary is about (forward strand, GRCh37); I/D for indels */
    effectAllele: base,
    strandAmbiguous: z.boolean(),
    rare: z.boolean(),
    needsClinicalConfirmation: z.boolean(),
    summary: z.string().min(20),
    /** per genotype (letters sorted alphabetically; one letter on haploid X), a short reading */
    genotypes: z.record(z.string().regex(/^[ACGTDI]{1,2}$/), z.string().min(3)),
    arrayNote: z.string().optional(),
    /**
     * the clinical test that answers what the site may mean, as a clause ("a haemoglobin test
     * (HPLC or electrophoresis) answers it"); required on strand-ambiguous cards, whose reading
     * from a file of unknown strand names it in place of a finding
     */
    clinicalTest: z.string().min(10).optional(),
    sources,
    checked,
  })
  .refine((v) => !v.strandAmbiguous || v.clinicalTest !== undefined, {
    message: 'a strand-ambiguous card names its clinicalTest',
    path: ['clinicalTest'],
  });

const HaplotypeCardSchema = z.object({
  id: z.string(),
  gene: z.string(),
  rsids: z.array(z.string().regex(/^rs\d+$/)).min(2),
  summary: z.string().min(20),
  combinations: z.record(z.string(), z.string().min(3)),
  sources,
  checked,
});

const NotDeterminableSchema = z.object({
  id: z.string(),
  topic: z.string().min(3),
  genes: z.array(z.string()),
  reason: z.string().min(20),
});

export const KnowledgeSchema = z.object({
  version: z.string().min(1),
  licence: z.string().min(20),
  checked,
  genes: z.array(GeneCardSchema).min(1),
  variants: z.array(VariantCardSchema).min(1),
  haplotypes: z.array(HaplotypeCardSchema),
  notDeterminable: z.array(NotDeterminableSchema).min(1),
});

export type Knowledge = z.infer<typeof KnowledgeSchema>;
export type GeneCard = z.infer<typeof GeneCardSchema>;
export type VariantCard = z.infer<typeof VariantCardSchema>;
export type HaplotypeCard = z.infer<typeof HaplotypeCardSchema>;
export type NotDeterminable = z.infer<typeof NotDeterminableSchema>;

/** Where the shipped cards live. */
export const KNOWLEDGE_PATH = fromRoot('data', 'dna', 'knowledge.json');

let loaded: { data: Knowledge; byRsid: Map<string, VariantCard> } | undefined;

/** The validated cards, read once (throws when the shipped file does not validate). */
export function knowledge(): Knowledge {
  return load().data;
}

function load(): { data: Knowledge; byRsid: Map<string, VariantCard> } {
  if (!loaded) {
    const data = KnowledgeSchema.parse(JSON.parse(readFileSync(KNOWLEDGE_PATH, 'utf8')));
    loaded = { data, byRsid: new Map(data.variants.map((v) => [v.rsid, v])) };
  }
  return loaded;
}

/** The gene card of a symbol or alias (case-insensitive: "cyp2c19", "HLA-DQB1"), or null. */
export function geneCard(symbol: string): GeneCard | null {
  const s = symbol.trim().toUpperCase();
  return (
    knowledge().genes.find(
      (g) => g.symbol.toUpperCase() === s || g.aliases.some((a) => a.toUpperCase() === s),
    ) ?? null
  );
}

/** All curated variant cards, in file order. */
export function variantCards(): readonly VariantCard[] {
  return knowledge().variants;
}

/** A genotype's letters sorted alphabetically, the key of a card's `genotypes`. */
export function genotypeKey(call: Call): string {
  return [...call.toUpperCase()].sort().join('');
}

/** How a person's call reads against one card. */
export interface CallReading {
  /**
   * the card's text for this genotype; at an A/T or C/G site of a file of unknown strand, why no
   * finding is given and which test answers it; null when the call cannot be read against the card
   */
  interpretation: string | null;
  /** copies of the effect allele (0..2; 0..1 on haploid calls), or null when not read */
  effectAlleleCopies: number | null;
  /** why the call was not read, or a caution about it; '' when none */
  note: string;
}

/** The file a call comes from: its vendor and build tell whether its strand is known. */
export type CallSource = Pick<GenomeSummary, 'vendor' | 'build'>;

/** "A/T" or "C/G": a strand-ambiguous card's two letters. */
const letterPair = (card: VariantCard): string =>
  [card.otherAllele, card.effectAllele].sort().join('/');

/** "MyHeritage files"; "23andMe files on GRCh38" when its strand is known on the other build. */
function filesOf(source: CallSource): string {
  const name = VENDOR_NAMES[source.vendor];
  const knownElsewhere = strandKnown(
    source.vendor,
    source.build === 'GRCh37' ? 'GRCh38' : 'GRCh37',
  );
  return knownElsewhere ? `${name} files on ${source.build}` : `${name} files`;
}

/**
 * Reads a call against a card on the forward strand; letters outside the card's alleles are not
 * read, nor is an A/T or C/G site from a file whose strand is not known for its vendor and build.
 */
export function readCall(card: VariantCard, call: Call, source: CallSource): CallReading {
  const letters = [...call.toUpperCase()];
  const allowed = new Set([card.otherAllele, card.effectAllele]);
  if (letters.length < 1 || letters.length > 2 || letters.some((l) => !allowed.has(l))) {
    const note =
      card.kind === 'indel'
        ? `this insertion/deletion is reported differently by each vendor; the call "${call}" is not in the D/I form read here`
        : `the call "${call}" does not match the curated alleles ${card.otherAllele}/${card.effectAllele} (another strand, build or vendor coding): not read`;
    return { interpretation: null, effectAlleleCopies: null, note };
  }
  if (card.strandAmbiguous && !strandKnown(source.vendor, source.build)) {
    // NOTE: the complement of an A/T or C/G call is the same pair of letters: reading it from a
    // file of unknown strand could turn a carrier into a non-carrier and back
    const test = card.clinicalTest ?? 'a clinical test answers it';
    return {
      interpretation:
        `${letterPair(card)} site: the file's strand cannot be checked for ${filesOf(source)}, ` +
        `so no finding is given from this call; ${test}.`,
      effectAlleleCopies: null,
      note: `not read: ${letterPair(card)} site, and the strand of ${filesOf(source)} is not known`,
    };
  }
  const interpretation = card.genotypes[genotypeKey(call)] ?? null;
  const copies = letters.filter((l) => l === card.effectAllele).length;
  const note = card.strandAmbiguous
    ? `${letterPair(card)} site: read as the forward-strand letters that ${filesOf(source)} report`
    : '';
  return {
    interpretation,
    effectAlleleCopies: copies,
    note: interpretation === null ? 'no reading for this genotype' : note,
  };
}

/** What a lookup answers for one rsID. */
export interface VariantLookupResult {
  rsid: string;
  /** called; no_call (the file has the marker without a call); not_in_file */
  status: 'called' | 'no_call' | 'not_in_file';
  call: Call | null;
  /** the card when curated, else null */
  card: VariantCard | null;
  interpretation: string | null;
  effectAlleleCopies: number | null;
  strandAmbiguous: boolean;
  /** true when the card says so and the person carries the effect allele */
  needsClinicalConfirmation: boolean;
  /** a plain sentence: why there is no reading, a caution, or that nothing is curated */
  note: string;
}

/**
 * The person's calls at up to MAX_LOOKUP_RSIDS named rsIDs (duplicates answered once), each with
 * its curated card and reading (`source`: the file's vendor and build, which tell whether its
 * A/T and C/G sites can be read). Throws VALIDATION_FAILED (422) beyond the limit.
 */
export function lookupVariants(
  calls: CallLookup,
  rsids: string[],
  source: CallSource,
): VariantLookupResult[] {
  const wanted = [...new Set(rsids.map((r) => r.trim().toLowerCase()))];
  if (wanted.length > MAX_LOOKUP_RSIDS) {
    throw validationError([
      {
        loc: ['rsids'],
        msg: `at most ${MAX_LOOKUP_RSIDS} rsIDs per call (${wanted.length} given)`,
        type: 'too_long',
      },
    ]);
  }
  const { byRsid } = load();
  return wanted.map((rsid) => lookupOne(calls, source, rsid, byRsid.get(rsid) ?? null));
}

function lookupOne(
  calls: CallLookup,
  source: CallSource,
  rsid: string,
  card: VariantCard | null,
): VariantLookupResult {
  const call = calls.call(rsid);
  const status = call !== null ? 'called' : calls.has(rsid) ? 'no_call' : 'not_in_file';
  const result: VariantLookupResult = {
    rsid,
    status,
    call,
    card,
    interpretation: null,
    effectAlleleCopies: null,
    strandAmbiguous: card?.strandAmbiguous ?? false,
    needsClinicalConfirmation: false,
    note: status === 'not_in_file' ? 'not in your file' : status === 'no_call' ? 'no call' : '',
  };
  if (!card) {
    result.note = result.note ? `${result.note}; ${NO_CARD}` : NO_CARD;
    return result;
  }
  if (call === null) return result;
  const reading = readCall(card, call, source);
  result.interpretation = reading.interpretation;
  result.effectAlleleCopies = reading.effectAlleleCopies;
  result.note = reading.note;
  if (card.needsClinicalConfirmation && (reading.effectAlleleCopies ?? 0) > 0) {
    result.needsClinicalConfirmation = true;
    result.note = result.note ? `${CONFIRM}; ${result.note}` : CONFIRM;
  }
  return result;
}

/** What a knowledge search answers (each list at most MAX_SEARCH_RESULTS long). */
export interface KnowledgeSearchResult {
  genes: GeneCard[];
  variants: VariantCard[];
  haplotypes: HaplotypeCard[];
  /** true when more cards matched than were answered */
  truncated: boolean;
}

/**
 * Searches the cards by rsID ("rs6025"), gene symbol or alias ("cyp2c19"), or words that must all
 * appear in a card's name, summary or function ("warfarin sensitivity"). Bounded results.
 */
export function knowledgeLookup(query: string): KnowledgeSearchResult {
  const q = query.slice(0, MAX_QUERY_CHARS).trim().toLowerCase();
  const empty: KnowledgeSearchResult = {
    genes: [],
    variants: [],
    haplotypes: [],
    truncated: false,
  };
  if (q.length < 2) return empty;
  const k = knowledge();
  const words = q.split(/[^a-z0-9*'-]+/).filter((w) => w.length >= 2);
  const hasWords = (text: string): boolean => {
    const t = text.toLowerCase();
    return words.length > 0 && words.every((w) => t.includes(w));
  };
  const asked = geneCard(q)?.symbol ?? null;
  const isGene = (symbol: string): boolean => asked !== null && geneCard(symbol)?.symbol === asked;
  const genes = k.genes.filter(
    (g) => isGene(g.symbol) || hasWords(`${g.symbol} ${g.name} ${g.function}`),
  );
  const variants = k.variants.filter(
    (v) => v.rsid === q || isGene(v.gene) || hasWords(`${v.rsid} ${v.gene} ${v.name} ${v.summary}`),
  );
  const haplotypes = k.haplotypes.filter(
    (h) => h.rsids.includes(q) || isGene(h.gene) || hasWords(`${h.gene} ${h.summary}`),
  );
  const truncated = [genes, variants, haplotypes].some((l) => l.length > MAX_SEARCH_RESULTS);
  return {
    genes: genes.slice(0, MAX_SEARCH_RESULTS),
    variants: variants.slice(0, MAX_SEARCH_RESULTS),
    haplotypes: haplotypes.slice(0, MAX_SEARCH_RESULTS),
    truncated,
  };
}

/** The APOE type read from rs429358 and rs7412. */
export interface ApoeResult {
  /** e.g. "e3/e4", or null when a site is missing, uncalled or unreadable */
  combination: string | null;
  /** the other combination the same calls allow when phase is unknown (e2/e4 versus e1/e3) */
  alternative: string | null;
  /** the card's reading of the combination */
  interpretation: string | null;
  calls: { rs429358: Call | null; rs7412: Call | null };
  /** a plain sentence on what was assumed or why nothing could be said */
  note: string;
}

const PHASE_NOTE =
  'The two sites are read without phase; the common combination is assumed. Only e2/e4 has a rare alternative (e1/e3) that the file cannot rule out.';

/** The APOE e2/e3/e4 combination from rs429358 (C = e4/e1) and rs7412 (T = e2/e1). */
export function apoeHaplotype(calls: CallLookup): ApoeResult {
  const a = calls.call('rs429358');
  const b = calls.call('rs7412');
  const result: ApoeResult = {
    combination: null,
    alternative: null,
    interpretation: null,
    calls: { rs429358: a, rs7412: b },
    note: '',
  };
  const okA = a !== null && a.length === 2 && /^[CT]{2}$/i.test(a);
  const okB = b !== null && b.length === 2 && /^[CT]{2}$/i.test(b);
  if (!okA || !okB) {
    result.note =
      a === null || b === null
        ? 'Not determinable: both rs429358 and rs7412 must be called, and at least one is missing or uncalled.'
        : 'Not determinable: a call does not match the expected C/T letters.';
    return result;
  }
  const e4Sites = [...a.toUpperCase()].filter((l) => l === 'C').length;
  const e2Sites = [...b.toUpperCase()].filter((l) => l === 'T').length;
  // each chromosome is (rs429358, rs7412): e3 = (T,C), e4 = (C,C), e2 = (T,T), e1 = (C,T)
  const combos: Record<string, [string, string | null]> = {
    '0,0': ['e3/e3', null],
    '0,1': ['e2/e3', null],
    '0,2': ['e2/e2', null],
    '1,0': ['e3/e4', null],
    '2,0': ['e4/e4', null],
    '1,1': ['e2/e4', 'e1/e3'],
    '2,1': ['e1/e4', null],
    '1,2': ['e1/e2', null],
    '2,2': ['e1/e1', null],
  };
  const [combination, alternative] = combos[`${e4Sites},${e2Sites}`];
  const card = knowledge().haplotypes.find((h) => h.id === 'APOE');
  result.combination = combination;
  result.alternative = alternative;
  result.interpretation = card?.combinations[combination] ?? null;
  result.note = PHASE_NOTE;
  return result;
}

/** Counts of one category's curated cards in the overview. */
export interface CategoryCount {
  /** cards curated */
  curated: number;
  /** of those, called in the file */
  called: number;
  /** of those, with at least one effect allele */
  carrying: number;
}

/** The overview of a file against the curated cards: plain data a caller renders. */
export interface ReportOverview {
  knowledgeVersion: string;
  curatedVariants: number;
  /** curated sites present in the file (called or not) */
  inFile: number;
  called: number;
  byCategory: Record<VariantCategory, CategoryCount>;
  /** carried variants whose cards need clinical confirmation, with their readings */
  needsClinicalConfirmation: VariantLookupResult[];
  /**
   * calls that could not be read against their card (other strand or vendor coding, or an A/T or
   * C/G site of a file whose strand is unknown)
   */
  unreadable: VariantLookupResult[];
  apoe: ApoeResult;
  /** what arrays cannot tell and why */
  notDeterminable: NotDeterminable[];
  /** cautions about the file as a whole */
  notes: string[];
}

/**
 * What was found among the curated variants (counts by category, carried rare ones flagged for
 * confirmation), the APOE type, and what cannot be determined from an array file and why. The
 * summary's vendor and build tell whether the A/T and C/G sites can be read.
 */
export function reportOverview(calls: CallLookup, summary: GenomeSummary): ReportOverview {
  const k = knowledge();
  const byCategory = Object.fromEntries(
    VARIANT_CATEGORIES.map((c) => [c, { curated: 0, called: 0, carrying: 0 }]),
  ) as Record<VariantCategory, CategoryCount>;
  const confirm: VariantLookupResult[] = [];
  const unreadable: VariantLookupResult[] = [];
  let inFile = 0;
  let called = 0;
  for (const card of k.variants) {
    const r = lookupOne(calls, summary, card.rsid, card);
    const count = byCategory[card.category];
    count.curated++;
    if (r.status !== 'not_in_file') inFile++;
    if (r.status !== 'called') continue;
    called++;
    count.called++;
    if ((r.effectAlleleCopies ?? 0) > 0) count.carrying++;
    if (r.needsClinicalConfirmation) confirm.push(r);
    if (r.effectAlleleCopies === null) unreadable.push(r);
  }
  return {
    knowledgeVersion: k.version,
    curatedVariants: k.variants.length,
    inFile,
    called,
    byCategory,
    needsClinicalConfirmation: confirm,
    unreadable,
    apoe: apoeHaplotype(calls),
    notDeterminable: k.notDeterminable,
    notes: overviewNotes(calls, summary),
  };
}

function overviewNotes(calls: CallLookup, summary: GenomeSummary): string[] {
  const notes = [
    'Sites not in the file or without a call are unknown, not normal.',
    'An association is not a cause: most people carrying a risk allele never develop the condition.',
  ];
  if (calls.build === 'GRCh38') {
    notes.push(
      'The file is on GRCh38; the cards are curated for GRCh37 forward-strand letters, which agree at almost all of these sites.',
    );
  }
  if (!strandKnown(summary.vendor, summary.build)) {
    const ambiguous = knowledge().variants.filter((v) => v.strandAmbiguous).length;
    notes.push(
      `The strand of ${filesOf(summary)} is not documented, so the ${ambiguous} A/T and C/G ` +
        'sites among the cards give no finding from this file.',
    );
  }
  if (summary.callRate < 0.95) {
    notes.push(
      `Only ${Math.round(summary.callRate * 100)} % of markers have a call: many sites may be missing.`,
    );
  }
  if (summary.sex === null) {
    notes.push(
      'Sex could not be inferred, so X-chromosome readings (G6PD) are given for both one and two X copies as reported.',
    );
  }
  return notes;
}
