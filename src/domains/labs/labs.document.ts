/**
 * A lab report's file read into lines of text (issue 36): the type told from the bytes (magic
 * numbers: `%PDF-`, the PNG signature, a JPEG's start-of-image marker; never a file name or a
 * client's content type), then a PDF's text layer read (labs.pdf.ts) or an image read by OCR
 * (labs.ocr.ts). The lines go to the parser (labs.text.ts) with the way they were read, so OCR
 * values are marked for confirmation.
 *
 * A PDF is read in a worker thread (issue 45): the job labs.pdf.job.ts, run by the file-job pool
 * (src/platform/file-workers.ts) with a wall-clock budget (`PDF_READ_TIMEOUT_MS`, 10 s, or the
 * caller's smaller one; the thread is ended `PDF_JOB_GRACE_MS` after it if pdf.js never yields)
 * and a V8 heap limit (`PDF_JOB_HEAP_MB`, 256 MB). A lab report is read in tens of milliseconds,
 * so neither is ever near for a real one. The pool's refusals are mapped here: over time
 * `timeout`, over memory `too_large`, a full queue `busy`, a lost thread `unreadable`; the
 * reader's own refusals (`PdfReadError` codes) as before. The caller's buffer is copied and the
 * copy moved to the thread.
 *
 * Every refusal is a `LabDocumentError` with a code the service maps through the error table:
 * `too_large` 413 for a file over 3 MB and 422 for the bounds of its content; `unsupported_type`,
 * `unreadable`, `no_text` and `timeout` 422; `busy` 503 (a reading queue is full or the server is
 * stopping). Its message says what was wrong, and what to send instead, in words for the person.
 *
 * A PDF without a text layer (a scanned PDF) answers `no_text` asking for a photo or image of the
 * pages: rendering PDF pages to images for OCR is not done.
 *
 * It must never throw anything but a `LabDocumentError`, never read more than 3 MB, never trust a
 * name or declared type, never parse a PDF on the calling thread, and never keep or write the
 * bytes.
 */
import {
  FileJobError,
  FileJobRefusal,
  fileJobModule,
  runFileJob,
} from '../../platform/file-workers.ts';
import type { FileJobKind } from '../../platform/file-workers.ts';
import type { PdfJobInput } from './labs.pdf.job.ts';
import { PdfReadError } from './labs.pdf.ts';
import type { PdfReadErrorCode, PdfText } from './labs.pdf.ts';
import { OcrError, ocrLines } from './labs.ocr.ts';
import type { TextLine, TextSource } from './labs.types.ts';

/** The largest file read (the tool's limit for a base64 PDF, JPEG or PNG). */
export const LAB_DOCUMENT_MAX_BYTES = 3 * 1024 * 1024;

/** The types read. */
export type LabDocumentMime = 'application/pdf' | 'image/png' | 'image/jpeg';

/** Why a file was not read: 413 for `too_large`, 503 for `busy`, 422 for the others. */
export type LabDocumentErrorCode =
  | 'unsupported_type'
  | 'too_large'
  | 'unreadable'
  | 'timeout'
  | 'no_text'
  | 'busy';

/** A lab report's file that was not read; `message` is for the person. */
export class LabDocumentError extends Error {
  readonly code: LabDocumentErrorCode;
  constructor(code: LabDocumentErrorCode, message: string) {
    super(message);
    this.name = 'LabDocumentError';
    this.code = code;
  }
}

/** Longest a PDF is read for, ms (a smaller budget of the caller's wins). */
export const PDF_READ_TIMEOUT_MS = 10_000;
/** How long after its budget a PDF's thread is ended when pdf.js does not yield to notice it, ms. */
export const PDF_JOB_GRACE_MS = 1_000;
/** The V8 heap of a PDF's thread, MB. */
export const PDF_JOB_HEAP_MB = 256;

const PDF_JOB: FileJobKind = {
  name: 'labs-pdf',
  module: fileJobModule(import.meta.url, './labs.pdf.job'),
  timeoutMs: PDF_READ_TIMEOUT_MS + PDF_JOB_GRACE_MS,
  maxHeapMb: PDF_JOB_HEAP_MB,
};

/** Options of one read. */
export interface ReadLabDocumentOptions {
  /** the time budget in ms (a PDF: at most 10 s; OCR: 30 s by default, from its turn in the queue) */
  timeoutMs?: number;
}

/** A file read into lines. */
export interface LabDocument {
  /** the text in reading order, page by page */
  lines: TextLine[];
  /** `pdf_text` for a PDF's text layer, `ocr` for an image */
  source: TextSource;
  /** pages read (1 for an image) */
  pages: number;
  /** the type told from the bytes */
  mime: LabDocumentMime;
}

const FORMATS = 'a PDF, JPEG or PNG up to 3 MB';

/** "%PDF-" within the first 1 KB (readers accept a few bytes of junk before the header). */
function isPdf(b: Uint8Array): boolean {
  const head = Buffer.from(b.buffer, b.byteOffset, Math.min(b.byteLength, 1024));
  return head.indexOf('%PDF-', 0, 'latin1') !== -1;
}

/**
 * The file's type from its first bytes, or null when it is none of those read. A PNG named
 * report.pdf is a PNG.
 */
export function detectLabDocumentType(bytes: Uint8Array): LabDocumentMime | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a ? 'image/png' : null;
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 5 && isPdf(b)) return 'application/pdf';
  return null;
}

/** True when some line holds a letter or a digit. */
function hasText(lines: TextLine[]): boolean {
  return lines.some((l) => /[\p{L}\p{N}]/u.test(l.text));
}

const PDF_CODES: Record<PdfReadErrorCode, LabDocumentErrorCode> = {
  encrypted: 'unreadable',
  unreadable: 'unreadable',
  too_many_pages: 'too_large',
  too_much_text: 'too_large',
  too_much_content: 'too_large',
  too_much_data: 'too_large',
  timeout: 'timeout',
};

/** What to send instead of a file that took too long or needed too much. */
const INSTEAD = 'Send the report as the lab issued it, or a photo of each page.';

/** The pool's refusal of a PDF job, or the reader's own (a `PdfReadError` across the thread). */
function pdfJobError(err: unknown, budgetMs: number): LabDocumentError | null {
  if (err instanceof FileJobRefusal && err.kind === 'PdfReadError' && err.code) {
    const code = PDF_CODES[err.code as PdfReadErrorCode];
    if (code) return new LabDocumentError(code, err.message);
  }
  if (!(err instanceof FileJobError)) return null;
  switch (err.code) {
    case 'timeout':
      // the thread was ended: pdf.js never yielded for the reader to notice its own deadline
      return new LabDocumentError(
        'timeout',
        `Reading the PDF took longer than ${budgetMs / 1000} s (a lab report takes well under one), so it was stopped. ${INSTEAD}`,
      );
    case 'memory':
      return new LabDocumentError(
        'too_large',
        `Reading the PDF needed more than ${PDF_JOB_HEAP_MB} MB of memory (a lab report needs far less), so it was stopped. ${INSTEAD}`,
      );
    case 'busy':
      return new LabDocumentError(
        'busy',
        'Too many PDFs are being read right now; try again in a minute.',
      );
    default:
      return null;
  }
}

/** Any failure as a `LabDocumentError` (an unexpected one as `unreadable`, its detail not shown). */
function asDocumentError(err: unknown, mime: LabDocumentMime): LabDocumentError {
  if (err instanceof LabDocumentError) return err;
  if (err instanceof PdfReadError) return new LabDocumentError(PDF_CODES[err.code], err.message);
  if (err instanceof OcrError && err.code === 'timeout') {
    return new LabDocumentError(
      'timeout',
      `${err.message} Send the PDF, or a clearer photo of one page at a time.`,
    );
  }
  if (err instanceof OcrError) return new LabDocumentError(err.code, err.message);
  const what = mime === 'application/pdf' ? 'PDF' : 'image';
  return new LabDocumentError(
    'unreadable',
    `The ${what} could not be read: the file may be damaged.`,
  );
}

/** The PDF's text read by the job in a worker thread, within the budget. */
async function readPdfInWorker(bytes: Uint8Array, timeoutMs?: number): Promise<PdfText> {
  const budgetMs = Math.min(timeoutMs || PDF_READ_TIMEOUT_MS, PDF_READ_TIMEOUT_MS);
  // a copy whose buffer moves to the thread: the caller's stays usable
  const copy = new Uint8Array(bytes);
  try {
    return await runFileJob<PdfJobInput, PdfText>(
      { ...PDF_JOB, timeoutMs: budgetMs + PDF_JOB_GRACE_MS },
      { bytes: copy, limits: { timeoutMs: budgetMs } },
      [copy.buffer],
    );
  } catch (err) {
    throw pdfJobError(err, budgetMs) ?? err;
  }
}

async function readPdfDocument(bytes: Uint8Array, timeoutMs?: number): Promise<LabDocument> {
  const { lines, pages } = await readPdfInWorker(bytes, timeoutMs);
  if (!hasText(lines)) {
    throw new LabDocumentError(
      'no_text',
      'The PDF has no text to read (a scanned PDF?): upload a photo or an image of each page instead.',
    );
  }
  return { lines, source: 'pdf_text', pages, mime: 'application/pdf' };
}

async function readImageDocument(
  bytes: Uint8Array,
  mime: LabDocumentMime,
  timeoutMs?: number,
): Promise<LabDocument> {
  const lines = await ocrLines(bytes, { timeoutMs });
  if (!hasText(lines)) {
    throw new LabDocumentError(
      'no_text',
      'No text was found in the image: upload a sharper photo of the report, flat and well lit.',
    );
  }
  return { lines, source: 'ocr', pages: 1, mime };
}

/**
 * A lab report's file (the decoded bytes of a base64 upload) read into lines of text, with how it
 * was read. Tells the type from the bytes; refuses with a `LabDocumentError` (see the file's
 * header for the codes) and throws nothing else.
 */
export async function readLabDocument(
  bytes: Uint8Array,
  options: ReadLabDocumentOptions = {},
): Promise<LabDocument> {
  if (bytes.length > LAB_DOCUMENT_MAX_BYTES) {
    throw new LabDocumentError('too_large', `The file is over 3 MB; read are ${FORMATS}.`);
  }
  const mime = detectLabDocumentType(bytes);
  if (!mime) {
    throw new LabDocumentError('unsupported_type', `The file is not one read: ${FORMATS}.`);
  }
  try {
    return mime === 'application/pdf'
      ? await readPdfDocument(bytes, options.timeoutMs)
      : await readImageDocument(bytes, mime, options.timeoutMs);
  } catch (err) {
    throw asDocumentError(err, mime);
  }
}
