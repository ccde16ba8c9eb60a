/**
 * How a domain declares a table the phone syncs (WatermelonDB; the protocol is the sync domain's,
 * src/domains/sync). The owner declares the table beside its model, with its own bounds and
 * allowed values, and what a deletion through sync must also let go of (`onDeleted`); the sync
 * domain lists the domains' tables and speaks the protocol over them. The column convention every
 * synced table follows is in src/domains/sync/README.md.
 *
 * NOTE: the names are spliced into SQL text by the sync domain (they never come from a request):
 * defineSyncedTable refuses anything but a plain lowercase identifier.
 */
import type { Scope } from '../auth/scopes.ts';
import type { DbTx } from '../db/client.ts';
import type { Config } from '../base/config.ts';
import type { Logger } from '../base/logger.ts';
import type { JobQueue } from './jobs.ts';

/**
 * How a wire value is stored: `timestamp_ms` is a number of ms on the wire, TIMESTAMP(3) (UTC) in the
 * database; `timestamptz_ms` likewise for a TIMESTAMPTZ column.
 */
export type SyncedColumnType =
  | 'text'
  | 'int'
  | 'float'
  | 'bool'
  | 'timestamp_ms'
  | 'timestamptz_ms';

export interface SyncedColumn {
  /** wire name (snake_case, as the phone's WatermelonDB schema names it) */
  wire: string;
  /** database column name */
  db: string;
  type: SyncedColumnType;
  /** sync schema version that added the column (defaults to the table's) */
  since?: number;
  /** a NOT NULL column: a null text is stored as '' (WatermelonDB's value for an empty string), any other null is refused (422) */
  notNull?: boolean;
  /** a created record must carry the column (422 otherwise) */
  required?: boolean;
  /** stored when a created record leaves the column out */
  default?: string | number | boolean;
  /** bounds of a number (inclusive) */
  min?: number;
  max?: number;
  /** the allowed values of a text */
  oneOf?: readonly string[];
}

/** The records a push has just deleted (tombstoned) in one table, all of one person. */
export interface SyncDeletion {
  userId: number;
  ids: string[];
}

/** The records a push has just created or updated in one table, all of one person. */
export interface SyncStored {
  userId: number;
  /** the records as pushed (wire names; a timestamptz_ms column is ms since the epoch) */
  records: readonly Record<string, unknown>[];
}

/** What an `onStored` hook may use: the app's job queue, its config and a logger. */
export interface SyncStoredDeps {
  jobs: JobQueue;
  config: Config;
  log: Logger;
}

/** A rule a record breaks: the column (wire name) it is reported at, and the owner's words. */
export interface SyncIssue {
  wire: string;
  msg: string;
}

export interface SyncedTable {
  /** wire table name (the WatermelonDB table) */
  table: string;
  /** SQL table (the Prisma model's @@map) */
  sqlTable: string;
  /** Prisma model, for readers of the registry */
  model: string;
  /** sync schema version that added the table */
  since: number;
  /** the scope that pulls and lists the table's rows: the one its read routes and tools require */
  readScope: Scope;
  /** the scope that pushes records of the table: the one its write routes and tools require */
  writeScope: Scope;
  columns: readonly SyncedColumn[];
  /**
   * What a deletion through sync lets go of besides the row, as the owner's own delete does: runs
   * in the push's transaction, after the rows are tombstoned, and answers the storage keys of the
   * files they held. The push removes those files once it has committed (a failed push removes none).
   */
  onDeleted?: (tx: DbTx, deleted: SyncDeletion) => Promise<string[]>;
  /**
   * The rules the table's tools apply that the columns cannot state alone (a unit of the marker,
   * diastolic below systolic, a kind's own bounds), on the record as it will be stored: wire names,
   * every column present (null when empty; a NOT NULL text left empty is ''), a created record
   * completed with its defaults, an updated one merged over the stored row. Answers the issues
   * (none: the record may be stored); any issue refuses the whole push (422, nothing written).
   * It must be pure: the owner's own functions over constants, no I/O.
   */
  check?: (record: Readonly<Record<string, unknown>>) => SyncIssue[];
  /**
   * What the owner does once a push that created or updated records of the table has committed
   * (glucose: queue the predicted-low check, issue 33). It must only queue work, never fail or
   * slow the push: it runs after the commit and its failure is the owner's to log.
   */
  onStored?: (deps: SyncStoredDeps, stored: SyncStored) => void;
}

const PLAIN_NAME = /^[a-z][a-z0-9_]*$/;

/** A synced table, checked: every name the sync domain splices into SQL is a plain identifier. */
export function defineSyncedTable(table: SyncedTable): SyncedTable {
  const names = [table.table, table.sqlTable, ...table.columns.flatMap((c) => [c.wire, c.db])];
  const bad = names.find((n) => !PLAIN_NAME.test(n));
  if (bad !== undefined) throw new Error(`synced table ${table.table}: ${bad} is no plain name`);
  return Object.freeze({ ...table, columns: Object.freeze([...table.columns]) });
}
