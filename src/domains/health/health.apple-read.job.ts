/**
 * The reading half of an Apple Health import, run in a worker thread of the file-job pool
 * (src/platform/file-workers.ts, issue 45): it opens the export (the zip or export.xml), parses
 * export.xml into batches, then reads the GPX route files the workouts named, then the ECG CSVs,
 * and sends each result to the importer on the main thread (health.apple-import.ts) through the
 * MessagePort it was given. It answers the parse's counts at the end.
 *
 * Why a thread: the export is the uploader's file (issue 30), and the XML, GPX and CSV parsers and
 * the zip's inflation are CPU work without a bound of their own; here they have the pool's budget
 * of time and memory, and the thread that answers requests never runs them. The storing stays on
 * the main thread, which holds the database.
 *
 * Backpressure: every message but `progress` waits for the importer's acknowledgement, which comes
 * once it has stored what the message carried; the parser fills the next batch meanwhile, so at
 * most two batches exist at once. When the importer closes the port (it failed to store, or the app
 * is stopping) the file being read is destroyed and the job ends: it must never go on reading for
 * an importer that stopped listening. It writes nothing itself.
 */
import type { Readable } from 'node:stream';
import type { MessagePort } from 'node:worker_threads';
import type { EcgRecordingIn, RoutePointIn } from './health.apple-records.ts';
import { openExportSource, parseEcgCsv, parseGpx } from './health.apple-files.ts';
import type { ExportSource } from './health.apple-files.ts';
import { parseAppleHealth } from './health.apple-parser.ts';
import type { AppleHealthBatch, ParseProgress } from './health.apple-parser.ts';

/** What the importer asks the job to read. */
export interface AppleReadInput {
  /** path of export.xml (its folder holds workout-routes/ and electrocardiograms/) or of the export zip */
  file: string;
  /** samples per batch */
  batchSize: number;
  /** records between progress messages */
  progressEvery?: number;
  /** where the results go, one message at a time; each answered by the importer's acknowledgement */
  port: MessagePort;
}

/** One message of the job to the importer; `ref` is a route file's place in the order the workouts named them. */
export type AppleReadMessage =
  | { type: 'batch'; batch: AppleHealthBatch }
  | { type: 'progress'; progress: ParseProgress }
  | { type: 'route'; ref: number; file: string; from: number; points: RoutePointIn[] }
  | { type: 'route-missing'; ref: number; file: string }
  | { type: 'ecg'; file: string; recording: EcgRecordingIn | null }
  | { type: 'end' };

/** The job's answer: the parse's counts and the files it read beside export.xml. */
export interface AppleReadSummary extends ParseProgress {
  /** route files the workouts named */
  routeFiles: number;
  /** CSV files of electrocardiograms/ */
  ecgFiles: number;
}

/** The importer closed the port: the job stops where it is. */
class ImportEnded extends Error {
  constructor() {
    super('the importer stopped listening');
    this.name = 'ImportEnded';
  }
}

/** The port's side of the job: sends messages, waits for acknowledgements, notices the close. */
class Sender {
  private readonly waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private closed = false;
  /** the file being read, destroyed when the importer goes away */
  reading: Readable | null = null;

  constructor(private readonly port: MessagePort) {
    port.on('message', () => this.waiting.shift()?.resolve());
    port.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.splice(0)) w.reject(new ImportEnded());
      // the read under way fails with it (its reader listens); one that ended needs nothing
      if (this.reading && !this.reading.readableEnded) this.reading.destroy(new ImportEnded());
    });
  }

  /** Sends a message and answers once the importer has acknowledged it (it stored its contents). */
  send(message: AppleReadMessage): Promise<void> {
    if (this.closed) return Promise.reject(new ImportEnded());
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.port.postMessage(message);
    });
  }

  /** Sends a message that needs no acknowledgement (progress). */
  tell(message: AppleReadMessage): void {
    if (!this.closed) this.port.postMessage(message);
  }

  /** Opens a file of the export as the one being read. */
  async open(source: ExportSource, relative: string | null): Promise<Readable | null> {
    if (this.closed) throw new ImportEnded();
    this.reading = relative === null ? await source.xml() : await source.open(relative);
    return this.reading;
  }

  /** Ends the job's side (its last step: no file is being read any more). */
  close(): void {
    this.reading = null;
    this.port.close();
  }
}

/** A GPX file a workout names, in the order the importer meets the workouts. */
interface RouteRef {
  file: string;
  ref: number;
}

/** Sends the points of each route file (in batches), or that it is missing. */
async function readRouteFiles(
  sender: Sender,
  source: ExportSource,
  routes: RouteRef[],
): Promise<void> {
  for (const { file, ref } of routes) {
    const input = await sender.open(source, file);
    if (!input) {
      await sender.send({ type: 'route-missing', ref, file });
      continue;
    }
    let from = 0;
    await parseGpx(input, async (points) => {
      await sender.send({ type: 'route', ref, file, from, points });
      from += points.length;
    });
  }
}

/** Sends each ECG recording of electrocardiograms/ (null for a file that is not one); answers how many files. */
async function readEcgFiles(sender: Sender, source: ExportSource): Promise<number> {
  const files = source.list('electrocardiograms').filter((f) => f.toLowerCase().endsWith('.csv'));
  for (const file of files) {
    const input = await sender.open(source, file);
    const recording = input ? await parseEcgCsv(input, file) : null;
    await sender.send({ type: 'ecg', file, recording });
  }
  return files.length;
}

/** Reads the export at `input.file`, sending what it reads through `input.port`. */
export default async function readAppleExport(input: AppleReadInput): Promise<AppleReadSummary> {
  const sender = new Sender(input.port);
  let source: ExportSource | null = null;
  try {
    source = await openExportSource(input.file);
    const routes: RouteRef[] = [];
    const xml = await sender.open(source, null);
    const parsed = await parseAppleHealth(xml!, {
      batchSize: input.batchSize,
      progressEvery: input.progressEvery,
      onBatch: (batch) => {
        // the importer numbers the route files in this same order (storeBatch)
        for (const w of batch.archive.workouts) {
          for (const file of w.routeFiles) routes.push({ file, ref: routes.length });
        }
        return sender.send({ type: 'batch', batch });
      },
      onProgress: (progress) => sender.tell({ type: 'progress', progress }),
    });
    await readRouteFiles(sender, source, routes);
    const ecgFiles = await readEcgFiles(sender, source);
    // answered once everything sent before it is stored
    await sender.send({ type: 'end' });
    return { ...parsed, routeFiles: routes.length, ecgFiles };
  } finally {
    source?.close();
    sender.close();
  }
}
