/**
 * The per-account change clock of synced tables (see README.md). Every write to a synced table,
 * whether from a phone's push or from a server route (glucose batches, health imports, meals...),
 * stamps `server_updated_at` with a time taken here, inside the same transaction:
 *
 *   await syncedWrite(ctx.prisma, userId, (tx, ts) =>
 *     tx.$executeRaw`INSERT ... server_updated_at = ${msValue(ts)}`);
 *
 * (msValue and the other ms <-> timestamp snippets are in src/db/sql-time.ts.)
 *
 * The clock row stays locked until the transaction commits, so a pull (which locks it FOR SHARE to
 * fix its snapshot time) never misses a write stamped before its snapshot.
 */
import type { Db, DbTx } from '../db/client.ts';
import { msParam } from '../db/sql-time.ts';
import { Prisma } from '../generated/prisma/client.ts';

/**
 * A client or transaction that runs SQL: tagged templates (`$queryRaw`, fixed statements) and the
 * Unsafe forms (statements whose identifiers come from a registry, such as sync's tables).
 */
export type SqlRunner = Pick<
  Db,
  '$queryRaw' | '$executeRaw' | '$queryRawUnsafe' | '$executeRawUnsafe'
>;

export interface SyncClockState {
  identityVersion: number;
  clockMs: number;
  nowMs: number;
}

/** Locks the account's sync row (creating it) and answers its identity version and clock. */
export async function lockSyncState(
  tx: SqlRunner,
  userId: number,
  mode: 'SHARE' | 'UPDATE',
): Promise<SyncClockState> {
  await tx.$executeRaw`INSERT INTO sync_state (user_id, updated_at) VALUES (${userId}::int, now())
    ON CONFLICT (user_id) DO NOTHING`;
  const lock = mode === 'SHARE' ? Prisma.sql`FOR SHARE` : Prisma.sql`FOR UPDATE`;
  const rows = await tx.$queryRaw<
    { identity_version: number; clock_ms: bigint | number; now_ms: number }[]
  >`SELECT identity_version, clock_ms, floor(extract(epoch from clock_timestamp()) * 1000)::float8 AS now_ms
      FROM sync_state WHERE user_id = ${userId}::int ${lock}`;
  const row = rows[0];
  return {
    identityVersion: Number(row.identity_version),
    clockMs: Number(row.clock_ms),
    nowMs: Number(row.now_ms),
  };
}

/** The upsert that takes the account's clock row and advances it; RETURNING clock_ms. */
const advanceClockSql = (userId: number): Prisma.Sql => Prisma.sql`
  INSERT INTO sync_state (user_id, clock_ms, updated_at)
  VALUES (${userId}::int, floor(extract(epoch from clock_timestamp()) * 1000)::bigint + 1, now())
  ON CONFLICT (user_id) DO UPDATE
    SET clock_ms = greatest(sync_state.clock_ms, floor(extract(epoch from clock_timestamp()) * 1000)::bigint) + 1,
        updated_at = now()
  RETURNING clock_ms`;

/**
 * The same upsert as statement text and values, for a connection outside Prisma (a COPY session,
 * src/db/copy.ts): it answers one row with `clock_ms`, the change time to stamp.
 */
export function advanceClockStatement(userId: number): { text: string; values: unknown[] } {
  const sql = advanceClockSql(userId);
  return { text: sql.text, values: sql.values };
}

/**
 * CTEs ending in `sync_clock(at)` for a bulk statement that writes synced rows of account `userId`:
 * it advances the clock in the same statement, and `(SELECT at FROM sync_clock)` is the
 * `server_updated_at` to stamp. One statement is one round trip and its own transaction, so the
 * clock row stays locked until the rows it stamped are committed, as with syncedWrite().
 * NOTE: Prisma.raw of msParam over the constant column name clock_ms.
 */
export const syncClockCte = (userId: number): Prisma.Sql =>
  Prisma.sql`sync_clock_row AS (${advanceClockSql(userId)}),
  sync_clock AS (SELECT ${Prisma.raw(msParam('clock_ms'))} AS at FROM sync_clock_row)`;

/**
 * Takes the next change time of the account (ms, strictly after every earlier one) and holds the
 * account's clock until the caller's transaction ends. Call it inside a transaction, before writing.
 */
export async function advanceSyncClock(
  tx: SqlRunner,
  userId: number,
  state?: SyncClockState,
): Promise<number> {
  if (state) {
    const ts = Math.max(state.nowMs + 1, state.clockMs + 1);
    await tx.$executeRaw`UPDATE sync_state SET clock_ms = ${ts}::bigint, updated_at = now()
      WHERE user_id = ${userId}::int`;
    return ts;
  }
  // NOTE: one statement (upsert) takes the row lock and advances the clock: on the embedded
  // database every round trip holds its only connection.
  const rows = await tx.$queryRaw<{ clock_ms: bigint | number }[]>(advanceClockSql(userId));
  return Number(rows[0].clock_ms);
}

/**
 * Runs `fn` in a transaction that writes synced tables of `userId`: `ts` is the account's next
 * change time, to stamp on every row written (`server_updated_at`).
 */
export function syncedWrite<T>(
  prisma: Db,
  userId: number,
  fn: (tx: DbTx, ts: number) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(async (tx) => fn(tx, await advanceSyncClock(tx, userId)));
}

/**
 * Marks the account's phone as synced now. Every way the phone sends its data is a sync of it: a
 * sync push, glucose batches and sensor payloads, health-store imports; health answers carry the
 * time as meta.phone_last_sync_at. The one writer of `users.phone_last_sync_at`.
 */
export async function markPhoneSynced(db: SqlRunner, userId: number): Promise<void> {
  await db.$executeRaw`UPDATE users SET phone_last_sync_at = now() WHERE id = ${userId}::int`;
}
