/**
 * Nudges (issue 32): a preset kind and an optional short text from one member to another of a
 * shared circle, stored and delivered through notifications (category `community`: the
 * recipient's preferences and quiet hours decide the push). At most NUDGES_PER_DAY from one sender
 * to one recipient per sender's local day, counted in the table (429 beyond, until the sender's
 * next local midnight). A recipient may mute a sender: that sender's nudges are neither stored nor
 * delivered, and the sender gets the same answer as for a delivered one (they are not told).
 *
 * NOTE: ownership. The sender and the reader are always `principal.userId`; a recipient must share
 * a circle with the sender (else NOT_FOUND, as for an unknown person).
 */
import { randomUUID } from 'node:crypto';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import type { Page } from '../../graphql/connection.ts';
import { pageOf, positionAfter } from '../../graphql/connection.ts';
import { dayBounds, localDateOf } from '../../platform/local-dates.ts';
import { z } from 'zod';
import { notifyPerson } from '../notifications/index.ts';
import { personZone } from '../profile/index.ts';
import { shareACircle } from './community.members.ts';
import { NUDGE_LINES, NUDGES_PER_DAY } from './community.rules.ts';
import type { NudgeKind } from './community.rules.ts';
import { clock } from '../../base/clock.ts';

/** A nudge the caller received. */
export interface NudgeView {
  id: string;
  kind: NudgeKind;
  text: string | null;
  senderUserId: number;
  /** the sender's profile name ("A member" when unset) */
  senderName: string;
  createdAt: Date;
  seenAt: Date | null;
}

/** What a send answers (the same whether or not the recipient muted the sender). */
export interface SentNudgeView {
  id: string;
  kind: NudgeKind;
  text: string | null;
  recipientUserId: number;
  createdAt: Date;
  /** nudges the sender may still send this recipient today (sender's local day) */
  remainingToday: number;
}

export interface SendNudgeOptions {
  /** the circle-mate to nudge */
  userId: number;
  /** one of NUDGE_KINDS */
  kind: NudgeKind;
  /** optional text, at most 140 characters (trimmed; empty: none) */
  text?: string | null;
}

export interface NudgesOptions {
  /** at most this many, newest first */
  limit: number;
  /** skip this many */
  offset: number;
  /** only those not yet marked seen */
  unreadOnly: boolean;
}

export interface NudgePageOptions {
  /** at most this many nodes */
  first: number;
  /** the endCursor of the previous page */
  after?: string | null;
  /** only those not yet marked seen */
  unreadOnly?: boolean | null;
}

export interface MarkSeenOptions {
  /** the nudges to mark; null or absent: every unseen one */
  ids?: readonly string[] | null;
}

export interface MuteOptions {
  /** the person whose nudges to mute or unmute */
  userId: number;
}

export interface MuteView {
  userId: number;
  muted: boolean;
}

const nudgeSelect = {
  id: true,
  kind: true,
  text: true,
  senderId: true,
  createdAt: true,
  seenAt: true,
  sender: { select: { name: true } },
} as const;

type NudgeRow = {
  id: string;
  kind: string;
  text: string | null;
  senderId: number;
  createdAt: Date;
  seenAt: Date | null;
  sender: { name: string | null };
};

const viewOf = (n: NudgeRow): NudgeView => ({
  id: n.id,
  kind: n.kind as NudgeKind,
  text: n.text,
  senderUserId: n.senderId,
  senderName: n.sender.name?.trim() || 'A member',
  createdAt: n.createdAt,
  seenAt: n.seenAt,
});

const limited = (retryAfter: number): Error =>
  appError('RATE_LIMITED', `At most ${NUDGES_PER_DAY} nudges a day to one person`, {
    detail: { code: 'rate_limited', reason: 'nudges_per_day', max: NUDGES_PER_DAY },
    retryAfter,
  });

/** Sends a nudge to a circle-mate; answers it (see the file header for limits and mutes). */
export async function sendNudge(
  ctx: AuthedContext,
  options: SendNudgeOptions,
): Promise<SentNudgeView> {
  const me = ctx.principal.userId;
  const to = options.userId;
  const text = options.text?.trim() || null;
  if (!(await shareACircle(ctx.prisma, me, to)))
    throw appError(
      'NOT_FOUND',
      'No circle-mate with this id: nudges go to people you share a circle with',
    );
  const zone = await personZone(ctx);
  const now = clock.now();
  const { start, end } = dayBounds(localDateOf(now, zone), zone);
  const retryAfter = Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
  const muted = await ctx.prisma.communityMute.findUnique({
    where: { userId_mutedUserId: { userId: to, mutedUserId: me } },
    select: { userId: true },
  });
  const answer = { kind: options.kind, text, recipientUserId: to, createdAt: now };
  if (muted) {
    // NOTE: a muted sender is not told: the same answer and limit, nothing stored or delivered.
    const rule = { name: 'community:muted-nudges', points: NUDGES_PER_DAY, seconds: 86_400 };
    const decision = await ctx.limits.take(rule, `${me}>${to}>${localDateOf(now, zone)}`);
    if (!decision.allowed) throw limited(retryAfter);
    return { id: randomUUID(), ...answer, remainingToday: decision.remaining };
  }
  const { id, sentToday } = await ctx.prisma.$transaction(async (tx) => {
    // NOTE: the sender's row locked, so two sends at once cannot both pass the daily count.
    await tx.$queryRaw`SELECT id FROM users WHERE id = ${me} FOR UPDATE`;
    const sent = await tx.communityNudge.count({
      where: { senderId: me, recipientId: to, createdAt: { gte: start, lt: end } },
    });
    if (sent >= NUDGES_PER_DAY) throw limited(retryAfter);
    const row = await tx.communityNudge.create({
      data: { senderId: me, recipientId: to, kind: options.kind, text, createdAt: now },
      select: { id: true },
    });
    return { id: row.id, sentToday: sent + 1 };
  });
  await deliver(ctx, { to, kind: options.kind, text });
  return { id, ...answer, remainingToday: NUDGES_PER_DAY - sentToday };
}

/** The recipient's inbox item and push (notifications decides the push by their preferences). */
async function deliver(
  ctx: AuthedContext,
  nudge: { to: number; kind: NudgeKind; text: string | null },
): Promise<void> {
  const sender = await ctx.prisma.user.findUnique({
    where: { id: ctx.principal.userId },
    select: { name: true },
  });
  const name = sender?.name?.trim() || 'A circle member';
  await notifyPerson(ctx, {
    userId: nudge.to,
    category: 'community',
    title: `${name} ${NUDGE_LINES[nudge.kind]}`,
    body: nudge.text ?? 'A nudge from your circle.',
    link: 'app://community/nudges',
  });
}

/** The nudges the caller received, newest first. */
export async function communityNudges(
  ctx: AuthedContext,
  options: NudgesOptions,
): Promise<NudgeView[]> {
  const rows = await ctx.prisma.communityNudge.findMany({
    where: { recipientId: ctx.principal.userId, ...(options.unreadOnly ? { seenAt: null } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit,
    skip: options.offset,
    select: nudgeSelect,
  });
  return rows.map(viewOf);
}

const NUDGE_POSITION = z.tuple([z.number(), z.string()]);

/** A page of the caller's received nudges (the graph's `me.nudges`), newest first, keyset. */
export async function nudgePage(
  ctx: AuthedContext,
  options: NudgePageOptions,
): Promise<Page<NudgeView>> {
  const after = positionAfter(options.after, NUDGE_POSITION);
  const at = after ? new Date(after[0]) : null;
  const rows = await ctx.prisma.communityNudge.findMany({
    where: {
      recipientId: ctx.principal.userId,
      ...(options.unreadOnly ? { seenAt: null } : {}),
      ...(at && after
        ? { OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: after[1] } }] }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.first + 1,
    select: nudgeSelect,
  });
  return pageOf(rows.map(viewOf), options.first, (n) => [n.createdAt.getTime(), n.id]);
}

/** Marks the caller's nudges seen: the given ids (all the caller's, else nothing) or every unseen one. */
export async function markNudgesSeen(
  ctx: AuthedContext,
  options: MarkSeenOptions,
): Promise<{ marked: number }> {
  const me = ctx.principal.userId;
  const ids = options.ids ? [...new Set(options.ids)] : null;
  return ctx.prisma.$transaction(async (tx) => {
    if (ids) {
      // NOTE: ownership: every id must be a nudge the caller received, or nothing is marked.
      const mine = await tx.communityNudge.count({ where: { recipientId: me, id: { in: ids } } });
      if (mine !== ids.length) throw appError('NOT_FOUND', 'Nudge not found');
    }
    const { count } = await tx.communityNudge.updateMany({
      where: { recipientId: me, seenAt: null, ...(ids ? { id: { in: ids } } : {}) },
      data: { seenAt: clock.now() },
    });
    return { marked: count };
  });
}

/** Whether `other` is someone the caller may mute: a circle-mate, or someone who nudged them. */
async function knows(ctx: AuthedContext, other: number): Promise<boolean> {
  const me = ctx.principal.userId;
  if (await shareACircle(ctx.prisma, me, other)) return true;
  const nudged = await ctx.prisma.communityNudge.findFirst({
    where: { recipientId: me, senderId: other },
    select: { id: true },
  });
  return nudged !== null;
}

/** Mutes a person's nudges to the caller (idempotent); the sender is not told. */
export async function muteCommunityMember(
  ctx: AuthedContext,
  options: MuteOptions,
): Promise<MuteView> {
  const me = ctx.principal.userId;
  if (options.userId === me || !(await knows(ctx, options.userId)))
    throw appError('NOT_FOUND', 'No circle-mate with this id');
  await ctx.prisma.communityMute.upsert({
    where: { userId_mutedUserId: { userId: me, mutedUserId: options.userId } },
    create: { userId: me, mutedUserId: options.userId },
    update: {},
  });
  return { userId: options.userId, muted: true };
}

/** Ends a mute (idempotent for someone the caller knows). */
export async function unmuteCommunityMember(
  ctx: AuthedContext,
  options: MuteOptions,
): Promise<MuteView> {
  const me = ctx.principal.userId;
  const { count } = await ctx.prisma.communityMute.deleteMany({
    where: { userId: me, mutedUserId: options.userId },
  });
  if (count === 0 && (options.userId === me || !(await knows(ctx, options.userId))))
    throw appError('NOT_FOUND', 'No circle-mate with this id');
  return { userId: options.userId, muted: false };
}
