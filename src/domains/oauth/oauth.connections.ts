/**
 * OAuth connections of the MCP host (docs/mcp-oauth.md sections 4 and 9): what a person approved
 * for one client, listed and disconnected under "Connected apps". Ending a connection ends every
 * token of it at once: src/auth/authenticate.ts checks the connection on every request, so its
 * tokens need no update of their own (a disconnect marks them revoked too, for the record).
 */
import type { DbTx } from '../../db/client.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

/** Why a connection ended (the `revoked_reason` column). */
export type ConnectionRevokedReason =
  | 'user'
  | 'revoke_all'
  | 'client'
  | 'code_replay'
  | 'refresh_reuse';

export interface RevokeAllOAuthConnectionsOptions {
  /** the account whose connections end */
  userId: number;
  /** the revocation time written to revoked_at (the same instant as the rest of the revocation) */
  at: Date;
}

/**
 * Revokes every OAuth connection of an account that is not revoked yet (reason `revoke_all`),
 * inside the caller's transaction; answers how many. One part of revokeAllCredentials
 * (src/domains/account/account.sessions.ts): call that, not this, to sign an account out everywhere.
 */
export async function revokeAllOAuthConnections(
  tx: DbTx,
  options: RevokeAllOAuthConnectionsOptions,
): Promise<number> {
  // NOTE: expired connections are revoked too, so no connection of the account stays unrevoked.
  const reason: ConnectionRevokedReason = 'revoke_all';
  const { count } = await tx.oAuthConnection.updateMany({
    where: { userId: options.userId, revokedAt: null },
    data: { revokedAt: options.at, revokedReason: reason },
  });
  return count;
}

/** A connection as "Connected apps" shows it. */
export interface ConnectedAppView {
  id: number;
  clientId: string;
  clientName: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
}

const viewSelect = {
  id: true,
  clientId: true,
  clientName: true,
  scopes: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
} as const;

/** The caller's live connections (not revoked, not expired), newest first. */
export function connectedApps(ctx: AuthedContext): Promise<ConnectedAppView[]> {
  return ctx.prisma.oAuthConnection.findMany({
    select: viewSelect,
    where: { userId: ctx.principal.userId, revokedAt: null, expiresAt: { gt: clock.now() } },
    orderBy: { id: 'desc' },
  });
}

export interface DisconnectConnectedAppOptions {
  /** id of one of the caller's connections */
  id: number;
}

/**
 * Ends one of the caller's connections (reason `user`) and its tokens in one transaction; the next
 * request with one of its tokens is 401. Another person's id, an unknown or an already revoked one
 * answers NOT_FOUND.
 */
export async function disconnectConnectedApp(
  ctx: AuthedContext,
  options: DisconnectConnectedAppOptions,
): Promise<ConnectedAppView> {
  const reason: ConnectionRevokedReason = 'user';
  const at = clock.now();
  // NOTE: ownership is part of the filter, so another person's connection is indistinguishable from none.
  const where = { id: options.id, userId: ctx.principal.userId, revokedAt: null };
  return ctx.prisma.$transaction(async (tx) => {
    const { count } = await tx.oAuthConnection.updateMany({
      where,
      data: { revokedAt: at, revokedReason: reason },
    });
    if (count === 0) throw appError('NOT_FOUND', 'Connected app not found');
    await tx.oAuthToken.updateMany({
      where: { connectionId: options.id, revokedAt: null },
      data: { revokedAt: at },
    });
    return tx.oAuthConnection.findUniqueOrThrow({ select: viewSelect, where: { id: options.id } });
  });
}
