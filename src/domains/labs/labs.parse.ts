/**
 * Reading a blood report into a draft (issue 36, blood_report_parse_inline): a base64 PDF, JPEG or
 * PNG of at most MAX_REPORT_BYTES is read (a PDF's text layer, or OCR of an image, in a worker with
 * a timeout, one at a time: labs.document.ts), its lines parsed into the vocabulary's markers
 * (labs.text.ts), and each value answered with its unit converted, the report's own range or a
 * labelled fallback, a confidence and the line it came from. Parsing saves nothing: the person
 * checks the draft and saves it with blood_report_create; OCR values are marked for confirmation.
 *
 * Hostile files get a 4xx: over the size 413, not base64 or not a PDF/JPEG/PNG 422, unreadable or
 * text-less 422, too slow 422 (try a clearer photo or the PDF), over a bound of its content 422
 * naming the bound (pages, megapixels, text drawn, bytes decompressed, memory: issue 45); a full
 * reading queue is a 503 with Retry-After (a busy server, not the file's fault).
 */
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { LabDocumentError, readLabDocument } from './labs.document.ts';
import { chargeLabParse } from './labs.limits.ts';
import { rangeOf } from './labs.reports.ts';
import type { RangeView } from './labs.reports.ts';
import { parseLabText } from './labs.text.ts';
import type { DraftMarker, TextSource } from './labs.types.ts';
import { markerById } from './labs.vocabulary.ts';

/** Largest report file read, bytes (the spec: base64, up to 3 MB). */
export const MAX_REPORT_BYTES = 3 * 1024 * 1024;
/** Longest a report is read for before it is refused. */
export const PARSE_TIMEOUT_MS = 30_000;

/** A parsed value as answered: the draft marker with the range it is read against. */
export interface DraftMarkerView extends DraftMarker {
  /** the report's own range, else the labelled typical adult range, else null */
  range: RangeView | null;
}

/** A draft: nothing saved. */
export interface LabDraftView {
  source: TextSource;
  pages: number;
  drawnOn: string | null;
  lab: string | null;
  markers: DraftMarkerView[];
  /** result-like lines no marker of the vocabulary matched */
  unrecognised: string[];
  next: string;
}

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/** The file's bytes from base64 (a data: URL prefix is read too); 422 / 413 otherwise. */
function decoded(file: string): Buffer {
  const body = file.replace(/^data:[\w.+/-]+;base64,/, '');
  if (!BASE64.test(body)) {
    throw validationError([
      { loc: ['file'], msg: 'The file must be base64 (a PDF, JPEG or PNG).', type: 'value_error' },
    ]);
  }
  const bytes = Buffer.from(body, 'base64');
  if (bytes.length > MAX_REPORT_BYTES) {
    throw appError(
      'PAYLOAD_TOO_LARGE',
      `The report is ${(bytes.length / 1048576).toFixed(1)} MB; at most 3 MB is read. Send the PDF, or a smaller photo of each page.`,
    );
  }
  return bytes;
}

/**
 * Words for the codes whose reader messages are not shown. `too_large` and `timeout` are shown as
 * the reader words them (issue 45): which bound the file passed (pages, megapixels, text drawn,
 * bytes decompressed, memory, time) and what to send instead.
 */
const DOCUMENT_WORDS: Record<string, string> = {
  unsupported_type: 'The file is not a PDF, JPEG or PNG.',
  unreadable: 'The file could not be read (damaged, encrypted or cut short).',
  no_text: 'No text was found in the report: send a sharper photo, or the PDF from the lab.',
};

/** A document error as the caller's 422 (503 while the reader is busy: try again shortly). */
function refused(err: LabDocumentError): Error {
  if (err.code === 'busy') {
    return appError(
      'UNAVAILABLE',
      'Reports are being read for others right now: try again in a minute.',
      {
        retryAfter: 30,
      },
    );
  }
  return validationError([
    { loc: ['file'], msg: DOCUMENT_WORDS[err.code] ?? err.message, type: 'value_error' },
  ]);
}

/** Reads a report file into a draft of markers; saves nothing. */
export async function parseBloodReport(
  ctx: AuthedContext,
  options: { file: string },
): Promise<LabDraftView> {
  await chargeLabParse(ctx);
  const bytes = decoded(options.file);
  let read;
  try {
    read = await readLabDocument(new Uint8Array(bytes), { timeoutMs: PARSE_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof LabDocumentError) throw refused(err);
    throw err;
  }
  const parsed = parseLabText(read.lines, { source: read.source });
  const markers = parsed.markers.map((m) => {
    const def = markerById(m.markerId);
    const own = m.referenceRange;
    const range = def
      ? rangeOf(def, {
          refLow: own?.low ?? null,
          refHigh: own?.high ?? null,
          refText: own?.text ?? null,
          unit: own?.unit ?? m.unit,
          loinc: m.loinc,
        })
      : null;
    return { ...m, range };
  });
  const toConfirm = markers.filter((m) => m.needsConfirmation).length;
  return {
    source: read.source,
    pages: read.pages,
    drawnOn: parsed.drawnOn,
    lab: parsed.lab,
    markers,
    unrecognised: parsed.unrecognised,
    next:
      markers.length === 0
        ? 'No marker was recognised: type the values with blood_report_create, or send a clearer file.'
        : `Nothing is saved yet. Check the values${toConfirm ? ` (${toConfirm} marked needs_confirmation first: they were read by OCR or look unusual)` : ''} and the date drawn, then save them with blood_report_create.`,
  };
}
