/**
 * OAuth connections of the MCP host (docs/mcp-oauth.md sections 4 and 9): what a person approved
 * for one client. Ending a connection ends every token of it at once: src/auth/authenticate.ts
 * checks the connection on every request, so its tokens need no update of their own.
 */
import type { DbTx } from '../../db/client.ts';

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
