/**
 * A lab report's text layer read from a PDF (issue 36), rebuilt into lines a parser can read: the
 * text items pdf.js finds on each page (through `unpdf`'s serverless build) are grouped by their
 * baseline, ordered left to right, and joined with one space, or with two where the gap between
 * two items is wider than about two characters, so a table's columns and a two-column layout's
 * halves stay apart ("Glucose  5.4  mmol/L  3.9 - 5.5").
 *
 * Why rebuild lines: pdf.js answers positioned fragments, and its plain text (`extractText`) joins
 * a row's cells with single spaces or splits them over lines, which loses the columns a report is
 * read by.
 *
 * pdf.js normalises text (NFKC): a micro sign is answered as the Greek mu ("μmol/L"), a ligature
 * as its letters.
 *
 * Where it runs (issue 45): in a file-job worker thread (labs.pdf.job.ts, run by labs.document.ts
 * through src/platform/file-workers.ts), never on the thread that answers requests. pdf.js's
 * serverless build has no worker of its own and does not stop inside a page, so the thread's
 * wall-clock budget and heap limit are what end a file that never finishes; the bounds below make
 * a hostile file end sooner, with its reason.
 *
 * Limits that describe a real lab report: at most `maxPages` pages (20); checked on the raw bytes
 * before pdf.js sees them (labs.pdf-scan.ts), its streams decode to at most 64 MB (and at most 100
 * times the file above 16 MB), because what pdf.js decodes lives outside the V8 heap, its form
 * XObjects are drawn at most 10,000 times and at most 16 MB of content is read (forms counted
 * each time drawn), so a form that draws a form that draws text (10^8 text runs in 2.6 KB) is
 * refused before pdf.js draws one; at most `maxItems` text items (50,000) and `maxChars`
 * characters (200,000) across the pages, counted as pdf.js streams each page's items (the stream
 * is cancelled mid-page past either); and a time budget checked as items arrive. A PDF without a
 * text layer (a scan) answers no lines; reading its page images by OCR is not done here.
 *
 * It must never throw anything but a `PdfReadError` for a bad file (a password, a broken or
 * truncated file, too many pages, items, characters or decoded bytes, too slow), never write the
 * bytes anywhere, never fetch anything (no font or CMap is loaded over a network), and never
 * detach the caller's buffer.
 */
import { getDocumentProxy } from 'unpdf';
import { DEFAULT_STREAM_LIMITS, scanPdfStreams } from './labs.pdf-scan.ts';
import type { PdfStreamLimits, PdfStreamScan } from './labs.pdf-scan.ts';
import type { TextLine } from './labs.types.ts';
import { clock } from '../../base/clock.ts';

/** What a PDF read may cost. */
export interface PdfLimits {
  /** the most pages read; a longer file is refused (default 20) */
  maxPages: number;
  /** the most characters of text across pages, checked as items arrive (default 200,000) */
  maxChars: number;
  /** the most text items pdf.js may draw across pages (default 50,000) */
  maxItems: number;
  /** what the file's streams may decode to (labs.pdf-scan.ts) */
  streams: PdfStreamLimits;
  /** the time budget in ms, checked as items arrive (default 15,000) */
  timeoutMs: number;
}

/** The limits used when none are given. */
export const DEFAULT_PDF_LIMITS: PdfLimits = {
  maxPages: 20,
  maxChars: 200_000,
  maxItems: 50_000,
  streams: DEFAULT_STREAM_LIMITS,
  timeoutMs: 15_000,
};

/** Why a PDF was not read. */
export type PdfReadErrorCode =
  | 'encrypted'
  | 'unreadable'
  | 'too_many_pages'
  | 'too_much_text'
  | 'too_much_content'
  | 'too_much_data'
  | 'timeout';

/** A PDF this reader refuses; `message` says what was wrong in words for the person. */
export class PdfReadError extends Error {
  /** what went wrong, for the caller's status (413 for the limits, 422 otherwise) */
  readonly code: PdfReadErrorCode;
  constructor(code: PdfReadErrorCode, message: string) {
    super(message);
    this.name = 'PdfReadError';
    this.code = code;
  }
}

/** A PDF's rebuilt text: its lines, and how many pages it has. */
export interface PdfText {
  lines: TextLine[];
  /** pages in the file (all of them are read: a file over the page cap is refused) */
  pages: number;
}

/** A text fragment as pdf.js answers it (a `TextItem`; marked-content entries have no `str`). */
interface PdfItem {
  str: string;
  /** [a, b, c, d, e, f]: e, f the origin in user space (points, y up); a..d scale and rotation */
  transform: number[];
  /** advance width in user space */
  width: number;
  height: number;
}

/** A fragment placed on the page. */
interface Placed {
  text: string;
  x: number;
  y: number;
  /** right edge */
  end: number;
  /** font size (points) */
  size: number;
}

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/**
 * The text of a PDF as lines in reading order, page by page (1-based `page`, `confidence` null).
 * A PDF with no text layer answers []. Throws `PdfReadError` for an encrypted, broken or oversized
 * file.
 */
export async function pdfLines(
  bytes: Uint8Array,
  limits: Partial<PdfLimits> = {},
): Promise<TextLine[]> {
  return (await readPdf(bytes, limits)).lines;
}

/**
 * The text of a PDF as lines, with its page count (see `pdfLines`). The streams are bounded first
 * (before pdf.js sees the file); the bytes are copied before pdf.js sees them, so the caller's
 * buffer stays usable.
 */
export async function readPdf(
  bytes: Uint8Array,
  limits: Partial<PdfLimits> = {},
): Promise<PdfText> {
  const lim = { ...DEFAULT_PDF_LIMITS, ...limits };
  const deadline = clock.ms() + lim.timeoutMs;
  try {
    checkStreams(bytes, lim.streams);
  } catch (err) {
    throw asPdfError(err);
  }
  const opening = openPdf(bytes);
  const pdf = await withDeadline(opening, deadline, lim.timeoutMs).catch((err: unknown) => {
    // opened after the deadline: closed when it arrives
    void opening.then((late) => late.destroy()).catch(() => undefined);
    throw asPdfError(err);
  });
  try {
    if (pdf.numPages > lim.maxPages) {
      throw new PdfReadError(
        'too_many_pages',
        `The PDF has ${pdf.numPages} pages; a lab report is read up to ${lim.maxPages} pages.`,
      );
    }
    const lines: TextLine[] = [];
    const drawn: Drawn = { items: 0, chars: 0 };
    for (let page = 1; page <= pdf.numPages; page++) {
      if (clock.ms() > deadline) throw timeoutError(lim.timeoutMs);
      const reading = readPage(pdf, page, drawn, lim, deadline);
      const pageLines = await withDeadline(reading, deadline, lim.timeoutMs);
      lines.push(...pageLines);
    }
    return { lines, pages: pdf.numPages };
  } catch (err) {
    throw asPdfError(err);
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

/** Opens the document from a copy of the bytes (pdf.js may transfer or keep its input). */
async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // verbosity 0: errors only (pdf.js would otherwise log every font quirk of the file)
    return await getDocumentProxy(new Uint8Array(bytes), {
      verbosity: 0,
      stopAtErrors: false,
      isOffscreenCanvasSupported: false,
    });
  } catch (err) {
    throw asPdfError(err);
  }
}

/** The decompressed-size bound (labs.pdf-scan.ts) as a `PdfReadError`. */
function checkStreams(bytes: Uint8Array, limits: PdfStreamLimits): void {
  const scan = scanPdfStreams(bytes, limits);
  const mb = (n: number): string => `${Math.round(n / 1048576)} MB`;
  switch (scan.refusal) {
    case null:
      return;
    case 'too_much_data':
      throw new PdfReadError(
        'too_much_data',
        `The PDF's contents decompress to more than ${mb(scan.budget)}; a lab report's decompress to a few MB. Send the report as the lab issued it, or a photo of each page.`,
      );
    case 'too_much_content':
      throw new PdfReadError(
        'too_much_content',
        `The PDF draws more text than a lab report holds (${drawn(scan, { ...DEFAULT_STREAM_LIMITS, ...limits })}). Send the report as the lab issued it, or a photo of each page.`,
      );
    case 'password':
      throw passwordError();
    default:
      throw new PdfReadError(
        'unreadable',
        `The PDF could not be read: it is compressed or encrypted in a way not read here (${scan.detail}).`,
      );
  }
}

/** Why the scan found the drawing too large, in words. */
function drawn(scan: PdfStreamScan, limits: PdfStreamLimits): string {
  if (scan.formDraws === Infinity) return 'its forms draw each other without end';
  if (scan.formDraws > limits.maxFormDraws) {
    return `its forms are drawn ${scan.formDraws.toLocaleString('en')} times`;
  }
  return `${Math.round(scan.contentBytes / 1048576)} MB of drawing instructions`;
}

/** Text drawn so far in the document. */
interface Drawn {
  items: number;
  chars: number;
}

/** One page's lines. */
async function readPage(
  pdf: PdfDocument,
  page: number,
  drawn: Drawn,
  lim: PdfLimits,
  deadline: number,
): Promise<TextLine[]> {
  const proxy = await pdf.getPage(page);
  try {
    const placed: Placed[] = [];
    for (const item of await pageItems(proxy, drawn, lim, deadline)) {
      const p = place(item);
      if (p) placed.push(p);
    }
    return rowsOf(placed).map((row) => ({ text: joinRow(row), page, confidence: null }));
  } finally {
    proxy.cleanup();
  }
}

type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/**
 * A page's text items as pdf.js streams them, counted into `drawn` as they arrive: past the
 * document's item or character cap, or its deadline, the stream is cancelled (pdf.js stops
 * evaluating the page) and the file refused.
 */
async function pageItems(
  proxy: PdfPage,
  drawn: Drawn,
  lim: PdfLimits,
  deadline: number,
): Promise<PdfItem[]> {
  const reader = (proxy.streamTextContent() as ReadableStream<{ items: object[] }>).getReader();
  const items: PdfItem[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return items;
    for (const item of value.items) {
      if (!('str' in item)) continue;
      items.push(item as PdfItem);
      drawn.items += 1;
      drawn.chars += (item as PdfItem).str.length;
    }
    const refusal = overLimits(drawn, lim, deadline);
    if (refusal) {
      await reader.cancel(refusal).catch(() => undefined);
      throw refusal;
    }
  }
}

/** The refusal for text drawn past the caps or the deadline, or null. */
function overLimits(drawn: Drawn, lim: PdfLimits, deadline: number): PdfReadError | null {
  if (drawn.items > lim.maxItems) {
    return new PdfReadError(
      'too_much_content',
      `The PDF draws more text than a lab report holds (over ${lim.maxItems.toLocaleString('en')} pieces of text). Send the report as the lab issued it, or a photo of each page.`,
    );
  }
  if (drawn.chars > lim.maxChars) {
    return new PdfReadError(
      'too_much_text',
      `The PDF holds more than ${lim.maxChars.toLocaleString('en')} characters of text; a lab report holds far less.`,
    );
  }
  return clock.ms() > deadline ? timeoutError(lim.timeoutMs) : null;
}

/** A fragment's position, or null for blank or rotated text (a vertical margin note, a watermark). */
function place(item: PdfItem): Placed | null {
  const [a, b, c, d, e, f] = item.transform;
  if (!item.str.trim()) return null;
  // upright text only: a rotation or skew puts b or c far from zero
  if (Math.abs(b) > 0.1 * Math.abs(a) || Math.abs(c) > 0.1 * Math.abs(d) || a <= 0) return null;
  const size = Math.hypot(c, d) || item.height || 10;
  const width = item.width > 0 ? item.width : item.str.length * size * 0.5;
  return { text: item.str, x: e, y: f, end: e + width, size };
}

/** Fragments grouped into rows by baseline (top of the page first), each row ordered by x. */
function rowsOf(items: Placed[]): Placed[][] {
  const byY = [...items].sort((p, q) => q.y - p.y || p.x - q.x);
  const rows: { y: number; size: number; items: Placed[] }[] = [];
  for (const item of byY) {
    const row = rows.at(-1);
    // the same baseline within a third of the text's size (superscripts and mixed fonts included)
    if (row && Math.abs(row.y - item.y) <= Math.max(1, 0.35 * Math.min(row.size, item.size))) {
      row.items.push(item);
    } else {
      rows.push({ y: item.y, size: item.size, items: [item] });
    }
  }
  return rows.map((row) => row.items.sort((p, q) => p.x - q.x));
}

/** A row's text: fragments joined by "", " " or "  " (a column gap) by the space between them. */
function joinRow(row: Placed[]): string {
  let text = '';
  let prev: Placed | null = null;
  for (const item of row) {
    if (prev) {
      const gap = item.x - prev.end;
      const charWidth = averageCharWidth(prev);
      if (gap > 2 * charWidth) text += '  ';
      else if (gap > 0.15 * prev.size && !text.endsWith(' ') && !item.text.startsWith(' '))
        text += ' ';
    }
    text += item.text;
    prev = item;
  }
  return text.replace(/\s+$/, '').replace(/^\s+/, '');
}

/** A fragment's mean character width, bounded to a plausible share of its size. */
function averageCharWidth(item: Placed): number {
  const chars = item.text.length || 1;
  const mean = (item.end - item.x) / chars;
  return Math.min(Math.max(mean, 0.3 * item.size), 0.7 * item.size);
}

/** Rejects with a timeout of `ms` once `deadline` passes. */
async function withDeadline<T>(work: Promise<T>, deadline: number, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError(ms)), Math.max(0, deadline - clock.ms()));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

function timeoutError(ms: number): PdfReadError {
  return new PdfReadError(
    'timeout',
    `Reading the PDF took longer than ${ms / 1000} s (a lab report takes well under one), so it was stopped. Send the report as the lab issued it, or a photo of each page.`,
  );
}

function passwordError(): PdfReadError {
  return new PdfReadError(
    'encrypted',
    'The PDF is protected by a password; save it without one and upload it again.',
  );
}

/** Any error of pdf.js as a `PdfReadError` (a password, or a file it cannot read). */
function asPdfError(err: unknown): PdfReadError {
  if (err instanceof PdfReadError) return err;
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return passwordError();
  return new PdfReadError(
    'unreadable',
    'The PDF could not be read: the file is damaged or not a PDF.',
  );
}
