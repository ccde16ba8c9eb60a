/**
 * The person's glucose readings for an export file (issue 30, the export domain's background job):
 * every live reading by keyset on (timestamp, id), or hour or day buckets of the person's local
 * clock aggregated in SQL (count, min, max, avg mg/dL) one time window per call. The rows are
 * declared here and read by src/platform/export-rows.ts; the database writes the text
 * (src/platform/export-text.ts); the export domain reads it through index.ts.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { bucketExport, field, keysetExport } from '../../platform/export-rows.ts';
import type { ExportRows } from '../../platform/export-rows.ts';
import type { BucketExport, KeysetExport } from '../../platform/export-text.ts';

const READINGS: ExportRows = {
  table: 'glucose_readings',
  time: { column: 'timestamp', type: 'timestamptz' },
};

/** Every live reading in the range: `timestamp,value_mg_dl,sensor_id,source`. */
export const glucoseReadingsExport: KeysetExport = keysetExport({
  ...READINGS,
  columns: [
    field('timestamp', 'time'),
    field('value_mg_dl', 'number'),
    field('sensor_id', 'number'),
    field('source', 'text'),
  ],
});

/** Local hour or day buckets: `bucket_start,time_zone,count,min_mg_dl,max_mg_dl,avg_mg_dl`. */
export const glucoseBucketsExport: BucketExport = bucketExport({
  ...READINGS,
  aggregates: Prisma.sql`count(*)::float8 AS count, min(value_mg_dl) AS min,
    max(value_mg_dl) AS max, avg(value_mg_dl) AS avg`,
  columns: [
    field('count', 'number'),
    field('min_mg_dl', 'number', { column: 'min' }),
    field('max_mg_dl', 'number', { column: 'max' }),
    field('avg_mg_dl', 'number', { column: 'avg' }),
  ],
});
