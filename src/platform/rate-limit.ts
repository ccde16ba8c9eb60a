/**
 * Fixed-window call counters (rate-limiter-flexible): in process memory by default, in Redis
 * (ioredis) when REDIS_URL is set so that every replica shares one count. Two windows exist: a
 * rolling minute and the UTC calendar day (the day's key carries the date, so it resets at 00:00 UTC).
 *
 * Why here: counters are shared infrastructure; the MCP facade only asks "may this key go on?".
 * It must never decide who is limited or by how much: callers pass the key, config gives the numbers.
 * If Redis fails, an in-memory insurance limiter keeps counting rather than letting every call through.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { DbTarget } from '../db/target.ts';

export type LimitWindow = 'minute' | 'utc-day';

export interface LimitDecision {
  allowed: boolean;
  /** the configured number of calls per window */
  limit: number;
  /** calls left in the current window (0 when refused) */
  remaining: number;
  /** whole seconds until the window resets (at least 1) */
  retryAfterSeconds: number;
  /** when the window resets */
  resetAt: Date;
}

export interface Limiter {
  readonly limit: number;
  readonly window: LimitWindow;
  /** Counts one call for `key` and says whether it is within the limit. */
  take(key: string, now?: Date): Promise<LimitDecision>;
}

export interface LimiterOptions {
  /** namespace of the keys, e.g. mcp:minute */
  name: string;
  /** calls allowed per window */
  points: number;
  window: LimitWindow;
  /** shared store; without it counts live in this process */
  redis?: Redis;
}

const DAY_SECONDS = 86_400;

/** The UTC date of `now` as YYYY-MM-DD. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** 00:00 UTC of the day after `now`. */
export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

function storeFor(options: LimiterOptions): RateLimiterAbstract {
  // A day key is only used on its date, so a 24 h expiry from its first call always outlives it.
  const duration = options.window === 'minute' ? 60 : DAY_SECONDS;
  const base = { keyPrefix: options.name, points: options.points, duration };
  if (!options.redis) return new RateLimiterMemory(base);
  return new RateLimiterRedis({
    ...base,
    storeClient: options.redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(base),
  });
}

/** A counter of `points` calls per window per key. */
export function createLimiter(options: LimiterOptions): Limiter {
  const store = storeFor(options);
  return {
    limit: options.points,
    window: options.window,
    async take(key, now = new Date()) {
      const storeKey = options.window === 'utc-day' ? `${key}:${utcDate(now)}` : key;
      let res: RateLimiterRes;
      let allowed = true;
      try {
        res = await store.consume(storeKey, 1);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        res = rejection;
        allowed = false;
      }
      const resetAt = options.window === 'utc-day' ? nextUtcMidnight(now) : new Date(now.getTime() + res.msBeforeNext);
      return {
        allowed,
        limit: options.points,
        remaining: allowed ? res.remainingPoints : 0,
        retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
        resetAt,
      };
    },
  };
}

/** The two MCP limits: every POST per token per minute, and tool calls per token per UTC day. */
export interface McpLimits {
  perMinute: Limiter;
  perDay: Limiter;
  /** resolves once the shared store is connected (until then counts fall back to this process) */
  ready(): Promise<void>;
  /** closes the Redis connection, if any */
  close(): Promise<void>;
}

/**
 * What the counters of one deployment share: its database. Keys carry database row ids (token ids),
 * so two databases on one Redis (test files, staging beside production) must not share counters.
 * An in-memory database belongs to one process, and so do its counters.
 */
export function limitNamespace(target: DbTarget): string {
  if (target.kind === 'pg') {
    const url = new URL(target.url);
    return `${url.host}${url.pathname}`;
  }
  return target.dataDir ?? `memory-${randomUUID()}`;
}

export interface McpLimitsOptions {
  /** prefix of every counter key (see limitNamespace); default none */
  namespace?: string;
}

/** Builds the MCP limiters from config (MCP_CALLS_PER_MINUTE, MCP_CALLS_PER_DAY, REDIS_URL). */
export function createMcpLimits(
  config: Pick<Config, 'MCP_CALLS_PER_MINUTE' | 'MCP_CALLS_PER_DAY' | 'REDIS_URL'>,
  options: McpLimitsOptions = {},
): McpLimits {
  const ns = options.namespace ? `${options.namespace}:` : '';
  // enableOfflineQueue: false is what rate-limiter-flexible asks of ioredis: fail fast, use the insurance.
  const redis = config.REDIS_URL
    ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    : undefined;
  return {
    perMinute: createLimiter({ name: `${ns}mcp:minute`, points: config.MCP_CALLS_PER_MINUTE, window: 'minute', redis }),
    perDay: createLimiter({ name: `${ns}mcp:day`, points: config.MCP_CALLS_PER_DAY, window: 'utc-day', redis }),
    ready: async () => {
      if (redis && redis.status !== 'ready') await once(redis, 'ready');
    },
    close: async () => {
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}
