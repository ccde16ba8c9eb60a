/**
 * The WatermelonDB sync protocol: pull (changes since a time, paged over one consistent snapshot)
 * and push (a client's changes, applied atomically or not at all). Bulk SQL through unnest(), the
 * same text on PGlite and PostgreSQL; the synced tables come from sync.tables.ts, and a push's
 * records are validated by the schemas sync.push-schema.ts derives from them.
 *
 * Change times: every write stamps `server_updated_at` with a per-account clock (sync_state.clock_ms)
 * that only grows, taken under a row lock of sync_state. A push holds that lock FOR UPDATE until it
 * commits; a pull takes it FOR SHARE to fix its snapshot time, so a pull never misses a push that
 * committed with an earlier stamp, and every later push stamps after the pull's snapshot.
 */
import { readerUserId } from '../../auth/principal.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Scope } from '../../auth/scopes.ts';
import { credentialHolds } from '../../auth/view-as.ts';
import type { Db, DbTx } from '../../db/client.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { ValidationIssue } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { isStorableDate } from '../../platform/input-guards.ts';
import { issuesAt, PUSH_ENTRY_SCHEMAS } from './sync.push-schema.ts';
import type { TableChanges, WireRecord } from './sync.push-schema.ts';
import type { SyncedColumn, SyncedTable } from './sync.tables.ts';
import { msOf, msParam, msParamTz } from '../../db/sql-time.ts';
import { advanceSyncClock, lockSyncState, markPhoneSynced } from '../../platform/sync-clock.ts';
import type { SqlRunner } from '../../platform/sync-clock.ts';
import {
  SYNC_SCHEMA_VERSION,
  SYNCED_TABLES,
  syncedTable,
  tableChangedBetween,
} from './sync.tables.ts';
import { deleteStoredFiles } from '../../integrations/storage.ts';

/** Records per pull page, across all tables, unless `limit` asks for fewer (the last page may be shorter). */
export const PULL_PAGE_SIZE = 1000;
/**
 * The ceiling of one push: records across all tables and lists (created, updated, deleted). A phone
 * cannot split its push (WatermelonDB sends every pending change at once), so it is far above what
 * a phone gathers offline; the JSON body's own ceiling is the push route's bodyLimit.
 */
export const PUSH_MAX_RECORDS = 250_000;
/** Records per SQL statement of a push: each statement's parameters stay small, whatever the push. */
const PUSH_CHUNK = 5_000;
/** A push's transaction may take this long, plus PUSH_MS_PER_RECORD per record (Prisma's default is 5 s). */
const PUSH_TIMEOUT_MS = 30_000;
const PUSH_MS_PER_RECORD = 2;
export type Changes = Record<string, TableChanges>;

export interface PullOptions {
  /**
   * the `timestamp` of the client's last complete pull (ms), as a number or its text; absent, null
   * or the text `null` (what WatermelonDB's documented client sends on a first sync): everything
   */
  lastPulledAt?: unknown;
  /** the account identity the client's data belongs to; absent: not checked */
  identityVersion?: number | null;
  /**
   * the client's own sync schema version (WatermelonDB's `schemaVersion`): with `migration`, the
   * tables and columns added after `migration.from` up to it arrive whole
   */
  schemaVersion?: number | null;
  /**
   * WatermelonDB's migration info, `{from, tables, columns}` or its JSON text, sent on the first
   * sync after a local schema migration; absent, null or the text `null`: no migration
   */
  migration?: unknown;
  /** the next_cursor of the previous page; the other options then come from it */
  cursor?: string | null;
  /** wire table names the client does not want */
  exclude?: string[] | null;
  /** records per page, 1..PULL_PAGE_SIZE (default PULL_PAGE_SIZE) */
  limit?: number | null;
  /** a page ends before its records' JSON passes this many characters (it serves at least one record) */
  maxChars?: number | null;
}

export interface PullPage {
  changes: Changes;
  /** the snapshot time to pass as last_pulled_at next time; only on the last page */
  timestamp: number | null;
  hasMore: boolean;
  nextCursor: string | null;
  identityVersion: number;
  schemaVersion: number;
  /** wire tables left out because the credential lacks their read scope (none for login sessions) */
  omittedTables: string[];
}

export interface PushOptions {
  /**
   * the client's changes per wire table, `{table: {created, updated, deleted}}` (WatermelonDB's
   * documented body); or the wrapped form `{changes, last_pulled_at, identity_version}`, read when
   * it has a key `changes` (no synced table is named so: sync.tables.ts)
   */
  changes?: unknown;
  /** the `timestamp` of the client's last complete pull (ms); a record changed later makes the push fail */
  lastPulledAt?: number | null;
  /** the account identity the client's data belongs to; absent: not checked */
  identityVersion?: number | null;
}

export interface PushResult {
  /** the change time stamped on the pushed records */
  timestamp: number;
  identityVersion: number;
  /** records written (created, updated, deleted) */
  accepted: number;
}

interface Cursor {
  /** snapshot time */
  s: number;
  /** last_pulled_at */
  t: number | null;
  /** tables served whole (a migration sync brings them), by wire name */
  w: string[];
  /** identity version at the first page */
  iv: number;
  /** excluded tables */
  x: string[];
  /** index of the table to continue with */
  i: number;
  /** the part of that table to continue with: 0 its live records, 1 its tombstones */
  d: 0 | 1;
  /** last id served of that part */
  a: string | null;
}

/** A sync timestamp: whole ms since the epoch, within the years a database timestamp holds (..9999). */
const isSyncTimestamp = (ms: number): boolean =>
  Number.isInteger(ms) && ms >= 0 && isStorableDate(new Date(ms));
const LAST_PULLED_AT_MESSAGE = 'Input should be a non-negative integer (ms) before the year 10000';

const q = (name: string): string => `"${name}"`;
const isTime = (col: SyncedColumn): boolean =>
  col.type === 'timestamp_ms' || col.type === 'timestamptz_ms';
/** The select-list entry of a column, in its wire name and wire form. */
const selectColumn = (col: SyncedColumn): string =>
  `${isTime(col) ? msOf(q(col.db)) : q(col.db)} AS ${q(col.wire)}`;

/** INSUFFICIENT_SCOPE for a synced table whose scope the credential lacks. */
function tableScopeMissing(table: SyncedTable, scope: Scope, what: 'read' | 'push to'): Error {
  return appError(
    'INSUFFICIENT_SCOPE',
    `This token lacks the scope ${scope} to ${what} ${table.table}`,
    {
      detail: { code: 'insufficient_scope', scope, table: table.table },
    },
  );
}

function identityChanged(current: number): Error {
  return appError('CONFLICT', 'The account was reset: wipe the local database and pull again', {
    detail: { code: 'identity_changed', identity_version: current },
  });
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

function decodeCursor(text: string): Cursor {
  const bad = validationError([{ loc: ['cursor'], msg: 'Invalid cursor', type: 'value_error' }]);
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
  } catch {
    throw bad;
  }
  const okNum = (n: unknown): boolean => typeof n === 'number' && Number.isFinite(n);
  const names = (x: unknown): boolean => Array.isArray(x) && x.every((n) => typeof n === 'string');
  if (
    !c ||
    typeof c !== 'object' ||
    !okNum(c.s) ||
    !(c.t === null || okNum(c.t)) ||
    !okNum(c.iv) ||
    !names(c.x) ||
    !Number.isInteger(c.i) ||
    c.i < 0 ||
    !(c.a === null || typeof c.a === 'string')
  )
    throw bad;
  // cursors written before the migration rule and the live-then-tombstones order lack w and d
  c.w ??= [];
  c.d ??= 0;
  if (!names(c.w) || (c.d !== 0 && c.d !== 1)) throw bad;
  return c;
}

/** A number written as text ("1763000000000"), as query strings and lax bodies carry it. */
const NUMBER_TEXT = /^\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/;

/**
 * A `last_pulled_at` as given: a number, its text, or absent. Absent are null, undefined, '' and
 * the text `null`: WatermelonDB's documented client sends `?last_pulled_at=${lastPulledAt}`, which
 * reads `null` on a first sync. Anything else that is not a sync timestamp is a validation issue.
 */
function sinceOf(
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' && (value.trim() === '' || value.trim() === 'null')) return null;
  const ms =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && NUMBER_TEXT.test(value)
        ? Number(value)
        : NaN;
  if (isSyncTimestamp(ms)) return ms;
  issues.push({ loc, msg: LAST_PULLED_AT_MESSAGE, type: 'int_parsing' });
  return null;
}

/** The page size of a pull: `limit` (1..PULL_PAGE_SIZE) or PULL_PAGE_SIZE. */
function pageLimit(
  limit: number | null | undefined,
  max: number,
  issues: ValidationIssue[],
): number {
  if (limit == null) return max;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    issues.push({
      loc: ['limit'],
      msg: `Input should be between 1 and ${max}`,
      type: 'less_than_equal',
    });
  }
  return limit;
}

/** The character budget of a page (null: none); at least 1. */
function pageChars(maxChars: number | null | undefined, issues: ValidationIssue[]): number | null {
  if (maxChars == null) return null;
  if (!Number.isInteger(maxChars) || maxChars < 1) {
    issues.push({
      loc: ['maxChars'],
      msg: 'Input should be greater than or equal to 1',
      type: 'greater_than_equal',
    });
  }
  return maxChars;
}

/**
 * The tables a migration sync brings whole (WatermelonDB's "Migration Syncs"): `migration` is what
 * the client sends on its first sync after migrating its local database, `{from, tables, columns}`
 * (or its JSON text; absent, null or the text `null`: no migration). Whole are the registry's tables
 * added, or given a column, after `from` and up to the client's `schemaVersion`, and those the
 * migration names (names not in the registry are ignored). Without a migration nothing is sent
 * whole: the client already has what its schema allows, and gets only the changes since its last
 * pull, whatever its version.
 */
function wholeTables(
  value: unknown,
  schemaVersion: number | null | undefined,
  issues: ValidationIssue[],
): string[] {
  let m: unknown = value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '' || text === 'null') return [];
    try {
      m = JSON.parse(text);
    } catch {
      m = undefined;
    }
  }
  if (m === null || m === undefined) {
    if (value === null || value === undefined) return [];
  } else if (isPlainObject(m) && Number.isInteger(m.from) && (m.from as number) >= 0) {
    const tables: unknown = m.tables ?? [];
    const columns: unknown = m.columns ?? [];
    if (
      Array.isArray(tables) &&
      tables.every((t) => typeof t === 'string') &&
      Array.isArray(columns) &&
      columns.every((c) => isPlainObject(c) && typeof c.table === 'string')
    ) {
      const named = new Set<unknown>([
        ...tables,
        ...(columns as { table: string }[]).map((c) => c.table),
      ]);
      const to = Math.min(schemaVersion ?? SYNC_SCHEMA_VERSION, SYNC_SCHEMA_VERSION);
      return SYNCED_TABLES.filter(
        (t) => named.has(t.table) || tableChangedBetween(t, m.from as number, to),
      ).map((t) => t.table);
    }
  }
  issues.push({
    loc: ['migration'],
    msg: "Input should be null or WatermelonDB's migration info {from, tables, columns}",
    type: 'value_error',
  });
  return [];
}

/** The first page's parameters, checked. A schema_version above the server's is served as the server's. */
function checkPullOptions(o: PullOptions): {
  since: number | null;
  whole: string[];
  limit: number;
  maxChars: number | null;
} {
  const issues: ValidationIssue[] = [];
  const since = sinceOf(o.lastPulledAt, ['lastPulledAt'], issues);
  const whole = wholeTables(o.migration, o.schemaVersion, issues);
  if (o.schemaVersion != null && o.schemaVersion < 1) {
    issues.push({
      loc: ['schemaVersion'],
      msg: 'Input should be greater than or equal to 1',
      type: 'greater_than_equal',
    });
  }
  for (const name of o.exclude ?? []) {
    if (!syncedTable(name))
      issues.push({ loc: ['exclude'], msg: `Unknown synced table: ${name}`, type: 'enum' });
  }
  const limit = pageLimit(o.limit, PULL_PAGE_SIZE, issues);
  const maxChars = pageChars(o.maxChars, issues);
  if (issues.length) throw validationError(issues);
  return { since, whole, limit, maxChars };
}

/** The characters an item adds to a page's JSON: a record, or the id of a deleted one. */
const itemChars = (r: { deleted: boolean; id: string; record: WireRecord }): number =>
  r.deleted ? JSON.stringify(r.id).length + 1 : JSON.stringify(r.record).length + 1;

/**
 * One batch of changes of one part of a table (its live records, or its tombstones), after `after`
 * (by id), at most `limit` rows, as of the snapshot time `c.s`. Live records: those changed since
 * `c.t`, or all of them on a first pull and for a table served whole; tombstones: those since `c.t`
 * (a first pull has none).
 */
async function readTable(
  db: SqlRunner,
  table: SyncedTable,
  userId: number,
  c: Cursor,
  tombstones: boolean,
  after: string | null,
  limit: number,
): Promise<{ id: string; deleted: boolean; record: WireRecord }[]> {
  if (tombstones && c.t === null) return [];
  const params: unknown[] = [userId, c.s];
  let change = tombstones ? 'deleted_at IS NOT NULL' : 'deleted_at IS NULL';
  if (c.t !== null && (tombstones || !c.w.includes(table.table))) {
    params.push(c.t);
    change += ` AND server_updated_at > ${msParam(`$${params.length}`)}`;
  }
  let afterSql = '';
  if (after !== null) {
    params.push(after);
    afterSql = `AND id COLLATE "C" > $${params.length}`;
  }
  params.push(limit);
  const cols = table.columns.map(selectColumn).join(', ');
  // NOTE: Unsafe only because its identifiers come from the SYNCED_TABLES registry.
  const rows = await db.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT id, deleted_at IS NOT NULL AS sync_deleted, ${cols}
       FROM ${q(table.sqlTable)}
      WHERE user_id = $1 AND server_updated_at <= ${msParam('$2')} AND ${change} ${afterSql}
      ORDER BY id COLLATE "C" LIMIT $${params.length}`,
    ...params,
  );
  return rows.map((r) => {
    const record: WireRecord = { id: String(r.id) };
    for (const col of table.columns) record[col.wire] = wireValue(col, r[col.wire]);
    return { id: record.id, deleted: r.sync_deleted === true, record };
  });
}

function wireValue(col: SyncedColumn, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (col.type === 'int' || col.type === 'float' || isTime(col)) return Number(v);
  return v;
}

/** Where a pull page starts: its cursor, the account's identity version and the page's bounds. */
interface PullStart {
  c: Cursor;
  identityVersion: number;
  limit: number;
  maxChars: number | null;
}

/**
 * A later page of a pull: checks its bounds, reads its cursor and the account's identity version
 * (which must still be the one of the first page).
 */
async function resumePull(
  ctx: AuthedContext,
  userId: number,
  cursor: string,
  options: PullOptions,
): Promise<PullStart> {
  const issues: ValidationIssue[] = [];
  const limit = pageLimit(options.limit, PULL_PAGE_SIZE, issues);
  const maxChars = pageChars(options.maxChars, issues);
  if (issues.length) throw validationError(issues);
  const c = decodeCursor(cursor);
  const state = await lockSyncState(ctx.prisma, userId, 'SHARE');
  const identityVersion = state.identityVersion;
  if (c.iv !== identityVersion) throw identityChanged(identityVersion);
  return { c, identityVersion, limit, maxChars };
}

/** The first page of a pull: checks its options and fixes the snapshot time its cursor carries. */
async function startPull(
  ctx: AuthedContext,
  userId: number,
  options: PullOptions,
): Promise<PullStart> {
  const checked = checkPullOptions(options);
  const { limit, maxChars } = checked;
  const state = await ctx.prisma.$transaction(async (tx) => lockSyncState(tx, userId, 'SHARE'));
  const identityVersion = state.identityVersion;
  const c: Cursor = {
    s: Math.max(state.nowMs, state.clockMs),
    t: checked.since,
    w: checked.whole,
    iv: identityVersion,
    x: [...new Set(options.exclude ?? [])],
    i: 0,
    d: 0,
    a: null,
  };
  return { c, identityVersion, limit, maxChars };
}

/** A page being filled: its changes so far, the records it has room for and the characters it holds. */
interface PageFill {
  changes: Changes;
  room: number;
  chars: number;
  limit: number;
  maxChars: number | null;
}

/** Where a page reads next: a table's index, its part (0 live, 1 tombstones) and the last id served. */
interface PartAt {
  i: number;
  d: 0 | 1;
  after: string | null;
}

/**
 * Adds one part of one table (its live records, or its tombstones) to the page; returns the cursor
 * of the next page when the page fills up in it, else null.
 */
async function fillFromPart(
  db: SqlRunner,
  table: SyncedTable,
  userId: number,
  c: Cursor,
  at: PartAt,
  page: PageFill,
): Promise<Cursor | null> {
  const { i, d, after } = at;
  if (page.room === 0) return { ...c, i, d, a: after };
  const rows = await readTable(db, table, userId, c, d === 1, after, page.room + 1);
  const list = (page.changes[table.table] ??= { created: [], updated: [], deleted: [] });
  let last = after;
  for (const r of rows) {
    // a page ends at `limit` records, or before the record that would pass the character budget
    // (the first record of a page is served whatever its size, so that paging moves on)
    const size = page.maxChars === null ? 0 : itemChars(r);
    if (
      page.room === 0 ||
      (page.maxChars !== null && page.room < page.limit && page.chars + size > page.maxChars)
    ) {
      return { ...c, i, d, a: last };
    }
    page.chars += size;
    page.room--;
    last = r.id;
    if (r.deleted) list.deleted.push(r.id);
    else (c.t === null ? list.created : list.updated).push(r.record);
  }
  return null;
}

/**
 * Fills the page from the cursor on, skipping the excluded tables and `omitted`; returns the cursor
 * of the next page, or null when the pull is complete. The changes come in one order, page after
 * page: table by table (the registry's order), each table's live records by id, then its tombstones
 * by id. So the pages of a pull, written one after the other, are one answer (the REST facade's
 * `changes` responder streams them so).
 */
async function fillPage(
  db: SqlRunner,
  userId: number,
  c: Cursor,
  omitted: string[],
  page: PageFill,
): Promise<Cursor | null> {
  for (let i = c.i; i < SYNCED_TABLES.length; i++) {
    const table = SYNCED_TABLES[i];
    if (c.x.includes(table.table) || omitted.includes(table.table)) continue;
    for (const d of ([0, 1] as const).slice(i === c.i ? c.d : 0)) {
      if (d === 1 && c.t === null) break; // a first pull has no tombstones
      const after = i === c.i && d === c.d ? c.a : null;
      const next = await fillFromPart(db, table, userId, c, { i, d, after }, page);
      if (next) return next;
    }
  }
  return null;
}

/**
 * One page of the changes since `lastPulledAt` of the reader's data (the owner's while viewing as).
 * The first page fixes the snapshot time; later pages (by `cursor`) read the same snapshot. Tables
 * whose read scope the credential lacks are left out and named in `omittedTables`.
 */
export async function syncPull(ctx: AuthedContext, options: PullOptions): Promise<PullPage> {
  // NOTE: whose data: the owner's while a grantee views as (read-only), else the caller's.
  const userId = readerUserId(ctx);
  const { c, identityVersion, limit, maxChars } = options.cursor
    ? await resumePull(ctx, userId, options.cursor, options)
    : await startPull(ctx, userId, options);
  if (options.identityVersion != null && options.identityVersion !== identityVersion)
    throw identityChanged(identityVersion);

  // NOTE: a personal token pulls only the tables whose read scope it holds (every page checks it).
  const omitted = SYNCED_TABLES.filter((t) => !credentialHolds(ctx.principal, t.readScope)).map(
    (t) => t.table,
  );
  const page: PageFill = { changes: {}, room: limit, chars: 0, limit, maxChars };
  const next = await fillPage(ctx.prisma, userId, c, omitted, page);
  return {
    changes: page.changes,
    timestamp: next ? null : c.s,
    hasMore: next !== null,
    nextCursor: next ? encodeCursor(next) : null,
    identityVersion,
    schemaVersion: SYNC_SCHEMA_VERSION,
    omittedTables: omitted,
  };
}

interface ParsedTable {
  table: SyncedTable;
  /** created and updated records (the server tells them apart by whether the id exists) */
  upserts: WireRecord[];
  deleted: string[];
  /** the table's entry in the body, for error locations (looked up only on a failure) */
  entry: Record<string, unknown>;
  /** where the table sits in the body: ['changes', table] or ['changes', 'changes', table] */
  loc: (string | number)[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** A push body's parts: the changes, where they sit, and the wrapped form's own fields. */
interface PushBody {
  changes: unknown;
  /** location of the changes object in the `changes` argument (the REST body) */
  loc: (string | number)[];
  lastPulledAt?: unknown;
  identityVersion?: unknown;
}

/**
 * Which form a push body has. WatermelonDB's documented client sends the changes object itself,
 * `{table: {created, updated, deleted}}`; older builds wrap it, `{changes, last_pulled_at}`. The
 * body is the wrapped form when it has a key `changes`: no synced table may be named `changes`
 * (the registry test checks it), so the two never read alike. A synced table's name beside
 * `changes` is refused (422) rather than silently dropped; other keys of the wrapped form are
 * ignored, as FastAPI ignores undeclared fields.
 */
function pushBodyOf(raw: unknown): PushBody {
  if (!isPlainObject(raw) || !Object.hasOwn(raw, 'changes'))
    return { changes: raw, loc: ['changes'] };
  const beside = Object.keys(raw).filter((key) => syncedTable(key));
  if (beside.length) {
    throw validationError(
      beside.map((key) => ({
        loc: ['changes', key],
        msg: 'A table beside "changes": send either {table: ...} or {"changes": {table: ...}}',
        type: 'value_error',
      })),
    );
  }
  const field = (key: string): unknown => (Object.hasOwn(raw, key) ? raw[key] : undefined);
  return {
    changes: raw.changes,
    loc: ['changes', 'changes'],
    lastPulledAt: field('last_pulled_at'),
    identityVersion: field('identity_version'),
  };
}

/** Where each record of `p` sits in the body, by id (read once, when an error needs them). */
function recordLocs(p: ParsedTable): Map<string, (string | number)[]> {
  const locs = new Map<string, (string | number)[]>();
  for (const list of ['created', 'updated'] as const) {
    const records = p.entry[list];
    if (!Array.isArray(records)) continue;
    records.forEach((r: unknown, i) => {
      if (isPlainObject(r) && typeof r.id === 'string' && !locs.has(r.id))
        locs.set(r.id, [...p.loc, list, i]);
    });
  }
  return locs;
}

/** Where a record of `p` sits in the body (found only when an error needs it). */
const recordLoc = (p: ParsedTable, id: string): (string | number)[] =>
  recordLocs(p).get(id) ?? p.loc;

/** Records a push entry lists (created, updated, deleted), counted before anything is read further. */
function countRecords(changes: Record<string, unknown>): number {
  let count = 0;
  for (const value of Object.values(changes)) {
    if (!isPlainObject(value)) continue;
    for (const list of ['created', 'updated', 'deleted']) {
      const l = value[list];
      if (Array.isArray(l)) count += l.length;
    }
  }
  return count;
}

/** True when a push entry asks for a write: any of its lists is more than absent, null or empty. */
const writesRecords = (entry: Record<string, unknown>): boolean =>
  ['created', 'updated', 'deleted'].some(
    (list) => entry[list] != null && !(Array.isArray(entry[list]) && entry[list].length === 0),
  );

/**
 * Validates a push's changes table by table, with the schemas derived from the registry
 * (sync.push-schema.ts): the parsed records keep only the registry's columns. Their count is
 * checked first, before any record is read: a push may carry PUSH_MAX_RECORDS records.
 */
function parseChanges(body: PushBody, principal: Principal): ParsedTable[] {
  const changes = body.changes;
  if (!isPlainObject(changes)) {
    throw validationError([
      { loc: body.loc, msg: 'Input should be an object of tables', type: 'dict_type' },
    ]);
  }
  const count = countRecords(changes);
  if (count > PUSH_MAX_RECORDS) {
    throw validationError([
      {
        loc: body.loc,
        msg: `At most ${PUSH_MAX_RECORDS} records per push (this one has ${count})`,
        type: 'too_long',
      },
    ]);
  }
  let issues: ValidationIssue[] = [];
  const out: ParsedTable[] = [];
  for (const [name, entry] of Object.entries(changes)) {
    const loc = [...body.loc, name];
    const table = syncedTable(name);
    if (!table) {
      issues.push({ loc, msg: `Unknown synced table: ${name}`, type: 'enum' });
      continue;
    }
    // NOTE: records of a table need its write scope, checked before anything of the push is read
    // further; an empty entry writes nothing (WatermelonDB sends every table it knows).
    if (
      isPlainObject(entry) &&
      writesRecords(entry) &&
      !credentialHolds(principal, table.writeScope)
    )
      throw tableScopeMissing(table, table.writeScope, 'push to');
    const parsed = PUSH_ENTRY_SCHEMAS.get(name)!.safeParse(entry);
    if (!parsed.success) issues = issues.concat(issuesAt(loc, parsed.error));
    else if (!issues.length) {
      const { created, updated, deleted } = parsed.data;
      out.push({
        table,
        upserts: [...created, ...updated],
        deleted,
        entry: entry as Record<string, unknown>,
        loc,
      });
    }
  }
  if (issues.length) throw validationError(issues);
  return out;
}

const SQL_ARRAY: Record<SyncedColumn['type'], string> = {
  text: 'text[]',
  int: 'int4[]',
  float: 'float8[]',
  bool: 'bool[]',
  timestamp_ms: 'float8[]',
  timestamptz_ms: 'float8[]',
};

/** The SQL value of unnest column `u.<wire>` for the database column. */
function fromUnnest(col: SyncedColumn): string {
  const ref = `u.${q(col.wire)}`;
  if (col.type === 'timestamp_ms') return msParam(ref);
  return col.type === 'timestamptz_ms' ? msParamTz(ref) : ref;
}

/** What a column stores from the unnest row: a null text of a NOT NULL column becomes ''. */
function storedValue(col: SyncedColumn): string {
  return col.notNull && col.type === 'text' ? `coalesce(${fromUnnest(col)}, '')` : fromUnnest(col);
}

/**
 * Completes a record new to the server for its INSERT, in place: columns it leaves out take their
 * registry default; a required column it leaves out is a validation error (at the record's place
 * in the body).
 */
function completeNew(p: ParsedTable, record: WireRecord): void {
  const missing: string[] = [];
  for (const col of p.table.columns) {
    if (record[col.wire] !== undefined && record[col.wire] !== null) continue;
    if (col.default !== undefined) record[col.wire] = col.default;
    else if (col.required) missing.push(col.wire);
  }
  if (missing.length) {
    const loc = recordLoc(p, record.id);
    throw validationError(
      missing.map((wire) => ({ loc: [...loc, wire], msg: 'Field required', type: 'missing' })),
    );
  }
}

function isUniqueViolation(e: unknown): boolean {
  const err = e as {
    code?: string;
    meta?: {
      code?: string;
      driverAdapterError?: { cause?: { originalCode?: string; kind?: string } };
    };
    message?: string;
  };
  return (
    err?.code === 'P2002' ||
    err?.meta?.code === '23505' ||
    err?.meta?.driverAdapterError?.cause?.originalCode === '23505' ||
    err?.meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation' ||
    /23505|unique constraint/i.test(err?.message ?? '')
  );
}

function duplicateRecord(table: SyncedTable, ids: string[]): Error {
  return appError(
    'CONFLICT',
    `Another ${table.table} record already has the same identity: pull, then push again`,
    {
      detail: { code: 'duplicate_record', table: table.table, ids: [...ids].sort() },
    },
  );
}

/**
 * Some new records were not inserted. One whose id now exists (another push created it at the same
 * moment, of any account) is a sync conflict; one that collides with another record's identity
 * (e.g. a second glucose reading for the same sensor and time) is a duplicate. Neither is ever
 * overwritten, and the push fails whole.
 */
async function refuseCollisions(
  tx: DbTx,
  table: SyncedTable,
  fresh: WireRecord[],
  inserted: { id: string }[],
): Promise<never> {
  const done = new Set(inserted.map((r) => r.id));
  const left = fresh.map((r) => r.id).filter((id) => !done.has(id));
  // NOTE: Unsafe only because its identifiers come from the SYNCED_TABLES registry.
  const taken = await tx.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id FROM ${q(table.sqlTable)} WHERE id = ANY($1::text[])`,
    left,
  );
  if (taken.length) {
    throw appError(
      'CONFLICT',
      'Records changed on the server since your last pull: pull, then push again',
      {
        detail: { code: 'sync_conflict', table: table.table, ids: taken.map((r) => r.id).sort() },
      },
    );
  }
  throw duplicateRecord(table, left);
}

/** `list` in slices of PUSH_CHUNK. */
function* chunksOf<T>(list: T[]): Generator<T[]> {
  for (let i = 0; i < list.length; i += PUSH_CHUNK) yield list.slice(i, i + PUSH_CHUNK);
}

/** What one table's part of a push wrote, and the files its deleted records held. */
interface Applied {
  written: number;
  files: string[];
}

/** A stored row a push names: whether it is a tombstone, and its columns when its table has a check. */
interface Existing {
  deleted: boolean;
  /** the row's columns in wire form (as a pull answers them), or null when the table has no check */
  row: Record<string, unknown> | null;
}

/**
 * Locks the rows of `ids`, whoever owns them, until commit, and answers which exist, whether each
 * is a tombstone and, for a table with a `check`, its columns in wire form (the stored row an update
 * is merged over before it is checked); throws CONFLICT (the whole push fails) for a record of
 * another account or one changed on the server after the client's last pull.
 * NOTE: Unsafe only because the table's name and columns come from the registry.
 */
async function lockExisting(
  tx: DbTx,
  table: SyncedTable,
  ids: string[],
  userId: number,
  lastPulledAt: number | null,
): Promise<Map<string, Existing>> {
  const existing = new Map<string, Existing>();
  const conflicts: string[] = [];
  const cols = table.check ? `, ${table.columns.map(selectColumn).join(', ')}` : '';
  for (const chunk of chunksOf(ids)) {
    const rows = await tx.$queryRawUnsafe<
      ({ id: string; user_id: number; changed_ms: number; sync_deleted: boolean } & Record<
        string,
        unknown
      >)[]
    >(
      `SELECT id, user_id, ${msOf('server_updated_at')} AS changed_ms,
              deleted_at IS NOT NULL AS sync_deleted${cols}
         FROM ${q(table.sqlTable)} WHERE id = ANY($1::text[]) FOR UPDATE`,
      chunk,
    );
    for (const r of rows) {
      const row = table.check
        ? Object.fromEntries(table.columns.map((c) => [c.wire, wireValue(c, r[c.wire])]))
        : null;
      existing.set(r.id, { deleted: r.sync_deleted, row });
      if (
        Number(r.user_id) !== userId ||
        lastPulledAt === null ||
        Number(r.changed_ms) > lastPulledAt
      )
        conflicts.push(r.id);
    }
  }
  if (conflicts.length) {
    throw appError(
      'CONFLICT',
      'Records changed on the server since your last pull: pull, then push again',
      {
        detail: { code: 'sync_conflict', table: table.table, ids: conflicts.sort() },
      },
    );
  }
  return existing;
}

/**
 * A record as it will be stored, in wire form: the pushed columns over `stored` (the stored row of
 * an update; nothing for a created record, already completed with its defaults), every column
 * present, a NOT NULL text left empty as '' (what the INSERT or UPDATE stores).
 */
function asStored(
  table: SyncedTable,
  record: WireRecord,
  stored: Record<string, unknown> | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: record.id };
  for (const col of table.columns) {
    const pushed = record[col.wire];
    const v = pushed !== undefined ? pushed : (stored?.[col.wire] ?? null);
    out[col.wire] = v === null && col.notNull && col.type === 'text' ? '' : (v ?? null);
  }
  return out;
}

/**
 * Checks each record the push will store by its table's `check` (the rules its tools apply), on
 * the record as it will be stored: a created one as completed, an updated one merged over its
 * stored row. Any issue is a validation error at the record's field (the push writes nothing).
 */
function checkRecords(
  p: ParsedTable,
  fresh: WireRecord[],
  changed: WireRecord[],
  existing: Map<string, Existing>,
): void {
  const check = p.table.check;
  if (!check) return;
  const found: { id: string; wire: string; msg: string }[] = [];
  const run = (r: WireRecord, stored: Record<string, unknown> | null): void => {
    for (const issue of check(asStored(p.table, r, stored))) found.push({ id: r.id, ...issue });
  };
  for (const r of fresh) run(r, null);
  for (const r of changed) run(r, existing.get(r.id)?.row ?? null);
  if (!found.length) return;
  const locs = recordLocs(p);
  throw validationError(
    found.map((f) => ({
      loc: [...(locs.get(f.id) ?? p.loc), f.wire],
      msg: f.msg,
      type: 'value_error',
    })),
  );
}

/**
 * The records as `unnest(...)` of one array parameter per column (ids first); with `withPresence`,
 * a boolean array per column too, telling whether each record carried it.
 */
function unnestOf(
  table: SyncedTable,
  records: WireRecord[],
  withPresence: boolean,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [records.map((r) => r.id)];
  const names = ['id'];
  const types = ['text[]'];
  for (const col of table.columns) {
    params.push(records.map((r) => (r[col.wire] === undefined ? null : r[col.wire])));
    names.push(q(col.wire));
    types.push(SQL_ARRAY[col.type]);
    if (withPresence) {
      params.push(records.map((r) => col.wire in r));
      names.push(q(`has_${col.wire}`));
      types.push('bool[]');
    }
  }
  const args = types.map((t, i) => `$${i + 1}::${t}`).join(', ');
  return { sql: `unnest(${args}) AS u(${names.join(', ')})`, params };
}

/** Inserts new records, PUSH_CHUNK a statement; one that collides with a stored record fails the push. */
async function insertRecords(
  tx: DbTx,
  table: SyncedTable,
  fresh: WireRecord[],
  userId: number,
  ts: number,
): Promise<number> {
  let written = 0;
  for (const chunk of chunksOf(fresh)) {
    const { sql, params } = unnestOf(table, chunk, false);
    params.push(userId, ts);
    const n = params.length;
    const cols = table.columns.map((c) => q(c.db)).join(', ');
    const vals = table.columns.map(storedValue).join(', ');
    // NOTE: no conflict target: besides the id, a table may have its own identity (a glucose reading's
    // sensor and time); a record that collides on either is left out here and answered below.
    const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO ${q(table.sqlTable)} (id, user_id, ${cols}, server_updated_at)
       SELECT u.id, $${n - 1}::int4, ${vals}, ${msParam(`$${n}`)} FROM ${sql}
       ON CONFLICT DO NOTHING RETURNING id`,
      ...params,
    );
    if (inserted.length !== chunk.length) await refuseCollisions(tx, table, chunk, inserted);
    written += inserted.length;
  }
  return written;
}

/** Updates live records with the columns each carries (a column left out keeps its value). */
async function updateRecords(
  tx: DbTx,
  table: SyncedTable,
  changed: WireRecord[],
  userId: number,
  ts: number,
): Promise<number> {
  let written = 0;
  for (const chunk of chunksOf(changed)) {
    const { sql, params } = unnestOf(table, chunk, true);
    params.push(userId, ts);
    const n = params.length;
    const sets = table.columns
      .map((c) => {
        const v = storedValue(c);
        return `${q(c.db)} = CASE WHEN u.${q(`has_${c.wire}`)} THEN ${v} ELSE t.${q(c.db)} END`;
      })
      .join(', ');
    const update = tx.$executeRawUnsafe(
      `UPDATE ${q(table.sqlTable)} AS t SET ${sets}, server_updated_at = ${msParam(`$${n}`)}
         FROM ${sql} WHERE t.id = u.id AND t.user_id = $${n - 1}::int4 AND t.deleted_at IS NULL`,
      ...params,
    );
    written += await update.catch((e: unknown) => {
      // an update that moves a record onto another record's identity
      if (isUniqueViolation(e))
        throw duplicateRecord(
          table,
          chunk.map((r) => r.id),
        );
      throw e;
    });
  }
  return written;
}

/** Tombstones the caller's live records of `ids`; the owner's onDeleted lets go of what they held. */
async function deleteRecords(
  tx: DbTx,
  table: SyncedTable,
  ids: string[],
  userId: number,
  ts: number,
): Promise<Applied> {
  let written = 0;
  const files: string[] = [];
  for (const chunk of chunksOf(ids)) {
    const deleted = await tx.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE ${q(table.sqlTable)} SET deleted_at = ${msParam('$3')}, server_updated_at = ${msParam('$3')}
        WHERE user_id = $1 AND id = ANY($2::text[]) AND deleted_at IS NULL RETURNING id`,
      userId,
      chunk,
      ts,
    );
    written += deleted.length;
    if (table.onDeleted && deleted.length) {
      files.push(...(await table.onDeleted(tx, { userId, ids: deleted.map((r) => r.id) })));
    }
  }
  return { written, files };
}

/** What one table's part of a push wrote, and the files its deleted records held. */
interface Applied {
  written: number;
  files: string[];
}

/**
 * Writes one table's part of a push inside the transaction, PUSH_CHUNK records per statement;
 * throws CONFLICT when it must not apply, and a validation error (422) when a record it would
 * store breaks its table's `check` (the transaction then writes nothing at all). Records it
 * deletes are handed to the owner's `onDeleted`, in the same transaction. The statements are
 * Unsafe only because their identifiers come from the registry.
 */
async function applyTable(
  tx: DbTx,
  p: ParsedTable,
  userId: number,
  lastPulledAt: number | null,
  ts: number,
): Promise<Applied> {
  const { table } = p;
  const ids = [...p.upserts.map((r) => r.id), ...p.deleted];
  if (ids.length === 0) return { written: 0, files: [] };
  const existing = await lockExisting(tx, table, ids, userId, lastPulledAt);
  const fresh = p.upserts.filter((r) => !existing.has(r.id));
  for (const r of fresh) completeNew(p, r);
  // a tombstone never comes back: updates of a deleted record are dropped
  const changed = p.upserts.filter((r) => existing.get(r.id)?.deleted === false);
  checkRecords(p, fresh, changed, existing);
  const inserted = await insertRecords(tx, table, fresh, userId, ts);
  const updated = await updateRecords(tx, table, changed, userId, ts);
  const deleted = await deleteRecords(tx, table, p.deleted, userId, ts);
  return { written: inserted + updated + deleted.written, files: deleted.files };
}

/** The identity version a push names: a whole number (or its text), or absent. */
function identityOf(
  value: unknown,
  loc: (string | number)[],
  issues: ValidationIssue[],
): number | null {
  if (value === null || value === undefined) return null;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && NUMBER_TEXT.test(value)
        ? Number(value)
        : NaN;
  if (Number.isSafeInteger(n)) return n;
  issues.push({ loc, msg: 'Input should be a valid integer', type: 'int_parsing' });
  return null;
}

/**
 * Applies a client's changes to the caller's own records in one transaction: all of them, or, on
 * a conflict, none (409; the client pulls and pushes again). Records the push deletes become
 * tombstones and let go of what their table's onDeleted names (a meal's photo, a night's clips),
 * whose files are removed once the push has committed. Marks the account's phone as synced now. Records of a table whose write scope the
 * credential lacks refuse the whole push (403 INSUFFICIENT_SCOPE), before anything is written.
 * `last_pulled_at` and `identity_version` given as arguments (the query string) win over the
 * wrapped body's.
 */
export async function syncPush(ctx: AuthedContext, options: PushOptions): Promise<PushResult> {
  // NOTE: always the caller's own account, never an id from the body (view-as never gets here:
  // the push field needs a write scope, which view-as refuses).
  const userId = ctx.principal.userId;
  const body = pushBodyOf(options.changes);
  const issues: ValidationIssue[] = [];
  const lastPulledAt =
    options.lastPulledAt != null
      ? sinceOf(options.lastPulledAt, ['lastPulledAt'], issues)
      : sinceOf(body.lastPulledAt, [...body.loc.slice(0, -1), 'last_pulled_at'], issues);
  const identityVersion =
    options.identityVersion ??
    identityOf(body.identityVersion, [...body.loc.slice(0, -1), 'identity_version'], issues);
  if (issues.length) throw validationError(issues);
  const tables = parseChanges(body, ctx.principal);
  const records = tables.reduce((n, t) => n + t.upserts.length + t.deleted.length, 0);
  const files: string[] = [];
  const result = await ctx.prisma.$transaction(
    async (tx) => {
      const state = await lockSyncState(tx, userId, 'UPDATE');
      if (identityVersion != null && identityVersion !== state.identityVersion) {
        throw identityChanged(state.identityVersion);
      }
      const ts = await advanceSyncClock(tx, userId, state);
      let accepted = 0;
      for (const p of tables) {
        const applied = await applyTable(tx, p, userId, lastPulledAt, ts);
        accepted += applied.written;
        files.push(...applied.files);
      }
      await markPhoneSynced(tx, userId);
      return { timestamp: ts, identityVersion: state.identityVersion, accepted };
    },
    { timeout: PUSH_TIMEOUT_MS + records * PUSH_MS_PER_RECORD },
  );
  // NOTE: only once the push has committed: a push that rolls back keeps its records' files
  await deleteStoredFiles(ctx, files, 'a file of a record deleted through sync');
  for (const p of tables) {
    if (p.table.onStored && p.upserts.length) p.table.onStored(ctx, { userId, records: p.upserts });
  }
  return result;
}

/**
 * Starts a new identity for the account's synced data (e.g. after an account reset): every device
 * is told `identity_changed` on its next pull or push, wipes its local database and pulls afresh.
 */
export async function bumpSyncIdentity(db: Db, userId: number): Promise<number> {
  const rows = await db.$queryRaw<{ identity_version: number }[]>`
    INSERT INTO sync_state (user_id, identity_version, updated_at) VALUES (${userId}::int, 2, now())
    ON CONFLICT (user_id) DO UPDATE SET identity_version = sync_state.identity_version + 1, updated_at = now()
    RETURNING identity_version`;
  return Number(rows[0].identity_version);
}

export interface ListRecordsOptions {
  /** wire table name of a synced table */
  table: string;
  /** rows per page (1..500) */
  limit?: number | null;
  /** the next_cursor of the previous page (the last id served) */
  cursor?: string | null;
  /** include tombstones (deleted records, with deleted_at) */
  includeDeleted?: boolean | null;
  /** a page ends before its rows' JSON passes this many characters (it serves at least one row) */
  maxChars?: number | null;
}

export interface RecordsPage {
  /** the rows in wire names, plus server_updated_at and deleted_at (ms) */
  records: Record<string, unknown>[];
  nextCursor: string | null;
}

/** Raw rows of one synced table of the reader's data, by id, paged; 403 without the table's read scope. */
export async function syncedRecords(
  ctx: AuthedContext,
  options: ListRecordsOptions,
): Promise<RecordsPage> {
  const table = syncedTable(options.table);
  if (!table)
    throw validationError([
      { loc: ['table'], msg: `Unknown synced table: ${options.table}`, type: 'enum' },
    ]);
  // NOTE: the table's own read scope, beyond the field's: the rows its read routes would refuse stay unread.
  if (!credentialHolds(ctx.principal, table.readScope))
    throw tableScopeMissing(table, table.readScope, 'read');
  const issues: ValidationIssue[] = [];
  const limit = pageLimit(options.limit ?? 100, 500, issues);
  const maxChars = pageChars(options.maxChars, issues);
  if (issues.length) throw validationError(issues);
  // NOTE: whose data: the owner's while a grantee views as, else the caller's.
  const params: unknown[] = [readerUserId(ctx), limit + 1];
  let after = '';
  if (options.cursor) {
    params.push(options.cursor);
    after = 'AND id COLLATE "C" > $3';
  }
  const cols = table.columns.map(selectColumn).join(', ');
  // NOTE: Unsafe only because its identifiers come from the SYNCED_TABLES registry.
  const rows = await ctx.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT id, ${cols}, ${msOf('server_updated_at')} AS server_updated_at, ${msOf('deleted_at')} AS deleted_at
       FROM ${q(table.sqlTable)}
      WHERE user_id = $1 ${options.includeDeleted ? '' : 'AND deleted_at IS NULL'} ${after}
      ORDER BY id COLLATE "C" LIMIT $2`,
    ...params,
  );
  const page: Record<string, unknown>[] = [];
  let chars = 0;
  for (const r of rows) {
    if (page.length === limit) break;
    const out: Record<string, unknown> = { id: String(r.id) };
    for (const col of table.columns) out[col.wire] = wireValue(col, r[col.wire]);
    out.server_updated_at = Number(r.server_updated_at);
    out.deleted_at = r.deleted_at === null ? null : Number(r.deleted_at);
    // the character budget ends a page early; the first row of a page is served whatever its size
    if (maxChars !== null) {
      chars += JSON.stringify(out).length + 1;
      if (page.length > 0 && chars > maxChars) break;
    }
    page.push(out);
  }
  return {
    records: page,
    nextCursor: rows.length > page.length ? String(page[page.length - 1].id) : null,
  };
}
