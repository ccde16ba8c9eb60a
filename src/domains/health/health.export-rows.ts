/**
 * The person's health metrics, sleep and workouts for an export file (issues 16 and 30, the export
 * domain's background job), read a bounded chunk at a time so a year of samples never sits in
 * memory: raw samples by keyset on the (user, timestamp, metric_type, source) unique index, sleep
 * and workouts by (start, id), and hour or day buckets of the person's local clock aggregated in
 * SQL (count, min, max, avg, sum per metric and bucket) over one time window per call. The text is
 * written by the database (src/platform/export-text.ts). The health tables' times are `timestamp`
 * columns holding UTC.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';
import {
  inRange,
  instantOf,
  keysetChunkText,
  localBucketStart,
  rowSeparator,
  rowText,
} from '../../platform/export-text.ts';
import type {
  BucketExport,
  ExportBucket,
  ExportColumn,
  ExportScope,
  ExportTextChunk,
  KeysetExport,
  TimeColumn,
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

const utcColumn = (sql: Prisma.Sql): TimeColumn => ({ sql, type: 'timestamp' });
const time = (name: string, column: string): ExportColumn => ({
  name,
  kind: 'time',
  sql: instantOf(utcColumn(Prisma.raw(`c.${column}`))),
});
const text = (name: string, column = name): ExportColumn => ({
  name,
  kind: 'text',
  sql: Prisma.raw(`c.${column}`),
});
const number = (name: string, column = name, nullable = false): ExportColumn => ({
  name,
  kind: 'number',
  sql: Prisma.raw(`c.${column}`),
  nullable,
});

const typesOf = (scope: MetricExportScope): Prisma.Sql => {
  const types = [...scope.metricTypes];
  return Prisma.sql`(cardinality(${types}::text[]) = 0 OR metric_type = ANY(${types}::text[]))`;
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
    WHERE user_id = ${scope.userId} AND deleted_at IS NULL
      AND ${inRange(utcColumn(Prisma.sql`timestamp`), scope.from, scope.to)}
      AND ${typesOf(scope)}
      ${afterClause}
    ORDER BY timestamp, metric_type, source
    LIMIT ${limit}`;
}

/** The window clipped to the scope, or null when nothing of it is inside. */
function clip(scope: ExportScope, from: Date, to: Date): [Date, Date] | null {
  const start = from > scope.from ? from : scope.from;
  const end = to < scope.to ? to : scope.to;
  return start < end ? [start, end] : null;
}

/** The buckets' query: one row per local bucket and metric type, over [from, to). */
function metricBuckets(
  scope: MetricExportScope,
  bucket: ExportBucket,
  [from, to]: [Date, Date],
): Prisma.Sql {
  const start = localBucketStart(instantOf(utcColumn(Prisma.sql`timestamp`)), bucket, scope.zone);
  return Prisma.sql`
    SELECT ${start} AS bucket_start, metric_type, min(unit) AS unit, count(*)::float8 AS count,
           min(value) AS min, max(value) AS max, avg(value) AS avg, sum(value) AS sum
    FROM health_metrics
    WHERE user_id = ${scope.userId} AND deleted_at IS NULL
      AND ${inRange(utcColumn(Prisma.sql`timestamp`), from, to)}
      AND ${typesOf(scope)}
    GROUP BY 1, 2`;
}

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
  const window = clip(scope, windowFrom, windowTo);
  if (!window) return [];
  return db.$queryRaw<MetricBucketRow[]>`
    SELECT b.bucket_start AS "bucketStart", b.metric_type AS "metricType", b.unit,
           b.count::int AS count, b.min, b.max, b.avg, b.sum
    FROM (${metricBuckets(scope, bucket, window)}) AS b
    ORDER BY 1, 2`;
}

const METRIC_SAMPLE_COLUMNS: ExportColumn[] = [
  time('timestamp', 'timestamp'),
  text('metric_type'),
  number('value'),
  text('unit'),
  text('source'),
];

/** Raw samples: `timestamp,metric_type,value,unit,source`. */
export const metricSamplesExport: KeysetExport<MetricExportScope> = {
  columns: METRIC_SAMPLE_COLUMNS,
  chunk(db, scope, after, limit, format) {
    return keysetChunkText(
      db,
      {
        table: 'health_metrics',
        where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
          AND ${inRange(utcColumn(Prisma.sql`timestamp`), scope.from, scope.to)}
          AND ${typesOf(scope)}`,
        key: [
          { column: 'timestamp', type: 'timestamp' },
          { column: 'metric_type', type: 'text' },
          { column: 'source', type: 'text' },
        ],
        line: rowText(format, METRIC_SAMPLE_COLUMNS, scope.zone),
      },
      after,
      limit,
      format,
    );
  },
};

const METRIC_BUCKET_COLUMNS: ExportColumn[] = [
  { name: 'bucket_start', kind: 'time', sql: Prisma.sql`c.bucket_start` },
  { name: 'time_zone', kind: 'zone', sql: Prisma.empty, only: 'csv' },
  text('metric_type'),
  text('unit'),
  number('count'),
  number('min'),
  number('max'),
  number('avg'),
  number('sum'),
];

/** Buckets: `bucket_start,time_zone,metric_type,unit,count,min,max,avg,sum` (time_zone: CSV only). */
export const metricBucketsExport: BucketExport<MetricExportScope> = {
  columns: METRIC_BUCKET_COLUMNS,
  async window(db, scope, bucket, windowFrom, windowTo, format): Promise<ExportTextChunk> {
    const window = clip(scope, windowFrom, windowTo);
    if (!window) return { text: '', count: 0 };
    const [row] = await db.$queryRaw<ExportTextChunk[]>`
      SELECT coalesce(string_agg(${rowText(format, METRIC_BUCKET_COLUMNS, scope.zone)}, ${rowSeparator(format)}
                      ORDER BY c.bucket_start, c.metric_type), '') AS text,
             count(*)::int AS count
      FROM (${metricBuckets(scope, bucket, window)}) AS c`;
    return row;
  },
};

const SLEEP_COLUMNS: ExportColumn[] = [
  time('start_at', 'start_at'),
  time('end_at', 'end_at'),
  text('stage'),
  {
    name: 'duration_minutes',
    kind: 'number',
    sql: Prisma.sql`extract(epoch FROM c.end_at - c.start_at) / 60`,
  },
  text('source'),
];

/** Sleep intervals starting in the range: `start_at,end_at,stage,duration_minutes,source`. */
export const sleepExport: KeysetExport = {
  columns: SLEEP_COLUMNS,
  chunk(db, scope, after, limit, format) {
    return keysetChunkText(
      db,
      {
        table: 'sleep_samples',
        where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
          AND ${inRange(utcColumn(Prisma.sql`start_at`), scope.from, scope.to)}`,
        key: [
          { column: 'start_at', type: 'timestamp' },
          { column: 'id', type: 'text' },
        ],
        line: rowText(format, SLEEP_COLUMNS, scope.zone),
      },
      after,
      limit,
      format,
    );
  },
};

const WORKOUT_COLUMNS: ExportColumn[] = [
  time('start_at', 'start_at'),
  time('end_at', 'end_at'),
  text('activity_type'),
  number('duration_minutes'),
  number('energy_kcal', 'energy_kcal', true),
  number('distance_m', 'distance_m', true),
  text('source'),
];

/**
 * Workouts starting in the range:
 * `start_at,end_at,activity_type,duration_minutes,energy_kcal,distance_m,source`.
 */
export const workoutsExport: KeysetExport = {
  columns: WORKOUT_COLUMNS,
  chunk(db, scope, after, limit, format) {
    return keysetChunkText(
      db,
      {
        table: 'workout_samples',
        where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
          AND ${inRange(utcColumn(Prisma.sql`start_at`), scope.from, scope.to)}`,
        key: [
          { column: 'start_at', type: 'timestamp' },
          { column: 'id', type: 'text' },
        ],
        line: rowText(format, WORKOUT_COLUMNS, scope.zone),
      },
      after,
      limit,
      format,
    );
  },
};
