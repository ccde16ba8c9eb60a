/** Sync: the WatermelonDB pull and push of the phone's offline database (sync.tables.ts). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { PullPage, PushResult, RecordsPage } from './sync.service.ts';
import { syncedRecords, PULL_PAGE_SIZE, syncPull, syncPush } from './sync.service.ts';
import { SYNCED_TABLES } from './sync.tables.ts';

/** Most rows of one page of raw rows. */
const RECORDS_PAGE_MAX = 500;
/** A page's character budget (max_chars): at least one character; the service checks it too. */
const maxCharsArg = z.number().int().min(1).nullish();
/** A synced table's wire name (the registry's). */
const tableName = z.enum(SYNCED_TABLES.map((t) => t.table) as [string, ...string[]]);
/** An opaque next_cursor: a few hundred characters of base64url; anything longer is not one of ours. */
const cursorArg = z.string().min(1).max(4096).nullish();
/** the last sync timestamp a database timestamp holds: 9999-12-31T23:59:59.999Z */
const SYNC_MS_MAX = 253_402_300_799_999;

const SyncPull = builder.objectRef<PullPage>('SyncPull').implement({
  description: 'One page of a pull: changes per wire table since last_pulled_at',
  fields: (t) => ({
    changes: t.field({
      type: 'JSON',
      description:
        '{table: {created: [records], updated: [records], deleted: [ids]}}, wire names as they are',
      resolve: (p) => p.changes,
    }),
    timestamp: t.exposeFloat('timestamp', {
      nullable: true,
      description:
        'the snapshot time (ms) to send as last_pulled_at next time; only on the last page',
    }),
    hasMore: t.exposeBoolean('hasMore', {
      description: 'true when next_cursor has another page of the same snapshot',
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass as cursor to read the next page',
    }),
    identityVersion: t.exposeInt('identityVersion', {
      description: "the account's current sync identity",
    }),
    schemaVersion: t.exposeInt('schemaVersion', {
      description: 'the sync schema version the server speaks',
    }),
    omittedTables: t.exposeStringList('omittedTables', {
      description:
        'wire tables left out because the credential lacks their read scope (none for login sessions)',
    }),
  }),
});

const SyncPush = builder.objectRef<PushResult>('SyncPush').implement({
  description: 'An applied push',
  fields: (t) => ({
    ok: t.boolean({ resolve: () => true }),
    timestamp: t.exposeFloat('timestamp', {
      description: 'the server change time (ms) stamped on the pushed records',
    }),
    identityVersion: t.exposeInt('identityVersion'),
    accepted: t.exposeInt('accepted', {
      description: 'records written (created, updated or deleted)',
    }),
  }),
});

const SyncedRecords = builder.objectRef<RecordsPage>('SyncedRecords').implement({
  description: 'Raw rows of one synced table, by id',
  fields: (t) => ({
    records: t.field({
      type: 'JSON',
      description: 'rows in wire names, with server_updated_at and deleted_at as ms timestamps',
      resolve: (p) => p.records,
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass as cursor for the next page',
    }),
  }),
});

builder.queryFields((t) => ({
  syncedRecords: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: SyncedRecords,
    description:
      "Raw rows of one synced table of the person's data (the owner's while viewing as); a token also needs the table's read scope",
    args: {
      table: t.arg.string({
        required: true,
        description: 'the synced table, e.g. journal_entries',
        validate: tableName,
      }),
      limit: t.arg.int({
        description: 'rows per page',
        validate: z.number().int().min(1).max(RECORDS_PAGE_MAX).nullish(),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page',
        validate: cursorArg,
      }),
      includeDeleted: t.arg.boolean({ description: 'include tombstones of deleted records' }),
      maxChars: t.arg.int({
        description:
          "a page ends before its rows' JSON passes this many characters (at least one row per page); default: no budget",
        validate: maxCharsArg,
      }),
    },
    resolve: (_root, args, ctx) => syncedRecords(ctx, args),
  }),
  syncPull: t.withAuth({ scope: 'health:summary:read' }).field({
    type: SyncPull,
    description:
      "Changes of the synced tables since last_pulled_at, paged over one snapshot; a grantee viewing as an owner pulls the owner's data; a token pulls only the tables whose read scope it holds",
    args: {
      // JSON, not Float: WatermelonDB's documented client sends the text `null` on a first sync
      lastPulledAt: t.arg({
        type: 'JSON',
        description:
          'the timestamp (ms, a number or its text) of the last complete pull; omit, null or "null" for everything',
      }),
      identityVersion: t.arg.int({
        description:
          'the identity the local data belongs to; a different one answers 409 identity_changed',
      }),
      schemaVersion: t.arg.int({
        description:
          "the client's sync schema version (>= 1; one above the server's is served as the server's); with migration, the tables and columns added after migration.from up to it arrive whole",
        validate: z.number().int().min(1).nullish(),
      }),
      // JSON, not an input type: WatermelonDB sends JSON.stringify(migration), the text `null` without one
      migration: t.arg({
        type: 'JSON',
        description:
          'WatermelonDB\'s migration info {from, tables, columns} (or its JSON text), sent on the first sync after a local schema migration; omit, null or "null" for none',
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page',
        validate: cursorArg,
      }),
      exclude: t.arg.stringList({
        description: 'wire table names to leave out (comma-separated over REST)',
        validate: z.array(tableName).max(SYNCED_TABLES.length).nullish(),
      }),
      limit: t.arg.int({
        description: 'records per page across tables',
        validate: z.number().int().min(1).max(PULL_PAGE_SIZE).nullish(),
      }),
      maxChars: t.arg.int({
        description:
          "a page ends before its records' JSON passes this many characters (at least one record per page); default: no budget",
        validate: maxCharsArg,
      }),
    },
    resolve: (_root, args, ctx) => syncPull(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  syncPush: t.withAuth({ scope: 'health:logs:write' }).field({
    type: SyncPush,
    description:
      "Applies the phone's changes to the caller's records atomically; a record changed on the server since last_pulled_at fails it all with 409, records of a table whose write scope a token lacks with 403",
    args: {
      changes: t.arg({
        type: 'JSON',
        required: true,
        description:
          '{table: {created, updated, deleted}}; or, wrapped, {changes: {table: ...}, last_pulled_at, identity_version} (read so when it has a key changes: no synced table is named changes)',
      }),
      lastPulledAt: t.arg.float({
        description: "the timestamp (ms) of the last complete pull (wins over a wrapped body's)",
        validate: z.number().int().min(0).max(SYNC_MS_MAX).nullish(),
      }),
      identityVersion: t.arg.int({
        description: "the identity the local data belongs to (wins over a wrapped body's)",
      }),
    },
    resolve: (_root, args, ctx) => syncPush(ctx, args),
  }),
}));
