/**
 * Who reads a person's DNA, and how much of it leaves over an assistant's connection (issue 34).
 * Every DNA service (the upload, the report, genes, variants, medicines, HLA, deletion) asks here
 * instead of deciding itself, so the rules hold on every door (GraphQL, REST, both MCP doors):
 *
 * - DNA is never read through an access grant: a credential viewing another person's data
 *   (`principal.viewAs`) is refused, whatever the grant covers (`dnaOwnerOf`).
 * - Over OAuth (an assistant's connection, spec "Authentication 8": findings and lookups, never the
 *   whole genome) an answer carries at most OAUTH_GENOTYPES_PER_ANSWER genotypes, and a connection
 *   at most OAUTH_GENOTYPES_PER_DAY in a UTC day (`chargeGenotypes`). Login sessions and personal
 *   tokens are the person's own door and are not counted.
 * - A person uploads at most DNA_UPLOADS_PER_DAY genomes in a UTC day (`chargeGenomeUpload`): each
 *   upload is read, parsed and sealed whole (issue 45).
 *
 * It must never let a service read a genome for anyone but the credential's own person.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { spendLimit } from '../../platform/limits.ts';
import type { LimitRule } from '../../platform/limits.ts';

/** At most this many of the person's genotypes in one answer over OAuth. */
export const OAUTH_GENOTYPES_PER_ANSWER = 50;
/** At most this many of the person's genotypes per UTC day per OAuth connection. */
export const OAUTH_GENOTYPES_PER_DAY = 500;

const GENOTYPE_RULE: LimitRule = {
  name: 'dna:oauth-genotypes',
  points: OAUTH_GENOTYPES_PER_DAY,
  seconds: 'utc-day',
};

/** What a credential viewing another person's data is told. */
export const DNA_NOT_SHARED =
  "DNA is not shared through access grants: a grantee never reads another person's DNA. " +
  'Switch back to your own data to read yours.';

/**
 * The person whose DNA the request reads or changes: the credential's own person. Throws FORBIDDEN
 * while the credential views another person's data through an access grant.
 */
export function dnaOwnerOf(ctx: AuthedContext): number {
  // NOTE: never readerUserId(ctx): view-as must not reach a genome, not even read-only
  if (ctx.principal.viewAs) throw appError('FORBIDDEN', DNA_NOT_SHARED);
  return ctx.principal.userId;
}

/**
 * Counts one genome upload of the credential's person against DNA_UPLOADS_PER_DAY (a UTC day);
 * RATE_LIMITED (429 with Retry-After) once the day's uploads are spent. Call it before the file is read.
 */
export async function chargeGenomeUpload(ctx: AuthedContext): Promise<void> {
  const perDay = ctx.config.DNA_UPLOADS_PER_DAY;
  const rule: LimitRule = { name: 'dna:uploads', points: perDay, seconds: 'utc-day' };
  await spendLimit(
    ctx.limits,
    rule,
    String(ctx.principal.userId),
    `At most ${perDay} genome uploads a day (UTC); try again tomorrow. The genome you have stays as it is.`,
  );
}

/** Whether the request comes over an assistant's OAuth connection (findings and lookups only). */
export function isOAuth(ctx: AuthedContext): boolean {
  return ctx.principal.kind === 'oauth';
}

/**
 * How many genotypes one answer may carry for this credential: OAUTH_GENOTYPES_PER_ANSWER over
 * OAuth, no bound otherwise.
 */
export function genotypesPerAnswer(ctx: AuthedContext): number {
  return isOAuth(ctx) ? OAUTH_GENOTYPES_PER_ANSWER : Number.POSITIVE_INFINITY;
}

/**
 * Counts `n` genotypes an answer is about to carry against the OAuth connection's daily budget
 * (nothing for other credentials). Throws RATE_LIMITED (429) when they do not fit in what is left
 * of the UTC day, counting nothing then, so a smaller request still fits. Call it before the answer
 * is built, with at most OAUTH_GENOTYPES_PER_ANSWER (more is a bug of the caller, a 500).
 */
export async function chargeGenotypes(ctx: AuthedContext, n: number): Promise<void> {
  const { principal } = ctx;
  if (principal.kind !== 'oauth' || n <= 0) return;
  if (n > OAUTH_GENOTYPES_PER_ANSWER) {
    throw new Error(
      `a DNA answer over OAuth may carry ${OAUTH_GENOTYPES_PER_ANSWER} genotypes, not ${n}`,
    );
  }
  // NOTE: counted per connection (what the person approved), not per access token (rotates hourly)
  const key = String(principal.connectionId);
  const left = await ctx.limits.peek(GENOTYPE_RULE, key);
  if (n > left.remaining) throw overBudget(n, left.remaining, left.resetAt, left.retryAfterSeconds);
  const taken = await ctx.limits.take(GENOTYPE_RULE, key, n);
  if (!taken.allowed) throw overBudget(n, 0, taken.resetAt, taken.retryAfterSeconds);
}

function overBudget(n: number, left: number, resetAt: Date, retryAfter: number) {
  return appError(
    'RATE_LIMITED',
    `An assistant's connection reads at most ${OAUTH_GENOTYPES_PER_DAY} genotypes a day ` +
      `(UTC); ${left} ${left === 1 ? 'is' : 'are'} left today and this answer needs ${n}. ` +
      `The count resets at ${resetAt.toISOString()}. Ask for fewer rsIDs, wait until then, ` +
      'or have the person read their DNA in the app.',
    {
      detail: {
        code: 'dna_genotypes_per_day',
        limit: OAUTH_GENOTYPES_PER_DAY,
        remaining: left,
        reset_at: resetAt.toISOString(),
      },
      retryAfter,
    },
  );
}
