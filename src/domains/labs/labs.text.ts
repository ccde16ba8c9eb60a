/**
 * Reading a lab report's text (issue 36): the lines a PDF text layer or OCR gave, in reading order,
 * read into draft markers (value, unit, the report's own range and flag, a confidence), the date
 * drawn and the laboratory's name. Layouts read: table rows (name, value, unit, range, flag in
 * columns), "Name: value unit (range)", two results side by side on one line, several pages;
 * decimal commas and points, decided per value and per document; flags glued to a value ("7.2H",
 * "*7.2").
 *
 * Pure (no database, no network). It must never throw on any text, never read a date, a time, a
 * year or a phone number as a value, never take a value for a header or a name that is not a marker
 * ("Free PSA", "Urine creatinine"), never put a fallback range in `referenceRange` (the service
 * adds that later, labelled), and never answer an OCR value without `needsConfirmation`. A value
 * outside the marker's plausible range is kept, marked for confirmation; for OCR text a lost decimal
 * point ("54" for a glucose of 5.4 mmol/L) is restored only when that makes the value plausible,
 * and letters read for digits inside a number ("2S0", "14O") are put right; the notes say so.
 *
 * Caps, against hostile or broken input: MAX_LINES lines are read (the rest ignored), each cut to
 * MAX_LINE_CHARS characters after control characters, zero-width and bidi marks are blanked;
 * at most MAX_UNRECOGNISED unrecognised lines are listed.
 */
import type {
  DraftMarker,
  LabMarkerDef,
  MarkerQualifier,
  MarkerUnit,
  ParsedLabText,
  ReferenceRange,
  TextLine,
  TextSource,
} from './labs.types.ts';
import {
  convertToOther,
  isPlausible,
  markerUnitOf,
  MAX_UNIT_CHARS,
  SUPERSCRIPTS,
} from './labs.units.ts';
import {
  codingOf,
  labVocabulary,
  qualifierInName,
  scanNames,
  type NameMatch,
  type Vocabulary,
} from './labs.vocabulary.ts';

/** Lines read from one report; a real report has a few hundred at most. */
export const MAX_LINES = 5000;
/** Characters kept of one line; a two-column result line is under 200. */
export const MAX_LINE_CHARS = 500;
/** Unrecognised result-like lines listed, each cut to UNRECOGNISED_CHARS. */
export const MAX_UNRECOGNISED = 200;
const UNRECOGNISED_CHARS = 200;
/** Between a name and its value: at most this many other words, this many characters. */
const MAX_WORDS_BEFORE_VALUE = 4;
const MAX_CHARS_BEFORE_VALUE = 120;
/** Names read on one line (a two-column row has two to four); the rest of a longer line is ignored. */
export const MAX_NAMES_PER_LINE = 16;
/** The lab's name is looked for in the first lines of the first page. */
const LAB_NAME_LINES = 12;
/** A date with no label is taken only from the first lines of the first page. */
const UNLABELLED_DATE_LINES = 15;

type Flag = DraftMarker['flag'];
type Comparator = NonNullable<DraftMarker['comparator']>;
/** The document's decimal separator, when its numbers say so. */
export type DecimalStyle = 'dot' | 'comma' | null;

/** Options of parseLabText. */
export interface ParseLabTextOptions {
  /** how the text was read: OCR values always need confirmation */
  source: TextSource;
  /** the vocabulary (the shipped one by default) */
  vocabulary?: Vocabulary;
}

// ---------------------------------------------------------------------------------------------
// Lines

const SUPERSCRIPT_DIGITS: Record<string, string> = Object.fromEntries(
  Object.entries(SUPERSCRIPTS).filter(([, plain]) => /^\d$/.test(plain)),
);
const INVISIBLE_RE =
  // eslint-disable-next-line no-control-regex -- blanking control characters is the point
  /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A line made safe to read: a string (anything else is empty), superscript powers written out
 * ("10⁹" -> "10^9"), NFKC-normalised (full-width digits, ligatures), control, zero-width and bidi
 * characters blanked, no-break spaces as spaces, cut to MAX_LINE_CHARS.
 */
export function sanitiseLine(text: unknown): string {
  if (typeof text !== 'string') return '';
  return text
    .slice(0, MAX_LINE_CHARS * 2)
    .replace(LONE_SURROGATE_RE, '\uFFFD')
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (m) => '^' + [...m].map((c) => SUPERSCRIPT_DIGITS[c]).join(''))
    .normalize('NFKC')
    .replace(INVISIBLE_RE, ' ')
    .replace(/[\u00A0\u2007\u202F]/g, ' ')
    .slice(0, MAX_LINE_CHARS)
    .trimEnd();
}

/** A line as read here: its sanitised text, page, OCR confidence and index. */
interface Line {
  /** the text parsed (for OCR, with letters read for digits inside numbers put right) */
  text: string;
  /** the text as read, for the draft's source */
  printed: string;
  page: number;
  confidence: number | null;
  index: number;
  /** OCR numbers put right: start offset -> the token as read ("2S0") */
  ocrFixes: Map<number, string>;
}

/** An OCR token made of digits and letters OCR confuses with them: "2S0", "14O", "O.85", "l4". */
const OCR_NUMBER_RE = /(?<![\p{L}\p{N}.,])[\dOoSIl]+(?:[.,][\dOoSIl]+)*(?![\p{L}\p{N}])/gu;
const OCR_DIGITS: Record<string, string> = { O: '0', o: '0', S: '5', I: '1', l: '1' };

/**
 * For OCR text, numbers with a letter read for a digit put right ("2S0" -> "250"), same length, so
 * offsets hold. Only tokens with at least as many real digits as such letters ("SO2" stays).
 */
function fixOcrDigits(text: string): { text: string; fixes: Map<number, string> } {
  const fixes = new Map<number, string>();
  const fixed = text.replace(OCR_NUMBER_RE, (token: string, offset: number) => {
    const digits = token.replace(/\D/g, '').length;
    const letters = token.replace(/[^OoSIl]/g, '').length;
    if (!letters || digits < letters) return token;
    fixes.set(offset, token);
    return token.replace(/[OoSIl]/g, (c) => OCR_DIGITS[c]);
  });
  return { text: fixed, fixes };
}

function readLines(lines: readonly TextLine[], source: TextSource): Line[] {
  const out: Line[] = [];
  const count = Array.isArray(lines) ? Math.min(lines.length, MAX_LINES) : 0;
  for (let i = 0; i < count; i++) {
    const l = lines[i] as Partial<TextLine> | null;
    const page = Number.isInteger(l?.page) && (l?.page ?? 0) > 0 ? (l?.page as number) : 1;
    const c =
      typeof l?.confidence === 'number' && Number.isFinite(l.confidence) ? l.confidence : null;
    // OCR engines give 0..100; the shape says 0..1
    const confidence = c === null ? null : Math.min(1, Math.max(0, c > 1 ? c / 100 : c));
    const printed = sanitiseLine(l?.text);
    const { text, fixes } =
      source === 'ocr'
        ? fixOcrDigits(printed)
        : { text: printed, fixes: new Map<number, string>() };
    out.push({ text, printed, page, confidence, index: i, ocrFixes: fixes });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Numbers

const NUM = String.raw`\d{1,9}(?:[.,]\d{1,9}){0,3}`;
const NUMBER_RE = new RegExp(NUM, 'g');

/** A number as printed, read. `alt` is the other reading of an ambiguous "1,234" / "1.234". */
export interface ReadNumber {
  value: number;
  alt: number | null;
  /** whether a decimal or thousands separator was printed */
  hasSeparator: boolean;
}

/** "1,234" or "1.234": one separator followed by exactly three digits, not after a lone 0. */
const isAmbiguous = (a: string, b: string): boolean => b.length === 3 && a !== '0' && a.length <= 3;

function readOneSeparator(raw: string, style: DecimalStyle): ReadNumber {
  const i = raw.search(/[.,]/);
  const [a, b, sep] = [raw.slice(0, i), raw.slice(i + 1), raw[i]];
  const decimal = Number(`${a}.${b}`);
  if (!isAmbiguous(a, b)) return { value: decimal, alt: null, hasSeparator: true };
  const thousands = Number(a + b);
  const decimalSep = style === 'comma' ? ',' : style === 'dot' ? '.' : null;
  if (decimalSep) {
    return { value: sep === decimalSep ? decimal : thousands, alt: null, hasSeparator: true };
  }
  // no evidence in the document: "1.234" reads as a decimal, "1,234" as thousands, both kept
  return sep === '.'
    ? { value: decimal, alt: thousands, hasSeparator: true }
    : { value: thousands, alt: decimal, hasSeparator: true };
}

function readGrouped(raw: string): ReadNumber | null {
  const seps = raw.replace(/\d/g, '');
  const last = seps[seps.length - 1];
  const mixed = new Set(seps).size === 2;
  const cut = mixed ? raw.lastIndexOf(last) : raw.length;
  const whole = raw.slice(0, cut);
  const groupSep = mixed ? (last === ',' ? '.' : ',') : last;
  if (mixed && whole.includes(last)) return null;
  const groups = whole.split(groupSep);
  if (groups[0].length > 3 || groups[0] === '0' || groups.slice(1).some((g) => g.length !== 3)) {
    return null;
  }
  const fraction = mixed ? `.${raw.slice(cut + 1)}` : '';
  return { value: Number(groups.join('') + fraction), alt: null, hasSeparator: true };
}

/**
 * A printed number read with the document's decimal style: "5,4" 5.4; "1.234,5" and "1,234.5"
 * 1234.5; "1,234" 1234 with points as decimals, 1.234 with commas. Null for a malformed group.
 */
export function readNumber(raw: string, style: DecimalStyle): ReadNumber | null {
  const seps = raw.replace(/\d/g, '');
  if (!/^\d/.test(raw) || /[^\d.,]/.test(raw)) return null;
  if (!seps) return { value: Number(raw), alt: null, hasSeparator: false };
  if (seps.length === 1) return readOneSeparator(raw, style);
  return readGrouped(raw);
}

/** Which decimal separator one printed number shows, if it shows one unambiguously. */
function separatorEvidence(raw: string): 'dot' | 'comma' | null {
  const seps = raw.replace(/\d/g, '');
  if (!seps) return null;
  const last = seps[seps.length - 1];
  if (seps.length === 1) {
    const i = raw.search(/[.,]/);
    if (isAmbiguous(raw.slice(0, i), raw.slice(i + 1))) return null;
    return last === ',' ? 'comma' : 'dot';
  }
  return new Set(seps).size === 2 ? (last === ',' ? 'comma' : 'dot') : null;
}

/**
 * The document's decimal style from its unambiguous numbers ("5,4", "1.234,5" against "5.4",
 * "1,234.5"), dates and numbers inside units ("/1.73") left out; null when they do not say.
 */
export function detectDecimalStyle(texts: readonly string[]): DecimalStyle {
  let dot = 0;
  let comma = 0;
  for (const text of texts) {
    const blanked = blankSpans(text, dateAndTimeSpans(text));
    for (const m of blanked.matchAll(NUMBER_RE)) {
      if (blanked[m.index - 1] === '/') continue;
      const evidence = separatorEvidence(m[0]);
      if (evidence === 'dot') dot++;
      else if (evidence === 'comma') comma++;
    }
  }
  return dot === comma ? null : dot > comma ? 'dot' : 'comma';
}

// ---------------------------------------------------------------------------------------------
// Dates

const MONTH_WORD =
  'jan(?:uary|uar)?|feb(?:ruary|ruar)?|mar(?:ch)?|märz|maerz|apr(?:il)?|may|mai|june?|juni|july?|juli|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|okt(?:ober)?|nov(?:ember)?|dec(?:ember)?|dez(?:ember)?';
const MONTH_INDEX: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  mär: 3,
  mae: 3,
  apr: 4,
  may: 5,
  mai: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  okt: 10,
  nov: 11,
  dec: 12,
  dez: 12,
};
const ISO_DATE_RE = /(?<![\d.,])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d])/g;
const NUMERIC_DATE_RE = /(?<![\d.,/])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?!\d|[.,]\d)/g;
const DAY_MONTH_RE = new RegExp(
  String.raw`(?<!\d)(\d{1,2})(?:st|nd|rd|th)?\.?[ -]{1,2}(${MONTH_WORD})(?!\p{L})\.?[ ,-]{1,3}(\d{4})(?!\d)`,
  'giu',
);
const MONTH_DAY_RE = new RegExp(
  String.raw`(?<!\p{L})(${MONTH_WORD})(?!\p{L})\.?[ ]{1,2}(\d{1,2})(?:st|nd|rd|th)?,?[ ]{1,2}(\d{4})(?!\d)`,
  'giu',
);
const TIME_RE = /(?<![\d.,])\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?!\d)/gi;

/** A date found in a line; a numeric one keeps its two first parts until day or month order is known. */
interface DateFound {
  start: number;
  end: number;
  year: number;
  /** day and month when known (ISO, month names) */
  month: number | null;
  day: number | null;
  /** the first two numbers of "14/03/2026" */
  parts: [number, number] | null;
}

const fullYear = (y: number): number => (y >= 100 ? y : y <= 69 ? 2000 + y : 1900 + y);

function monthOf(word: string): number {
  return MONTH_INDEX[word.toLowerCase().slice(0, 3)] ?? 0;
}

/** Every date in a text: ISO, numeric day-month-year (order decided later) and month names. */
function findDates(text: string): DateFound[] {
  const out: DateFound[] = [];
  for (const m of text.matchAll(ISO_DATE_RE)) {
    const [y, mo, d] = [Number(m[1]), Number(m[3]), Number(m[4])];
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      year: y,
      month: mo,
      day: d,
      parts: null,
    });
  }
  for (const m of text.matchAll(NUMERIC_DATE_RE)) {
    const parts: [number, number] = [Number(m[1]), Number(m[3])];
    const year = fullYear(Number(m[4]));
    out.push({ start: m.index, end: m.index + m[0].length, year, month: null, day: null, parts });
  }
  for (const m of text.matchAll(DAY_MONTH_RE)) {
    const [d, mo, y] = [Number(m[1]), monthOf(m[2]), Number(m[3])];
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      year: y,
      month: mo,
      day: d,
      parts: null,
    });
  }
  for (const m of text.matchAll(MONTH_DAY_RE)) {
    const [mo, d, y] = [monthOf(m[1]), Number(m[2]), Number(m[3])];
    out.push({
      start: m.index,
      end: m.index + m[0].length,
      year: y,
      month: mo,
      day: d,
      parts: null,
    });
  }
  out.sort((a, b) => a.start - b.start);
  return out.filter((d, i) => i === 0 || d.start >= out[i - 1].end);
}

/** The spans of dates and times in a text, which are never values. */
function dateAndTimeSpans(text: string): [number, number][] {
  const spans: [number, number][] = findDates(text).map((d) => [d.start, d.end]);
  for (const m of text.matchAll(TIME_RE)) spans.push([m.index, m.index + m[0].length]);
  return spans.sort((a, b) => a[0] - b[0]);
}

function blankSpans(text: string, spans: [number, number][]): string {
  let out = text;
  for (const [s, e] of spans) out = out.slice(0, s) + ' '.repeat(e - s) + out.slice(e);
  return out;
}

function isoDate(year: number, month: number, day: number): string | null {
  if (year < 1900 || year > 2100 || month < 1 || month > 12 || day < 1) return null;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A found date as YYYY-MM-DD: numeric ones day first unless impossible (or the document is month-first). */
function resolveDate(d: DateFound, monthFirst: boolean): string | null {
  if (!d.parts) return isoDate(d.year, d.month ?? 0, d.day ?? 0);
  const [a, b] = d.parts;
  const dayFirst = isoDate(d.year, b, a);
  const monthFirstDate = isoDate(d.year, a, b);
  if (monthFirst) return monthFirstDate ?? dayFirst;
  return dayFirst ?? monthFirstDate;
}

/** True when the document's numeric dates are month first: one is only valid so, none only day first. */
function isMonthFirst(lines: Line[]): boolean {
  let monthFirst = false;
  let dayFirst = false;
  for (const line of lines) {
    for (const d of findDates(line.text)) {
      if (!d.parts) continue;
      if (d.parts[0] > 12 && d.parts[1] <= 12) dayFirst = true;
      if (d.parts[1] > 12 && d.parts[0] <= 12) monthFirst = true;
    }
  }
  return monthFirst && !dayFirst;
}

const BIRTH_LABEL_RE =
  /\b(?:dob|d\.o\.b|birth|born|geb(?:urtsdatum|oren|\.)?|date de naissance|naissance|nato|fecha de nacimiento)/i;
const DATE_LABELS: [RegExp, number][] = [
  [
    /(?:collect|drawn|draw date|sampl|specimen|entnahme|abnahme|pr[ée]l[èe]vement|prelievo|extracci)/i,
    1,
  ],
  [/(?:received|receipt|eingang|arriv)/i, 2],
  [/(?:report|result|befund|validated|printed|issued|ausgang|freigabe|edited)/i, 3],
  [/\b(?:date|datum|fecha|data)\b/i, 4],
];

/** 1 collected/drawn, 2 received, 3 reported, 4 "date", 5 no label, -1 a birth date. */
function dateRank(label: string): number {
  if (BIRTH_LABEL_RE.test(label)) return -1;
  for (const [re, rank] of DATE_LABELS) if (re.test(label)) return rank;
  return 5;
}

/**
 * The date drawn: a date labelled collected/drawn first, then received, then reported, then "date",
 * then an unlabelled date near the top of the first page; never a birth date.
 */
function drawnOnOf(lines: Line[], firstPage: number): string | null {
  const monthFirst = isMonthFirst(lines);
  const top = lineOffset(lines, firstPage) + UNLABELLED_DATE_LINES;
  let best: { rank: number; iso: string } | null = null;
  for (const line of lines) {
    let previousEnd = 0;
    for (const d of findDates(line.text)) {
      const label = line.text.slice(Math.max(previousEnd, d.start - 40), d.start);
      previousEnd = d.end;
      const rank = dateRank(label);
      const nearTop = line.page === firstPage && line.index < top;
      if (rank < 0 || (rank === 5 && !nearTop)) continue;
      const iso = resolveDate(d, monthFirst);
      if (iso && (!best || rank < best.rank)) best = { rank, iso };
    }
  }
  return best?.iso ?? null;
}

// ---------------------------------------------------------------------------------------------
// The lab's name

const LAB_WORD_RE =
  /\b(?:laborator(?:y|ies|ium|ien|ios?)|laboratoire|labor|labs?|pathology|diagnostics?|medical (?:center|centre)|klinik|clinic|hospital|institut[e]?|synlab|labcorp|quest)\b/i;
const GENERIC_WORD_RE =
  /\b(?:laborator(?:y|ies|ium|ien|ios?)|laboratoire|labor|labs?|the|of|clinical|medical|name|test(?:s|ing)?|blood|results?|reports?|befund|analysis|analyses|panel|department|dept)\b/gi;
const NOT_LAB_RE =
  /\b(?:patient|doctor|physician|dr\.|ordered|referr|requested|page|seite|dob|address)\b/i;

/** The lab's name in a cell, if the cell names one ("Acme Clinical Laboratory", "Lab: Sunrise"). */
function labNameIn(cell: string): string | null {
  const labelled = /^\s*lab(?:orator(?:y|ium))?(?:\s+name)?\s*:\s*(.+)$/i.exec(cell);
  const text = (labelled ? labelled[1] : cell).trim().replace(/[\s,;:.-]+$/, '');
  if (!labelled && !LAB_WORD_RE.test(text)) return null;
  if (NOT_LAB_RE.test(text) || /\d{3,}/.test(text) || text.length < 3) return null;
  // "Laboratory Report" is a heading, not a name
  if (!/\p{L}{2,}/u.test(text.replace(GENERIC_WORD_RE, ' '))) return null;
  return text.slice(0, 120);
}

function labOf(lines: Line[], firstPage: number, resultLines: Set<number>): string | null {
  const top = lineOffset(lines, firstPage) + LAB_NAME_LINES;
  for (const line of lines) {
    if (line.page !== firstPage || line.index >= top || resultLines.has(line.index)) continue;
    for (const cell of line.text.split(/\t| {2,}/)) {
      const name = labNameIn(cell);
      if (name) return name;
    }
  }
  return null;
}

function lineOffset(lines: Line[], page: number): number {
  return lines.find((l) => l.page === page)?.index ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Names on a line

/** Names of one result: adjacent matches ("Sodium (Na)", "Urine creatinine") resolved together. */
interface NameGroup {
  start: number;
  end: number;
  /** where the chosen name ends: the value is looked for from here */
  nameEnd: number;
  /** null when the group holds a not-a-marker name or lists several markers */
  def: LabMarkerDef | null;
}

/** Two matches belong to one name when only letters, single spaces and punctuation part them. */
const isAdjacent = (between: string): boolean =>
  between.length <= 25 && !/[\d\t]| {2,}/.test(between);

function resolveGroup(members: NameMatch[], vocab: Vocabulary): NameGroup {
  const start = members[0].start;
  const end = members[members.length - 1].end;
  const markers = members.filter((m) => m.markerId !== null);
  if (markers.length < members.length || !markers.length) {
    return { start, end, nameEnd: end, def: null };
  }
  const weight = (m: NameMatch): number => m.words * 1000 + m.phrase.length;
  const best = markers.reduce((a, b) => (weight(b) > weight(a) ? b : a));
  // "Cholesterol, HDL, LDL" lists several markers: a heading, not one result. Short names ("mg"
  // in "Glucose (mg/dL)", "Na" in "Sodium (Na)") do not count against the longest.
  const rival = markers.some((m) => m.markerId !== best.markerId && m.phrase.length >= 3);
  const tie = markers.some((m) => m.markerId !== best.markerId && weight(m) === weight(best));
  const def = rival || tie ? null : (vocab.byId.get(best.markerId ?? '') ?? null);
  return { start, end, nameEnd: best.end, def };
}

/** "mg" in "mg/dL" or "98mg", "k" in "K/uL": a short name beside a slash or a digit is a unit. */
const isUnitPart = (text: string, m: NameMatch): boolean =>
  m.phrase.length <= 3 && (text[m.end] === '/' || /[\d/]/.test(text[m.start - 1] ?? ''));

function nameGroups(text: string, vocab: Vocabulary): NameGroup[] {
  const groups: NameMatch[][] = [];
  for (const m of scanNames(text, vocab)) {
    if (isUnitPart(text, m)) continue;
    const last = groups[groups.length - 1];
    if (last && isAdjacent(text.slice(last[last.length - 1].end, m.start))) last.push(m);
    else groups.push([m]);
  }
  return groups.map((g) => resolveGroup(g, vocab));
}

// ---------------------------------------------------------------------------------------------
// One result: value, unit, range, flag

/** A result as found on a line, before its value is checked. */
interface RawResult {
  def: LabMarkerDef;
  valueText: string;
  /** where the value starts on the line */
  valueStart: number;
  comparator: Comparator | null;
  unit: MarkerUnit | null;
  /** something printed where the unit goes that is not one of the marker's units */
  strayUnit: string | null;
  range: { low: string | null; high: string | null; text: string } | null;
  flag: Flag;
  /** a lone "-" was printed where flags go */
  minus: boolean;
  /** words between the name and the value */
  words: number;
  /** what the printed name says of the test ("Glucose, fasting": fasting), or null */
  qualifier: MarkerQualifier | null;
  start: number;
  end: number;
}

/** The text of one line being read, with its date and time spans. */
interface Scan {
  text: string;
  spans: [number, number][];
  vocab: Vocabulary;
}

const spanEndAt = (scan: Scan, pos: number): number | null =>
  scan.spans.find(([s, e]) => pos >= s && pos < e)?.[1] ?? null;

/** A unit of the marker (or of one of its unit variants) printed at `pos`, the longest that fits. */
function unitAt(
  scan: Scan,
  pos: number,
  def: LabMarkerDef,
): { unit: MarkerUnit; def: LabMarkerDef; end: number } | null {
  const { text } = scan;
  if (/[\s\d.,<>]/.test(text[pos] ?? ' ') && !/^10\D/.test(text.slice(pos, pos + 3))) return null;
  let best: { unit: MarkerUnit; def: LabMarkerDef; end: number } | null = null;
  const limit = Math.min(text.length, pos + MAX_UNIT_CHARS);
  for (let end = pos + 1; end <= limit; end++) {
    if (end < text.length && !/[\s)\],;|]/.test(text[end])) continue;
    const piece = text.slice(pos, end);
    if (/\t| {2}/.test(piece)) break;
    const found = unitOfMarker(scan.vocab, def, piece);
    if (found) best = { ...found, end };
  }
  return best;
}

function unitOfMarker(
  vocab: Vocabulary,
  def: LabMarkerDef,
  piece: string,
): { unit: MarkerUnit; def: LabMarkerDef } | null {
  const own = markerUnitOf(def, piece);
  if (own) return { unit: own, def };
  for (const [ucum, targetId] of Object.entries(def.unitVariants ?? {})) {
    const target = vocab.byId.get(targetId);
    const unit = target ? markerUnitOf(target, piece) : null;
    if (target && unit?.ucum === ucum) return { unit, def: target };
  }
  return null;
}

const FLAG_SYMBOL_RE =
  /(HH|LL|H|L|A|N|\*{1,3}|!{1,2}|↑↑|↓↓|↑|↓|⇧|⇩|▲|▼|\+\+|\+|--|-|–)(?=$|[\s)\]|,;*])/y;
const FLAG_WORD_RE =
  /(critical(?:ly)?\s+high|critical(?:ly)?\s+low|high|low|hi|lo|abnormal|abn|normal|hoch|niedrig|erh(?:ö|oe)ht|erniedrigt)(?!\p{L})/iuy;

function flagOf(printed: string): Flag {
  const p = printed.toLowerCase().replace(/\s+/g, ' ');
  if (/^(?:hh|↑↑|\+\+|critical(?:ly)? high)$/.test(p)) return 'HH';
  if (/^(?:ll|↓↓|critical(?:ly)? low)$/.test(p)) return 'LL';
  if (/^(?:h|↑|⇧|▲|\+|high|hi|hoch|erh(?:ö|oe)ht)$/.test(p)) return 'H';
  if (/^(?:l|↓|⇩|▼|low|lo|niedrig|erniedrigt)$/.test(p)) return 'L';
  if (/^(?:a|\*+|!+|abnormal|abn)$/.test(p)) return 'A';
  return null;
}

/**
 * A flag printed at `pos`: { flag, end } (flag null for "N"/"normal"), or null. A lone "-" is a
 * low flag on German reports but a blank on others: `minus` records it, read against the range.
 */
function flagAt(text: string, pos: number): { flag: Flag; end: number; minus: boolean } | null {
  for (const re of [FLAG_SYMBOL_RE, FLAG_WORD_RE]) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m) return { flag: flagOf(m[1]), end: pos + m[0].length, minus: /^[-–]+$/.test(m[1]) };
  }
  return null;
}

/** Keeps the more telling flag: a direction over a bare "*". */
const betterFlag = (a: Flag, b: Flag): Flag => (a && a !== 'A' ? a : (b ?? a));

const RANGE_PAIR_RE = new RegExp(
  String.raw`(${NUM})\s{0,3}(?:[-–—−‐~]|\.\.\.?|…|\s(?:to|bis|a|à)\s)\s{0,3}(${NUM})`,
  'iy',
);
const RANGE_BOUND_RE = new RegExp(
  String.raw`(<=|>=|=<|=>|≤|≥|[<>]\s?or\s?=|<|>)\s{0,3}(${NUM})`,
  'iy',
);
const RANGE_WORD_RE = new RegExp(
  String.raw`(up\s?to|bis|below|under|less\s+than|lower\s+than|max(?:imum)?\.?|above|over|greater\s+than|more\s+than|higher\s+than|min(?:imum)?\.?|ab)\s{1,3}(${NUM})`,
  'iy',
);
const RANGE_LABEL_RE =
  /(?:ref(?:erence)?\.?\s*(?:range|interval|values?)?|normal\s*(?:range|values?)|range|target|desirable|optimal|norm(?:al)?bereich|referenzbereich|referenz|normwerte?|valeurs?\s+de\s+r[ée]f[ée]rence|ri|rv|vn)(?!\p{L})\s*[:=]?/iuy;

type RangeFound = NonNullable<RawResult['range']> & { end: number };

function rangePairAt(text: string, pos: number): RegExpExecArray | null {
  RANGE_PAIR_RE.lastIndex = pos;
  return RANGE_PAIR_RE.exec(text);
}

function rangeAt(text: string, pos: number): RangeFound | null {
  const pair = rangePairAt(text, pos);
  if (pair) return { low: pair[1], high: pair[2], text: pair[0], end: pos + pair[0].length };
  RANGE_BOUND_RE.lastIndex = pos;
  const bound = RANGE_BOUND_RE.exec(text);
  if (bound) {
    const upper = /[<≤]/.test(bound[1]);
    return upper
      ? { low: null, high: bound[2], text: bound[0], end: pos + bound[0].length }
      : { low: bound[2], high: null, text: bound[0], end: pos + bound[0].length };
  }
  RANGE_WORD_RE.lastIndex = pos;
  const word = RANGE_WORD_RE.exec(text);
  if (!word) return null;
  const upper = /^(?:up|bis|below|under|less|lower|max)/i.test(word[1]);
  const end = pos + word[0].length;
  return upper
    ? { low: null, high: word[2], text: word[0], end }
    : { low: word[2], high: null, text: word[0], end };
}

const PHONE_RE = /(\d{2,5})([ ./-])(\d{2,4})\2(\d{2,5})/y;
const PHONE_AREA_RE = /\(\d{2,5}\)[ .-]?\d{2,4}[ .-]\d{2,5}/y;
const PHONE_WORD_RE = /^(?:tel|tel\.|telephone|telefon|phone|ph|fax|mobile|mob|call|hotline)$/i;

/** "555 123 4567", "030-1234-5678" or "(555) 123-4567" at pos (the number after the bracket). */
function looksLikePhone(text: string, pos: number): boolean {
  PHONE_RE.lastIndex = pos;
  const m = PHONE_RE.exec(text);
  if (m && m[0].replace(/\D/g, '').length >= 10) return true;
  if (text[pos - 1] !== '(') return false;
  PHONE_AREA_RE.lastIndex = pos - 1;
  const area = PHONE_AREA_RE.exec(text);
  return !!area && area[0].replace(/\D/g, '').length >= 9;
}

const VALUE_RE = new RegExp(String.raw`(<=|>=|=<|=>|≤|≥|<|>)?\s{0,2}(${NUM})`, 'y');
const WORD_AT_RE = /[\p{L}\p{M}\p{N}]+/uy;

type ValueAt =
  | { kind: 'value'; raw: string; comparator: Comparator | null; start: number; end: number }
  | { kind: 'word'; end: number }
  | { kind: 'none' };

function comparatorOf(printed: string | undefined): Comparator | null {
  if (!printed) return null;
  const map: Record<string, Comparator> = {
    '<': '<',
    '>': '>',
    '<=': '<=',
    '=<': '<=',
    '≤': '<=',
    '>=': '>=',
    '=>': '>=',
    '≥': '>=',
  };
  return map[printed] ?? null;
}

function wordEnd(text: string, pos: number): number {
  WORD_AT_RE.lastIndex = pos;
  const m = WORD_AT_RE.exec(text);
  return m ? pos + m[0].length : pos + 1;
}

/** Whether a number ending at `end` is glued to letters that make it part of a word ("25-OH", "1c"). */
function gluedToWord(scan: Scan, def: LabMarkerDef, end: number): boolean {
  const { text } = scan;
  const next = text[end] ?? '';
  if (next === '-' && /\p{L}/u.test(text[end + 1] ?? '')) return true;
  if (!/\p{L}/u.test(next)) return false;
  return !flagAt(text, end) && !unitAt(scan, end, def);
}

/** What stands at `pos` (a digit or a comparator): a value, part of a word, or nothing to read. */
function valueAt(scan: Scan, pos: number, def: LabMarkerDef): ValueAt {
  const { text } = scan;
  // "+49 30 ...": an international phone number
  if (text[pos - 1] === '+' || text[pos] === '+') return { kind: 'none' };
  VALUE_RE.lastIndex = pos;
  const m = VALUE_RE.exec(text);
  if (!m) return { kind: 'word', end: pos + 1 };
  const raw = m[2];
  const end = pos + m[0].length;
  const start = end - raw.length;
  const comparator = comparatorOf(m[1]);
  if (!comparator && gluedToWord(scan, def, end)) return { kind: 'word', end: wordEnd(text, end) };
  // a range with no value before it ("Glucose 70-99"): a header or a reference line
  if (!comparator && rangePairAt(text, start)) return { kind: 'none' };
  if (/^0\d/.test(raw) || looksLikePhone(text, start)) return { kind: 'none' };
  if (/^(?:19|20)\d\d$/.test(raw) && !unitAt(scan, skipSpaces(text, end), def))
    return { kind: 'none' };
  return { kind: 'value', raw, comparator, start, end };
}

const skipSpaces = (text: string, pos: number): number => {
  while (pos < text.length && (text[pos] === ' ' || text[pos] === '\t')) pos++;
  return pos;
};

const NAME_FILLER = new Set([
  ' ',
  '\t',
  ':',
  '=',
  ',',
  ';',
  '(',
  ')',
  '[',
  ']',
  '/',
  '|',
  '-',
  '–',
  '—',
  '.',
  "'",
  '"',
  '#',
  '_',
  '~',
  '’',
]);
const FLAG_SYMBOLS: Record<string, Flag> = {
  '*': 'A',
  '!': 'A',
  '↑': 'H',
  '↓': 'L',
  '▲': 'H',
  '▼': 'L',
};

interface BeforeValue {
  value: Extract<ValueAt, { kind: 'value' }>;
  flag: Flag;
  unit: { unit: MarkerUnit; def: LabMarkerDef } | null;
  words: number;
}

/** State of the walk from a name to its value. */
interface Walk {
  pos: number;
  words: number;
  flag: Flag;
  unit: BeforeValue['unit'];
}

/** One step of the walk over what is not a value: true to go on, false to give up. */
function stepBeforeValue(scan: Scan, w: Walk): boolean {
  const { text } = scan;
  const ch = text[w.pos];
  const spanEnd = spanEndAt(scan, w.pos);
  if (spanEnd !== null) w.pos = spanEnd;
  else if (NAME_FILLER.has(ch)) w.pos++;
  else if (FLAG_SYMBOLS[ch]) {
    w.flag = FLAG_SYMBOLS[ch];
    w.pos++;
  } else if (/\p{L}/u.test(ch)) {
    const end = wordEnd(text, w.pos);
    const word = text.slice(w.pos, end);
    if (PHONE_WORD_RE.test(word)) return false;
    const flag = /^(?:H|L|HH|LL|High|Low|HIGH|LOW)$/.test(word) ? flagOf(word) : null;
    if (flag) w.flag = flag;
    else w.words++;
    w.pos = end;
    return w.words <= MAX_WORDS_BEFORE_VALUE;
  } else w.pos++;
  return true;
}

/**
 * From the end of a name to its value: other words ("fasting", "(IFCC)"), a unit printed before the
 * value, a flag before it, dates skipped. Null at the next name, a range with no value, a phone
 * number, a year, or too far.
 */
function findValue(scan: Scan, from: number, stop: number, def: LabMarkerDef): BeforeValue | null {
  const { text } = scan;
  const w: Walk = { pos: from, words: 0, flag: null, unit: null };
  while (w.pos < text.length && w.pos - from <= MAX_CHARS_BEFORE_VALUE) {
    const atStart = w.pos === from || /[\s([,;:]/.test(text[w.pos - 1]);
    const unit = atStart ? unitAt(scan, w.pos, def) : null;
    if (unit) {
      w.unit = { unit: unit.unit, def: unit.def };
      w.pos = unit.end;
      continue;
    }
    if (w.pos >= stop) return null;
    const ch = text[w.pos];
    const startsValue = /[\d<>≤≥]/.test(ch) || (ch === '+' && /\d/.test(text[w.pos + 1] ?? ''));
    if (startsValue && spanEndAt(scan, w.pos) === null) {
      const found = valueAt(scan, w.pos, def);
      if (found.kind === 'value')
        return { value: found, flag: w.flag, unit: w.unit, words: w.words };
      if (found.kind === 'none') return null;
      w.pos = found.end;
      w.words++;
      continue;
    }
    if (!stepBeforeValue(scan, w)) return null;
  }
  return null;
}

const TRAILING_FILLER = /[\s()[\],;|:]/y;

/** Reads one item after the value (a unit, a flag, the range or a range label) into r: its end. */
function readItem(scan: Scan, r: RawResult, pos: number): number | null {
  const unit = unitAt(scan, pos, r.def);
  if (unit) {
    if (!r.unit) [r.unit, r.def] = [unit.unit, unit.def];
    return unit.end;
  }
  const flag = flagAt(scan.text, pos);
  if (flag) {
    r.flag = betterFlag(r.flag, flag.flag);
    r.minus ||= flag.minus;
    return flag.end;
  }
  const range = r.range ? null : rangeAt(scan.text, pos);
  if (range) {
    r.range = { low: range.low, high: range.high, text: range.text.trim() };
    return range.end;
  }
  RANGE_LABEL_RE.lastIndex = pos;
  const label = RANGE_LABEL_RE.exec(scan.text);
  return label ? pos + label[0].length : null;
}

/** After the value: unit, flag, range and range labels, in any order, until something else. */
function readAfterValue(scan: Scan, r: RawResult): void {
  const { text } = scan;
  const valueEnd = r.end;
  let pos = r.end;
  for (let items = 0; items < 10 && pos < text.length; ) {
    TRAILING_FILLER.lastIndex = pos;
    if (TRAILING_FILLER.test(text)) {
      pos++;
      continue;
    }
    items++;
    const end = readItem(scan, r, pos);
    if (end === null || end <= pos) break;
    pos = end;
    r.end = pos;
  }
  if (!r.unit) {
    r.strayUnit = strayUnitAt(text, skipSpaces(text, valueEnd)) ?? strayUnitAt(text, pos);
  }
}

/** Unit-like text ("mg/L", "mmol") where a unit goes, when it is not one of the marker's. */
function strayUnitAt(text: string, pos: number): string | null {
  const m = /[^\s\d<>()[\]]\S{0,15}/y;
  m.lastIndex = pos;
  const found = m.exec(text)?.[0] ?? '';
  return /\/|%|mol\b|^[munpµμ]?g$/i.test(found) ? found : null;
}

/** Reads the result that follows a name, or null when no value follows it. */
function readResult(
  scan: Scan,
  group: NameGroup,
  def: LabMarkerDef,
  stop: number,
): RawResult | null {
  const before = findValue(scan, group.nameEnd, stop, def);
  if (!before) return null;
  const r: RawResult = {
    def: before.unit?.def ?? def,
    valueText: before.value.raw,
    valueStart: before.value.start,
    comparator: before.value.comparator,
    unit: before.unit?.unit ?? null,
    strayUnit: null,
    range: null,
    flag: before.flag,
    minus: false,
    words: before.words,
    qualifier: null,
    start: group.start,
    end: before.value.end,
  };
  readAfterValue(scan, r);
  return r;
}

// ---------------------------------------------------------------------------------------------
// A line

interface LineReading {
  results: RawResult[];
  unrecognised: string[];
}

/** Every result on a line, left to right (two columns give two), and its unknown result-like parts. */
function readLine(line: Line, vocab: Vocabulary): LineReading {
  const scan: Scan = { text: line.text, spans: dateAndTimeSpans(line.text), vocab };
  const groups = nameGroups(line.text, vocab);
  const results: RawResult[] = [];
  const consumed: [number, number][] = [];
  let pos = 0;
  for (let g = 0; g < Math.min(groups.length, MAX_NAMES_PER_LINE); g++) {
    const group = groups[g];
    if (group.start < pos) continue;
    const stop = groups[g + 1]?.start ?? line.text.length;
    const r = readResult(scan, group, group.def ?? FALLBACK_DEF, stop);
    if (!r) continue;
    if (!group.def) {
      pos = r.end;
      continue; // a name that is not a marker: its text stays unrecognised
    }
    // issue 47: only the printed name counts ("Nüchtern-Glucose", "LDL-C (calc.)"), from the
    // start of its cell to the value; a range's note after the value ("70-99 fasting") does not
    r.qualifier = qualifierInName(
      r.def,
      line.text.slice(cellStart(line.text, group.start, pos), r.valueStart),
    );
    pos = r.end;
    consumed.push([r.start, r.end]);
    if (!results.some((x) => x.def.id === r.def.id)) results.push(r);
  }
  return { results, unrecognised: unrecognisedParts(line.text, consumed) };
}

/** Where the cell holding a name at `at` starts: after the last column break, not before `from`. */
function cellStart(text: string, at: number, from: number): number {
  const before = text.slice(from, at);
  const brk = /^[^]*(?:\t| {2,})/.exec(before);
  return from + (brk ? brk[0].length : 0);
}

/** A stand-in for reading past a name that is not a marker (so its value is not read by the next). */
const FALLBACK_DEF: LabMarkerDef = {
  id: '',
  loinc: '',
  loincName: '',
  name: '',
  synonyms: [],
  units: [{ ucum: '', printed: [] }],
  molecularWeight: null,
  plausible: { min: 0, max: 0 },
  fallbackRange: null,
  category: '',
};

const META_WORD_RE =
  /^(?:page|seite|patient|name|dob|birth|date|datum|collected|received|reported|printed|phone|tel|fax|id|mrn|order|accession|specimen|sample|age|sex|gender|doctor|dr|physician|ref|reference|address|lab|laboratory|report|time|account|requisition|npi|clia|result|results|test|units?|range|flag)\b/i;

/** Whether a piece of a line reads like "Name 12.3 unit": a name then a number that is not a date. */
function looksLikeResult(piece: string): boolean {
  const text = piece.trim();
  if (!/^\p{L}/u.test(text) || META_WORD_RE.test(text)) return false;
  const withoutDates = blankSpans(text, dateAndTimeSpans(text));
  return /^\p{L}[^\t]{0,60}?[\s:=(]\s*[<>≤≥]?\d/u.test(withoutDates) && /\p{L}{2}/u.test(text);
}

/** A cell that starts another result's name: a word of 3+ letters, not a unit or a flag. */
const startsName = (cell: string): boolean =>
  /^\s*\p{L}{3}/u.test(cell) &&
  !/[/%]/.test(cell) &&
  !/^\s*(?:high|low|normal|abnormal|units?)\b/i.test(cell);

/** The parts of a line outside the results read, split into result-like records. */
function unrecognisedParts(text: string, consumed: [number, number][]): string[] {
  const out: string[] = [];
  let from = 0;
  for (const [s, e] of [...consumed, [text.length, text.length] as [number, number]]) {
    const gap = text.slice(from, s);
    from = Math.max(from, e);
    const cells = gap.split(/(\t| {2,})/);
    let record = '';
    for (let i = 0; i < cells.length; i += 2) {
      if (record && /\d/.test(record) && startsName(cells[i])) {
        if (looksLikeResult(record)) out.push(record.trim());
        record = '';
      }
      record += (record ? cells[i - 1] : '') + cells[i];
    }
    if (looksLikeResult(record)) out.push(record.trim());
  }
  return out.map((s) => s.slice(0, UNRECOGNISED_CHARS));
}

// ---------------------------------------------------------------------------------------------
// From a raw result to a draft marker

/** What the whole document says, used to settle each value. */
interface DocContext {
  style: DecimalStyle;
  source: TextSource;
  /** 'si' when most printed units are SI (mmol/L, µmol/L), 'conventional' for mg/dL, else null */
  system: 'si' | 'conventional' | null;
}

const systemOf = (ucum: string): 'si' | 'conventional' | null =>
  /mol/.test(ucum) ? 'si' : /dL/.test(ucum) ? 'conventional' : null;

function documentSystem(results: RawResult[]): DocContext['system'] {
  let si = 0;
  let conventional = 0;
  for (const r of results) {
    const s = r.unit ? systemOf(r.unit.ucum) : null;
    if (s === 'si') si++;
    else if (s === 'conventional') conventional++;
  }
  return si === conventional ? null : si > conventional ? 'si' : 'conventional';
}

/** The units a value without a printed unit may be in, the document's usual system first. */
function unitCandidates(def: LabMarkerDef, ctx: DocContext): MarkerUnit[] {
  const units = [...def.units];
  if (!ctx.system) return units;
  return units.sort(
    (a, b) => Number(systemOf(b.ucum) === ctx.system) - Number(systemOf(a.ucum) === ctx.system),
  );
}

/** A value and unit settled: which reading of the number, which unit, and whether it is plausible. */
interface Reading {
  value: number;
  unit: MarkerUnit;
  plausible: boolean;
  ambiguous: boolean;
  repairedFrom: string | null;
}

function firstPlausible(def: LabMarkerDef, values: number[], units: MarkerUnit[]): Reading | null {
  for (const value of values) {
    for (const unit of units) {
      if (isPlausible(def, value, unit.ucum) !== false) {
        return { value, unit, plausible: true, ambiguous: values.length > 1, repairedFrom: null };
      }
    }
  }
  return null;
}

/**
 * The value and unit: the reading of an ambiguous number and the unit (when none is printed) that
 * make it plausible; for OCR, a lost decimal point restored when only that makes it plausible.
 */
function settleReading(r: RawResult, ctx: DocContext): Reading | null {
  const num = readNumber(r.valueText, ctx.style);
  if (!num) return null;
  const units = r.unit ? [r.unit] : unitCandidates(r.def, ctx);
  const values = num.alt === null ? [num.value] : [num.value, num.alt];
  const found = firstPlausible(r.def, values, units);
  if (found) return found;
  const canRepair =
    ctx.source === 'ocr' && !num.hasSeparator && !r.comparator && r.valueText.length >= 2;
  for (const divisor of canRepair ? [10, 100] : []) {
    const repaired = firstPlausible(r.def, [num.value / divisor], units);
    if (repaired) return { ...repaired, repairedFrom: r.valueText };
  }
  return {
    value: values[0],
    unit: units[0],
    plausible: false,
    ambiguous: values.length > 1,
    repairedFrom: null,
  };
}

function rangeOf(r: RawResult, unit: MarkerUnit, style: DecimalStyle): ReferenceRange | null {
  if (!r.range) return null;
  const low = r.range.low === null ? null : (readNumber(r.range.low, style)?.value ?? null);
  const high = r.range.high === null ? null : (readNumber(r.range.high, style)?.value ?? null);
  if (low === null && high === null) return null;
  if (low !== null && high !== null && low > high) return null;
  return { low, high, unit: unit.ucum, text: r.range.text };
}

const unitOptional = (def: LabMarkerDef): boolean =>
  def.units.length === 1 && def.units[0].ucum.startsWith('{');

interface Doubts {
  unitGuessed: boolean;
  stray: boolean;
  reading: Reading;
  words: number;
}

function confidenceOf(d: Doubts, line: Line, ctx: DocContext): number {
  let c = 0.97;
  if (ctx.source === 'ocr') c *= Math.max(0.05, line.confidence ?? 0.7) * 0.95;
  if (d.unitGuessed) c *= 0.7;
  if (d.stray) c *= 0.6;
  if (!d.reading.plausible) c *= 0.3;
  if (d.reading.repairedFrom !== null) c *= 0.6;
  if (d.reading.ambiguous) c *= 0.85;
  if (d.words > 2) c *= 0.9;
  return Math.round(c * 100) / 100;
}

function notesOf(r: RawResult, d: Doubts, def: LabMarkerDef, line: Line): string[] {
  const { reading } = d;
  const notes: string[] = [];
  const asRead = line.ocrFixes.get(r.valueStart);
  if (asRead !== undefined) notes.push(`OCR read "${asRead}": taken as ${r.valueText}`);
  if (reading.repairedFrom !== null) {
    notes.push(
      `read "${reading.repairedFrom}", taken as ${reading.value}: OCR often loses a decimal point`,
    );
  }
  if (d.stray)
    notes.push(`"${r.strayUnit}" is not a unit of ${def.name}: read as ${reading.unit.ucum}`);
  else if (d.unitGuessed) notes.push(`no unit printed: read as ${reading.unit.ucum}`);
  if (reading.ambiguous)
    notes.push(`"${r.valueText}" could be read two ways: read as ${reading.value}`);
  if (!reading.plausible) {
    notes.push(`${reading.value} ${reading.unit.ucum} is not a plausible ${def.name}: check it`);
  }
  return notes;
}

/** A raw result checked and settled into a draft marker, or null when its number cannot be read. */
function draftOf(r: RawResult, line: Line, ctx: DocContext): DraftMarker | null {
  const reading = settleReading(r, ctx);
  if (!reading) return null;
  const def = r.def;
  const doubts: Doubts = {
    unitGuessed: !r.unit && !unitOptional(def),
    stray: !r.unit && r.strayUnit !== null,
    reading,
    words: r.words,
  };
  const notes = notesOf(r, doubts, def, line);
  const range = rangeOf(r, reading.unit, ctx.style);
  return {
    markerId: def.id,
    loinc: codingOf(def, reading.unit.ucum, r.qualifier).loinc,
    name: def.name,
    qualifier: r.qualifier?.id ?? null,
    value: reading.value,
    unit: reading.unit.ucum,
    converted: convertToOther(def, reading.value, reading.unit.ucum),
    referenceRange: range,
    flag:
      r.flag ?? (r.minus && range && range.low !== null && reading.value < range.low ? 'L' : null),
    ...(r.comparator ? { comparator: r.comparator } : {}),
    confidence: confidenceOf(doubts, line, ctx),
    needsConfirmation:
      ctx.source === 'ocr' ||
      doubts.unitGuessed ||
      doubts.stray ||
      !reading.plausible ||
      reading.ambiguous ||
      reading.repairedFrom !== null,
    ...(notes.length ? { notes } : {}),
    source: { text: line.printed.trim(), page: line.page },
  };
}

// ---------------------------------------------------------------------------------------------
// The report

/**
 * Reads a report's lines into draft markers, the date drawn and the lab's name. Never throws: a line
 * that cannot be read is left out. Values are in the printed unit with the report's own range;
 * OCR values, implausible values and values without a unit need confirmation.
 */
export function parseLabText(
  lines: readonly TextLine[],
  options: ParseLabTextOptions,
): ParsedLabText {
  const vocab = options?.vocabulary ?? labVocabulary();
  const source: TextSource = options?.source === 'ocr' ? 'ocr' : 'pdf_text';
  const read = readLines(lines, source);
  const perLine = read.map((line) => ({ line, reading: safeReadLine(line, vocab) }));
  const ctx: DocContext = {
    style: detectDecimalStyle(read.map((l) => l.text)),
    source,
    system: documentSystem(perLine.flatMap((p) => p.reading.results)),
  };
  const markers: DraftMarker[] = [];
  const unrecognised: string[] = [];
  const resultLines = new Set<number>();
  for (const { line, reading } of perLine) {
    for (const r of reading.results) {
      const draft = draftOf(r, line, ctx);
      if (draft && !isDuplicate(markers, draft)) markers.push(draft);
      resultLines.add(line.index);
    }
    for (const u of reading.unrecognised) {
      if (unrecognised.length < MAX_UNRECOGNISED && !unrecognised.includes(u)) unrecognised.push(u);
    }
  }
  const firstPage = read.length ? Math.min(...read.map((l) => l.page)) : 1;
  return {
    markers,
    drawnOn: drawnOnOf(read, firstPage),
    lab: labOf(read, firstPage, resultLines),
    unrecognised,
  };
}

function safeReadLine(line: Line, vocab: Vocabulary): LineReading {
  try {
    return readLine(line, vocab);
  } catch {
    // a defect on one odd line must not lose the rest of the report
    return { results: [], unrecognised: [] };
  }
}

const isDuplicate = (markers: DraftMarker[], d: DraftMarker): boolean =>
  markers.some(
    (m) =>
      m.markerId === d.markerId &&
      m.value === d.value &&
      m.unit === d.unit &&
      m.qualifier === d.qualifier,
  );
