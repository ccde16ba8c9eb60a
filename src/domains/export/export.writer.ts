/**
 * Writes one export's file, streamed (issues 16 and 30): every kind the job asks for (metric
 * samples, glucose readings, sleep, workouts, meals with their items, blood pressure, logs), each
 * read a bounded chunk at a time from the domain that owns it (its index.ts) and written by the
 * database as the file's text (src/platform/export-text.ts): raw rows by keyset, or one window of
 * the person's local hour/day buckets aggregated in SQL. CSV is a zip with one file per kind (yazl,
 * deflated as it streams); JSON is one document with one key per kind. Text is written with
 * back-pressure and dropped before the next chunk is read, so no row becomes a JavaScript object
 * and memory holds about one chunk's text, whatever the export's length.
 */
import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Db } from '../../db/client.ts';
import { bucketWindows, csvHeader } from '../../platform/export-text.ts';
import type {
  BucketExport,
  ExportKey,
  ExportTextChunk,
  KeysetExport,
} from '../../platform/export-text.ts';
import { isoWithOffset } from '../../platform/local-time.ts';
import { glucoseBucketsExport, glucoseReadingsExport } from '../glucose/index.ts';
import {
  metricBucketsExport,
  metricSamplesExport,
  sleepExport,
  workoutsExport,
} from '../health/index.ts';
import type { MetricExportScope } from '../health/index.ts';
import { bloodPressureExport, logEntriesExport } from '../logs/index.ts';
import { mealItemsExport, mealsExport } from '../meals/index.ts';
import type { ExportFormat, ExportInterval, ExportKind } from './export.constants.ts';
import { clock } from '../../base/clock.ts';

/**
 * Progress (a database write: rows and heartbeat) at most this often, and after the last chunk: a
 * write per chunk was 2,000 queries' garbage on a year of samples, and the heartbeat's staleness
 * limit is minutes.
 */
const PROGRESS_EVERY_MS = 1000;

/** One file of a CSV export (one key of a JSON one) and where its rows come from. */
interface ExportPart {
  /** the CSV file's name without `.csv`, the JSON document's key */
  name: string;
  source:
    | { keyset: KeysetExport<MetricExportScope> }
    | { buckets: BucketExport<MetricExportScope> };
  /** whether its rows count in rows_written (a meal's items do not: the meal does) */
  counts: boolean;
  /** written in this format only (the CSV's separate file of meal items) */
  only?: ExportFormat;
}

/** The parts of a kind: hour/day buckets for metrics and glucose, every record for the others. */
function partsOf(kind: ExportKind, interval: ExportInterval): ExportPart[] {
  const part = (
    name: string,
    source: ExportPart['source'],
    extra: Partial<ExportPart> = {},
  ): ExportPart => ({ name, source, counts: true, ...extra });
  const raw = interval === 'raw';
  switch (kind) {
    case 'metrics':
      return [part(kind, raw ? { keyset: metricSamplesExport } : { buckets: metricBucketsExport })];
    case 'glucose':
      return [
        part(kind, raw ? { keyset: glucoseReadingsExport } : { buckets: glucoseBucketsExport }),
      ];
    case 'sleep':
      return [part(kind, { keyset: sleepExport })];
    case 'workouts':
      return [part(kind, { keyset: workoutsExport })];
    case 'meals':
      return [
        part(kind, { keyset: mealsExport }),
        part('meal_items', { keyset: mealItemsExport }, { counts: false, only: 'csv' }),
      ];
    case 'blood_pressure':
      return [part(kind, { keyset: bloodPressureExport })];
    case 'logs':
      return [part(kind, { keyset: logEntriesExport })];
  }
}

export interface WriteExportOptions {
  /** whose data, which range, the person's zone, and the metric types (empty: all) */
  scope: MetricExportScope;
  /** the kinds to write, in this order */
  kinds: readonly ExportKind[];
  format: ExportFormat;
  interval: ExportInterval;
  /** rows per keyset query */
  chunkRows: number;
  /**
   * called with the rows written so far (progress, heartbeat): after the first chunk, then at most
   * once a second, and after the last
   */
  progress: (rowsWritten: number) => Promise<void>;
  /** stops between chunks */
  signal: AbortSignal;
}

/** The chunks of one part's text, in file order (empty chunks skipped). */
async function* partChunks(
  db: Db,
  part: ExportPart,
  options: WriteExportOptions,
): AsyncGenerator<ExportTextChunk> {
  const { scope, format, interval } = options;
  if ('keyset' in part.source) {
    const source = part.source.keyset;
    let after: ExportKey | null = null;
    for (;;) {
      options.signal.throwIfAborted();
      const chunk = await source.chunk(db, scope, after, options.chunkRows, format);
      if (chunk.text) yield chunk;
      if (chunk.count < options.chunkRows || !chunk.last) return;
      after = chunk.last;
    }
  }
  if (interval === 'raw') throw new Error('buckets need an hour or day interval');
  for (const [from, to] of bucketWindows(scope, interval)) {
    options.signal.throwIfAborted();
    const chunk = await part.source.buckets.window(db, scope, interval, from, to, format);
    if (chunk.text) yield chunk;
  }
}

/** Counts the rows written and reports progress (after the first chunk, then once a second). */
function progressOf(options: WriteExportOptions) {
  let rows = 0;
  let reported = 0;
  let reportedAt = 0;
  return {
    get rows(): number {
      return rows;
    },
    async add(n: number): Promise<void> {
      rows += n;
      if (clock.ms() - reportedAt >= PROGRESS_EVERY_MS) {
        [reported, reportedAt] = [rows, clock.ms()];
        await options.progress(rows);
      }
    },
    async done(): Promise<void> {
      if (rows !== reported) await options.progress(rows);
    },
  };
}

/** Writes the export as a zip of CSV files, one per part, each deflated as it is read. */
async function writeZip(
  db: Db,
  out: Writable,
  parts: ExportPart[],
  options: WriteExportOptions,
  counter: ReturnType<typeof progressOf>,
): Promise<void> {
  const zip = new ZipFile();
  const entries: Readable[] = [];
  let fail: (err: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {}); // raced below; a late second error must not go unhandled
  zip.on('error', fail);
  out.on('error', fail);
  async function* text(part: ExportPart): AsyncGenerator<string> {
    yield csvHeader(('keyset' in part.source ? part.source.keyset : part.source.buckets).columns);
    for await (const chunk of partChunks(db, part, options)) {
      yield chunk.text;
      if (part.counts) await counter.add(chunk.count);
    }
  }
  for (const part of parts) {
    // a part's queries start only when the zip reaches its file
    zip.addReadStreamLazy(`${part.name}.csv`, (cb) => {
      const entry = Readable.from(text(part), { objectMode: false });
      entry.on('error', fail);
      entries.push(entry);
      cb(null, entry);
    });
  }
  zip.end();
  const output = zip.outputStream as Readable;
  output.pipe(out, { end: false });
  try {
    await Promise.race([once(output, 'end'), failed]);
  } catch (err) {
    output.unpipe(out);
    for (const entry of entries) entry.destroy();
    throw err;
  } finally {
    out.off('error', fail);
  }
}

/** Writes the export as one JSON document: the zone and range, then one array per part. */
async function writeJson(
  db: Db,
  out: Writable,
  parts: ExportPart[],
  options: WriteExportOptions,
  counter: ReturnType<typeof progressOf>,
): Promise<void> {
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const { zone, from, to } = options.scope;
  const head = JSON.stringify({
    time_zone: zone,
    interval: options.interval,
    from: isoWithOffset(from, zone),
    to: isoWithOffset(to, zone),
    kinds: options.kinds,
    ...(options.scope.metricTypes.length ? { metric_types: options.scope.metricTypes } : {}),
  });
  await write(`${head.slice(0, -1)},\n`);
  for (const [i, part] of parts.entries()) {
    await write(`${JSON.stringify(part.name)}:[`);
    let any = false;
    for await (const chunk of partChunks(db, part, options)) {
      await write((any ? ',\n' : '\n') + chunk.text);
      any = true;
      if (part.counts) await counter.add(chunk.count);
    }
    await write((any ? '\n]' : ']') + (i === parts.length - 1 ? '\n}\n' : ',\n'));
  }
}

/** Writes the whole export into `out` (not ended); answers the number of rows. */
export async function writeExport(
  db: Db,
  out: Writable,
  options: WriteExportOptions,
): Promise<number> {
  const parts = options.kinds
    .flatMap((kind) => partsOf(kind, options.interval))
    .filter((p) => !p.only || p.only === options.format);
  const counter = progressOf(options);
  await (options.format === 'csv' ? writeZip : writeJson)(db, out, parts, options, counter);
  await counter.done();
  options.signal.throwIfAborted();
  return counter.rows;
}
