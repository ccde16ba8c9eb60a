/**
 * Whether the credential a principal was resolved from is still live, asked again inside a
 * transaction: the request was authenticated earlier, and a change committed since (sign-out
 * everywhere, account deletion) may have ended it. A change that must happen once per account
 * locks the account's row, then asks this, so a second request racing the first finds its
 * credential ended and answers what an ended credential gets (401), not a half-done change.
 *
 * NOTE: the same rules as src/auth/authenticate.ts, restricted to what a revocation changes: a
 * session's row unrevoked and its epoch still the account's; a personal token unrevoked; an OAuth
 * access token and its connection unrevoked.
 */
import type { DbTx } from '../db/client.ts';
import type { Principal } from './principal.ts';

/** Whether `principal`'s credential is unrevoked now, read in `tx`. */
export async function credentialStillLive(tx: DbTx, principal: Principal): Promise<boolean> {
  switch (principal.kind) {
    case 'session': {
      const session = await tx.session.findUnique({
        where: { id: principal.sessionId },
        select: { epoch: true, revokedAt: true, user: { select: { sessionEpoch: true } } },
      });
      return !!session && !session.revokedAt && session.epoch === session.user.sessionEpoch;
    }
    case 'personal_token':
      return (
        (await tx.personalToken.count({ where: { id: principal.tokenId, revokedAt: null } })) > 0
      );
    case 'oauth':
      return (
        (await tx.oAuthToken.count({
          where: { id: principal.tokenId, revokedAt: null, connection: { revokedAt: null } },
        })) > 0
      );
  }
}
