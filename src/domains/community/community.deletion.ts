/**
 * What account deletion asks of community: a circle whose only member is the person ends with
 * them (an empty circle ends, as when its last member leaves). Their memberships, nudges and mutes
 * go with the account's other rows; the circles they shared with others go on without them.
 */
import type { DbTx } from '../../db/client.ts';
import { onAccountDeletion } from '../account/index.ts';

/** Deletes the circles whose only member is the person (with their challenges). */
export async function endCirclesLeftEmpty(tx: DbTx, userId: number): Promise<void> {
  await tx.communityCircle.deleteMany({
    where: { members: { some: { userId }, every: { userId } } },
  });
}

onAccountDeletion('community: circles left empty', endCirclesLeftEmpty);
