/**
 * A circle's challenge (community_challenge_set / _end): the circle's owner (its longest-standing
 * member, community's circleOwnerId) sets one and may end it early; the owner takes part, every
 * other current member is invited and takes part once they accept (challenges_challenge_accept,
 * as in a friends challenge; issue 47). At most one is open (upcoming or running) per circle: a
 * second answers 409.
 *
 * NOTE: authorisation. A non-member answers 404 (the circle's existence is not told), a member
 * who is not the owner 403. Two concurrent sets of one circle serialise on an advisory lock.
 */
import { circleMembers, circleOwnerId, isCircleMember } from '../community/index.ts';
import { appError } from '../../base/errors.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { goalsNow, PARTICIPANTS } from './challenges.members.ts';
import type { ChallengeDefinition } from './challenges.service.ts';
import { definitionFor, notifyInvitees } from './challenges.service.ts';
import type { ChallengeDetailView, ChallengeRow } from './challenges.views.ts';
import { cardsOf, detailOf, isOpen, statusOf } from './challenges.views.ts';
import { clock } from '../../base/clock.ts';

export interface SetCircleChallengeOptions extends ChallengeDefinition {
  /** the circle (the caller must be its owner) */
  circleId: string;
}

export interface EndCircleChallengeOptions {
  /** the circle whose open challenge ends now */
  circleId: string;
}

/** The caller owns the circle: else 404 (not a member) or 403 (a member). */
async function assertOwner(ctx: AuthedContext, circleId: string): Promise<void> {
  const me = ctx.principal.userId;
  if (!(await isCircleMember(ctx.prisma, circleId, me)))
    throw appError('NOT_FOUND', 'Circle not found: community_circles_read lists your circles');
  if ((await circleOwnerId(ctx.prisma, circleId)) !== me)
    throw appError('FORBIDDEN', "Only the circle's owner sets or ends its challenge", {
      detail: { code: 'not_the_owner' },
    });
}

/** The circle's open challenge (upcoming or running), or null. */
async function openChallengeOf(db: Db | DbTx, circleId: string): Promise<ChallengeRow | null> {
  const rows = await db.challenge.findMany({
    where: { circleId, cancelledAt: null, endedAt: null },
    include: PARTICIPANTS,
  });
  const cards = await cardsOf(db, rows);
  return rows.find((r) => isOpen(statusOf(r, cards))) ?? null;
}

/**
 * Sets the circle's challenge: the owner takes part, the other members are invited (each goal
 * read now, floored) and told.
 */
export async function setCircleChallenge(
  ctx: AuthedContext,
  options: SetCircleChallengeOptions,
): Promise<ChallengeDetailView> {
  const me = ctx.principal.userId;
  await assertOwner(ctx, options.circleId);
  const { scoring, startDate } = await definitionFor(ctx, options);
  const row = await ctx.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(3232, hashtext(${options.circleId}))`;
    const open = await openChallengeOf(tx, options.circleId);
    if (open)
      throw appError('CONFLICT', 'This circle already has a running challenge: end it first', {
        detail: { code: 'challenge_running', challenge_id: open.id },
      });
    const members = (await circleMembers(tx, options.circleId)).map((m) => m.userId);
    const goals = await goalsNow(tx, members, options.metric);
    const now = clock.now();
    return tx.challenge.create({
      data: {
        creatorId: me,
        circleId: options.circleId,
        title: options.title,
        metric: options.metric,
        scoring,
        habit: options.metric === 'habit' ? (options.habit ?? null) : null,
        startDate,
        days: options.days,
        participants: {
          create: members.map((userId) => ({
            userId,
            status: userId === me ? 'accepted' : 'invited',
            invitedAt: now,
            respondedAt: userId === me ? now : null,
            goalTarget: goals.get(userId) ?? null,
          })),
        },
      },
      include: PARTICIPANTS,
    });
  });
  await notifyInvitees(
    ctx,
    row,
    row.participants.filter((p) => p.userId !== me).map((p) => p.userId),
  );
  return detailOf(ctx.prisma, row, me);
}

/** The owner ends the circle's open challenge now: the standings freeze, the leaders win. */
export async function endCircleChallenge(
  ctx: AuthedContext,
  options: EndCircleChallengeOptions,
): Promise<ChallengeDetailView> {
  await assertOwner(ctx, options.circleId);
  const open = await openChallengeOf(ctx.prisma, options.circleId);
  if (!open)
    throw appError('NOT_FOUND', 'This circle has no running challenge', {
      detail: { code: 'no_running_challenge' },
    });
  const ended = await ctx.prisma.challenge.update({
    where: { id: open.id },
    data: { endedAt: clock.now() },
    include: PARTICIPANTS,
  });
  return detailOf(ctx.prisma, ended, ctx.principal.userId);
}
