/**
 * Export rows as data (issues 30 and 31): what a domain declares for each kind of its export file
 * (its table, the time column the range is on, the columns that make the order unique, the file's
 * fields, and SQL only where the kind truly differs: a bucket's aggregates, a meal's items), and
 * the readers that turn a declaration into a keyset chunk or one window of local hour/day buckets.
 * The text is written by the database (export-text.ts).
 *
 * Every query reads the scope's person's live rows (`user_id`, `deleted_at IS NULL`), whatever the
 * declaration says: a kind cannot leave the person out. Imports no domain.
 */
import { Prisma } from '../generated/prisma/client.ts';
import type { Db } from '../db/client.ts';
import { inRange, instantOf, localBucketStart, rowSeparator, rowText } from './export-text.ts';
import type {
  BucketExport,
  ExportBucket,
  ExportColumn,
  ExportKey,
  ExportScope,
  ExportTextChunk,
  ExportTextFormat,
  KeyedExportChunk,
  KeysetExport,
  TimeColumn,
} from './export-text.ts';

/** How a field reads its column of the row. */
export interface FieldOptions {
  /** the column (default: the field's name) */
  column?: string;
  /** the row's alias (default `c`, the chunk's row or the bucket) */
  from?: string;
  /** the value may be null: an empty CSV field, JSON null */
  nullable?: boolean;
  /** a `timestamp` column holding UTC wall-clock time (the health tables), read as an instant */
  utc?: boolean;
}

/** A field of the file that is one column of the row: `field('pulse', 'number', { nullable: true })`. */
export function field(
  name: string,
  kind: ExportColumn['kind'],
  { column = name, from = 'c', nullable, utc }: FieldOptions = {},
): ExportColumn {
  const sql = Prisma.raw(`${from}.${column}`);
  return { name, kind, sql: utc ? instantOf({ sql, type: 'timestamp' }) : sql, nullable };
}

/** The person's rows a kind reads: a per-user table with `deleted_at`, in range on a time column. */
export interface ExportRows<S extends ExportScope = ExportScope> {
  /** the table (`glucose_readings`) */
  table: string;
  /** the time column the scope's range is on (a keyset's first key, the buckets' clock) */
  time: { column: string; type: TimeColumn['type'] };
  /** a further condition of the domain's (the metric types asked for) */
  filter?: (scope: S) => Prisma.Sql;
}

/** The WHERE of `rows`: the scope's person, live rows, time in [from, to), the domain's filter. */
export function rowsWhere<S extends ExportScope>(
  rows: ExportRows<S>,
  scope: S,
  from: Date = scope.from,
  to: Date = scope.to,
): Prisma.Sql {
  const time = { sql: Prisma.raw(rows.time.column), type: rows.time.type };
  const filter = rows.filter ? Prisma.sql`AND ${rows.filter(scope)}` : Prisma.empty;
  // NOTE: the person's id is in every export query's WHERE; a declaration cannot leave it out.
  return Prisma.sql`user_id = ${scope.userId} AND deleted_at IS NULL
    AND ${inRange(time, from, to)} ${filter}`;
}

/** A kind read in keyset chunks: every row of the person's in the range, in (time, tieBreak) order. */
export interface KeysetRows<S extends ExportScope = ExportScope> extends ExportRows<S> {
  /** text columns after the time that make the order unique (default `id`); an index serves it */
  tieBreak?: readonly string[];
  /** the file's fields, over the chunk's row `c` */
  columns: readonly ExportColumn[];
  /**
   * When the lines are not the chunk's rows but rows joined to them (a meal's items): the FROM
   * of the lines (over `chunk AS ...`) and their order. A chunk's count is still its rows.
   */
  lines?: { from: Prisma.Sql; orderBy: Prisma.Sql };
}

/** A column of a keyset: the rows' order, unique together (a time column first, then a tie-break). */
interface KeyColumn {
  /** the column's name in the table */
  column: string;
  type: TimeColumn['type'] | 'text';
}

const keyText = (k: KeyColumn): Prisma.Sql => {
  const col = Prisma.raw(`l.${k.column}`);
  if (k.type === 'text') return col;
  const utc = k.type === 'timestamptz' ? Prisma.sql`(${col} AT TIME ZONE 'UTC')` : col;
  return Prisma.sql`to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
};

const keyParam = (k: KeyColumn, text: string): Prisma.Sql =>
  k.type === 'text'
    ? Prisma.sql`${text}::text`
    : k.type === 'timestamp'
      ? Prisma.sql`${text}::timestamp`
      : Prisma.sql`(${text}::timestamp AT TIME ZONE 'UTC')`;

/** One keyset chunk's query: the table, the person's rows, the key, a line's text. */
interface KeysetChunkQuery extends Pick<KeysetRows, 'table' | 'lines'> {
  where: Prisma.Sql;
  key: readonly KeyColumn[];
  line: Prisma.Sql;
}

/**
 * Up to `limit` rows after `after` (null: from the start) in key order, written by the database
 * as the export file's text, with the last row's key for the next chunk.
 */
async function keysetChunkText(
  db: Db,
  query: KeysetChunkQuery,
  after: ExportKey | null,
  limit: number,
  format: ExportTextFormat,
): Promise<KeyedExportChunk> {
  const cols = query.key.map((k) => Prisma.raw(k.column));
  const tuple = Prisma.join(cols);
  const afterClause = after
    ? Prisma.sql`AND (${tuple}) > (${Prisma.join(query.key.map((k, i) => keyParam(k, after[i] ?? '')))})`
    : Prisma.empty;
  const order = (alias: string, dir = ''): Prisma.Sql =>
    Prisma.raw(query.key.map((k) => `${alias}.${k.column}${dir}`).join(', '));
  const linesFrom = query.lines?.from ?? Prisma.sql`chunk AS c`;
  const linesOrder = query.lines?.orderBy ?? order('c');
  const keys = query.key.map((k, i) => Prisma.sql`${keyText(k)} AS ${Prisma.raw(`k${i}`)}`);
  const [row] = await db.$queryRaw<Record<string, unknown>[]>`
    WITH chunk AS (
      SELECT * FROM ${Prisma.raw(query.table)}
      WHERE ${query.where} ${afterClause}
      ORDER BY ${tuple}
      LIMIT ${limit})
    SELECT (SELECT coalesce(string_agg(${query.line}, ${rowSeparator(format)} ORDER BY ${linesOrder}), '')
              FROM ${linesFrom}) AS text,
           (SELECT count(*)::int FROM chunk) AS count,
           ${Prisma.join(keys)}
    FROM (SELECT 1) AS one
    LEFT JOIN LATERAL (SELECT * FROM chunk AS l ORDER BY ${order('l', ' DESC')} LIMIT 1) AS l ON true`;
  const last = row.k0 === null ? null : query.key.map((_, i) => String(row[`k${i}`]));
  return { text: row.text as string, count: row.count as number, last };
}

/** The export of a keyset kind: each chunk one query over the person's rows in the range. */
export function keysetExport<S extends ExportScope = ExportScope>(
  spec: KeysetRows<S>,
): KeysetExport<S> {
  const key: KeyColumn[] = [
    spec.time,
    ...(spec.tieBreak ?? ['id']).map((column) => ({ column, type: 'text' as const })),
  ];
  return {
    columns: spec.columns,
    chunk(db, scope, after, limit, format) {
      const line = rowText(format, spec.columns, scope.zone);
      const query = {
        table: spec.table,
        where: rowsWhere(spec, scope),
        key,
        line,
        lines: spec.lines,
      };
      return keysetChunkText(db, query, after, limit, format);
    },
  };
}

/** A kind aggregated into the person's local hour or day buckets. */
export interface BucketRows<S extends ExportScope = ExportScope> extends ExportRows<S> {
  /** columns a bucket is per besides its start (`metric_type`); the file is ordered by them too */
  per?: readonly string[];
  /** a bucket's aggregates (`count(*)::float8 AS count, min(value) AS min, ...`) */
  aggregates: Prisma.Sql;
  /**
   * the file's fields after `bucket_start` and `time_zone` (which every bucket file starts with),
   * over the bucket `c` (its `per` columns and aggregates)
   */
  columns: readonly ExportColumn[];
}

/** The fields every bucket file starts with: the bucket's first instant, and its zone (CSV only). */
const BUCKET_LEAD: readonly ExportColumn[] = [
  { name: 'bucket_start', kind: 'time', sql: Prisma.sql`c.bucket_start` },
  { name: 'time_zone', kind: 'zone', sql: Prisma.empty, only: 'csv' },
];

/** The window clipped to the scope, or null when nothing of it is inside. */
export function clipToScope(scope: ExportScope, from: Date, to: Date): [Date, Date] | null {
  const start = from > scope.from ? from : scope.from;
  const end = to < scope.to ? to : scope.to;
  return start < end ? [start, end] : null;
}

/**
 * The buckets' query over [from, to) (clipped already): one row per local bucket (`bucket_start`,
 * an instant) and `per` value, with the kind's aggregates; unordered.
 */
export function bucketRows<S extends ExportScope>(
  spec: BucketRows<S>,
  scope: S,
  bucket: ExportBucket,
  [from, to]: [Date, Date],
): Prisma.Sql {
  const time = instantOf({ sql: Prisma.raw(spec.time.column), type: spec.time.type });
  const per = spec.per ?? [];
  return Prisma.sql`
    SELECT ${localBucketStart(time, bucket, scope.zone)} AS bucket_start,
           ${Prisma.raw(per.map((c) => `${c}, `).join(''))}${spec.aggregates}
    FROM ${Prisma.raw(spec.table)}
    WHERE ${rowsWhere(spec, scope, from, to)}
    GROUP BY ${Prisma.raw(['1', ...per.map((_, i) => String(i + 2))].join(', '))}`;
}

/** The export of a bucket kind: each window one query, buckets ordered by start then `per`. */
export function bucketExport<S extends ExportScope = ExportScope>(
  spec: BucketRows<S>,
): BucketExport<S> {
  const columns = [...BUCKET_LEAD, ...spec.columns];
  const order = Prisma.raw(['bucket_start', ...(spec.per ?? [])].map((c) => `c.${c}`).join(', '));
  return {
    columns,
    async window(db, scope, bucket, windowFrom, windowTo, format): Promise<ExportTextChunk> {
      const window = clipToScope(scope, windowFrom, windowTo);
      if (!window) return { text: '', count: 0 };
      const [row] = await db.$queryRaw<ExportTextChunk[]>`
        SELECT coalesce(string_agg(${rowText(format, columns, scope.zone)}, ${rowSeparator(format)}
                        ORDER BY ${order}), '') AS text,
               count(*)::int AS count
        FROM (${bucketRows(spec, scope, bucket, window)}) AS c`;
      return row;
    },
  };
}
