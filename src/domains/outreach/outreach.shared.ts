/**
 * What the outreach files share: the `{ok: true}` answer, the limits (per address and per client IP,
 * from config) with their 429, the emailed tokens (only their sha256 is stored) and link building.
 */
import { newResetToken, sha256 } from '../../auth/credentials.ts';
import type { Config } from '../../base/config.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { clock } from '../../base/clock.ts';

/** The outcome of the `{ok: true}` operations of this domain. */
export interface Ack {
  ok: true;
}

/** The one `{ok: true}` answer. */
export const ACK: Ack = { ok: true };

const HOUR = 3600;

/** The limits of this domain, from config (documented in .env.example). */
export function rules(config: Config): Record<'perAddress' | 'perIp' | 'confirmsPerIp', LimitRule> {
  return {
    perAddress: {
      name: 'outreach:address',
      points: config.OUTREACH_REQUESTS_PER_ADDRESS_PER_HOUR,
      seconds: HOUR,
    },
    perIp: { name: 'outreach:ip', points: config.OUTREACH_REQUESTS_PER_IP_PER_HOUR, seconds: HOUR },
    confirmsPerIp: {
      name: 'outreach:confirm:ip',
      points: config.OUTREACH_CONFIRMS_PER_IP_PER_HOUR,
      seconds: HOUR,
    },
  };
}

/** Counts one event for `key` under `rule`; 429 + Retry-After (`detail.code: rate_limited`) once spent. */
export async function spend(ctx: Context, rule: LimitRule, key: string): Promise<void> {
  const decision = await ctx.limits.take(rule, key);
  if (!decision.allowed)
    throw appError('RATE_LIMITED', 'Too many requests; try again later', {
      detail: { code: 'rate_limited' },
      retryAfter: decision.retryAfterSeconds,
    });
}

/**
 * Counts an unauthenticated mailing request once per client IP and once per address (the IP
 * first, so one client cannot spend another's address allowance), whether or not the address is known.
 */
export async function spendIpAndAddress(ctx: Context, email: string): Promise<void> {
  const limits = rules(ctx.config);
  await spend(ctx, limits.perIp, clientIp(ctx));
  await spend(ctx, limits.perAddress, email);
}

/** The client's IP as a limit key ('unknown' when there is none). */
export function clientIp(ctx: Context): string {
  return ctx.ip ?? 'unknown';
}

/** A new emailed token, its sha256 (the only form stored) and its expiry. */
export function newConfirmationToken(config: Config): {
  token: string;
  tokenHash: string;
  tokenExpiresAt: Date;
} {
  const token = newResetToken();
  return {
    token,
    tokenHash: sha256(token),
    tokenExpiresAt: new Date(clock.ms() + config.OUTREACH_CONFIRM_TTL_HOURS * HOUR * 1000),
  };
}

/** An absolute link to one of the web pages (PUBLIC_URL, else the bound host and port). */
export function pageLink(config: Config, pagePath: string, token: string): string {
  const base = (config.PUBLIC_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/$/, '');
  return `${base}${pagePath}?token=${token}`;
}

/** Runs `work` after the answer is sent (never awaited, so timing tells nothing about the address). */
export function inBackground(ctx: Context, what: string, work: () => Promise<void>): void {
  setImmediate(() => {
    work().catch((err: unknown) => ctx.log.error({ err }, `${what} failed`));
  });
}
