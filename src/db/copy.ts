/**
 * COPY FROM STDIN on a PostgreSQL server (pg-copy-streams), for bulk imports whose rows are mostly
 * new. COPY skips the per-row cost of a parameterised INSERT ... SELECT FROM unnest(...) (array
 * parsing, speculative insertion for ON CONFLICT) and loads about twice as many rows per second
 * (docs/benchmarks.md, Apple Health import). It cannot skip duplicates: a row that violates a
 * UNIQUE index fails the whole COPY (and stores nothing), so callers try COPY first and, on
 * `isUniqueViolation`, store the same rows again through their ON CONFLICT DO NOTHING statement.
 *
 * The embedded database gets no session (null): PGlite runs in this process, so COPY would save
 * little there, and its one connection is shared with Prisma.
 */
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DbTarget } from './target.ts';

/** A statement as text with $n placeholders and its values (a Prisma.Sql is one). */
export interface Statement {
  text: string;
  values?: unknown[];
}

/**
 * One connection of its own, for COPY and the statements around it. Statements run straight on the
 * pg driver, without the Prisma client's per-query work (a bulk import's dominant cost in this
 * process once its rows go by COPY).
 */
export interface CopySession {
  /** `COPY table (columns) FROM STDIN` of text-format rows (copyRow lines); answers rows stored */
  copy(table: string, columns: readonly string[], rows: string): Promise<number>;
  /** runs a statement; answers the rows it wrote */
  execute(statement: Statement): Promise<number>;
  /** runs a statement; answers its rows */
  rows<R extends pg.QueryResultRow>(statement: Statement): Promise<R[]>;
  close(): Promise<void>;
}

export interface CopySessionOptions {
  /**
   * The caller checks the rows' references itself, once per transaction, holding the lock the
   * foreign-key check would take (see lockReferenced): the session then asks PostgreSQL to skip
   * the per-row foreign-key triggers (`session_replication_role = replica`, which needs a superuser
   * or, from PostgreSQL 15, `GRANT SET ON PARAMETER session_replication_role`). Without that right
   * the session keeps the per-row checks: slower, the same rows.
   */
  referencesCheckedByCaller?: boolean;
}

/** A COPY session on a PostgreSQL target; null on the embedded database. */
export async function openCopySession(
  target: DbTarget,
  options: CopySessionOptions = {},
): Promise<CopySession | null> {
  if (target.kind !== 'pg') return null;
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  // NOTE: an idle session's errors (server restart) must not crash the process; the next call fails
  client.on('error', () => undefined);
  if (options.referencesCheckedByCaller) {
    await client.query('SET session_replication_role = replica').catch(() => undefined);
  }
  return {
    async copy(table, columns, rows) {
      const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
      await pipeline(Readable.from([rows]), stream);
      return stream.rowCount;
    },
    async execute({ text, values }) {
      return (await client.query(text, values)).rowCount ?? 0;
    },
    async rows<R extends pg.QueryResultRow>({ text, values }: Statement) {
      return (await client.query<R>(text, values)).rows;
    },
    close: () => client.end(),
  };
}

/**
 * In a transaction on a session opened with `referencesCheckedByCaller`, before its writes: takes
 * the lock a foreign-key check takes on the referenced row (FOR KEY SHARE, held to the end of the
 * transaction, so the row cannot be deleted until the written rows are committed, and its cascade
 * then deletes them) and throws when the row is gone. One statement per transaction instead of
 * one check per row.
 */
export async function lockReferenced(
  session: CopySession,
  table: 'users',
  id: number,
): Promise<void> {
  const rows = await session.rows({
    text: `SELECT 1 FROM ${table} WHERE id = $1 FOR KEY SHARE`,
    values: [id],
  });
  if (rows.length === 0) throw new ReferencedRowGone(`${table} ${id} no longer exists`);
}

/** The row a bulk write refers to was deleted (an account deleted during its import). */
export class ReferencedRowGone extends Error {}

/** True for PostgreSQL's unique_violation (a COPY that met a row already stored). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

const SPECIAL = /[\\\t\n\r]/;
const escapeChar = (ch: string): string =>
  ch === '\\' ? '\\\\' : ch === '\t' ? '\\t' : ch === '\n' ? '\\n' : '\\r';

/**
 * One line of COPY's text format: fields separated by tabs, null as \N, backslash, tab and
 * newlines escaped. Numbers must be finite; strings must hold no NUL (XML and JSON input cannot).
 */
export function copyRow(fields: readonly (string | number | null)[]): string {
  let line = '';
  for (let i = 0; i < fields.length; i++) {
    const v = fields[i];
    if (i > 0) line += '\t';
    if (v === null) line += '\\N';
    else if (typeof v === 'number') line += String(v);
    else line += SPECIAL.test(v) ? v.replace(/[\\\t\n\r]/g, escapeChar) : v;
  }
  return `${line}\n`;
}
