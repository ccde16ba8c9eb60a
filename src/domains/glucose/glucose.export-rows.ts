/**
 * The person's glucose readings for an export file (issue 30, the export domain's background job):
 * every live reading by keyset on (timestamp, id), or hour or day buckets of the person's local
 * clock aggregated in SQL (count, min, max, avg mg/dL) one time window per call. The database
 * writes the text (src/platform/export-text.ts); the export domain reads it through index.ts.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import {
  inRange,
  keysetChunkText,
  localBucketStart,
  rowSeparator,
  rowText,
} from '../../platform/export-text.ts';
import type {
  BucketExport,
  ExportColumn,
  ExportTextChunk,
  KeysetExport,
  TimeColumn,
} from '../../platform/export-text.ts';

const TIMESTAMP: TimeColumn = { sql: Prisma.sql`"timestamp"`, type: 'timestamptz' };

const READING_COLUMNS: ExportColumn[] = [
  { name: 'timestamp', kind: 'time', sql: Prisma.sql`c."timestamp"` },
  { name: 'value_mg_dl', kind: 'number', sql: Prisma.sql`c.value_mg_dl` },
  { name: 'sensor_id', kind: 'number', sql: Prisma.sql`c.sensor_id` },
  { name: 'source', kind: 'text', sql: Prisma.sql`c.source` },
];

/** Every live reading in the range: `timestamp,value_mg_dl,sensor_id,source`. */
export const glucoseReadingsExport: KeysetExport = {
  columns: READING_COLUMNS,
  chunk(db, scope, after, limit, format) {
    return keysetChunkText(
      db,
      {
        table: 'glucose_readings',
        where: Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
          AND ${inRange(TIMESTAMP, scope.from, scope.to)}`,
        key: [
          { column: 'timestamp', type: 'timestamptz' },
          { column: 'id', type: 'text' },
        ],
        line: rowText(format, READING_COLUMNS, scope.zone),
      },
      after,
      limit,
      format,
    );
  },
};

const BUCKET_COLUMNS: ExportColumn[] = [
  { name: 'bucket_start', kind: 'time', sql: Prisma.sql`c.bucket_start` },
  { name: 'time_zone', kind: 'zone', sql: Prisma.empty, only: 'csv' },
  { name: 'count', kind: 'number', sql: Prisma.sql`c.count` },
  { name: 'min_mg_dl', kind: 'number', sql: Prisma.sql`c.min` },
  { name: 'max_mg_dl', kind: 'number', sql: Prisma.sql`c.max` },
  { name: 'avg_mg_dl', kind: 'number', sql: Prisma.sql`c.avg` },
];

/** Local hour or day buckets: `bucket_start,time_zone,count,min_mg_dl,max_mg_dl,avg_mg_dl`. */
export const glucoseBucketsExport: BucketExport = {
  columns: BUCKET_COLUMNS,
  async window(db, scope, bucket, windowFrom, windowTo, format): Promise<ExportTextChunk> {
    const from = windowFrom > scope.from ? windowFrom : scope.from;
    const to = windowTo < scope.to ? windowTo : scope.to;
    if (from >= to) return { text: '', count: 0 };
    const [row] = await db.$queryRaw<ExportTextChunk[]>`
      SELECT coalesce(string_agg(${rowText(format, BUCKET_COLUMNS, scope.zone)}, ${rowSeparator(format)}
                      ORDER BY c.bucket_start), '') AS text,
             count(*)::int AS count
      FROM (
        SELECT ${localBucketStart(TIMESTAMP.sql, bucket, scope.zone)} AS bucket_start,
               count(*)::float8 AS count, min(value_mg_dl) AS min, max(value_mg_dl) AS max,
               avg(value_mg_dl) AS avg
        FROM glucose_readings
        WHERE user_id = ${scope.userId} AND deleted_at IS NULL AND ${inRange(TIMESTAMP, from, to)}
        GROUP BY 1) AS c`;
    return row;
  },
};
