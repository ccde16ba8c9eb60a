/**
 * The schemas of a push (POST /api/sync/push), derived once from the table registry
 * (sync.tables.ts): for each synced table, the zod schema of its entry `{created, updated, deleted}`.
 *
 * They read the body exactly as the phone sent it (the facades hand it over untouched, so every
 * name is a wire name), keep only the registry's columns of each record, and refuse in the legacy
 * server's words: each issue has the message and the Pydantic type that the FastAPI clients were
 * written against (zod's own issues are named by pydanticIssueType; the others carry their type in
 * `params.type`). A record the schema refuses is never partly read: a bad or repeated id stops it
 * before its columns.
 */
import { z } from 'zod';
import type { ValidationIssue } from '../../base/errors.ts';
import { pydanticIssueType } from '../../graphql/issue-types.ts';
import { fail, laxBool, laxFloat, laxInt } from '../../platform/lax-scalars.ts';
import type { Lax } from '../../platform/lax-scalars.ts';
import type { ZodLikeIssue } from '../../graphql/issue-types.ts';
import { SYNCED_TABLES } from './sync.tables.ts';
import type { SyncedColumn, SyncedColumnType, SyncedTable } from './sync.tables.ts';

/** The longest record id accepted (WatermelonDB ids are 16 characters). */
export const MAX_ID_LENGTH = 64;
/** The largest JavaScript date, in ms from the epoch. */
const MAX_DATE_MS = 8.64e15;

/** A wire record: `id` plus the table's wire columns it carries. */
export type WireRecord = Record<string, unknown> & { id: string };

/** One table's part of a push (or of a pull page). */
export interface TableChanges {
  created: WireRecord[];
  updated: WireRecord[];
  deleted: string[];
}

/** Values that `accepts` takes; any other is refused with `msg`, as Pydantic's `type`. */
const only = <T = unknown>(
  accepts: (v: unknown) => boolean,
  msg: string,
  type: string,
): z.ZodType<T> => z.custom<T>(accepts, { error: msg, params: { type } });

const isRecordId = (v: unknown): v is string =>
  typeof v === 'string' && v.length >= 1 && v.length <= MAX_ID_LENGTH;
const recordId = only<string>(
  isRecordId,
  `id should be a string of 1 to ${MAX_ID_LENGTH} characters`,
  'string_type',
);

/**
 * A value read as Pydantic's lax mode reads it (src/platform/lax-scalars.ts, the same rules as
 * every other REST body): the value it stands for (`"5"` is 5), or Pydantic's refusal.
 */
const lax = (read: (v: unknown) => Lax): z.ZodType =>
  z.unknown().transform((v, ctx) => {
    const r = read(v);
    if ('value' in r) return r.value;
    ctx.issues.push({ code: 'custom', message: r.msg, params: { type: r.type }, input: v });
    return z.NEVER;
  });

/** A time in ms: a number (or its text) within the dates JavaScript holds. */
function laxTimestampMs(v: unknown): Lax {
  const r = laxFloat(v);
  if ('value' in r && Math.abs(r.value as number) >= MAX_DATE_MS)
    return fail('less_than', `Input should be a time in ms, less than ${MAX_DATE_MS} in size`);
  return r;
}

/** A non-null value of each column type (a timestamp is a number of ms on the wire). */
const VALUES: Record<SyncedColumnType, z.ZodType> = {
  text: z.string({ error: 'Input should be a string' }),
  int: lax(laxInt),
  float: lax(laxFloat),
  bool: lax(laxBool),
  timestamp_ms: lax(laxTimestampMs),
  timestamptz_ms: lax(laxTimestampMs),
};

/** A NOT NULL column's null, other than a text's (stored as '', WatermelonDB's empty string). */
const notNull = only((v) => v !== null, 'Input should not be null', 'missing');

/** A column of a pushed record: its type and the table's rules; left out, the stored value stays. */
function columnSchema(col: SyncedColumn): z.ZodType {
  let value = VALUES[col.type];
  if (col.min !== undefined || col.max !== undefined) {
    let bounds = z.number();
    if (col.min !== undefined)
      bounds = bounds.check(
        z.gte(col.min, { error: `Input should be greater than or equal to ${col.min}` }),
      );
    if (col.max !== undefined)
      bounds = bounds.check(
        z.lte(col.max, { error: `Input should be less than or equal to ${col.max}` }),
      );
    value = value.pipe(bounds);
  }
  if (col.oneOf)
    value = value.pipe(
      z.enum(col.oneOf as [string, ...string[]], {
        error: `Input should be one of: ${col.oneOf.join(', ')}`,
      }),
    );
  const nullable = !col.notNull || col.type === 'text';
  return (nullable ? value.nullable() : notNull.pipe(value)).optional();
}

/** Stands in for a record or id whose id the entry listed before (see markRepeats). */
const REPEAT = Symbol('repeat');
/** Refuses a REPEAT, at `path` under its place in the list. */
const notRepeat = (path: string[]): z.ZodType =>
  z.custom((v) => v !== REPEAT, {
    error: 'The same record appears twice in one push',
    params: { type: 'value_error' },
    path,
  });

const LISTS = ['created', 'updated', 'deleted'] as const;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The entry with each record or id that repeats a good id listed before it (in created, updated,
 * then deleted) replaced by REPEAT, so that the schema refuses it where it stands. The body itself
 * is never changed: only a list with a repeat is copied.
 */
function markRepeats(entry: unknown): unknown {
  if (!isPlainObject(entry)) return entry;
  const seen = new Set<string>();
  const marked = { ...entry };
  for (const list of LISTS) {
    const items: unknown = entry[list];
    if (!Array.isArray(items)) continue;
    let copy: unknown[] | null = null;
    for (const [i, item] of (items as unknown[]).entries()) {
      const id = list === 'deleted' ? item : isPlainObject(item) ? item.id : undefined;
      if (!isRecordId(id)) continue;
      if (!seen.has(id)) seen.add(id);
      else (copy ??= [...(items as unknown[])])[i] = REPEAT;
    }
    if (copy) marked[list] = copy;
  }
  return marked;
}

/** A pushed record of `table`: its id first, then the registry's columns (any other key is dropped). */
function recordSchema(table: SyncedTable): z.ZodType<WireRecord> {
  const columns = Object.fromEntries(table.columns.map((c) => [c.wire, columnSchema(c)]));
  return notRepeat(['id'])
    .pipe(z.looseObject({ id: recordId }, { error: 'Input should be a record' }))
    .pipe(z.object({ id: z.string(), ...columns }));
}

/** A list of an entry: absent or null is empty. */
const listOf = <T>(item: z.ZodType<T>, error: string): z.ZodType<T[]> =>
  z
    .array(item, { error })
    .nullish()
    .transform((items) => items ?? []);

/** The schema of `table`'s entry in a push. */
function entrySchema(table: SyncedTable): z.ZodType<TableChanges> {
  const records = listOf(recordSchema(table), 'Input should be a list of records');
  const ids = listOf(notRepeat([]).pipe(recordId), 'Input should be a list of ids');
  return z.preprocess(
    markRepeats,
    z.object(
      { created: records, updated: records, deleted: ids },
      { error: 'Input should be an object with created, updated and deleted' },
    ),
  );
}

/** The schema of each synced table's entry in a push, by wire table name. */
export const PUSH_ENTRY_SCHEMAS: ReadonlyMap<string, z.ZodType<TableChanges>> = new Map(
  SYNCED_TABLES.map((t) => [t.table, entrySchema(t)]),
);

/** The issues of a refused value as validation issues, located under `loc`. */
export function issuesAt(loc: (string | number)[], error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [...loc, ...(issue.path as (string | number)[])],
    msg: issue.message,
    type:
      issue.code === 'custom'
        ? String(issue.params?.type)
        : pydanticIssueType(issue as ZodLikeIssue),
  }));
}
