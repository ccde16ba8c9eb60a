/**
 * Circles (issue 32): create, join with an invite code, rename, rotate the code, set what the
 * circle sees of the caller, leave, remove a member, and read the caller's circles.
 *
 * Rules: the owner is the longest-standing member (community.members.ts); only the owner renames,
 * rotates and removes (403 for other members). A circle the caller is not a member of answers
 * NOT_FOUND everywhere, never FORBIDDEN, so a circle id tells a stranger nothing. Invite codes are
 * stored as their sha256 only; the code itself is answered once, by createCircle and
 * rotateCircleInvite. Wrong codes are counted per account and per client IP (ctx.limits); over
 * either limit every join answers 429, a right code included.
 *
 * NOTE: ownership. Every read and write is of the caller's own id (`principal.userId`), never
 * readerUserId: circles are the caller's social account, not health data a grantee may view as.
 */
import { createHash, randomInt } from 'node:crypto';
import { appError } from '../../base/errors.ts';
import type { DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { circleMembers } from './community.members.ts';
import type { CircleMemberRow } from './community.members.ts';
import {
  CIRCLE_MEMBERS_MAX,
  CIRCLE_SHARES,
  CIRCLES_PER_PERSON_MAX,
  INVITE_ALPHABET,
  INVITE_CODE_LENGTH,
} from './community.rules.ts';
import type { CircleShare } from './community.rules.ts';
import { clock } from '../../base/clock.ts';

const HOUR = 3600;

/** One member as the circle's other members see them. */
export interface CircleMemberView {
  userId: number;
  /** the member's profile name ("A member" when unset); never an email address */
  name: string;
  isOwner: boolean;
  /** the caller */
  isYou: boolean;
  /** whether the caller muted this member's nudges */
  mutedByYou: boolean;
  joinedAt: Date;
  /** what the member lets this circle see */
  shares: CircleShare[];
}

/** A circle as one of its members sees it. */
export interface CircleView {
  id: string;
  name: string;
  createdAt: Date;
  memberCount: number;
  /** whether the caller is the owner (the longest-standing member) */
  isOwner: boolean;
  /** what the caller lets this circle see */
  yourShares: CircleShare[];
  /** longest-standing first: the first is the owner */
  members: CircleMemberView[];
  /** the invite code: only in the answers of createCircle and rotateCircleInvite, else null */
  inviteCode: string | null;
}

/** What leaving did. */
export interface CircleLeaveView {
  circleId: string;
  /** true when the caller was the last member, so the circle ended */
  circleDeleted: boolean;
  /** the owner after the leave (the longest-standing member left), null when the circle ended */
  ownerUserId: number | null;
}

export interface CircleNameOptions {
  /** the circle's name, trimmed, 1..60 characters */
  name: string;
}

export interface CircleIdOptions {
  /** the circle's id */
  circleId: string;
}

export interface JoinCircleOptions {
  /** the invite code (case, spaces and dashes ignored) */
  code: string;
}

export interface RenameCircleOptions extends CircleIdOptions, CircleNameOptions {}

export interface RemoveMemberOptions extends CircleIdOptions {
  /** the member to remove */
  userId: number;
}

export interface CircleVisibilityOptions extends CircleIdOptions {
  /** every summary the circle may see (the whole set; empty: name and challenge place) */
  shares: readonly CircleShare[];
}

/** A fresh invite code: INVITE_CODE_LENGTH characters of INVITE_ALPHABET, uniformly random. */
function newInviteCode(): string {
  let code = '';
  for (let i = 0; i < INVITE_CODE_LENGTH; i++)
    code += INVITE_ALPHABET[randomInt(INVITE_ALPHABET.length)];
  return code;
}

/** What is stored of a code: sha256 of its normal form (upper case, no spaces or dashes). */
function inviteCodeHash(code: string): string {
  const normal = code.toUpperCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(normal).digest('hex');
}

/** Members in the canonical order of CIRCLE_SHARES, unknown values dropped. */
function sharesOf(stored: readonly string[]): CircleShare[] {
  return CIRCLE_SHARES.filter((s) => stored.includes(s));
}

const circleNotFound = (): Error =>
  appError('NOT_FOUND', 'Circle not found (or you are not a member of it)');
const ownerOnly = (what: string): Error =>
  appError('FORBIDDEN', `Only the circle's owner ${what}`, { detail: { code: 'owner_only' } });

/** The circles' views for the caller, in the order of `circleIds`; one read of members and names. */
async function circleViews(
  ctx: AuthedContext,
  circleIds: readonly string[],
  codes: ReadonlyMap<string, string> = new Map(),
): Promise<CircleView[]> {
  const me = ctx.principal.userId;
  const [circles, members, mutes] = await Promise.all([
    ctx.prisma.communityCircle.findMany({
      where: { id: { in: [...circleIds] } },
      select: { id: true, name: true, createdAt: true },
    }),
    ctx.prisma.communityMember.findMany({
      where: { circleId: { in: [...circleIds] } },
      orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }],
      select: {
        circleId: true,
        userId: true,
        shares: true,
        joinedAt: true,
        user: { select: { name: true } },
      },
    }),
    ctx.prisma.communityMute.findMany({ where: { userId: me }, select: { mutedUserId: true } }),
  ]);
  const muted = new Set(mutes.map((m) => m.mutedUserId));
  const byId = new Map(circles.map((c) => [c.id, c]));
  return circleIds.flatMap((id) => {
    const circle = byId.get(id);
    if (!circle) return [];
    const rows = members.filter((m) => m.circleId === id);
    const list = rows.map((m, i) => ({
      userId: m.userId,
      name: m.user.name?.trim() || 'A member',
      isOwner: i === 0,
      isYou: m.userId === me,
      mutedByYou: muted.has(m.userId),
      joinedAt: m.joinedAt,
      shares: sharesOf(m.shares),
    }));
    const mine = list.find((m) => m.isYou);
    return [
      {
        ...circle,
        memberCount: list.length,
        isOwner: mine?.isOwner ?? false,
        yourShares: mine?.shares ?? [],
        members: list,
        inviteCode: codes.get(id) ?? null,
      },
    ];
  });
}

/** The caller's view of a circle they are in; NOT_FOUND otherwise. */
async function circleView(
  ctx: AuthedContext,
  circleId: string,
  code?: string,
): Promise<CircleView> {
  const [view] = await circleViews(ctx, [circleId], new Map(code ? [[circleId, code]] : []));
  if (!view?.members.some((m) => m.isYou)) throw circleNotFound();
  return view;
}

/** Locks the circle's row for a membership change; NOT_FOUND when it is gone. */
async function lockCircle(tx: DbTx, circleId: string): Promise<void> {
  const rows = await tx.$queryRaw<
    { id: string }[]
  >`SELECT id FROM community_circles WHERE id = ${circleId} FOR UPDATE`;
  if (!rows.length) throw circleNotFound();
}

/** Members of a locked circle, with the caller's place; NOT_FOUND when the caller is not in it. */
async function membersWithMe(
  tx: DbTx,
  circleId: string,
  me: number,
): Promise<{ members: CircleMemberRow[]; isOwner: boolean }> {
  await lockCircle(tx, circleId);
  const members = await circleMembers(tx, circleId);
  const index = members.findIndex((m) => m.userId === me);
  if (index < 0) throw circleNotFound();
  return { members, isOwner: index === 0 };
}

/** CONFLICT when the person is already in CIRCLES_PER_PERSON_MAX circles (their row locked). */
async function assertRoomForAnotherCircle(tx: DbTx, userId: number): Promise<void> {
  await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
  const count = await tx.communityMember.count({ where: { userId } });
  if (count >= CIRCLES_PER_PERSON_MAX)
    throw appError(
      'CONFLICT',
      `You are in ${CIRCLES_PER_PERSON_MAX} circles, the most one person may be in: leave one first`,
      {
        detail: { code: 'too_many_circles', max: CIRCLES_PER_PERSON_MAX },
      },
    );
}

/** Creates a circle with the caller as its first member (its owner); answers it with its code. */
export async function createCircle(
  ctx: AuthedContext,
  options: CircleNameOptions,
): Promise<CircleView> {
  const me = ctx.principal.userId;
  const code = newInviteCode();
  const circle = await ctx.prisma.$transaction(async (tx) => {
    await assertRoomForAnotherCircle(tx, me);
    return tx.communityCircle.create({
      data: {
        name: options.name,
        inviteCodeHash: inviteCodeHash(code),
        members: { create: { userId: me } },
      },
      select: { id: true },
    });
  });
  return circleView(ctx, circle.id, code);
}

/** The limits on wrong invite codes, from config. */
function joinRules(ctx: AuthedContext): LimitRule[] {
  return [
    {
      name: 'community:join-fail:account',
      points: ctx.config.COMMUNITY_JOIN_FAILURES_PER_HOUR_PER_ACCOUNT,
      seconds: HOUR,
    },
    {
      name: 'community:join-fail:ip',
      points: ctx.config.COMMUNITY_JOIN_FAILURES_PER_HOUR_PER_IP,
      seconds: HOUR,
    },
  ];
}

/** RATE_LIMITED when the account or the client IP has spent its wrong guesses. */
async function assertMayGuess(ctx: AuthedContext, keys: readonly string[]): Promise<void> {
  const rules = joinRules(ctx);
  for (let i = 0; i < rules.length; i++) {
    const standing = await ctx.limits.peek(rules[i], keys[i]);
    if (!standing.allowed)
      throw appError('RATE_LIMITED', 'Too many wrong invite codes; try again later', {
        detail: { code: 'rate_limited' },
        retryAfter: standing.retryAfterSeconds,
      });
  }
}

/**
 * Joins the circle whose current invite code this is. Already a member: answers the circle
 * (nothing changes). A wrong code counts against the account and the client IP.
 */
export async function joinCircle(
  ctx: AuthedContext,
  options: JoinCircleOptions,
): Promise<CircleView> {
  const me = ctx.principal.userId;
  // NOTE: guessing limits, checked before the code is looked at (a right code over the limit is refused too).
  const keys = [String(me), ctx.ip ?? 'unknown'];
  await assertMayGuess(ctx, keys);
  const circle = await ctx.prisma.communityCircle.findUnique({
    where: { inviteCodeHash: inviteCodeHash(options.code) },
    select: { id: true },
  });
  if (!circle) {
    const rules = joinRules(ctx);
    await Promise.all(rules.map((rule, i) => ctx.limits.take(rule, keys[i])));
    throw appError(
      'NOT_FOUND',
      'No circle has this invite code: check it, or ask the circle for its current code (the owner may have replaced it)',
      { detail: { code: 'invite_code_unknown' } },
    );
  }
  await ctx.prisma.$transaction(async (tx) => {
    await lockCircle(tx, circle.id);
    const members = await circleMembers(tx, circle.id);
    if (members.some((m) => m.userId === me)) return;
    if (members.length >= CIRCLE_MEMBERS_MAX)
      throw appError('CONFLICT', `This circle is full (${CIRCLE_MEMBERS_MAX} members)`, {
        detail: { code: 'circle_full', max: CIRCLE_MEMBERS_MAX },
      });
    await assertRoomForAnotherCircle(tx, me);
    await tx.communityMember.create({ data: { circleId: circle.id, userId: me } });
    await tx.communityCircle.update({ where: { id: circle.id }, data: { updatedAt: clock.now() } });
  });
  return circleView(ctx, circle.id);
}

/** The circles the caller is in, the longest-held membership first. */
export async function communityCircles(ctx: AuthedContext): Promise<CircleView[]> {
  const mine = await ctx.prisma.communityMember.findMany({
    where: { userId: ctx.principal.userId },
    orderBy: [{ joinedAt: 'asc' }, { circleId: 'asc' }],
    select: { circleId: true },
  });
  return circleViews(
    ctx,
    mine.map((m) => m.circleId),
  );
}

/** One circle the caller is in, with its members. */
export async function communityCircle(
  ctx: AuthedContext,
  options: CircleIdOptions,
): Promise<CircleView> {
  return circleView(ctx, options.circleId);
}

/** Renames a circle (owner only). */
export async function renameCircle(
  ctx: AuthedContext,
  options: RenameCircleOptions,
): Promise<CircleView> {
  await ctx.prisma.$transaction(async (tx) => {
    const { isOwner } = await membersWithMe(tx, options.circleId, ctx.principal.userId);
    if (!isOwner) throw ownerOnly('renames it');
    await tx.communityCircle.update({
      where: { id: options.circleId },
      data: { name: options.name },
    });
  });
  return circleView(ctx, options.circleId);
}

/** Replaces the invite code (owner only): the old code stops working at once; answers the new one. */
export async function rotateCircleInvite(
  ctx: AuthedContext,
  options: CircleIdOptions,
): Promise<CircleView> {
  const code = newInviteCode();
  await ctx.prisma.$transaction(async (tx) => {
    const { isOwner } = await membersWithMe(tx, options.circleId, ctx.principal.userId);
    if (!isOwner) throw ownerOnly('replaces its invite code');
    await tx.communityCircle.update({
      where: { id: options.circleId },
      data: { inviteCodeHash: inviteCodeHash(code) },
    });
  });
  return circleView(ctx, options.circleId, code);
}

/** Sets what the circle sees of the caller (the whole set); takes effect on the next read. */
export async function setCircleVisibility(
  ctx: AuthedContext,
  options: CircleVisibilityOptions,
): Promise<CircleView> {
  const me = ctx.principal.userId;
  const { count } = await ctx.prisma.communityMember.updateMany({
    where: { circleId: options.circleId, userId: me },
    data: { shares: sharesOf(options.shares) },
  });
  if (count === 0) throw circleNotFound();
  return circleView(ctx, options.circleId);
}

/** Removes a member (owner only); they lose access at once. Answers the circle. */
export async function removeCircleMember(
  ctx: AuthedContext,
  options: RemoveMemberOptions,
): Promise<CircleView> {
  const me = ctx.principal.userId;
  await ctx.prisma.$transaction(async (tx) => {
    const { members, isOwner } = await membersWithMe(tx, options.circleId, me);
    if (!isOwner) throw ownerOnly('removes members');
    if (options.userId === me)
      throw appError('BAD_REQUEST', 'The owner leaves with leaveCircle instead', {
        detail: { code: 'use_leave' },
      });
    if (!members.some((m) => m.userId === options.userId))
      throw appError('NOT_FOUND', 'Member not found in this circle');
    await tx.communityMember.delete({
      where: { circleId_userId: { circleId: options.circleId, userId: options.userId } },
    });
  });
  return circleView(ctx, options.circleId);
}

/**
 * Leaves a circle. The owner's leave hands ownership to the longest-standing member left; the last
 * member's leave deletes the circle (and its challenges, by cascade).
 */
export async function leaveCircle(
  ctx: AuthedContext,
  options: CircleIdOptions,
): Promise<CircleLeaveView> {
  const me = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    const { members } = await membersWithMe(tx, options.circleId, me);
    const rest = members.filter((m) => m.userId !== me);
    if (!rest.length) {
      await tx.communityCircle.delete({ where: { id: options.circleId } });
      return { circleId: options.circleId, circleDeleted: true, ownerUserId: null };
    }
    await tx.communityMember.delete({
      where: { circleId_userId: { circleId: options.circleId, userId: me } },
    });
    return { circleId: options.circleId, circleDeleted: false, ownerUserId: rest[0].userId };
  });
}
