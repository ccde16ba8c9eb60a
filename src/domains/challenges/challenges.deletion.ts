/**
 * What account deletion asks of challenges: the deleted person stays counted as "a former
 * member" (without points, never a winner) in every challenge they had accepted.
 */
import type { DbTx } from '../../db/client.ts';
import { onAccountDeletion } from '../account/index.ts';

/**
 * Counts a person whose account is being deleted as a former member of every challenge they
 * accepted that is not cancelled, and forgets them as creator. Run inside the deletion's
 * transaction, before their rows go (their participant rows and check-ins cascade).
 */
export async function recordFormerParticipant(tx: DbTx, userId: number): Promise<void> {
  const rows = await tx.challengeParticipant.findMany({
    where: { userId, status: 'accepted', challenge: { cancelledAt: null } },
    select: { challengeId: true },
  });
  if (rows.length) {
    await tx.challenge.updateMany({
      where: { id: { in: rows.map((r) => r.challengeId) } },
      data: { formerMembers: { increment: 1 } },
    });
  }
  await tx.challenge.updateMany({ where: { creatorId: userId }, data: { creatorId: null } });
}

onAccountDeletion('challenges: former participants', recordFormerParticipant);
