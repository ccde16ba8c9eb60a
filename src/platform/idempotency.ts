/**
 * Idempotency records for calls that create something (MCP creating tools): the first call with a
 * key claims it, runs, and stores its answer; a retry with the same key and the same arguments gets
 * the stored answer without running again. Rows live in the IdempotencyRecord table, unique on
 * (user, tool, key), so every replica sees the same claims.
 *
 * Insert-first: the claim is an INSERT ... ON CONFLICT DO NOTHING, so two concurrent calls with one
 * key can never both run. A record expires 24 hours after its first call; a claim left in progress
 * for 10 minutes (a crashed process) may be taken over.
 *
 * It must never store the answer of a failed call (release() drops the claim, so the caller may
 * fix the arguments and retry with the same key), and never look at another user's keys.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { clock } from '../base/clock.ts';

export interface IdempotencyKey {
  userId: number;
  /** the tool (or other operation) the key belongs to */
  tool: string;
  /** the caller's idempotency key */
  key: string;
}

export type IdempotencyClaim =
  /** this call owns the key: run, then complete() or release() */
  | { state: 'claimed' }
  /** an earlier call with these arguments finished: answer its result */
  | { state: 'replay'; result: unknown }
  /** the key was used with other arguments */
  | { state: 'conflict' }
  /** an earlier call with this key is still running */
  | { state: 'in_progress' };

export interface IdempotencyStore {
  /** Claims the key for a call whose arguments hash to `fingerprint`. */
  claim(id: IdempotencyKey, fingerprint: string, now?: Date): Promise<IdempotencyClaim>;
  /** Stores the answer of a successful call (JSON-serialisable). */
  complete(id: IdempotencyKey, result: unknown): Promise<void>;
  /** Drops the claim of a call that failed or was refused, so the key can be used again. */
  release(id: IdempotencyKey): Promise<void>;
}

export interface IdempotencyStoreOptions {
  /** how long a finished record answers replays (default 24 h) */
  ttlMs?: number;
  /** after how long an unfinished claim counts as abandoned (default 10 min) */
  staleMs?: number;
}

const DONE = 'done';
const IN_PROGRESS = 'in_progress';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value as Record<string, unknown>).filter(
      ([, v]) => v !== undefined,
    );
    return Object.fromEntries(
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/** sha256 of the canonical JSON of `value` (object keys sorted), so key order never matters. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)) ?? 'null')
    .digest('hex');
}

/** An idempotency store on the IdempotencyRecord table. */
export function createIdempotencyStore(
  prisma: Db,
  options: IdempotencyStoreOptions = {},
): IdempotencyStore {
  const ttlMs = options.ttlMs ?? 24 * 3_600_000;
  const staleMs = options.staleMs ?? 10 * 60_000;
  const where = (id: IdempotencyKey) => ({ userId: id.userId, tool: id.tool, key: id.key });

  const insert = async (id: IdempotencyKey, fingerprint: string, now: Date): Promise<boolean> => {
    const { count } = await prisma.idempotencyRecord.createMany({
      data: [{ ...where(id), fingerprint, status: IN_PROGRESS, createdAt: now }],
      skipDuplicates: true,
    });
    return count === 1;
  };

  return {
    async claim(id, fingerprint, now = clock.now()) {
      if (await insert(id, fingerprint, now)) return { state: 'claimed' };
      const existing = await prisma.idempotencyRecord.findUnique({
        where: { userId_tool_key: where(id) },
      });
      if (!existing)
        return (await insert(id, fingerprint, now))
          ? { state: 'claimed' }
          : { state: 'in_progress' };
      const age = now.getTime() - existing.createdAt.getTime();
      if (age > ttlMs || (existing.status === IN_PROGRESS && age > staleMs)) {
        // expired or abandoned: replace it (deleting by id, so a concurrent replacement is not lost)
        await prisma.idempotencyRecord.deleteMany({ where: { id: existing.id } });
        return (await insert(id, fingerprint, now))
          ? { state: 'claimed' }
          : { state: 'in_progress' };
      }
      if (existing.fingerprint !== fingerprint) return { state: 'conflict' };
      if (existing.status === DONE) return { state: 'replay', result: existing.result };
      return { state: 'in_progress' };
    },

    async complete(id, result) {
      await prisma.idempotencyRecord.updateMany({
        where: { ...where(id), status: IN_PROGRESS },
        data: {
          status: DONE,
          result: JSON.parse(JSON.stringify(result ?? null)) as Prisma.InputJsonValue,
        },
      });
    },

    async release(id) {
      await prisma.idempotencyRecord.deleteMany({ where: { ...where(id), status: IN_PROGRESS } });
    },
  };
}
