/**
 * The person's health metrics for an export file (issue 16, the export domain's background job),
 * read a bounded chunk at a time so a year of samples never sits in memory: raw samples by keyset
 * on the (user, timestamp, metric_type, source) unique index, and hour or day buckets aggregated in
 * SQL (count, min, max, avg, sum per metric and bucket, UTC) over one time window per call.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { Db } from '../../db/client.ts';

export interface MetricExportScope {
  /** whose samples */
  userId: number;
  /** first instant included */
  from: Date;
  /** first instant excluded */
  to: Date;
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
  bucketStart: Date;
  metricType: string;
  unit: string;
  count: number;
  min: number;
  max: number;
  avg: number;
  sum: number;
}

/** Up to `limit` raw samples after `after` (null: from the start), oldest first. */
export async function rawMetricChunk(
  db: Db,
  scope: MetricExportScope,
  after: RawMetricKey | null,
  limit: number,
): Promise<RawMetricRow[]> {
  const types = [...scope.metricTypes];
  const afterClause = after
    ? Prisma.sql`AND (timestamp, metric_type, source) > (${after.timestamp}, ${after.metricType}, ${after.source})`
    : Prisma.empty;
  return db.$queryRaw<RawMetricRow[]>`
    SELECT timestamp, metric_type AS "metricType", value, unit, source
    FROM health_metrics
    WHERE user_id = ${scope.userId} AND deleted_at IS NULL
      AND timestamp >= ${scope.from} AND timestamp < ${scope.to}
      AND (cardinality(${types}::text[]) = 0 OR metric_type = ANY(${types}::text[]))
      ${afterClause}
    ORDER BY timestamp, metric_type, source
    LIMIT ${limit}`;
}

/**
 * The hour or day buckets (UTC) of the window [windowFrom, windowTo), aggregated in SQL, ordered
 * by bucket then metric type. The caller walks the export's range window by window.
 */
export async function metricBucketsOf(
  db: Db,
  scope: MetricExportScope,
  interval: 'hour' | 'day',
  windowFrom: Date,
  windowTo: Date,
): Promise<MetricBucketRow[]> {
  const types = [...scope.metricTypes];
  const from = windowFrom > scope.from ? windowFrom : scope.from;
  const to = windowTo < scope.to ? windowTo : scope.to;
  if (from >= to) return [];
  return db.$queryRaw<MetricBucketRow[]>`
    SELECT date_trunc(${interval}, timestamp) AS "bucketStart", metric_type AS "metricType",
           min(unit) AS unit, count(*)::int AS count, min(value) AS min, max(value) AS max,
           avg(value) AS avg, sum(value) AS sum
    FROM health_metrics
    WHERE user_id = ${scope.userId} AND deleted_at IS NULL
      AND timestamp >= ${from} AND timestamp < ${to}
      AND (cardinality(${types}::text[]) = 0 OR metric_type = ANY(${types}::text[]))
    GROUP BY 1, 2
    ORDER BY 1, 2`;
}
