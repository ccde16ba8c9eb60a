/**
 * Personal access tokens for the read API and the MCP server. The secret is shown once at
 * creation; only its sha256 is stored. Tokens are created only from a native (phone) login:
 * that rule is declared on the GraphQL field (authScopes nativeSession). Revoke-all and a password
 * reset end every token of the account (revokeAllPersonalTokens, via revokeAllCredentials).
 */
import { newPersonalTokenSecret, PERSONAL_TOKEN_PREFIX, sha256 } from '../../auth/credentials.ts';
import type { Scope } from '../../auth/scopes.ts';
import type { DbTx } from '../../db/client.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

/** At most this many live tokens per account, so a leaked session cannot mint without bound. */
export const MAX_TOKENS_PER_USER = 50;

export interface CreatePersonalTokenOptions {
  /** the person's label, e.g. "Claude on my laptop" */
  name: string;
  /** scopes the token will hold (already checked against the catalogue) */
  scopes: Scope[];
  /** optional expiry (the schema checks it is in the future) */
  expiresAt?: Date | null;
}

export interface PersonalTokenView {
  id: number;
  name: string;
  scopes: string[];
  hint: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export interface CreatedPersonalToken extends PersonalTokenView {
  /** the secret; returned only here, never stored or shown again */
  token: string;
}

const viewSelect = {
  id: true,
  name: true,
  scopes: true,
  hint: true,
  expiresAt: true,
  lastUsedAt: true,
  createdAt: true,
} as const;

/** Creates a token for the caller and returns its secret once. */
export async function createPersonalToken(
  ctx: AuthedContext,
  options: CreatePersonalTokenOptions,
): Promise<CreatedPersonalToken> {
  const live = await ctx.prisma.personalToken.count({
    where: { userId: ctx.principal.userId, revokedAt: null },
  });
  if (live >= MAX_TOKENS_PER_USER)
    throw appError('CONFLICT', `At most ${MAX_TOKENS_PER_USER} active tokens per account`);
  const token = newPersonalTokenSecret();
  const row = await ctx.prisma.personalToken.create({
    select: viewSelect,
    data: {
      userId: ctx.principal.userId,
      name: options.name,
      scopes: [...new Set(options.scopes)].sort(),
      tokenHash: sha256(token),
      hint: token.slice(0, PERSONAL_TOKEN_PREFIX.length + 4),
      expiresAt: options.expiresAt ?? null,
    },
  });
  return { ...row, token };
}

/** The caller's tokens that are not revoked, newest first (expired ones included, marked by expiresAt). */
export function personalTokens(ctx: AuthedContext): Promise<PersonalTokenView[]> {
  return ctx.prisma.personalToken.findMany({
    select: viewSelect,
    where: { userId: ctx.principal.userId, revokedAt: null },
    orderBy: { id: 'desc' },
  });
}

export interface RevokePersonalTokenOptions {
  /** id of one of the caller's tokens */
  id: number;
}

/** Revokes one of the caller's tokens; another user's id answers 404 like a missing one. */
export async function revokePersonalToken(
  ctx: AuthedContext,
  options: RevokePersonalTokenOptions,
): Promise<PersonalTokenView> {
  // NOTE: ownership is part of the filter, so another user's token is indistinguishable from none.
  const { count } = await ctx.prisma.personalToken.updateMany({
    where: { id: options.id, userId: ctx.principal.userId, revokedAt: null },
    data: { revokedAt: clock.now() },
  });
  if (count === 0) throw appError('NOT_FOUND', 'Token not found');
  await ctx.credentials.revoked(ctx.principal.userId);
  return ctx.prisma.personalToken.findUniqueOrThrow({
    select: viewSelect,
    where: { id: options.id },
  });
}

export interface RevokeAllPersonalTokensOptions {
  /** the account whose tokens end */
  userId: number;
  /** the revocation time written to revoked_at (the same instant as the rest of the revocation) */
  at: Date;
}

/**
 * Revokes every personal token of an account that is not revoked yet, inside the caller's
 * transaction; answers how many. One part of revokeAllCredentials
 * (src/domains/account/account.sessions.ts): call that, not this, to sign an account out everywhere.
 */
export async function revokeAllPersonalTokens(
  tx: DbTx,
  options: RevokeAllPersonalTokensOptions,
): Promise<number> {
  // NOTE: expired tokens are revoked too, so no row of the account stays unrevoked.
  const { count } = await tx.personalToken.updateMany({
    where: { userId: options.userId, revokedAt: null },
    data: { revokedAt: options.at },
  });
  return count;
}
