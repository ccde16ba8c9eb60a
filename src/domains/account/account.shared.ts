/**
 * What the account files share: the address normalisation, the `{ok: true}` answer, and the limits
 * of this domain (code requests, code guesses, password resets, login failures, sign-ups) with
 * their 429.
 */
import type { GraphQLError } from 'graphql';
import type { Config } from '../../base/config.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import type { LimitRule } from '../../platform/limits.ts';

/** The address as stored and compared: trimmed, lower case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The outcome of `{ok: true}` operations (EmailCodeStartOut, forgot and reset password, logout, revoke-all). */
export interface Ack {
  ok: true;
}

/** The one `{ok: true}` answer. */
export const ACK: Ack = { ok: true };
const HOUR = 3600;

type RuleName =
  | 'codesPerAddress'
  | 'codesPerIp'
  | 'guessesPerAddress'
  | 'resetsPerAddress'
  | 'resetsPerIp'
  | 'loginFailures'
  | 'signupsPerIp';

/** The limits of this domain, from config (documented in .env.example and docs/decisions.md). */
export function rules(config: Config): Record<RuleName, LimitRule> {
  return {
    codesPerAddress: {
      name: 'auth:code:address',
      points: config.EMAIL_CODES_PER_ADDRESS_PER_HOUR,
      seconds: HOUR,
    },
    codesPerIp: { name: 'auth:code:ip', points: config.EMAIL_CODES_PER_IP_PER_HOUR, seconds: HOUR },
    guessesPerAddress: {
      name: 'auth:code-guess:address',
      points: config.EMAIL_CODE_GUESSES_PER_DAY,
      seconds: 24 * HOUR,
    },
    resetsPerAddress: {
      name: 'auth:reset:address',
      points: config.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR,
      seconds: HOUR,
    },
    resetsPerIp: {
      name: 'auth:reset:ip',
      points: config.PASSWORD_RESETS_PER_IP_PER_HOUR,
      seconds: HOUR,
    },
    loginFailures: {
      name: 'auth:login-fail',
      points: config.LOGIN_FAILURES_PER_15_MINUTES,
      seconds: 15 * 60,
    },
    signupsPerIp: { name: 'auth:signup:ip', points: config.SIGNUPS_PER_IP_PER_HOUR, seconds: HOUR },
  };
}

/** 429 + Retry-After, `detail: {code: "rate_limited"}`. */
export function rateLimited(message: string, retryAfter?: number): GraphQLError {
  return appError('RATE_LIMITED', message, { detail: { code: 'rate_limited' }, retryAfter });
}

/** Counts one event under `rule` for `key`; RATE_LIMITED once the rule's events are spent. */
export async function spend(
  ctx: Context,
  rule: LimitRule,
  key: string,
  message: string,
): Promise<void> {
  const decision = await ctx.limits.take(rule, key);
  if (!decision.allowed) throw rateLimited(message, decision.retryAfterSeconds);
}

/**
 * Counts a mailing request once per client IP and once per address (the IP first, so one client
 * cannot spend another's address allowance); RATE_LIMITED when either is spent.
 */
export async function spendIpAndAddress(
  ctx: Context,
  rule: { perIp: LimitRule; perAddress: LimitRule },
  email: string,
  message: string,
): Promise<void> {
  await spend(ctx, rule.perIp, clientIp(ctx), message);
  await spend(ctx, rule.perAddress, email, message);
}

/** The client's IP as a limit key ('unknown' when there is none). */
export function clientIp(ctx: Context): string {
  return ctx.ip ?? 'unknown';
}
