/**
 * Writes one export's rows into its file, streamed: a bounded chunk is read (raw samples by keyset,
 * or one window of hour/day buckets aggregated in SQL), turned into CSV (csv-stringify) or JSON
 * text, written with back-pressure, and dropped before the next is read. Memory holds one chunk.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../db/client.ts';
import { metricBucketsOf, rawMetricChunk } from '../health/index.ts';
import type { MetricBucketRow, MetricExportScope, RawMetricRow } from '../health/index.ts';
import type { ExportFormat, ExportInterval } from './export.constants.ts';

const RAW_COLUMNS = ['timestamp', 'metric_type', 'value', 'unit', 'source'];
const BUCKET_COLUMNS = ['bucket_start', 'metric_type', 'unit', 'count', 'min', 'max', 'avg', 'sum'];

/** Days of one aggregation window: a week of hours, a quarter of days. */
const WINDOW_DAYS: Record<'hour' | 'day', number> = { hour: 7, day: 92 };
const DAY_MS = 86_400_000;

export interface WriteExportOptions {
  /** what to export */
  scope: MetricExportScope;
  format: ExportFormat;
  interval: ExportInterval;
  /** raw samples per query */
  chunkRows: number;
  /** called after each chunk with the rows written so far (progress, heartbeat) */
  progress: (rowsWritten: number) => Promise<void>;
  /** stops between chunks */
  signal: AbortSignal;
}

function rawRecord(r: RawMetricRow): Record<string, string | number> {
  return {
    timestamp: r.timestamp.toISOString(),
    metric_type: r.metricType,
    value: r.value,
    unit: r.unit,
    source: r.source,
  };
}

function bucketRecord(r: MetricBucketRow): Record<string, string | number> {
  return {
    bucket_start: r.bucketStart.toISOString(),
    metric_type: r.metricType,
    unit: r.unit,
    count: Number(r.count),
    min: r.min,
    max: r.max,
    avg: r.avg,
    sum: r.sum,
  };
}

/** The chunks of records of an export, in file order. */
async function* recordChunks(
  db: Db,
  options: WriteExportOptions,
): AsyncGenerator<Record<string, string | number>[]> {
  const { scope, interval } = options;
  if (interval === 'raw') {
    let after = null;
    for (;;) {
      const rows = await rawMetricChunk(db, scope, after, options.chunkRows);
      if (rows.length) yield rows.map(rawRecord);
      if (rows.length < options.chunkRows) return;
      const last = rows[rows.length - 1];
      after = { timestamp: last.timestamp, metricType: last.metricType, source: last.source };
    }
  }
  const step = WINDOW_DAYS[interval] * DAY_MS;
  for (let start = scope.from.getTime(); start < scope.to.getTime(); start += step) {
    const rows = await metricBucketsOf(
      db,
      scope,
      interval,
      new Date(start),
      new Date(start + step),
    );
    if (rows.length) yield rows.map(bucketRecord);
  }
}

/** Writes the whole export into `out`; answers the number of rows. */
export async function writeExport(
  db: Db,
  out: Writable,
  options: WriteExportOptions,
): Promise<number> {
  const columns = options.interval === 'raw' ? RAW_COLUMNS : BUCKET_COLUMNS;
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  let rows = 0;
  if (options.format === 'csv') await write(stringify([columns]));
  else await write('[');
  for await (const records of recordChunks(db, options)) {
    options.signal.throwIfAborted();
    if (options.format === 'csv') {
      await write(stringify(records, { columns, cast: { number: (n) => String(n) } }));
    } else {
      const items = records.map((r) => JSON.stringify(r)).join(',\n');
      await write((rows ? ',\n' : '\n') + items);
    }
    rows += records.length;
    await options.progress(rows);
  }
  if (options.format === 'json') await write(rows ? '\n]\n' : ']\n');
  options.signal.throwIfAborted();
  return rows;
}
