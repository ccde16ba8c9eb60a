/**
 * The person's health metrics, sleep and workouts for an export file (issues 16 and 30, the export
 * domain's background job), read a bounded chunk at a time so a year of samples never sits in
 * memory: raw samples by keyset on the (user, timestamp, metric_type, source) unique index, sleep
 * and workouts by (start, id), and hour or day buckets of the person's local clock aggregated in
 * SQL (count, min, max, avg, sum per metric and bucket) over one time window per call. The rows are
 * declared here and read by src/platform/export-rows.ts; the text is written by the database
 * (src/platform/export-text.ts). The health tables' times are `timestamp` columns holding UTC.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';
import {
  bucketExport,
  bucketRows,
  clipToScope,
  field,
  keysetExport,
  rowsWhere,
} from '../../platform/export-rows.ts';
import type { BucketRows, ExportRows } from '../../platform/export-rows.ts';
import type {
  BucketExport,
  ExportBucket,
  ExportColumn,
  ExportScope,
  KeysetExport,
} from '../../platform/export-text.ts';

export interface MetricExportScope extends ExportScope {
  /** metric types to include; empty for all */
  metricTypes: readonly string[];
}

export interface RawMetricRow {
  timestamp: Date;
  metricType: string;
  value: number;
  unit: string;
  source: string;
}

/** Where the previous raw chunk ended (the last row's key). */
export interface RawMetricKey {
  timestamp: Date;
  metricType: string;
  source: string;
}

export interface MetricBucketRow {
  /** the local hour's or day's first instant */
  bucketStart: Date;
  metricType: string;
  unit: string;
  count: number;
  min: number;
  max: number;
  avg: number;
  sum: number;
}

/** The person's live samples in the range, of the metric types asked for (none named: all). */
const METRICS: ExportRows<MetricExportScope> = {
  table: 'health_metrics',
  time: { column: 'timestamp', type: 'timestamp' },
  filter: (scope) => {
    const types = [...scope.metricTypes];
    return Prisma.sql`(cardinality(${types}::text[]) = 0 OR metric_type = ANY(${types}::text[]))`;
  },
};

/** Up to `limit` raw samples after `after` (null: from the start), oldest first (typed rows). */
export async function rawMetricChunk(
  db: Db,
  scope: MetricExportScope,
  after: RawMetricKey | null,
  limit: number,
): Promise<RawMetricRow[]> {
  const afterClause = after
    ? Prisma.sql`AND (timestamp, metric_type, source) > (${after.timestamp}, ${after.metricType}, ${after.source})`
    : Prisma.empty;
  return db.$queryRaw<RawMetricRow[]>`
    SELECT timestamp, metric_type AS "metricType", value, unit, source
    FROM health_metrics
    WHERE ${rowsWhere(METRICS, scope)}
      ${afterClause}
    ORDER BY timestamp, metric_type, source
    LIMIT ${limit}`;
}

/** One row per local bucket and metric type: `bucket_start,time_zone,metric_type,unit,...`. */
const METRIC_BUCKETS: BucketRows<MetricExportScope> = {
  ...METRICS,
  per: ['metric_type'],
  aggregates: Prisma.sql`min(unit) AS unit, count(*)::float8 AS count,
    min(value) AS min, max(value) AS max, avg(value) AS avg, sum(value) AS sum`,
  columns: [
    field('metric_type', 'text'),
    field('unit', 'text'),
    ...['count', 'min', 'max', 'avg', 'sum'].map((name) => field(name, 'number')),
  ],
};

/**
 * The hour or day buckets (the person's local clock) of the window [windowFrom, windowTo) (typed
 * rows), ordered by bucket then metric type. The caller walks the export's range window by window.
 */
export async function metricBucketsOf(
  db: Db,
  scope: MetricExportScope,
  bucket: ExportBucket,
  windowFrom: Date,
  windowTo: Date,
): Promise<MetricBucketRow[]> {
  const window = clipToScope(scope, windowFrom, windowTo);
  if (!window) return [];
  return db.$queryRaw<MetricBucketRow[]>`
    SELECT b.bucket_start AS "bucketStart", b.metric_type AS "metricType", b.unit,
           b.count::int AS count, b.min, b.max, b.avg, b.sum
    FROM (${bucketRows(METRIC_BUCKETS, scope, bucket, window)}) AS b
    ORDER BY 1, 2`;
}

/** Raw samples: `timestamp,metric_type,value,unit,source`. */
export const metricSamplesExport: KeysetExport<MetricExportScope> = keysetExport({
  ...METRICS,
  tieBreak: ['metric_type', 'source'],
  columns: [
    field('timestamp', 'time', { utc: true }),
    field('metric_type', 'text'),
    field('value', 'number'),
    field('unit', 'text'),
    field('source', 'text'),
  ],
});

/** Buckets: `bucket_start,time_zone,metric_type,unit,count,min,max,avg,sum` (time_zone: CSV only). */
export const metricBucketsExport: BucketExport<MetricExportScope> = bucketExport(METRIC_BUCKETS);

/** The rows of an interval table (sleep, workouts) starting in the range, by (start_at, id). */
const intervals = (table: string, ...columns: ExportColumn[]): KeysetExport =>
  keysetExport({
    table,
    time: { column: 'start_at', type: 'timestamp' },
    columns: [
      field('start_at', 'time', { utc: true }),
      field('end_at', 'time', { utc: true }),
      ...columns,
    ],
  });

/** Sleep intervals starting in the range: `start_at,end_at,stage,duration_minutes,source`. */
export const sleepExport: KeysetExport = intervals(
  'sleep_samples',
  field('stage', 'text'),
  {
    name: 'duration_minutes',
    kind: 'number',
    sql: Prisma.sql`extract(epoch FROM c.end_at - c.start_at) / 60`,
  },
  field('source', 'text'),
);

/**
 * Workouts starting in the range:
 * `start_at,end_at,activity_type,duration_minutes,energy_kcal,distance_m,source`.
 */
export const workoutsExport: KeysetExport = intervals(
  'workout_samples',
  field('activity_type', 'text'),
  field('duration_minutes', 'number'),
  field('energy_kcal', 'number', { nullable: true }),
  field('distance_m', 'number', { nullable: true }),
  field('source', 'text'),
);
