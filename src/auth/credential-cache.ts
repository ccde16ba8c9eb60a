/**
 * Credentials recently found valid (login sessions and personal tokens), so that a request with
 * the same token skips the JWT check and the credential query (issue 18: those were most of an
 * authenticated read's cost). An entry lives at most TOUCH_INTERVAL (the interval at which
 * last-used times are written anyway).
 *
 * Revocation stays instant through a per-account revocation epoch: every change that ends or
 * alters an account's credentials calls revoked(userId) once it has committed (sign-out, revoke one
 * session, token or all, password reset, account deletion, view-as, and a change of the profile
 * time zone, which cached principals carry), which bumps the epoch; an
 * entry counts only while the epoch it was cached under is still current. The epoch is read before
 * the credential query, so a lookup that raced a revocation is cached under the old epoch and
 * never counts.
 *
 * The epochs live in Redis when REDIS_URL is set (every process reads the same epochs), else in
 * this process: without Redis the server is one process (PGlite by construction; on PostgreSQL
 * WEB_CONCURRENCY > 1 is refused without Redis, and more replicas need it: docs/deployment.md,
 * as the rate limits do). If Redis cannot answer, the lookup goes to the database (a miss), never
 * to a stale entry.
 * Only credentials without view-as are cached (view-as checks its grant on every request); OAuth
 * access tokens are not cached.
 */
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Principal } from './principal.ts';

/** How long a checked credential is trusted without the database: TOUCH_INTERVAL. */
export const CREDENTIAL_CACHE_MS = 60_000;
/** Credentials kept at most (the least recently used go first). */
const MAX_ENTRIES = 10_000;
/** A bumped epoch outlives every entry cached before it (Redis key expiry). */
const EPOCH_TTL_SECONDS = 3_600;

/** What a valid credential lookup established. */
export interface CachedCredential {
  principal: Principal;
  /** the credential's end (ms), the earliest of its own and its token's */
  expiresAtMs: number;
}

export interface CredentialCache {
  /** What a token was found to be, when fresh and nothing of its account revoked since; else null. */
  get(token: string, now: number): Promise<CachedCredential | null>;
  /** The revocation epoch of an account, read before a lookup (null: cannot tell; do not cache). */
  epochOf(userId: number): Promise<number | null>;
  /** Keeps a valid lookup under the epoch read before it. */
  set(token: string, credential: CachedCredential, epoch: number | null): void;
  /** Ends every cached credential of an account: call after a change to them has committed. */
  revoked(userId: number): Promise<void>;
}

interface Entry extends CachedCredential {
  epoch: number;
}

/** The epochs: in this process, or in Redis under `namespace`. */
interface Epochs {
  read(userId: number): Promise<number | null>;
  bump(userId: number): Promise<void>;
}

function memoryEpochs(): Epochs {
  const epochs = new Map<number, number>();
  return {
    read: (userId) => Promise.resolve(epochs.get(userId) ?? 0),
    bump: (userId) => {
      epochs.set(userId, (epochs.get(userId) ?? 0) + 1);
      return Promise.resolve();
    },
  };
}

function redisEpochs(redis: Redis, namespace: string): Epochs {
  const key = (userId: number) => `${namespace}:credential-epoch:${userId}`;
  return {
    read: async (userId) => {
      if (redis.status !== 'ready') return null;
      try {
        return Number((await redis.get(key(userId))) ?? 0);
      } catch {
        return null;
      }
    },
    bump: async (userId) => {
      await redis.multi().incr(key(userId)).expire(key(userId), EPOCH_TTL_SECONDS).exec();
    },
  };
}

/** The app's credential cache: epochs in Redis when given, else in this process. */
export function createCredentialCache(options: {
  redis?: Redis;
  namespace: string;
}): CredentialCache {
  const epochs = options.redis ? redisEpochs(options.redis, options.namespace) : memoryEpochs();
  const entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, ttl: CREDENTIAL_CACHE_MS });
  return {
    async get(token, now) {
      const entry = entries.get(token);
      if (!entry) return null;
      if (entry.expiresAtMs <= now || (await epochs.read(entry.principal.userId)) !== entry.epoch) {
        entries.delete(token);
        return null;
      }
      return entry;
    },
    epochOf: (userId) => epochs.read(userId),
    set(token, credential, epoch) {
      if (epoch !== null) entries.set(token, { ...credential, epoch });
    },
    revoked: (userId) => epochs.bump(userId),
  };
}
