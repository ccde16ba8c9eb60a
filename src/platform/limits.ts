/**
 * Named rate limits for services, reachable as `ctx.limits`: "count one event for this key under
 * this rule" and "would one more be allowed?". A rule is data (a name, a number of events, a window
 * in seconds) that the calling service builds from config; this module only counts.
 *
 * Counts live in process memory by default and in Redis when REDIS_URL is set (one store per app,
 * see openLimitStore), so a limit holds across every replica. Keys are prefixed by the
 * deployment's namespace (limitNamespace: its database), so test databases sharing one Redis never
 * share counters. It must never decide who is limited: callers pass the key and the rule.
 * A refusal (by take, or a peek that says no) counts in rate_limit_hits_total under the rule's name.
 */
import { appError } from '../base/errors.ts';
import type { LimitDecision, Limiter, LimitStore } from './rate-limit.ts';
import { createLimiter } from './rate-limit.ts';

export interface LimitRule {
  /** what is counted, e.g. `auth:login-failures`; part of every key */
  name: string;
  /** events allowed per window */
  points: number;
  /**
   * window length in seconds (a fixed window starting at the key's first event), or `utc-day`:
   * the UTC calendar day (resets at 00:00 UTC)
   */
  seconds: number | 'utc-day';
}

export interface Limits {
  /**
   * Counts one event for `key` under `rule` (or `points` events at once); `allowed` is false once
   * the rule's points are spent.
   */
  take(rule: LimitRule, key: string, points?: number): Promise<LimitDecision>;
  /** Says whether one more event for `key` would be allowed, without counting it. */
  peek(rule: LimitRule, key: string): Promise<LimitDecision>;
  /** Forgets the count of `key` under `rule`. */
  reset(rule: LimitRule, key: string): Promise<void>;
  /** Gives back one event counted by `take` (the counted thing did not happen after all). */
  refund(rule: LimitRule, key: string): Promise<void>;
}

export interface LimitsOptions {
  /** the open counter store (memory or Redis) */
  store: LimitStore;
  /** prefix of every key (see limitNamespace) */
  namespace: string;
}

/** The limits service of one app. Limiters are built once per distinct rule and reused. */
export function createLimits(options: LimitsOptions): Limits {
  const limiters = new Map<string, Limiter>();
  const limiterFor = (rule: LimitRule): Limiter => {
    const id = `${rule.name}:${rule.points}:${rule.seconds}`;
    let limiter = limiters.get(id);
    if (!limiter) {
      limiter = createLimiter({
        name: `${options.namespace}:${rule.name}`,
        points: rule.points,
        window: rule.seconds === 'utc-day' ? 'utc-day' : { seconds: rule.seconds },
        redis: options.store.redis,
        metric: rule.name,
      });
      limiters.set(id, limiter);
    }
    return limiter;
  };
  return {
    take: (rule, key, points) => limiterFor(rule).take(key, undefined, points),
    peek: (rule, key) => limiterFor(rule).peek(key),
    reset: (rule, key) => limiterFor(rule).reset(key),
    refund: (rule, key) => limiterFor(rule).refund(key),
  };
}

/**
 * Counts one event for `key` under `rule`; once the rule's events are spent, RATE_LIMITED (429,
 * `detail.code` `rate_limited`, Retry-After: the seconds until the window resets) saying `message`.
 */
export async function spendLimit(
  limits: Limits,
  rule: LimitRule,
  key: string,
  message: string,
): Promise<void> {
  const decision = await limits.take(rule, key);
  if (!decision.allowed)
    throw appError('RATE_LIMITED', message, {
      detail: { code: 'rate_limited' },
      retryAfter: decision.retryAfterSeconds,
    });
}
