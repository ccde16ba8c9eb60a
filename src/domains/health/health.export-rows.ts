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

/** The text formats the database can write a chunk in. */
export type ExportTextFormat = 'csv' | 'json';

/** Where the previous raw text chunk ended: its last row's key, the time as the database wrote it. */
export interface RawMetricTextKey {
  /** the timestamp at full (microsecond) precision, ISO 8601 UTC */
  timestamp: string;
  metricType: string;
  source: string;
}

/** A chunk of an export file written by the database. */
export interface ExportTextChunk {
  /**
   * CSV: one line per row, each ending in a newline; JSON: the array's objects joined by `,\n`
   * (no brackets). Empty when the chunk has no rows.
   */
  text: string;
  /** rows in it */
  count: number;
}

/**
 * A float8 of 2^53 or more (always an integer) as JavaScript writes it. PostgreSQL writes such
 * numbers with up to 17 digits where JavaScript writes the fewest digits that read back as the
 * same number (6.6345232842121536e+16 against 66345232842121540), so this looks for them: the exact
 * integer (below 2^63; above, PostgreSQL's 17 digits) rounded to 1, 2, ... significant digits, the
 * first that reads back as the number, fixed below 1e21, else with an exponent.
 */
function jsLargeNumber(v: Prisma.Sql): Prisma.Sql {
  const a = Prisma.sql`abs(${v})`;
  const exact = Prisma.sql`CASE WHEN ${a} < 9.2e18 THEN ${a}::bigint::numeric ELSE ${a}::text::numeric END`;
  const e = Prisma.sql`split_part(${a}::text, 'e', 2)::int`;
  const s = Prisma.sql`round(x.c)::text`;
  const d = Prisma.sql`rtrim(${s}, '0')`;
  return Prisma.sql`CASE WHEN ${v} < 0 THEN '-' ELSE '' END || (
    SELECT CASE WHEN x.c < 1e21 THEN ${s}
                ELSE left(${d}, 1) || CASE WHEN length(${d}) > 1 THEN '.' || substr(${d}, 2) ELSE '' END
                     || 'e+' || (length(${s}) - 1)::text END
    FROM generate_series(1, 17) AS p
    CROSS JOIN LATERAL (SELECT round(${exact}, p - 1 - ${e}) AS c) AS x
    -- a rounding past the largest float8 is not it (and would not cast)
    WHERE CASE WHEN x.c < 1.7976931348623158e308 THEN x.c::float8 = ${a} ELSE false END
    ORDER BY p LIMIT 1)`;
}

/**
 * A float8 as JavaScript's String(n) writes it (JSON.stringify's too, but non-finite numbers,
 * which JSON writes as null). Between 1e-4 and 2^53 PostgreSQL's round-trip text has the same
 * digits, and the same layout up to 1e15; outside that layout it writes an exponent where
 * JavaScript writes fixed digits up to 1e21 and down to 1e-6, pads the exponent to two digits, and
 * writes -0. From 2^53 on, see jsLargeNumber.
 */
function jsNumber(v: Prisma.Sql, format: ExportTextFormat): Prisma.Sql {
  const nonFinite = format === 'json' ? Prisma.sql`'null'` : Prisma.sql`${v}::text`;
  // t: PostgreSQL's exponent form, m its mantissa, d its digits, e its exponent
  const t = Prisma.sql`(${v})::text`;
  const m = Prisma.sql`split_part(${t}, 'e', 1)`;
  const d = Prisma.sql`replace(replace(${m}, '-', ''), '.', '')`;
  const e = Prisma.sql`split_part(${t}, 'e', 2)::int`;
  const sign = Prisma.sql`CASE WHEN ${v} < 0 THEN '-' ELSE '' END`;
  return Prisma.sql`CASE
    WHEN ${v} IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) THEN ${nonFinite}
    WHEN ${v} = 0 THEN '0'
    WHEN abs(${v}) >= 1e-4 AND abs(${v}) < 1e15 THEN ${t}
    WHEN abs(${v}) >= 9007199254740992 THEN ${jsLargeNumber(v)}
    WHEN ${e} >= 21 OR ${e} <= -7
      THEN ${m} || 'e' || CASE WHEN ${e} > 0 THEN '+' ELSE '-' END || abs(${e})::text
    WHEN ${e} >= 0 AND length(${d}) <= ${e} + 1 THEN ${sign} || rpad(${d}, ${e} + 1, '0')
    WHEN ${e} >= 0 THEN ${sign} || left(${d}, ${e} + 1) || '.' || substr(${d}, ${e} + 2)
    ELSE ${sign} || '0.' || repeat('0', -${e} - 1) || ${d}
  END`;
}

/** A text field as csv-stringify writes it: quoted (quotes doubled) when it holds `"`, `,`, CR or LF. */
function csvField(v: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`CASE WHEN ${v} ~ '[",\r\n]' THEN '"' || replace(${v}, '"', '""') || '"' ELSE ${v} END`;
}

/** A time as Date.prototype.toISOString writes it (UTC, milliseconds, `Z`). */
function isoTime(v: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`to_char(${v} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** One row as a CSV line (with its newline) or a JSON object, fields in `columns` order. */
function rowText(
  format: ExportTextFormat,
  columns: [name: string, kind: 'time' | 'text' | 'number', value: Prisma.Sql][],
): Prisma.Sql {
  const fields = columns.map(([name, kind, v]) => {
    const text =
      kind === 'time'
        ? isoTime(v)
        : kind === 'number'
          ? jsNumber(v, format)
          : format === 'csv'
            ? csvField(v)
            : Prisma.sql`to_json(${v})::text`;
    if (format === 'csv') return text;
    const quoted = kind === 'time' ? Prisma.sql`'"' || ${text} || '"'` : text;
    return Prisma.sql`${Prisma.raw(`'${JSON.stringify(name)}:'`)} || ${quoted}`;
  });
  return format === 'csv'
    ? Prisma.sql`${Prisma.join(fields, ` || ',' || `)} || E'\\n'`
    : Prisma.sql`'{' || ${Prisma.join(fields, ` || ',' || `)} || '}'`;
}

/** How a chunk's rows are joined: CSV lines carry their own newline, JSON objects take `,\n`. */
const separator = (format: ExportTextFormat): Prisma.Sql =>
  format === 'csv' ? Prisma.sql`''` : Prisma.sql`E',\\n'`;

/**
 * The same chunk as rawMetricChunk, written by the database as the export file's text (the same
 * bytes the writer would make of the typed rows), with the last row's key for the next chunk. No
 * row becomes a JavaScript object, so a year of samples costs the process one string per chunk.
 */
export async function rawMetricChunkText(
  db: Db,
  scope: MetricExportScope,
  after: RawMetricTextKey | null,
  limit: number,
  format: ExportTextFormat,
): Promise<ExportTextChunk & { last: RawMetricTextKey | null }> {
  const types = [...scope.metricTypes];
  const afterClause = after
    ? Prisma.sql`AND (timestamp, metric_type, source) > (${after.timestamp}::timestamptz, ${after.metricType}, ${after.source})`
    : Prisma.empty;
  const line = rowText(format, [
    ['timestamp', 'time', Prisma.sql`c.timestamp`],
    ['metric_type', 'text', Prisma.sql`c.metric_type`],
    ['value', 'number', Prisma.sql`c.value`],
    ['unit', 'text', Prisma.sql`c.unit`],
    ['source', 'text', Prisma.sql`c.source`],
  ]);
  const [row] = await db.$queryRaw<
    { text: string; count: number; ts: string | null; metric_type: string; source: string }[]
  >`
    WITH chunk AS (
      SELECT timestamp, metric_type, value, unit, source
      FROM health_metrics
      WHERE user_id = ${scope.userId} AND deleted_at IS NULL
        AND timestamp >= ${scope.from} AND timestamp < ${scope.to}
        AND (cardinality(${types}::text[]) = 0 OR metric_type = ANY(${types}::text[]))
        ${afterClause}
      ORDER BY timestamp, metric_type, source
      LIMIT ${limit})
    SELECT (SELECT coalesce(string_agg(${line}, ${separator(format)}
                   ORDER BY c.timestamp, c.metric_type, c.source), '') FROM chunk AS c) AS text,
           (SELECT count(*)::int FROM chunk) AS count,
           to_char(l.timestamp AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ts,
           l.metric_type, l.source
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT timestamp, metric_type, source FROM chunk
                       ORDER BY timestamp DESC, metric_type DESC, source DESC LIMIT 1) AS l ON true`;
  const last =
    row.ts === null ? null : { timestamp: row.ts, metricType: row.metric_type, source: row.source };
  return { text: row.text, count: row.count, last };
}

/**
 * The same buckets as metricBucketsOf, written by the database as the export file's text (the same
 * bytes the writer would make of the typed rows).
 */
export async function metricBucketsText(
  db: Db,
  scope: MetricExportScope,
  interval: 'hour' | 'day',
  windowFrom: Date,
  windowTo: Date,
  format: ExportTextFormat,
): Promise<ExportTextChunk> {
  const types = [...scope.metricTypes];
  const from = windowFrom > scope.from ? windowFrom : scope.from;
  const to = windowTo < scope.to ? windowTo : scope.to;
  if (from >= to) return { text: '', count: 0 };
  const line = rowText(format, [
    ['bucket_start', 'time', Prisma.sql`b.bucket_start`],
    ['metric_type', 'text', Prisma.sql`b.metric_type`],
    ['unit', 'text', Prisma.sql`b.unit`],
    ['count', 'number', Prisma.sql`b.count`],
    ['min', 'number', Prisma.sql`b.min`],
    ['max', 'number', Prisma.sql`b.max`],
    ['avg', 'number', Prisma.sql`b.avg`],
    ['sum', 'number', Prisma.sql`b.sum`],
  ]);
  const [row] = await db.$queryRaw<ExportTextChunk[]>`
    SELECT coalesce(string_agg(${line}, ${separator(format)}
                    ORDER BY b.bucket_start, b.metric_type), '') AS text,
           count(*)::int AS count
    FROM (
      SELECT date_trunc(${interval}, timestamp) AS bucket_start, metric_type,
             min(unit) AS unit, count(*)::float8 AS count, min(value) AS min, max(value) AS max,
             avg(value) AS avg, sum(value) AS sum
      FROM health_metrics
      WHERE user_id = ${scope.userId} AND deleted_at IS NULL
        AND timestamp >= ${from} AND timestamp < ${to}
        AND (cardinality(${types}::text[]) = 0 OR metric_type = ANY(${types}::text[]))
      GROUP BY 1, 2) AS b`;
  return row;
}
