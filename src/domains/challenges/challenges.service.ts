/**
 * Challenges between friends (people who share a circle): create with invitations, accept,
 * decline (a circle's challenge too: its members take part only by accepting), cancel, check in
 * (habit), list and read with standings (README.md has the rules).
 *
 * NOTE: ownership. Every write is by the caller's own id (ctx.principal.userId): a person accepts,
 * declines or checks in only their own participation, and only the creator cancels. A challenge
 * the caller has no part in answers 404, whatever its id.
 */
import { circleMembers, circlesOf, friendIds } from '../community/index.ts';
import { notifyPerson } from '../notifications/index.ts';
import { peopleCards, personZone } from '../profile/index.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, dayBounds, localDateOf } from '../../platform/local-dates.ts';
import {
  findChallenge,
  goalsNow,
  PARTICIPANTS,
  syncCircleParticipants,
} from './challenges.members.ts';
import type { ChallengeMetric, ChallengeScoring } from './challenges.rules.ts';
import { START_MAX_DAYS_AHEAD } from './challenges.rules.ts';
import type { ChallengeDetailView, ChallengeRow, ChallengeView } from './challenges.views.ts';
import {
  cardsOf,
  detailOf,
  lastDateOf,
  participantStatus,
  statusOf,
  viewOf,
} from './challenges.views.ts';
import { clock } from '../../base/clock.ts';

/** What defines a challenge (friends or circle). */
export interface ChallengeDefinition {
  /** a short title */
  title: string;
  /** what counts (CHALLENGE_METRICS) */
  metric: ChallengeMetric;
  /** how points are made (default: goal_percent; checkins for a habit) */
  scoring?: ChallengeScoring | null;
  /** what a habit challenge checks in (habit only) */
  habit?: string | null;
  /** the first local day, today..today+30 (default: tomorrow) */
  startDate?: string | null;
  /** 1..31 days */
  days: number;
}

export interface CreateChallengeOptions extends ChallengeDefinition {
  /** the friends invited (1..20 user ids, each sharing a circle with the caller) */
  invitees: number[];
}

export interface ChallengeIdOptions {
  /** the challenge's id */
  challengeId: string;
}

export interface CheckinChallengeOptions extends ChallengeIdOptions {
  /** the local day checked in (default: the caller's today); within the challenge, not in the future */
  date?: string | null;
}

export interface FriendView {
  userId: number;
  name: string | null;
  /** the circles the caller shares with this friend */
  circles: { id: string; name: string }[];
}

/** Most challenges one list answers (newest first). */
export const CHALLENGES_LIST_MAX = 200;

const notFound = () =>
  appError('NOT_FOUND', 'Challenge not found: challenges_list lists the challenges you are in');
const conflict = (message: string, code: string) =>
  appError('CONFLICT', message, { detail: { code } });

/** The definition's scoring and start date, checked against the caller's today. */
export async function definitionFor(
  ctx: AuthedContext,
  def: ChallengeDefinition,
): Promise<{ scoring: ChallengeScoring; startDate: string }> {
  const today = localDateOf(clock.now(), await personZone(ctx));
  const startDate = def.startDate ?? addDays(today, 1);
  if (startDate < today || startDate > addDays(today, START_MAX_DAYS_AHEAD)) {
    throw validationError([
      {
        loc: ['input', 'startDate'],
        msg: `start_date is ${today}..${addDays(today, START_MAX_DAYS_AHEAD)} (your today and up to ${START_MAX_DAYS_AHEAD} days ahead)`,
        type: 'value_error',
      },
    ]);
  }
  return {
    scoring: def.scoring ?? (def.metric === 'habit' ? 'checkins' : 'goal_percent'),
    startDate,
  };
}

/** The challenge the caller has a part in (a circle's synced with its members first); else 404. */
export async function challengeForCaller(
  ctx: AuthedContext,
  challengeId: string,
): Promise<ChallengeRow> {
  let row = await findChallenge(ctx.prisma, challengeId);
  if (row?.circleId) row = await syncCircleParticipants(ctx.prisma, row);
  if (!row || !row.participants.some((p) => p.userId === ctx.principal.userId)) throw notFound();
  return row;
}

/** Refuses invitees who are not the caller's friends: 404 naming the first such id. */
async function checkInvitees(ctx: AuthedContext, invitees: number[]): Promise<void> {
  const me = ctx.principal.userId;
  if (invitees.includes(me)) {
    throw validationError([
      {
        loc: ['input', 'invitees'],
        msg: 'you take part as the creator: invite others',
        type: 'value_error',
      },
    ]);
  }
  const friends = new Set(await friendIds(ctx.prisma, me));
  const stranger = invitees.find((id) => !friends.has(id));
  if (stranger !== undefined) {
    throw appError(
      'NOT_FOUND',
      `No friend with user id ${stranger}: challenges_friends_read lists them`,
      {
        detail: { code: 'not_a_friend', user_id: stranger },
      },
    );
  }
}

/** Tells each invitee (inbox and push as their settings allow); a failed send fails nothing. */
export async function notifyInvitees(
  ctx: AuthedContext,
  row: ChallengeRow,
  invitees: number[],
): Promise<void> {
  const me = (await peopleCards(ctx.prisma, [ctx.principal.userId])).get(ctx.principal.userId);
  for (const userId of invitees) {
    await notifyPerson(ctx, {
      userId,
      category: 'community',
      title: 'Challenge invitation',
      body: `${me?.name ?? 'A friend'} invites you to "${row.title}" from ${row.startDate}: accept within 48 hours.`,
      link: null,
    }).catch((err: unknown) => ctx.log.warn({ err }, 'challenge invitation not delivered'));
  }
}

/**
 * Creates a friends challenge: the caller takes part (goal fixed now), the invitees are invited
 * (each goal read now: it is the one scored if they accept after the start).
 */
export async function createChallenge(
  ctx: AuthedContext,
  options: CreateChallengeOptions,
): Promise<ChallengeDetailView> {
  const me = ctx.principal.userId;
  const invitees = [...new Set(options.invitees)];
  await checkInvitees(ctx, invitees);
  const { scoring, startDate } = await definitionFor(ctx, options);
  const goals = await goalsNow(ctx.prisma, [me, ...invitees], options.metric);
  const goal = goals.get(me) ?? null;
  const now = clock.now();
  const row = await ctx.prisma.challenge.create({
    data: {
      creatorId: me,
      title: options.title,
      metric: options.metric,
      scoring,
      habit: options.metric === 'habit' ? (options.habit ?? null) : null,
      startDate,
      days: options.days,
      participants: {
        create: [
          { userId: me, status: 'accepted', invitedAt: now, respondedAt: now, goalTarget: goal },
          ...invitees.map((userId) => ({
            userId,
            status: 'invited',
            invitedAt: now,
            goalTarget: goals.get(userId) ?? null,
          })),
        ],
      },
    },
    include: PARTICIPANTS,
  });
  await notifyInvitees(ctx, row, invitees);
  return detailOf(ctx.prisma, row, me);
}

/**
 * The caller's participant row and the challenge's status; a circle's challenge only where
 * `circle` allows it (it is accepted and declined like a friends one, never cancelled): else 409.
 */
async function openInvitation(ctx: AuthedContext, challengeId: string, circle: boolean) {
  const row = await challengeForCaller(ctx, challengeId);
  if (row.circleId && !circle)
    throw conflict(
      "A circle's challenge is not cancelled: its owner ends it (community_challenge_end)",
      'circle_challenge',
    );
  const cards = await cardsOf(ctx.prisma, [row]);
  const status = statusOf(row, cards);
  const mine = row.participants.find((p) => p.userId === ctx.principal.userId)!;
  const zone = cards.get(mine.userId)?.timezone ?? 'UTC';
  const startedForMe = clock.now() >= dayBounds(row.startDate, zone).start;
  return { row, mine, status, startedForMe };
}

/**
 * Accepts the caller's invitation (within 48 hours; a circle's challenge too): before the start
 * (in the caller's zone) their daily goal is read now; after it, the goal read at the invitation
 * stays, so a goal changed after the start changes nothing (issue 47).
 */
export async function acceptChallenge(
  ctx: AuthedContext,
  options: ChallengeIdOptions,
): Promise<ChallengeDetailView> {
  const me = ctx.principal.userId;
  const { row, mine, status, startedForMe } = await openInvitation(ctx, options.challengeId, true);
  const now = clock.now();
  const mineNow = participantStatus(mine, now);
  if (mineNow === 'accepted') return detailOf(ctx.prisma, row, me);
  if (status !== 'upcoming' && status !== 'running')
    throw conflict(`This challenge is ${status}: it takes no one any more`, `challenge_${status}`);
  if (mineNow === 'expired')
    throw conflict('The invitation expired (48 hours): ask for a new one', 'invitation_expired');
  if (mineNow === 'declined') throw conflict('You declined this invitation', 'invitation_declined');
  const goal =
    startedForMe && mine.goalTarget !== null
      ? mine.goalTarget
      : ((await goalsNow(ctx.prisma, [me], row.metric as ChallengeMetric)).get(me) ?? null);
  const cutoff = new Date(now.getTime() - 48 * 3_600_000);
  const done = await ctx.prisma.challengeParticipant.updateMany({
    where: { challengeId: row.id, userId: me, status: 'invited', invitedAt: { gt: cutoff } },
    data: { status: 'accepted', respondedAt: now, goalTarget: goal },
  });
  if (!done.count) throw conflict('The invitation is no longer open', 'invitation_closed');
  return detailOf(ctx.prisma, (await findChallenge(ctx.prisma, row.id))!, me);
}

/** Declines the caller's invitation (also an expired one); declining twice is once. */
export async function declineChallenge(
  ctx: AuthedContext,
  options: ChallengeIdOptions,
): Promise<ChallengeDetailView> {
  const me = ctx.principal.userId;
  const { row, mine } = await openInvitation(ctx, options.challengeId, true);
  if (mine.status === 'accepted')
    throw conflict(
      row.creatorId !== me
        ? 'You already accepted this challenge'
        : row.circleId
          ? "You set this circle's challenge: community_challenge_end ends it"
          : 'You created this challenge: challenges_challenge_cancel calls it off',
      'already_accepted',
    );
  if (mine.status === 'invited') {
    await ctx.prisma.challengeParticipant.update({
      where: { challengeId_userId: { challengeId: row.id, userId: me } },
      data: { status: 'declined', respondedAt: clock.now() },
    });
  }
  return detailOf(ctx.prisma, (await findChallenge(ctx.prisma, row.id))!, me);
}

/** The creator calls off a friends challenge before its end; cancelling twice is once. */
export async function cancelChallenge(
  ctx: AuthedContext,
  options: ChallengeIdOptions,
): Promise<ChallengeDetailView> {
  const me = ctx.principal.userId;
  const { row, status } = await openInvitation(ctx, options.challengeId, false);
  if (row.creatorId !== me)
    throw appError('FORBIDDEN', 'Only the creator cancels a challenge', {
      detail: { code: 'not_the_creator' },
    });
  if (status === 'cancelled') return detailOf(ctx.prisma, row, me);
  if (status === 'finished') throw conflict('This challenge has finished', 'challenge_finished');
  const updated = await ctx.prisma.challenge.update({
    where: { id: row.id },
    data: { cancelledAt: clock.now() },
    include: PARTICIPANTS,
  });
  return detailOf(ctx.prisma, updated, me);
}

/** Checks the caller in for a local day of a habit challenge (idempotent per day). */
export async function checkinChallenge(
  ctx: AuthedContext,
  options: CheckinChallengeOptions,
): Promise<ChallengeDetailView> {
  const me = ctx.principal.userId;
  const row = await challengeForCaller(ctx, options.challengeId);
  if (row.metric !== 'habit')
    throw conflict(
      'Only a habit challenge takes check-ins: the others count device data',
      'not_a_habit',
    );
  const mine = row.participants.find((p) => p.userId === me)!;
  if (mine.status !== 'accepted')
    throw conflict('Accept the challenge first (challenges_challenge_accept)', 'not_taking_part');
  const status = statusOf(row, await cardsOf(ctx.prisma, [row]));
  if (status === 'cancelled' || status === 'ended' || status === 'finished')
    throw conflict(`This challenge is ${status}`, `challenge_${status}`);
  const today = localDateOf(clock.now(), await personZone(ctx));
  const date = options.date ?? today;
  if (date > today || date < row.startDate || date > lastDateOf(row)) {
    throw validationError([
      {
        loc: ['date'],
        msg: `a check-in is for a day of the challenge (${row.startDate}..${lastDateOf(row)}) up to your today (${today})`,
        type: 'value_error',
      },
    ]);
  }
  await ctx.prisma.challengeCheckin.createMany({
    data: [{ challengeId: row.id, userId: me, date }],
    skipDuplicates: true,
  });
  return detailOf(ctx.prisma, row, me);
}

/** One challenge with its participants and standings. */
export async function challenge(
  ctx: AuthedContext,
  options: ChallengeIdOptions,
): Promise<ChallengeDetailView> {
  return detailOf(
    ctx.prisma,
    await challengeForCaller(ctx, options.challengeId),
    ctx.principal.userId,
  );
}

/** The challenges the caller is in or invited to (their circles' included), newest first. */
export async function challenges(ctx: AuthedContext): Promise<ChallengeView[]> {
  const me = ctx.principal.userId;
  const circleIds = (await circlesOf(ctx.prisma, me)).map((c) => c.circleId);
  const found = await ctx.prisma.challenge.findMany({
    where: { OR: [{ participants: { some: { userId: me } } }, { circleId: { in: circleIds } }] },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: CHALLENGES_LIST_MAX,
    include: PARTICIPANTS,
  });
  const rows: ChallengeRow[] = [];
  for (const r of found) {
    const synced = r.circleId ? await syncCircleParticipants(ctx.prisma, r) : r;
    if (synced.participants.some((p) => p.userId === me)) rows.push(synced);
  }
  const cards = await cardsOf(ctx.prisma, rows);
  const now = clock.now();
  return rows.map((r) => viewOf(r, me, cards, now));
}

/** The caller's friends: everyone who shares a circle with them, and which circles. */
export async function challengeFriends(ctx: AuthedContext): Promise<FriendView[]> {
  const me = ctx.principal.userId;
  const shared = new Map<number, { id: string; name: string }[]>();
  for (const circle of await circlesOf(ctx.prisma, me)) {
    for (const m of await circleMembers(ctx.prisma, circle.circleId)) {
      if (m.userId === me) continue;
      const list = shared.get(m.userId) ?? [];
      list.push({ id: circle.circleId, name: circle.name });
      shared.set(m.userId, list);
    }
  }
  const cards = await peopleCards(ctx.prisma, [...shared.keys()]);
  return [...shared.entries()]
    .map(([userId, circles]) => ({ userId, name: cards.get(userId)?.name ?? null, circles }))
    .sort((a, b) => a.userId - b.userId);
}
