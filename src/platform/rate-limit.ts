/**
 * Fixed-window call counters (rate-limiter-flexible): in process memory by default, in Redis
 * (ioredis) when REDIS_URL is set so that every replica shares one count. Windows: a minute, a
 * number of seconds (both fixed windows starting at the key's first call), and the UTC calendar day
 * (the day's key carries the date, so it resets at 00:00 UTC).
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
import type { Config } from '../base/config.ts';
import type { DbTarget } from '../db/target.ts';
import { countLimitHit } from './metrics.ts';
import { clock } from '../base/clock.ts';

/** 'minute', the UTC calendar day, or a fixed window of `seconds` from a key's first call. */
export type LimitWindow = 'minute' | 'utc-day' | { seconds: number };

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
  /**
   * Counts one call for `key` (or `points` of them at once, e.g. the genotypes of one answer) and
   * says whether the count is still within the limit.
   */
  take(key: string, now?: Date, points?: number): Promise<LimitDecision>;
  /** Says whether one more call for `key` would be within the limit, without counting it. */
  peek(key: string, now?: Date): Promise<LimitDecision>;
  /** Forgets the count of `key` (e.g. after a successful login). */
  reset(key: string, now?: Date): Promise<void>;
  /** Gives back one call counted by `take` in the current window. */
  refund(key: string, now?: Date): Promise<void>;
}

export interface LimiterOptions {
  /** namespace of the keys, e.g. mcp:minute */
  name: string;
  /** calls allowed per window */
  points: number;
  window: LimitWindow;
  /** shared store; without it counts live in this process */
  redis?: Redis;
  /** the limit's name in rate_limit_hits_total (metrics.ts), counted on each refusal; none: not counted */
  metric?: string;
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

function windowSeconds(window: LimitWindow): number {
  // A day key is only used on its date, so a 24 h expiry from its first call always outlives it.
  if (window === 'utc-day') return DAY_SECONDS;
  return window === 'minute' ? 60 : window.seconds;
}

function storeFor(options: LimiterOptions): RateLimiterAbstract {
  const duration = windowSeconds(options.window);
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
  const storeKey = (key: string, now: Date): string =>
    options.window === 'utc-day' ? `${key}:${utcDate(now)}` : key;
  const decision = (allowed: boolean, res: RateLimiterRes | null, now: Date): LimitDecision => {
    const msBeforeNext = res?.msBeforeNext ?? windowSeconds(options.window) * 1000;
    const resetAt =
      options.window === 'utc-day' ? nextUtcMidnight(now) : new Date(now.getTime() + msBeforeNext);
    return {
      allowed,
      limit: options.points,
      remaining: allowed ? (res?.remainingPoints ?? options.points) : 0,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
      resetAt,
    };
  };
  return {
    limit: options.points,
    window: options.window,
    async take(key, now = clock.now(), points = 1) {
      try {
        return decision(true, await store.consume(storeKey(key, now), points), now);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        if (options.metric) countLimitHit(options.metric);
        return decision(false, rejection, now);
      }
    },
    async peek(key, now = clock.now()) {
      const res = await store.get(storeKey(key, now));
      const allowed = !res || res.consumedPoints < options.points;
      if (!allowed && options.metric) countLimitHit(options.metric);
      return decision(allowed, res, now);
    },
    async reset(key, now = clock.now()) {
      await store.delete(storeKey(key, now));
    },
    async refund(key, now = clock.now()) {
      await store.reward(storeKey(key, now), 1);
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

const memoryNamespaces = new WeakMap<DbTarget, string>();

/**
 * What the counters of one deployment share: its database. Keys carry database row ids (token ids),
 * so two databases on one Redis (test files, staging beside production) must not share counters.
 * An in-memory database belongs to one process, and so do its counters: every app serving that
 * database object gets the same namespace, any other database another one.
 */
export function limitNamespace(target: DbTarget): string {
  if (target.kind === 'pg') {
    const url = new URL(target.url);
    return `${url.host}${url.pathname}`;
  }
  if (target.dataDir) return target.dataDir;
  let ns = memoryNamespaces.get(target);
  if (!ns) {
    ns = `memory-${randomUUID()}`;
    memoryNamespaces.set(target, ns);
  }
  return ns;
}

/** The counters' shared store: a Redis connection when REDIS_URL is set, else none (process memory). */
export interface LimitStore {
  redis?: Redis;
  /** resolves once the shared store is connected (until then counts fall back to this process) */
  ready: () => Promise<void>;
  /** closes the Redis connection, if any */
  close: () => Promise<void>;
}

/** Connects to Redis at `redisUrl`; without a URL, a store that keeps counts in this process. */
export function openLimitStore(redisUrl: string | undefined): LimitStore {
  // enableOfflineQueue: false is what rate-limiter-flexible asks of ioredis: fail fast, use the insurance.
  const redis = redisUrl
    ? new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 })
    : undefined;
  return {
    redis,
    ready: async () => {
      if (redis && redis.status !== 'ready') await once(redis, 'ready');
    },
    close: async () => {
      await redis?.quit().catch(() => redis.disconnect());
    },
  };
}

export interface McpLimitsOptions {
  /** prefix of every counter key (see limitNamespace); default none */
  namespace?: string;
  /** an open store to share (one Redis connection per app); default: a store of its own */
  store?: LimitStore;
}

/** Builds the MCP limiters from config (MCP_CALLS_PER_MINUTE, MCP_CALLS_PER_DAY, REDIS_URL). */
export function createMcpLimits(
  config: Pick<Config, 'MCP_CALLS_PER_MINUTE' | 'MCP_CALLS_PER_DAY' | 'REDIS_URL'>,
  options: McpLimitsOptions = {},
): McpLimits {
  const ns = options.namespace ? `${options.namespace}:` : '';
  const store = options.store ?? openLimitStore(config.REDIS_URL);
  const { redis } = store;
  return {
    perMinute: createLimiter({
      name: `${ns}mcp:minute`,
      metric: 'mcp:minute',
      points: config.MCP_CALLS_PER_MINUTE,
      window: 'minute',
      redis,
    }),
    perDay: createLimiter({
      name: `${ns}mcp:day`,
      metric: 'mcp:day',
      points: config.MCP_CALLS_PER_DAY,
      window: 'utc-day',
      redis,
    }),
    ready: store.ready,
    close: store.close,
  };
}
