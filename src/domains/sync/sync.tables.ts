/**
 * The registry of synced tables: what the WatermelonDB sync protocol (GET /api/sync/pull,
 * POST /api/sync/push) carries. Each domain declares its own tables beside its models, with its
 * bounds and what a deletion through sync lets go of (defineSyncedTable,
 * src/platform/synced-tables.ts); this list only puts them in pull order. The sync domain owns one
 * table itself, the journal. Adding a table: its row in the owner's `<domain>.synced.ts`, exported
 * from the owner's index.ts and listed here (README.md gives the column convention).
 *
 * NOTE: each table's `readScope` and `writeScope` are the scopes its own routes and tools require:
 * sync must never hand a personal token rows the read routes refuse it, nor take writes the write
 * routes refuse (login sessions hold every scope, so they sync every table).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncedTable } from '../../platform/synced-tables.ts';
import { DEVICES_SYNCED_TABLES } from '../devices/index.ts';
import { GLUCOSE_SYNCED_TABLES } from '../glucose/index.ts';
import { GOALS_SYNCED_TABLES } from '../goals/index.ts';
import { HEALTH_SYNCED_TABLES } from '../health/index.ts';
import { LABS_SYNCED_TABLES } from '../labs/index.ts';
import { loggedAtIssue, LOGS_SYNCED_TABLES } from '../logs/index.ts';
import { MEALS_SYNCED_TABLES } from '../meals/index.ts';
import { SNORING_SYNCED_TABLES } from '../snoring/index.ts';

export type {
  SyncDeletion,
  SyncedColumn,
  SyncedColumnType,
  SyncedTable,
} from '../../platform/synced-tables.ts';

/** The sync schema version this server speaks; bump it with every table or column added. */
export const SYNC_SCHEMA_VERSION = 7;

/** The phone's journal: the sync domain's own table. */
const JOURNAL_ENTRIES = defineSyncedTable({
  table: 'journal_entries',
  sqlTable: 'journal_entries',
  model: 'JournalEntry',
  since: 1,
  // no read route of its own: the pull's entry scope; written like the logs tools (logs_entry_edit)
  readScope: 'health:summary:read',
  writeScope: 'health:logs:write',
  // no tool writes the journal: it takes the logs tools' time rule (1900 .. 24 h ahead; issue 47)
  check: (r) => {
    const msg = r.happened_at === null ? null : loggedAtIssue(r.happened_at as number);
    return msg ? [{ wire: 'happened_at', msg }] : [];
  },
  columns: [
    { wire: 'body', db: 'body', type: 'text', notNull: true },
    { wire: 'happened_at', db: 'happened_at', type: 'timestamp_ms' },
    { wire: 'mood', db: 'mood', type: 'int', since: 2 },
  ],
});

/** Every synced table, in pull order. */
export const SYNCED_TABLES: readonly SyncedTable[] = [
  JOURNAL_ENTRIES,
  ...GLUCOSE_SYNCED_TABLES,
  ...DEVICES_SYNCED_TABLES,
  ...HEALTH_SYNCED_TABLES,
  ...MEALS_SYNCED_TABLES,
  ...LOGS_SYNCED_TABLES,
  ...GOALS_SYNCED_TABLES,
  ...SNORING_SYNCED_TABLES,
  ...LABS_SYNCED_TABLES,
];

/** The registry row of a wire table name, or undefined. */
export function syncedTable(name: string): SyncedTable | undefined {
  return SYNCED_TABLES.find((t) => t.table === name);
}

/** The newest schema version among the table and its columns. */
export function tableChangedSince(t: SyncedTable): number {
  return Math.max(t.since, ...t.columns.map((c) => c.since ?? t.since));
}

/** True when the table, or one of its columns, came in a schema version after `from`, up to `to`. */
export function tableChangedBetween(t: SyncedTable, from: number, to: number): boolean {
  return [t.since, ...t.columns.map((c) => c.since ?? t.since)].some((v) => v > from && v <= to);
}
