/**
 * The file job that reads a lab report's PDF (issue 45): run by src/platform/file-workers.ts in a
 * worker thread, never on the thread that answers requests, it reads the PDF's text layer into
 * lines (`readPdf`, labs.pdf.ts: the stream bound first, then pdf.js with its item, character and
 * time caps) and answers them. The pool ends the thread past its wall-clock budget or heap limit
 * (labs.document.ts sets both), so a file pdf.js never finishes costs one thread for a bounded
 * time and its memory goes with the thread.
 *
 * It must never import anything but the PDF reader (it is an entry of its own in the build:
 * scripts/build.mjs), and never throw anything but a `PdfReadError` (the pool hands its name, code
 * and message back as a `FileJobRefusal`).
 */
import { readPdf } from './labs.pdf.ts';
import type { PdfLimits, PdfText } from './labs.pdf.ts';

/** What the job is given: the file (its buffer moved to the thread) and the limits of the read. */
export interface PdfJobInput {
  /** the PDF's bytes */
  bytes: Uint8Array;
  /** the read's limits (labs.pdf.ts defaults for the rest) */
  limits: Partial<PdfLimits>;
}

/** Reads the PDF's lines and page count. */
export default async function readPdfJob(input: PdfJobInput): Promise<PdfText> {
  return readPdf(input.bytes, input.limits);
}
