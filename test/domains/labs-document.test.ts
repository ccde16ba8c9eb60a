/**
 * Issue 36, a lab report's file read into lines: the type told by its bytes (never its name), a
 * PDF's text layer rebuilt into lines with table columns kept apart, images read by OCR offline,
 * one at a time, with a timeout that ends the worker and leaves the next call working; damaged,
 * password-protected, oversized and foreign files refused with a typed error and nothing else.
 * The fixtures are generated (test/fixtures/labs). No app, no database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LabDocumentError,
  detectLabDocumentType,
  readLabDocument,
} from '../../src/domains/labs/labs.document.ts';
import type { LabDocument } from '../../src/domains/labs/labs.document.ts';
import { closeOcr, imageInfo, ocrStats } from '../../src/domains/labs/labs.ocr.ts';
import { fileWorkerStats } from '../../src/platform/file-workers.ts';
import { pdfLines } from '../../src/domains/labs/labs.pdf.ts';
import { parseLabText } from '../../src/domains/labs/labs.text.ts';
import { markerById } from '../../src/domains/labs/labs.vocabulary.ts';
import {
  emptyPdf,
  garbledPdf,
  manyPagesPdf,
  oversizedPng,
  passwordPdf,
  pngClaiming,
  textFile,
  truncated,
} from '../fixtures/labs/hostile.ts';
import { operatorsPdf } from '../fixtures/labs/bombs.ts';
import { labReport, reportPdf } from '../fixtures/labs/reports.ts';
import type { LabReport, TruthMarker } from '../fixtures/labs/reports.ts';
import { scanPage } from '../fixtures/labs/scan.ts';
import type { ScannedPage } from '../fixtures/labs/scan.ts';

/** The refusal of a read, or a failure when the file was read or something else was thrown. */
async function refusal(bytes: Uint8Array, timeoutMs?: number): Promise<LabDocumentError> {
  const error: unknown = await readLabDocument(bytes, { timeoutMs }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LabDocumentError);
  return error as LabDocumentError;
}

/** The UCUM code the vocabulary gives a printed unit. */
function ucumOf(t: TruthMarker): string {
  const def = markerById(t.markerId);
  return def?.units.find((u) => u.printed.includes(t.unit.toLowerCase()))?.ucum ?? t.ucum;
}

const OCR_TIMEOUT = 120_000;

let table: LabReport;
let tablePdf: Uint8Array;
let tableScan: ScannedPage;

beforeAll(async () => {
  table = labReport('table');
  tablePdf = await reportPdf(table);
  tableScan = await scanPage(table, 1);
}, OCR_TIMEOUT);

afterAll(async () => {
  await closeOcr();
});

describe('detectLabDocumentType', () => {
  it('tells PDF, PNG and JPEG by their bytes and nothing else', async () => {
    const jpeg = await scanPage(labReport('inline'), 1, { format: 'jpeg', dpi: 72 });
    expect(detectLabDocumentType(tablePdf)).toBe('application/pdf');
    expect(detectLabDocumentType(tableScan.bytes)).toBe('image/png');
    expect(detectLabDocumentType(jpeg.bytes)).toBe('image/jpeg');
    // a few bytes of junk before the header, as some mail gateways leave
    const junk = new Uint8Array([...Buffer.from('\r\n\r\n'), ...tablePdf]);
    expect(detectLabDocumentType(junk)).toBe('application/pdf');
    expect(detectLabDocumentType(textFile())).toBeNull();
    expect(detectLabDocumentType(new Uint8Array(0))).toBeNull();
    // a PNG signature cut short is not a PNG
    expect(detectLabDocumentType(tableScan.bytes.slice(0, 6))).toBeNull();
  });

  it('reads image sizes from the header alone', async () => {
    const jpeg = await scanPage(labReport('inline'), 1, { format: 'jpeg', dpi: 72 });
    expect(imageInfo(tableScan.bytes)).toEqual({
      mime: 'image/png',
      width: tableScan.width,
      height: tableScan.height,
    });
    expect(imageInfo(jpeg.bytes)).toEqual({
      mime: 'image/jpeg',
      width: jpeg.width,
      height: jpeg.height,
    });
    expect(imageInfo(textFile())).toBeNull();
  });
});

describe('readLabDocument refusals', () => {
  it('refuses a text file, and an empty one, as unsupported_type', async () => {
    expect((await refusal(textFile())).code).toBe('unsupported_type');
    expect((await refusal(new Uint8Array(0))).code).toBe('unsupported_type');
  });

  it('refuses files over 3 MB, images over 25 megapixels and PDFs over 20 pages as too_large', async () => {
    expect((await refusal(oversizedPng())).code).toBe('too_large');
    const started = performance.now();
    const huge = await refusal(pngClaiming(10_000, 10_000));
    expect(huge.code).toBe('too_large');
    expect(huge.message).toMatch(/100 megapixels/);
    // refused from the header: nothing was decoded (no worker needed)
    expect(performance.now() - started).toBeLessThan(500);
    expect((await refusal(await manyPagesPdf(21))).code).toBe('too_large');
    expect((await readLabDocument(await manyPagesPdf(20))).pages).toBe(20);
  });

  it('refuses damaged and password-protected PDFs as unreadable, never throwing anything else', async () => {
    for (const share of [0.02, 0.3, 0.5, 0.8, 0.95]) {
      const err = await refusal(truncated(tablePdf, share));
      expect(err.code, `cut at ${share}`).toBe('unreadable');
    }
    // only the cross-reference table's end cut off: pdf.js rebuilds it and reads the whole page
    const recovered = await readLabDocument(truncated(tablePdf, 0.995));
    expect(recovered.lines).toEqual((await readLabDocument(tablePdf)).lines);
    expect((await refusal(garbledPdf())).code).toBe('unreadable');
    const locked = await refusal(await passwordPdf());
    expect(locked.code).toBe('unreadable');
    expect(locked.message).toMatch(/password/);
  });

  it('answers no_text for a PDF without a text layer', async () => {
    const err = await refusal(await emptyPdf());
    expect(err.code).toBe('no_text');
    expect(err.message).toMatch(/scanned PDF/);
  });

  it(
    'refuses truncated PNGs as unreadable, and reads or refuses a truncated JPEG cleanly',
    async () => {
      for (const share of [0.0001, 0.01, 0.5]) {
        const err = await refusal(truncated(tableScan.bytes, share));
        expect(err.code, `cut at ${share}`).toBe('unreadable');
      }
      const jpeg = await scanPage(labReport('inline'), 1, { format: 'jpeg' });
      // libjpeg reads what arrived and fills the rest: a partial page, or a typed refusal
      const partial = await readLabDocument(truncated(jpeg.bytes, 0.5)).then(
        (doc) => doc,
        (e: unknown) => e,
      );
      if (partial instanceof Error) expect(partial).toBeInstanceOf(LabDocumentError);
      else expect((partial as LabDocument).source).toBe('ocr');
    },
    OCR_TIMEOUT,
  );
});

describe('readLabDocument of a text PDF', () => {
  it('rebuilds table rows with cells two spaces apart', async () => {
    const doc = await readLabDocument(tablePdf);
    expect(doc).toMatchObject({ source: 'pdf_text', pages: 1, mime: 'application/pdf' });
    const texts = doc.lines.map((l) => l.text);
    expect(texts).toContain('Test  Result  Unit  Reference range  Flag');
    const glucose = table.truth.find((t) => t.markerId === 'glucose')!;
    const row = [glucose.name, glucose.printedValue, glucose.unit, glucose.range, glucose.flag];
    expect(texts).toContain(row.filter(Boolean).join('  '));
    // words of one cell stay one space apart
    expect(texts.some((t) => t.startsWith('Total Cholesterol  '))).toBe(true);
    expect(doc.lines.every((l) => l.page === 1 && l.confidence === null)).toBe(true);
  });

  it('keeps two columns apart and numbers the pages of a long report', async () => {
    const twoColumns = labReport('two_column');
    const lines = await pdfLines(await reportPdf(twoColumns));
    const left = twoColumns.truth[0];
    const right = twoColumns.truth[Math.ceil(twoColumns.truth.length / 2)];
    const row = lines.find((l) => l.text.startsWith(`${left.name}  `))!;
    expect(row.text).toContain(`  ${right.name}  ${right.printedValue}`);

    const long = labReport('multi_page');
    const doc = await readLabDocument(await reportPdf(long));
    expect(doc.pages).toBe(2);
    const headers = doc.lines.filter((l) => l.text.startsWith('Test  Result  Flag  Units'));
    expect(headers.map((l) => l.page)).toEqual([1, 2]);
    const last = long.truth.at(-1)!;
    expect(doc.lines.find((l) => l.text.startsWith(`${last.name}  `))?.page).toBe(2);
  });

  it('reads every marker of each layout end to end (parseLabText)', async () => {
    for (const layout of ['table', 'european'] as const) {
      const report = labReport(layout);
      const doc = await readLabDocument(await reportPdf(report));
      const parsed = parseLabText(doc.lines, { source: doc.source });
      const read = report.truth.map((t) => {
        const m = parsed.markers.find((p) => p.markerId === t.markerId);
        return m ? `${t.markerId} ${m.value} ${m.unit}` : `${t.markerId} missing`;
      });
      expect(read, layout).toEqual(
        report.truth.map((t) => `${t.markerId} ${t.value} ${ucumOf(t)}`),
      );
      expect(parsed.drawnOn).toBe('2026-03-14');
    }
  });
});

describe('readLabDocument of a PDF in a worker thread (issue 45)', () => {
  /** The PDF pool's threads once it has ended the idle ones (at once, a few turns later). */
  async function pdfThreads(): Promise<number> {
    for (let i = 0; i < 100 && (fileWorkerStats()['labs-pdf']?.threads ?? 0) > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    return fileWorkerStats()['labs-pdf']?.threads ?? 0;
  }

  it('reads a PDF in the file-job pool, leaves the caller its buffer and ends the thread', async () => {
    const bytes = new Uint8Array(tablePdf);
    const doc = await readLabDocument(bytes);
    expect(doc.lines.length).toBeGreaterThan(10);
    expect(fileWorkerStats()['labs-pdf']).toBeDefined();
    // the buffer moved to the thread was a copy
    expect(bytes.byteLength).toBe(tablePdf.byteLength);
    expect(await pdfThreads()).toBe(0);
  });

  it('answers a timeout once the budget passes, and the next read works', async () => {
    // 15 MiB of text operators: within every bound, a few seconds of pdf.js
    const err = await refusal(operatorsPdf('(x) Tj\n', 15, 200), 300);
    expect(err.code).toBe('timeout');
    expect(err.message).toMatch(/^Reading the PDF took longer than 0.3 s .*, so it was stopped/);
    expect(await pdfThreads()).toBe(0);
    expect((await readLabDocument(tablePdf)).pages).toBe(1);
  });
});

describe('readLabDocument of an image (OCR)', () => {
  it(
    'reads a PNG whatever it is called, offline, with confidences and cells two spaces apart',
    async () => {
      // the reader is given bytes only: a PNG uploaded as "report.pdf" is read as the PNG it is
      const doc = await readLabDocument(tableScan.bytes);
      expect(doc).toMatchObject({ source: 'ocr', pages: 1, mime: 'image/png' });
      for (const line of doc.lines) {
        expect(line.confidence).toBeGreaterThanOrEqual(0);
        expect(line.confidence).toBeLessThanOrEqual(1);
      }
      const header = doc.lines.find((l) => l.text.includes('Reference range'))!;
      expect(header.text).toMatch(/Result {2}Unit {2}Reference range {2}Flag/);
      const glucose = doc.lines.find((l) => l.text.includes('Glucose'))!;
      expect(glucose.text).toMatch(/Glucose {2}\S+ {2}mmol\/L/);

      const parsed = parseLabText(doc.lines, { source: doc.source });
      expect(parsed.markers.length).toBeGreaterThanOrEqual(15);
      expect(parsed.markers.every((m) => m.needsConfirmation)).toBe(true);
    },
    OCR_TIMEOUT,
  );

  it(
    'answers a timeout when the budget is too small, and the next call still works',
    async () => {
      const err = await refusal(tableScan.bytes, 30);
      expect(err.code).toBe('timeout');
      const started = ocrStats().workersStarted;
      const doc = await readLabDocument(tableScan.bytes);
      expect(doc.lines.some((l) => l.text.includes('Glucose'))).toBe(true);
      // the timed-out worker was ended; a new one read the page
      expect(ocrStats().workersStarted).toBe(started + 1);
    },
    OCR_TIMEOUT,
  );

  it(
    'reads one image at a time: a second call waits for the first, and both succeed',
    async () => {
      const before = ocrStats();
      const finished: string[] = [];
      const first = readLabDocument(tableScan.bytes).then((d) => (finished.push('first'), d));
      const second = readLabDocument(tableScan.bytes).then((d) => (finished.push('second'), d));
      await new Promise((r) => setImmediate(r));
      expect(ocrStats()).toMatchObject({ running: 1, waiting: 1 });
      const [a, b] = await Promise.all([first, second]);
      expect(finished).toEqual(['first', 'second']);
      expect(b.lines.map((l) => l.text)).toEqual(a.lines.map((l) => l.text));
      expect(ocrStats()).toMatchObject({
        running: 0,
        waiting: 0,
        recognitions: before.recognitions + 2,
        // the worker is reused between calls
        workersStarted: before.workersStarted,
      });
    },
    OCR_TIMEOUT,
  );

  it(
    'starts a new worker after closeOcr',
    async () => {
      await closeOcr();
      const started = ocrStats().workersStarted;
      const doc = await readLabDocument(tableScan.bytes);
      expect(doc.lines.length).toBeGreaterThan(10);
      expect(ocrStats().workersStarted).toBe(started + 1);
    },
    OCR_TIMEOUT,
  );
});
