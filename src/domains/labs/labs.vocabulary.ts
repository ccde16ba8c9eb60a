/**
 * The curated labs vocabulary (issue 36): about fifty blood markers, each with its LOINC code and
 * long common name, the names and abbreviations seen on reports, its UCUM units with their printed
 * spellings, a molecular weight, a plausible range and, only where a guideline gives one, a labelled
 * fallback range (data/labs/markers.json; licences in data/labs/NOTICE.md).
 *
 * The file is read once per process, on first use, and validated (every id, LOINC code and synonym
 * unique; every LOINC check digit right; every unit variant pointing at a marker with that unit); a
 * broken file fails loudly rather than misreading reports. Names are found case-, accent- and
 * punctuation-insensitively, the longest synonym winning ("hdl cholesterol" is HDL, not total
 * cholesterol; "non-hdl" is not HDL). It must never map one printed name to two markers, and never
 * read a name listed in `notMarkers` ("free PSA", "ionised calcium", "urine creatinine") as the
 * marker it contains.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fromRoot } from '../../base/paths.ts';
import type { LabMarkerDef, LoincCoding, MarkerQualifier } from './labs.types.ts';
import { normaliseUnitText } from './labs.units.ts';

// Modules that read stored values convert and check units through the vocabulary's entry points.
export { convertToOther, unitOf } from './labs.units.ts';

/** The categories a marker may have. */
export const MARKER_CATEGORIES = [
  'blood count',
  'lipids',
  'metabolic',
  'liver',
  'kidney',
  'thyroid',
  'iron',
  'vitamins',
  'inflammation',
  'diabetes',
  'hormones',
] as const;

/** A synonym or not-a-marker phrase has at most this many words. */
export const MAX_PHRASE_WORDS = 8;

/** True when the LOINC code's check digit (mod 10, Luhn) is right: "2345-7" yes, "2345-8" no. */
export function loincCheckDigitOk(code: string): boolean {
  const m = /^(\d{1,7})-(\d)$/.exec(code);
  if (!m) return false;
  let sum = 0;
  const digits = m[1];
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = Number(digits[i]) * (double ? 2 : 1);
    if (d > 9) d -= 9;
    sum += d;
  }
  return (10 - (sum % 10)) % 10 === Number(m[2]);
}

const loincCode = z.string().refine(loincCheckDigitOk, 'not a LOINC code with a valid check digit');

const unitSchema = z.strictObject({
  ucum: z.string().min(1),
  printed: z.array(z.string().min(1)),
  decimals: z.number().int().min(0).max(6).optional(),
  /** the LOINC code of a value in this unit when it is not the marker's (a molar unit, issue 47) */
  loinc: loincCode.optional(),
  loincName: z.string().min(1).optional(),
});

const fallbackSchema = z
  .strictObject({
    low: z.number().nullable(),
    high: z.number().nullable(),
    source: z.string().min(1),
  })
  .refine((r) => r.low !== null || r.high !== null, 'a fallback range needs a bound')
  .refine((r) => r.low === null || r.high === null || r.low < r.high, 'low must be below high');

/** What a report may say of how a marker was measured, with its codes (issue 47). */
const qualifierSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z_]*$/),
  words: z.array(z.string().min(1)).min(1),
  codes: z
    .array(
      z.strictObject({ ucum: z.string().min(1), loinc: loincCode, loincName: z.string().min(1) }),
    )
    .min(1),
  fallbackRange: fallbackSchema.nullable().optional(),
});

const markerSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  loinc: loincCode,
  loincName: z.string().min(1),
  name: z.string().min(1),
  category: z.enum(MARKER_CATEGORIES),
  synonyms: z.array(z.string().min(1)).min(1),
  units: z.array(unitSchema).min(1),
  molecularWeight: z.number().positive().nullable(),
  plausible: z
    .strictObject({ min: z.number(), max: z.number() })
    .refine((p) => p.min < p.max, 'min must be below max'),
  fallbackRange: fallbackSchema.nullable(),
  unitVariants: z.record(z.string(), z.string()).optional(),
  conversion: z.enum(['ucum', 'hba1c', 'none']).optional(),
  qualifiers: z.array(qualifierSchema).optional(),
});

const fileSchema = z.strictObject({
  $comment: z.string().optional(),
  markers: z.array(markerSchema).min(1),
  notMarkers: z.array(z.string().min(1)).default([]),
});

/** The vocabulary file failed validation; `problems` names each fault. */
export class VocabularyError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid labs vocabulary: ${problems.slice(0, 10).join('; ')}`);
    this.name = 'VocabularyError';
    this.problems = problems;
  }
}

/** A validated vocabulary, with its names indexed for matching. */
export interface Vocabulary {
  markers: LabMarkerDef[];
  byId: Map<string, LabMarkerDef>;
  /** normalised phrase -> marker id, or null for a name that is not a marker ("free psa") */
  phrases: Map<string, string | null>;
  /** every word-prefix of a phrase ("free", "free psa"), to stop a scan early */
  prefixes: Set<string>;
}

/** One word of a text: its normalised form and where it stands in the text. */
export interface NameToken {
  word: string;
  start: number;
  end: number;
}

const WORD_RE = /[\p{L}\p{N}]+|[%#]/gu;

/** A word in its comparable form: lower case, accents removed, "ß" as "ss". */
function normaliseWord(word: string): string {
  if (/^[\x20-\x7e]*$/.test(word)) return word.toLowerCase();
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');
}

/** The words of a text (letters and digits; "%" and "#" as words of their own), with offsets. */
export function nameTokens(text: string): NameToken[] {
  const out: NameToken[] = [];
  for (const m of text.matchAll(WORD_RE)) {
    out.push({ word: normaliseWord(m[0]), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** A name in its comparable form: "Non-HDL Cholesterol" -> "non hdl cholesterol". */
export function normaliseName(text: string): string {
  return nameTokens(text)
    .map((t) => t.word)
    .join(' ');
}

/** Adds one phrase to the index, recording a clash with an earlier one. */
function indexPhrase(
  index: Map<string, string | null>,
  raw: string,
  owner: string | null,
  problems: string[],
): void {
  const phrase = normaliseName(raw);
  const label = owner ?? 'notMarkers';
  if (!/\p{L}/u.test(phrase)) {
    problems.push(`${label}: "${raw}" has no letters`);
    return;
  }
  if (phrase.split(' ').length > MAX_PHRASE_WORDS) {
    problems.push(`${label}: "${raw}" has more than ${MAX_PHRASE_WORDS} words`);
    return;
  }
  if (index.has(phrase)) {
    const other = index.get(phrase) ?? 'notMarkers';
    problems.push(`"${raw}" (${label}) is already a name of ${other}`);
    return;
  }
  index.set(phrase, owner);
}

/** Faults in one marker's units: a spelling shared by two of its units, a bad unit variant. */
function unitProblems(def: LabMarkerDef, byId: Map<string, LabMarkerDef>): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const unit of def.units) {
    for (const text of [unit.ucum, ...unit.printed]) {
      const key = normaliseUnitText(text);
      const other = seen.get(key);
      if (other !== undefined && other !== unit.ucum) {
        problems.push(`${def.id}: "${text}" is a spelling of both ${other} and ${unit.ucum}`);
      }
      seen.set(key, unit.ucum);
    }
  }
  for (const [ucum, targetId] of Object.entries(def.unitVariants ?? {})) {
    const target = byId.get(targetId);
    if (def.units.some((u) => u.ucum === ucum)) {
      problems.push(`${def.id}: unit variant ${ucum} is one of its own units`);
    } else if (!target?.units.some((u) => u.ucum === ucum)) {
      problems.push(`${def.id}: unit variant ${ucum} -> ${targetId}, which has no such unit`);
    }
  }
  if (def.conversion === 'hba1c' && !def.units.every((u) => ['%', 'mmol/mol'].includes(u.ucum))) {
    problems.push(`${def.id}: the HbA1c conversion needs units % and mmol/mol`);
  }
  return [...problems, ...qualifierProblems(def)];
}

/** Faults in a marker's qualifiers: a repeated id, a word without letters, a unit left uncoded. */
function qualifierProblems(def: LabMarkerDef): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const q of def.qualifiers ?? []) {
    if (ids.has(q.id)) problems.push(`${def.id}: qualifier ${q.id} is listed twice`);
    ids.add(q.id);
    for (const w of q.words) {
      const phrase = normaliseName(w);
      if (!/\p{L}/u.test(phrase) || phrase.split(' ').length > MAX_PHRASE_WORDS) {
        problems.push(`${def.id}: qualifier ${q.id} word "${w}" is not a short phrase`);
      }
    }
    // every unit coded once, so a qualified value always has its code
    for (const unit of def.units) {
      const n = q.codes.filter((c) => c.ucum === unit.ucum).length;
      if (n !== 1) problems.push(`${def.id}: qualifier ${q.id} codes ${unit.ucum} ${n} times`);
    }
    for (const c of q.codes) {
      if (!def.units.some((u) => u.ucum === c.ucum)) {
        problems.push(`${def.id}: qualifier ${q.id} codes ${c.ucum}, not a unit of the marker`);
      }
    }
  }
  return problems;
}

/** Every LOINC code a marker answers: its own, its units', its qualifiers'. */
function codesOf(def: LabMarkerDef): string[] {
  return [
    def.loinc,
    ...def.units.flatMap((u) => (u.loinc ? [u.loinc] : [])),
    ...(def.qualifiers ?? []).flatMap((q) => q.codes.map((c) => c.loinc)),
  ];
}

/** Faults across markers: duplicate ids and LOINC codes, clashing names, bad units. */
function crossProblems(
  markers: LabMarkerDef[],
  notMarkers: string[],
): {
  problems: string[];
  byId: Map<string, LabMarkerDef>;
  phrases: Map<string, string | null>;
} {
  const problems: string[] = [];
  const byId = new Map<string, LabMarkerDef>();
  const loincs = new Set<string>();
  const phrases = new Map<string, string | null>();
  for (const def of markers) {
    if (byId.has(def.id)) problems.push(`duplicate marker id ${def.id}`);
    byId.set(def.id, def);
    // a stored code names one marker, one unit and one qualifier
    for (const code of codesOf(def)) {
      if (loincs.has(code)) problems.push(`${def.id}: LOINC ${code} is used twice`);
      loincs.add(code);
    }
  }
  for (const def of markers) {
    for (const s of def.synonyms) indexPhrase(phrases, s, def.id, problems);
    problems.push(...unitProblems(def, byId));
  }
  for (const s of notMarkers) indexPhrase(phrases, s, null, problems);
  return { problems, byId, phrases };
}

/**
 * Validates a vocabulary file's parsed JSON and indexes its names. Throws VocabularyError naming
 * every fault (schema, duplicate id or LOINC code, a synonym of two markers, a bad unit variant).
 */
export function buildVocabulary(json: unknown): Vocabulary {
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    throw new VocabularyError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const markers: LabMarkerDef[] = parsed.data.markers;
  const { problems, byId, phrases } = crossProblems(markers, parsed.data.notMarkers);
  if (problems.length) throw new VocabularyError(problems);
  const prefixes = new Set<string>();
  for (const phrase of phrases.keys()) {
    const words = phrase.split(' ');
    for (let i = 1; i <= words.length; i++) prefixes.add(words.slice(0, i).join(' '));
  }
  return { markers, byId, phrases, prefixes };
}

let shipped: Vocabulary | null = null;

/** The shipped vocabulary (data/labs/markers.json), read and validated once per process. */
export function labVocabulary(): Vocabulary {
  shipped ??= buildVocabulary(
    JSON.parse(readFileSync(fromRoot('data', 'labs', 'markers.json'), 'utf8')) as unknown,
  );
  return shipped;
}

/** Every marker of the shipped vocabulary, in the file's order. */
export function allMarkers(): LabMarkerDef[] {
  return labVocabulary().markers;
}

/** The shipped marker with this id, or null. */
export function markerById(id: string): LabMarkerDef | null {
  return labVocabulary().byId.get(id) ?? null;
}

/** A name found in a text: a marker's synonym, or (markerId null) a name that is not a marker. */
export interface NameMatch {
  /** the marker's id, or null for a `notMarkers` phrase */
  markerId: string | null;
  /** the normalised phrase that matched */
  phrase: string;
  /** offsets in the text */
  start: number;
  end: number;
  /** words in the phrase */
  words: number;
}

/** True when the text between two words is a column break (a tab or two spaces): names never span one. */
const isColumnBreak = (between: string): boolean => /\t| {2,}/.test(between);

/** A match with the index of its first word. */
type Candidate = NameMatch & { first: number };

/** Every phrase of the vocabulary that starts at word i. */
function phrasesAt(vocab: Vocabulary, text: string, tokens: NameToken[], i: number): Candidate[] {
  const out: Candidate[] = [];
  let key = tokens[i].word;
  for (let j = i; vocab.prefixes.has(key); ) {
    const owner = vocab.phrases.get(key);
    if (owner !== undefined) {
      const words = j - i + 1;
      out.push({
        markerId: owner,
        phrase: key,
        start: tokens[i].start,
        end: tokens[j].end,
        words,
        first: i,
      });
    }
    j++;
    if (j >= tokens.length || isColumnBreak(text.slice(tokens[j - 1].end, tokens[j].start))) break;
    key += ' ' + tokens[j].word;
  }
  return out;
}

/**
 * The vocabulary's names in a text, longest first then leftmost, none overlapping, in text order.
 * "HDL Cholesterol" gives one match (HDL), "Free PSA" one not-a-marker match.
 */
export function scanNames(text: string, vocab: Vocabulary = labVocabulary()): NameMatch[] {
  const tokens = nameTokens(text);
  const candidates: Candidate[] = [];
  for (let i = 0; i < tokens.length; i++) candidates.push(...phrasesAt(vocab, text, tokens, i));
  candidates.sort(
    (a, b) => b.words - a.words || b.phrase.length - a.phrase.length || a.start - b.start,
  );
  const taken = new Uint8Array(tokens.length);
  const chosen: NameMatch[] = [];
  for (const c of candidates) {
    const last = c.first + c.words;
    let free = true;
    for (let k = c.first; k < last && free; k++) free = taken[k] === 0;
    if (!free) continue;
    taken.fill(1, c.first, last);
    chosen.push({
      markerId: c.markerId,
      phrase: c.phrase,
      start: c.start,
      end: c.end,
      words: c.words,
    });
  }
  return chosen.sort((a, b) => a.start - b.start);
}

/**
 * The marker a printed name names ("HDL-Cholesterin" -> HDL cholesterol, "HbAlc" -> HbA1c), or null
 * for an unknown name or one that names another test ("Free T4 index", "Urine creatinine").
 */
export function findMarker(name: string, vocab: Vocabulary = labVocabulary()): LabMarkerDef | null {
  const matches = scanNames(name, vocab);
  if (!matches.length || matches.some((m) => m.markerId === null)) return null;
  const best = [...matches].sort(
    (a, b) => b.words - a.words || b.phrase.length - a.phrase.length,
  )[0];
  const rivals = matches.filter(
    (m) =>
      m.markerId !== best.markerId &&
      m.words === best.words &&
      m.phrase.length === best.phrase.length,
  );
  return rivals.length ? null : (vocab.byId.get(best.markerId ?? '') ?? null);
}

/** A word before a qualifier's word that negates it ("non-fasting", "nicht nüchtern"). */
const NEGATIONS = new Set(['non', 'not', 'no', 'nicht', 'kein', 'keine']);

/**
 * The qualifier a result's printed name says ("Glucose, fasting", "Nüchtern-Glucose", "LDL-C
 * (calc.)", "LDL (Friedewald)"), or null: one of the marker's qualifiers whose word is a whole
 * word or words of the text, not after a negation ("Glucose (non-fasting)" is null). The caller
 * passes the name as printed, before the value: a range's note ("70-99 when fasting") is not a
 * statement about the sample.
 */
export function qualifierInName(def: LabMarkerDef, text: string): MarkerQualifier | null {
  if (!def.qualifiers?.length) return null;
  const words = nameTokens(text).map((t) => t.word);
  for (const q of def.qualifiers) {
    for (const w of q.words) {
      const phrase = normaliseName(w).split(' ');
      for (let i = 0; i + phrase.length <= words.length; i++) {
        const here = phrase.every((p, k) => words[i + k] === p);
        if (here && !NEGATIONS.has(words[i - 1] ?? '')) return q;
      }
    }
  }
  return null;
}

/** The marker's qualifier with this id, or null (no id, or not one of the marker's). */
export function qualifierById(
  def: LabMarkerDef,
  id: string | null | undefined,
): MarkerQualifier | null {
  return (id && def.qualifiers?.find((q) => q.id === id)) || null;
}

/** The qualifier a stored value's LOINC code carries (1558-6 and 14771-0: fasting), or null. */
export function qualifierOfCode(def: LabMarkerDef, loinc: string): MarkerQualifier | null {
  return def.qualifiers?.find((q) => q.codes.some((c) => c.loinc === loinc)) ?? null;
}

/**
 * The LOINC code of a value of the marker in UCUM `unit`: the qualifier's code for that unit
 * (fasting glucose in mmol/L: 14771-0), else the unit's own (glucose in mmol/L: 14749-6), else the
 * marker's (2345-7). It is what a value stores in `loinc` and what FHIR codes it with.
 */
export function codingOf(
  def: LabMarkerDef,
  unit: string,
  qualifier: MarkerQualifier | null,
): LoincCoding {
  const own = qualifier?.codes.find((c) => c.ucum === unit);
  if (own) return { loinc: own.loinc, loincName: own.loincName };
  const u = def.units.find((x) => x.ucum === unit);
  if (u?.loinc) return { loinc: u.loinc, loincName: u.loincName ?? def.loincName };
  return { loinc: def.loinc, loincName: def.loincName };
}
