/**
 * Export files written by the database (issues 16 and 30): the SQL that turns a bounded chunk of a
 * person's rows into the file's text, shared by every domain whose data goes into an export (the
 * health metrics, sleep and workouts; glucose readings; meals and their items; blood pressure and
 * logs). Each domain declares its table, its columns and its key (export-rows.ts, which reads
 * them in keyset chunks or bucket windows); this module writes the CSV quoting (csv-stringify's),
 * the numbers (JavaScript's String(n) / JSON.stringify) and the times (ISO 8601 with the person's
 * offset, as isoWithOffset writes them), and the hour and day buckets of the person's local clock.
 * No row becomes a JavaScript object: a chunk costs the process one string.
 *
 * It never reads another person's rows by itself: every query's WHERE comes from the domain that
 * owns the table, with the person's id in it. Imports no domain.
 */
import { Prisma } from '../generated/prisma/client.ts';
import type { Db } from '../db/client.ts';
import { addDays, dayBounds, localDateOf } from './local-dates.ts';

/** The text formats the database writes a chunk in. */
export type ExportTextFormat = 'csv' | 'json';

/** Aggregation buckets of the person's local clock. */
export type ExportBucket = 'hour' | 'day';

/** What one export covers. */
export interface ExportScope {
  /** whose rows */
  userId: number;
  /** first instant included */
  from: Date;
  /** first instant excluded */
  to: Date;
  /** IANA zone of the person's local hours and days; every time in the file carries its offset */
  zone: string;
}

/** A chunk of an export file written by the database. */
export interface ExportTextChunk {
  /**
   * CSV: one line per row, each ending in a newline; JSON: the array's objects joined by `,\n`
   * (no brackets). Empty when the chunk has no rows.
   */
  text: string;
  /** records in it */
  count: number;
}

/** Where a keyset chunk ended: its last row's key, as text (times at full precision, UTC). */
export type ExportKey = readonly string[];

/** A keyset chunk and the key the next one starts after (null: the chunk was empty). */
export interface KeyedExportChunk extends ExportTextChunk {
  last: ExportKey | null;
}

/**
 * A time column: `timestamptz`, or a `timestamp` holding UTC wall-clock time (the health tables,
 * whose Prisma `DateTime` has no zone).
 */
export interface TimeColumn {
  sql: Prisma.Sql;
  type: 'timestamptz' | 'timestamp';
}

/** The column as a timestamptz (an instant, whatever the session's zone). */
export function instantOf(t: TimeColumn): Prisma.Sql {
  return t.type === 'timestamptz' ? t.sql : Prisma.sql`(${t.sql} AT TIME ZONE 'UTC')`;
}

/** An instant as a value of the column's type, for comparisons that use the column's index. */
export function timeParam(type: TimeColumn['type'], at: Date | string): Prisma.Sql {
  const iso = typeof at === 'string' ? at : at.toISOString();
  return type === 'timestamptz'
    ? Prisma.sql`${iso}::timestamptz`
    : Prisma.sql`(${iso}::timestamptz AT TIME ZONE 'UTC')`;
}

/** `t >= from AND t < to` of the scope, in the column's type. */
export function inRange(t: TimeColumn, from: Date, to: Date): Prisma.Sql {
  return Prisma.sql`${t.sql} >= ${timeParam(t.type, from)} AND ${t.sql} < ${timeParam(t.type, to)}`;
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

/**
 * An instant (timestamptz) as isoWithOffset (src/platform/local-time.ts) writes it in `zone`:
 * milliseconds and the zone's offset at that instant (2026-03-29T00:00:00.000+01:00), or `Z`
 * where the offset is zero.
 */
export function isoInZone(instant: Prisma.Sql, zone: string): Prisma.Sql {
  const utc = Prisma.sql`(${instant} AT TIME ZONE 'UTC')`;
  const z = Prisma.sql`to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  if (zone === 'UTC') return z;
  const local = Prisma.sql`(${instant} AT TIME ZONE ${zone}::text)`;
  const off = Prisma.sql`(extract(epoch FROM ${local} - ${utc})::int / 60)`;
  return Prisma.sql`CASE WHEN ${off} = 0 THEN ${z}
    ELSE to_char(${local}, 'YYYY-MM-DD"T"HH24:MI:SS.MS')
      || CASE WHEN ${off} < 0 THEN '-' ELSE '+' END
      || lpad((abs(${off}) / 60)::text, 2, '0') || ':' || lpad((abs(${off}) % 60)::text, 2, '0')
    END`;
}

/**
 * The start (an instant) of the person's local hour or day holding `instant`. A day starts at local
 * midnight, so a DST day is 23 or 25 hours long; an hour is the instant less the minutes and
 * seconds the local clock shows, so the hour a fall-back night repeats is two buckets (02:00+02:00
 * and 02:00+01:00), never one.
 */
export function localBucketStart(
  instant: Prisma.Sql,
  bucket: ExportBucket,
  zone: string,
): Prisma.Sql {
  const local = Prisma.sql`(${instant} AT TIME ZONE ${zone}::text)`;
  return bucket === 'day'
    ? Prisma.sql`(date_trunc('day', ${local}) AT TIME ZONE ${zone}::text)`
    : Prisma.sql`(${instant} - (${local} - date_trunc('hour', ${local})))`;
}

/** One field of a row: its name (the CSV header, the JSON key), how it is written, its value. */
export interface ExportColumn {
  name: string;
  /**
   * time: an instant (timestamptz), written with the zone's offset; number: a float8 (or an
   * integer, cast), written as JavaScript writes it; text; json: JSON text (JSON files only);
   * zone: the export's IANA zone (its `sql` is not read)
   */
  kind: 'time' | 'text' | 'number' | 'json' | 'zone';
  sql: Prisma.Sql;
  /** the value may be null: an empty CSV field, JSON null */
  nullable?: boolean;
  /** written in this format's files only (a meal's nested items: JSON; the zone's column: CSV) */
  only?: ExportTextFormat;
}

/** One row as a CSV line (with its newline) or a JSON object, fields in `columns` order. */
export function rowText(
  format: ExportTextFormat,
  columns: readonly ExportColumn[],
  zone: string,
): Prisma.Sql {
  const fields = columnsOf(columns, format).map(({ name, kind, sql, nullable }) => {
    const v =
      kind === 'number'
        ? Prisma.sql`(${sql})::float8`
        : kind === 'zone'
          ? Prisma.sql`${zone}::text`
          : sql;
    let text =
      kind === 'time'
        ? isoInZone(v, zone)
        : kind === 'number'
          ? jsNumber(v, format)
          : kind === 'json'
            ? v
            : format === 'csv'
              ? csvField(v)
              : Prisma.sql`to_json(${v})::text`;
    if (format === 'json' && kind === 'time') text = Prisma.sql`'"' || ${text} || '"'`;
    if (nullable) {
      text = Prisma.sql`coalesce(${text}, ${format === 'csv' ? Prisma.sql`''` : Prisma.sql`'null'`})`;
    }
    if (format === 'csv') return text;
    return Prisma.sql`${Prisma.raw(`'${JSON.stringify(name).replace(/'/g, "''")}:'`)} || ${text}`;
  });
  return format === 'csv'
    ? Prisma.sql`${Prisma.join(fields, ` || ',' || `)} || E'\\n'`
    : Prisma.sql`'{' || ${Prisma.join(fields, ` || ',' || `)} || '}'`;
}

/** The columns a format's files hold. */
function columnsOf(columns: readonly ExportColumn[], format: ExportTextFormat): ExportColumn[] {
  return columns.filter((c) => !c.only || c.only === format);
}

/** The CSV header line of `columns`. */
export function csvHeader(columns: readonly ExportColumn[]): string {
  return `${columnsOf(columns, 'csv')
    .map((c) => c.name)
    .join(',')}\n`;
}

/** How a chunk's rows are joined: CSV lines carry their own newline, JSON objects take `,\n`. */
export const rowSeparator = (format: ExportTextFormat): Prisma.Sql =>
  format === 'csv' ? Prisma.sql`''` : Prisma.sql`E',\\n'`;

/** One kind of an export read in keyset chunks (samples, readings, meals, ...). */
export interface KeysetExport<S extends ExportScope = ExportScope> {
  /** the file's fields (the CSV header) */
  columns: readonly ExportColumn[];
  /** up to `limit` rows after `after` (null: from the start) as the file's text */
  chunk(
    db: Db,
    scope: S,
    after: ExportKey | null,
    limit: number,
    format: ExportTextFormat,
  ): Promise<KeyedExportChunk>;
}

/** One kind of an export aggregated into local hour or day buckets, a window at a time. */
export interface BucketExport<S extends ExportScope = ExportScope> {
  columns: readonly ExportColumn[];
  /** the buckets of [windowFrom, windowTo) (clipped to the scope) as the file's text */
  window(
    db: Db,
    scope: S,
    bucket: ExportBucket,
    windowFrom: Date,
    windowTo: Date,
    format: ExportTextFormat,
  ): Promise<ExportTextChunk>;
}

/** Local days of one aggregation query: a week of hours, a quarter of days. */
const WINDOW_DAYS: Record<ExportBucket, number> = { hour: 7, day: 92 };

/**
 * The windows [start, end) an aggregated export of the scope is read in, one query each: they
 * begin at local midnights (so no local hour or day is split between two queries and written
 * twice), the first at the scope's `from` and the last ending at its `to`.
 */
export function* bucketWindows(scope: ExportScope, bucket: ExportBucket): Generator<[Date, Date]> {
  let date = localDateOf(scope.from, scope.zone);
  let start = scope.from;
  while (start < scope.to) {
    date = addDays(date, WINDOW_DAYS[bucket]);
    const next = dayBounds(date, scope.zone).start;
    const end = next < scope.to ? next : scope.to;
    yield [start, end];
    start = end;
  }
}
