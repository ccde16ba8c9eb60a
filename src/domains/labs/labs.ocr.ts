/**
 * Reads the text of a photographed or scanned lab report (a JPEG or PNG) by OCR (issue 36), with
 * tesseract.js 7 and the English LSTM model installed with `@tesseract.js-data/eng`
 * (`4.0.0_best_int`, read from node_modules: no network, no cache written).
 *
 * Where the work runs: tesseract.js runs its WebAssembly engine in a `worker_threads` Worker of
 * its own (`tesseract.js/src/worker/node/spawnWorker.js`: `new Worker(workerPath)`), so decoding and
 * recognising an image never blocks the server's event loop; this module only reads the image's
 * header and rebuilds lines from the word boxes the engine answers.
 *
 * One recognition at a time per process: the engine uses a core at full speed and 150-200 MB for a
 * scanned A4 page (about 300 MB for a 15-megapixel photo; the cap is 25), so calls queue (at most
 * `OCR_LIMITS.maxQueue` waiting, then `busy`). One worker is created lazily and reused between
 * calls (the engine keeps no text of an earlier image: each recognition sets a new image and
 * clears the page's results); it is replaced after `jobsPerWorker` recognitions or one image over
 * `recycleAbovePixels` to bound the WebAssembly heap (which never shrinks), ended after `idleMs`
 * without work, and by `closeOcr()` at shutdown. A recognition that passes its time budget
 * terminates the worker (the thread is killed, its memory freed) and answers a `timeout`; the
 * next call starts a new worker.
 *
 * Two passes per image: the page thresholded with Sauvola's local method and deskewed, then read
 * as one block (PSM 6, so a table row stays one line) from that black-and-white page. On the
 * fixtures' scans (90 values, test/fixtures/labs) one pass over the grey page misread 6 to 13
 * values (noise and dust read as digits, decimal points lost) where the two passes misread 1 to 4,
 * for a few percent more time (bench/labs-parse.bench.ts compares with a bare recognition).
 *
 * Lines: words are grouped into rows (tesseract's lines whose heights overlap, so two columns side
 * by side make one row), ordered left to right, and joined by one space, or two where the gap is
 * wider than about 1.5 characters, as the PDF reader does (labs.pdf.ts). Each line carries the mean
 * word confidence (0..1); a parser must still mark every OCR value for confirmation.
 *
 * It must never decode an image over 3 MB or 25 megapixels (the header is read first), never fetch
 * anything, never throw anything but an `OcrError` for a bad image, and never leave a recognition
 * running past its budget. (A damaged image still makes the engine's image library print a line
 * such as "libpng error: Read Error" on stderr from its thread; the call answers `unreadable`.)
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker as ThreadWorker } from 'node:worker_threads';
import type Tesseract from 'tesseract.js';
import type { TextLine } from './labs.types.ts';

/** The limits of OCR in this process. */
export const OCR_LIMITS = {
  /** largest image in bytes */
  maxBytes: 3 * 1024 * 1024,
  /** largest image in pixels (width x height, from the header) */
  maxPixels: 25_000_000,
  /** default time budget of one recognition, from its turn (ms) */
  timeoutMs: 30_000,
  /** calls waiting for their turn beyond the running one; more are refused as busy */
  maxQueue: 8,
  /** recognitions before the worker is replaced */
  jobsPerWorker: 100,
  /**
   * after an image this large the worker is ended, so the WebAssembly heap it grew to (about
   * 300 MB over the process for 15 megapixels, against 150 MB for an A4 page at 200 dpi) is not
   * kept until the idle end
   */
  recycleAbovePixels: 8_000_000,
  /** an idle worker is ended after this long (ms) */
  idleMs: 60_000,
};

/** Why an image was not read. */
export type OcrErrorCode = 'too_large' | 'unreadable' | 'timeout' | 'busy';

/** An image OCR refuses or could not read; `message` is for the person. */
export class OcrError extends Error {
  readonly code: OcrErrorCode;
  constructor(code: OcrErrorCode, message: string) {
    super(message);
    this.name = 'OcrError';
    this.code = code;
  }
}

/** An image's type and size as its header states them. */
export interface ImageInfo {
  mime: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
}

/** Options of one recognition. */
export interface OcrOptions {
  /** the time budget from the call's turn in the queue, ms (default `OCR_LIMITS.timeoutMs`) */
  timeoutMs?: number;
  /** the page number the lines get (default 1) */
  page?: number;
}

/** The queue's state, for tests and metrics. */
export interface OcrStats {
  /** 0 or 1 */
  running: number;
  waiting: number;
  /** recognitions finished in this process (any outcome) */
  recognitions: number;
  /** workers started in this process */
  workersStarted: number;
}

// ---------------------------------------------------------------------------------------------
// image headers

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function u16(b: Uint8Array, i: number): number {
  return (b[i] << 8) | b[i + 1];
}
function u32(b: Uint8Array, i: number): number {
  return ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
}

/** A PNG's size from its IHDR chunk (the first chunk, by the format's rule), or null. */
function pngInfo(b: Uint8Array): ImageInfo | null {
  if (b.length < 33 || !PNG_SIGNATURE.every((x, i) => b[i] === x)) return null;
  const type = String.fromCharCode(b[12], b[13], b[14], b[15]);
  if (type !== 'IHDR' || u32(b, 8) !== 13) return null;
  return { mime: 'image/png', width: u32(b, 16), height: u32(b, 20) };
}

/** SOF markers (baseline, progressive, lossless...): C0-CF but DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** A JPEG's size from its first start-of-frame segment, or null. */
function jpegInfo(b: Uint8Array): ImageInfo | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i += 1; // fill byte
      continue;
    }
    // markers without a length: TEM and RSTn; SOS or EOI before a frame: no size
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null;
    const length = u16(b, i + 2);
    if (length < 2) return null;
    if (isStartOfFrame(marker)) {
      if (i + 9 > b.length) return null;
      return { mime: 'image/jpeg', height: u16(b, i + 5), width: u16(b, i + 7) };
    }
    i += 2 + length;
  }
  return null;
}

/**
 * A PNG's or JPEG's type and size read from its header (nothing decoded), or null when the bytes
 * are neither or the header is cut short.
 */
export function imageInfo(bytes: Uint8Array): ImageInfo | null {
  return pngInfo(bytes) ?? jpegInfo(bytes);
}

/** The image's header, checked against the limits before anything is decoded. */
function checkImage(bytes: Uint8Array): ImageInfo {
  if (bytes.length > OCR_LIMITS.maxBytes) {
    throw new OcrError(
      'too_large',
      `The image is ${(bytes.length / 1024 / 1024).toFixed(1)} MB; images up to 3 MB are read.`,
    );
  }
  const info = imageInfo(bytes);
  if (!info || info.width === 0 || info.height === 0) {
    throw new OcrError(
      'unreadable',
      'The image could not be read: it is damaged or not a PNG or JPEG.',
    );
  }
  if (info.width * info.height > OCR_LIMITS.maxPixels) {
    const mp = ((info.width * info.height) / 1e6).toFixed(0);
    throw new OcrError('too_large', `The image has ${mp} megapixels; images up to 25 are read.`);
  }
  return info;
}

// ---------------------------------------------------------------------------------------------
// the worker and the queue

const require = createRequire(import.meta.url);
/** The installed language data and tesseract.js's own worker script, resolved from node_modules. */
function enginePaths(): { langPath: string; workerPath: string } {
  const data = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  return {
    langPath: path.join(data, '4.0.0_best_int'),
    // given explicitly so that a bundled build (dist/) still finds the script on disk
    workerPath: require.resolve('tesseract.js/src/worker-script/node/index.js'),
  };
}

/** The live worker: the engine, its thread, and what it has done. */
interface LiveWorker {
  engine: Tesseract.Worker;
  thread: ThreadWorker | null;
  jobs: number;
}

let live: Promise<LiveWorker> | null = null;
let idleTimer: NodeJS.Timeout | null = null;
/** rejects the recognition running now when its worker dies or is ended */
let abortCurrent: ((err: OcrError) => void) | null = null;
let tail: Promise<unknown> = Promise.resolve();
const stats: OcrStats = { running: 0, waiting: 0, recognitions: 0, workersStarted: 0 };

let tesseractModule: Promise<typeof Tesseract> | null = null;

/**
 * tesseract.js, loaded on the first recognition. The name is in a variable so that a bundler
 * (scripts/build.mjs) leaves the import alone: the package then runs from node_modules, where its
 * CommonJS code finds its own files by `__dirname` (bundled into an ES module it would not), and
 * the server does not load it at start.
 */
function loadTesseract(): Promise<typeof Tesseract> {
  const name = 'tesseract.js';
  tesseractModule ??= import(name).then((m: { default: typeof Tesseract }) => m.default);
  return tesseractModule;
}

async function startWorker(): Promise<LiveWorker> {
  const { langPath, workerPath } = enginePaths();
  stats.workersStarted++;
  const tesseract = await loadTesseract();
  const engine = await tesseract.createWorker('eng', tesseract.OEM.LSTM_ONLY, {
    langPath,
    workerPath,
    gzip: true,
    cacheMethod: 'none',
    // a job's failure rejects its promise; without a handler tesseract.js also throws it
    // from its message listener, an uncaught exception
    errorHandler: () => undefined,
    logger: () => undefined,
  });
  // tesseract.js keeps the worker_threads Worker on the object it answers (not in its types)
  const thread = (engine as unknown as { worker?: ThreadWorker }).worker ?? null;
  await engine.setParameters({
    // one block of text: a table's row is read as one line (automatic layout splits its columns)
    tessedit_pageseg_mode: tesseract.PSM.SINGLE_BLOCK,
    // the engine's warnings ("Estimating resolution as ...") go nowhere rather than to stderr
    debug_file: '/dev/null',
  });
  const worker: LiveWorker = { engine, thread, jobs: 0 };
  thread?.on('error', () => dropWorker(worker, 'The text recognition engine failed.'));
  thread?.on('exit', () => dropWorker(worker, 'The text recognition engine stopped.'));
  return worker;
}

/** Forgets a worker whose thread died, failing the recognition it was running. */
function dropWorker(worker: LiveWorker, why: string): void {
  void live?.then((current) => {
    if (current !== worker) return;
    live = null;
    abortCurrent?.(new OcrError('unreadable', `${why} Try again, or upload a clearer image.`));
  });
}

/**
 * Ends the live worker: forgotten at once (the next call starts another), its thread terminated
 * as soon as it has started. Callers on the recognition path do not wait for the end, so a worker
 * stuck while starting cannot hold the queue.
 */
async function endWorker(): Promise<void> {
  const ending = live;
  live = null;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  if (!ending) return;
  try {
    const worker = await ending;
    await worker.engine.terminate();
    await worker.thread?.terminate();
  } catch {
    // a worker that failed to start has nothing to end
  }
}

function currentWorker(): Promise<LiveWorker> {
  if (!live) {
    const starting = startWorker();
    live = starting;
    starting.catch(() => {
      if (live === starting) live = null;
    });
  }
  return live;
}

/** Runs `fn` when every earlier call has finished. */
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  if (stats.waiting >= OCR_LIMITS.maxQueue) {
    return Promise.reject(
      new OcrError('busy', 'Too many images are being read right now; try again in a minute.'),
    );
  }
  stats.waiting++;
  const turn = tail.then(async () => {
    stats.waiting--;
    stats.running++;
    try {
      return await fn();
    } finally {
      stats.running--;
      stats.recognitions++;
    }
  });
  tail = turn.catch(() => undefined);
  return turn;
}

/** The recognition of one image within `timeoutMs`, on the shared worker. */
async function recognise(
  bytes: Uint8Array,
  pixels: number,
  timeoutMs: number,
): Promise<Tesseract.Page> {
  if (idleTimer) clearTimeout(idleTimer);
  let timer: NodeJS.Timeout | undefined;
  const stop = new Promise<never>((_, reject) => {
    abortCurrent = reject;
    timer = setTimeout(
      () => reject(new OcrError('timeout', `Reading the image took longer than ${timeoutMs} ms.`)),
      timeoutMs,
    );
  });
  try {
    const work = (async () => {
      const worker = await currentWorker();
      worker.jobs++;
      const data = await twoPasses(worker.engine, bytes);
      return { worker, data };
    })();
    work.catch(() => undefined);
    const { worker, data } = await Promise.race([work, stop]);
    if (worker.jobs >= OCR_LIMITS.jobsPerWorker || pixels > OCR_LIMITS.recycleAbovePixels) {
      void endWorker();
    }
    return data;
  } catch (err) {
    if (err instanceof OcrError) {
      // a recognition past its budget (or on a dead thread) is stopped by ending the worker
      void endWorker();
      throw err;
    }
    throw new OcrError(
      'unreadable',
      'The image could not be read: it is damaged or not a PNG or JPEG.',
    );
  } finally {
    clearTimeout(timer);
    abortCurrent = null;
    scheduleIdleEnd();
  }
}

/** Options of the first pass: Sauvola's local threshold, and the page turned level. */
const BINARISE = {
  rotateAuto: true,
  thresholding_method: '2',
} as Partial<Tesseract.RecognizeOptions>;

/**
 * Recognition in two passes (see the file's header): the page thresholded (Sauvola, local, so
 * uneven light and sensor noise stay out of the ink) and deskewed, then the words read from that
 * black-and-white page.
 */
async function twoPasses(engine: Tesseract.Worker, bytes: Uint8Array): Promise<Tesseract.Page> {
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const first = await engine.recognize(input, BINARISE, { text: false, imageBinary: true });
  const binary = first.data.imageBinary;
  if (!binary) throw new Error('no thresholded image');
  const png = Buffer.from(binary.slice(binary.indexOf(',') + 1), 'base64');
  const { data } = await engine.recognize(png, {}, { text: false, blocks: true });
  return data;
}

function scheduleIdleEnd(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (stats.running === 0 && stats.waiting === 0) void endWorker();
  }, OCR_LIMITS.idleMs);
  idleTimer.unref();
}

// ---------------------------------------------------------------------------------------------
// lines from word boxes

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
interface OcrWord {
  text: string;
  confidence: number;
  bbox: Box;
}
interface Row {
  top: number;
  bottom: number;
  /** x extents of the tesseract lines already in the row */
  spans: [number, number][];
  words: OcrWord[];
}

/** Tesseract's lines, each as its words (empty words dropped). */
function linesOf(page: Tesseract.Page): { bbox: Box; words: OcrWord[] }[] {
  const lines: { bbox: Box; words: OcrWord[] }[] = [];
  for (const block of page.blocks ?? []) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const words = line.words.filter((w) => w.text.trim() !== '');
        if (words.length) lines.push({ bbox: line.bbox, words });
      }
    }
  }
  return lines;
}

/** Lines at the same height side by side (two columns, table cells split by the engine) merged. */
function rowsOf(page: Tesseract.Page): Row[] {
  const rows: Row[] = [];
  const lines = linesOf(page).sort((a, b) => a.bbox.y0 + a.bbox.y1 - (b.bbox.y0 + b.bbox.y1));
  for (const line of lines) {
    const { x0, x1, y0, y1 } = line.bbox;
    const row = rows.find((r) => {
      const overlap = Math.min(r.bottom, y1) - Math.max(r.top, y0);
      const side = r.spans.every(([a, b]) => x1 <= a || x0 >= b);
      return side && overlap >= 0.5 * Math.min(r.bottom - r.top, y1 - y0);
    });
    if (row) {
      row.top = Math.min(row.top, y0);
      row.bottom = Math.max(row.bottom, y1);
      row.spans.push([x0, x1]);
      row.words.push(...line.words);
    } else {
      rows.push({ top: y0, bottom: y1, spans: [[x0, x1]], words: [...line.words] });
    }
  }
  return rows.sort((a, b) => a.top - b.top);
}

/** A row's text (two spaces at a gap wider than 1.5 characters) and its mean confidence. */
function rowText(row: Row): { text: string; confidence: number } {
  const words = [...row.words].sort((a, b) => a.bbox.x0 - b.bbox.x0);
  const widths = words
    .map((w) => (w.bbox.x1 - w.bbox.x0) / Math.max(1, w.text.length))
    .sort((a, b) => a - b);
  const charWidth = widths[Math.floor(widths.length / 2)];
  let text = '';
  let weighted = 0;
  let chars = 0;
  words.forEach((w, i) => {
    if (i > 0) text += w.bbox.x0 - words[i - 1].bbox.x1 > 1.5 * charWidth ? '  ' : ' ';
    text += w.text;
    weighted += w.confidence * w.text.length;
    chars += w.text.length;
  });
  return { text, confidence: chars ? Math.round(weighted / chars) / 100 : 0 };
}

/** The page's rows as lines; rows with no letter or digit (a table's rules read as dashes) dropped. */
export function ocrPageLines(page: Tesseract.Page, pageNumber = 1): TextLine[] {
  return rowsOf(page)
    .map(rowText)
    .filter((r) => /[\p{L}\p{N}]/u.test(r.text))
    .map((r) => ({ text: r.text, page: pageNumber, confidence: r.confidence }));
}

// ---------------------------------------------------------------------------------------------
// the entry points

/**
 * The text of a PNG or JPEG as lines in reading order, each with the OCR's confidence (0..1).
 * Refuses an image over 3 MB or 25 megapixels before decoding it (`too_large`); a damaged image
 * is `unreadable`; a recognition past `timeoutMs` is stopped (`timeout`); more than
 * `OCR_LIMITS.maxQueue` calls waiting is `busy`. Calls run one at a time in this process.
 */
export async function ocrLines(bytes: Uint8Array, options: OcrOptions = {}): Promise<TextLine[]> {
  const { width, height } = checkImage(bytes);
  const timeoutMs = options.timeoutMs ?? OCR_LIMITS.timeoutMs;
  const page = await oneAtATime(() => recognise(bytes, width * height, timeoutMs));
  return ocrPageLines(page, options.page ?? 1);
}

/**
 * Ends the OCR worker (the server calls this at shutdown). A recognition running now fails; a
 * later call starts a new worker.
 */
export async function closeOcr(): Promise<void> {
  abortCurrent?.(new OcrError('busy', 'The server is stopping; try again in a minute.'));
  await endWorker();
}

/** The queue's state now (running, waiting) and counts since the process started. */
export function ocrStats(): OcrStats {
  return { ...stats };
}
