/**
 * Writes one export's rows into its file, streamed: the database writes each bounded chunk as the
 * file's text (raw samples by keyset, or one window of hour/day buckets aggregated in SQL; CSV
 * lines as csv-stringify would quote them, or the JSON array's objects), and the text is written
 * with back-pressure and dropped before the next chunk is read. No row becomes a JavaScript object
 * (a year of samples as typed rows cost 249 MB of garbage, docs/benchmarks.md): memory holds one
 * chunk's text.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Db } from '../../db/client.ts';
import { metricBucketsText, rawMetricChunkText } from '../health/index.ts';
import type { ExportTextChunk, MetricExportScope, RawMetricTextKey } from '../health/index.ts';
import type { ExportFormat, ExportInterval } from './export.constants.ts';

const RAW_HEADER = 'timestamp,metric_type,value,unit,source\n';
const BUCKET_HEADER = 'bucket_start,metric_type,unit,count,min,max,avg,sum\n';

/** Days of one aggregation window: a week of hours, a quarter of days. */
const WINDOW_DAYS: Record<'hour' | 'day', number> = { hour: 7, day: 92 };
const DAY_MS = 86_400_000;
/**
 * Progress (a database write: rows and heartbeat) at most this often, and after the last chunk: a
 * write per chunk was 2,000 queries' garbage on a year of samples, and the heartbeat's staleness
 * limit is minutes.
 */
const PROGRESS_EVERY_MS = 1000;

export interface WriteExportOptions {
  /** what to export */
  scope: MetricExportScope;
  format: ExportFormat;
  interval: ExportInterval;
  /** raw samples per query */
  chunkRows: number;
  /**
   * called with the rows written so far (progress, heartbeat): after the first chunk, then at most
   * once a second, and after the last
   */
  progress: (rowsWritten: number) => Promise<void>;
  /** stops between chunks */
  signal: AbortSignal;
}

/** The chunks of an export's text, in file order (empty chunks skipped). */
async function* textChunks(db: Db, options: WriteExportOptions): AsyncGenerator<ExportTextChunk> {
  const { scope, interval, format } = options;
  if (interval === 'raw') {
    let after: RawMetricTextKey | null = null;
    for (;;) {
      const chunk = await rawMetricChunkText(db, scope, after, options.chunkRows, format);
      if (chunk.count) yield chunk;
      if (chunk.count < options.chunkRows || !chunk.last) return;
      after = chunk.last;
    }
  }
  const step = WINDOW_DAYS[interval] * DAY_MS;
  for (let start = scope.from.getTime(); start < scope.to.getTime(); start += step) {
    const window = [new Date(start), new Date(start + step)] as const;
    const chunk = await metricBucketsText(db, scope, interval, ...window, format);
    if (chunk.count) yield chunk;
  }
}

/** Writes the whole export into `out`; answers the number of rows. */
export async function writeExport(
  db: Db,
  out: Writable,
  options: WriteExportOptions,
): Promise<number> {
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const csv = options.format === 'csv';
  let rows = 0;
  let reported = 0;
  let reportedAt = 0;
  await write(csv ? (options.interval === 'raw' ? RAW_HEADER : BUCKET_HEADER) : '[');
  for await (const chunk of textChunks(db, options)) {
    options.signal.throwIfAborted();
    await write(csv ? chunk.text : (rows ? ',\n' : '\n') + chunk.text);
    rows += chunk.count;
    if (Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
      [reported, reportedAt] = [rows, Date.now()];
      await options.progress(rows);
    }
  }
  if (rows !== reported) await options.progress(rows);
  if (!csv) await write(rows ? '\n]\n' : ']\n');
  options.signal.throwIfAborted();
  return rows;
}
