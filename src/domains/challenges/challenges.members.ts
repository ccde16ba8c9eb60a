/**
 * Who takes part: the daily goal fixed for a person (at least the metric's floor), and a circle
 * challenge's participants kept equal to the circle's current members (community's
 * circleMembers, never its tables): each member is invited and takes part once they accept.
 */
import { circleMembers } from '../community/index.ts';
import { dailyTargetsOf } from '../goals/index.ts';
import type { GoalMetric } from '../goals/index.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { ChallengeMetric } from './challenges.rules.ts';
import { flooredGoal } from './challenges.rules.ts';
import type { ChallengeRow } from './challenges.views.ts';
import { cardsOf, isOpen, statusOf } from './challenges.views.ts';
import { clock } from '../../base/clock.ts';

/** The participant rows in a stable order (joining, then id). */
export const PARTICIPANTS = {
  participants: { orderBy: [{ invitedAt: 'asc' as const }, { userId: 'asc' as const }] },
};

/** A challenge with its participants, or null. */
export function findChallenge(db: Db | DbTx, id: string): Promise<ChallengeRow | null> {
  return db.challenge.findUnique({ where: { id }, include: PARTICIPANTS });
}

/**
 * Each person's daily goal for the metric as it is now (their active daily at_least goal, else the
 * default of README.md), raised to the metric's floor (issue 47); a habit has no goal (1: one
 * check-in).
 */
export async function goalsNow(
  db: Db | DbTx,
  userIds: number[],
  metric: ChallengeMetric,
): Promise<Map<number, number>> {
  if (metric === 'habit') return new Map(userIds.map((id) => [id, 1]));
  const set = await dailyTargetsOf(db, userIds, metric as GoalMetric);
  return new Map(userIds.map((id) => [id, flooredGoal(metric, set.get(id))]));
}

/**
 * A circle challenge's participants made equal to the circle's current members while it is open:
 * a member who left is removed (gone from the standings), a newcomer is invited (their goal read
 * now, kept if they accept after the start). A finished, ended or cancelled challenge keeps its
 * participants. Answers the row as it is.
 *
 * NOTE: privacy. Nobody is enrolled here: a member takes part only by accepting (issue 47).
 */
export async function syncCircleParticipants(
  db: Db | DbTx,
  row: ChallengeRow,
): Promise<ChallengeRow> {
  if (!row.circleId || !isOpen(statusOf(row, await cardsOf(db, [row])))) return row;
  const members = new Set((await circleMembers(db, row.circleId)).map((m) => m.userId));
  const current = new Set(row.participants.map((p) => p.userId));
  const gone = [...current].filter((id) => !members.has(id));
  const added = [...members].filter((id) => !current.has(id));
  if (!gone.length && !added.length) return row;
  if (gone.length)
    await db.challengeParticipant.deleteMany({
      where: { challengeId: row.id, userId: { in: gone } },
    });
  if (added.length) {
    const goals = await goalsNow(db, added, row.metric as ChallengeMetric);
    const now = clock.now();
    await db.challengeParticipant.createMany({
      data: added.map((userId) => ({
        challengeId: row.id,
        userId,
        status: 'invited',
        invitedAt: now,
        goalTarget: goals.get(userId) ?? null,
      })),
      skipDuplicates: true,
    });
  }
  return (await findChallenge(db, row.id)) ?? row;
}
