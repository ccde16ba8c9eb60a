/**
 * Who is in which circle: the membership reads every community rule builds on, and what the
 * challenges domain asks of circles (through index.ts). The owner of a circle is its
 * longest-standing member (earliest joinedAt, then the lower user id): there is no owner column,
 * so ownership passes on by itself when the owner leaves or deletes their account.
 */
import type { Db as DbClient, DbTx } from '../../db/client.ts';

/** What a membership read may run on: the app's client or a transaction. */
type Db = DbClient | DbTx;

/** One member of a circle, in joining order. */
export interface CircleMemberRow {
  userId: number;
  /** the daily summaries the member lets this circle see (CIRCLE_SHARES) */
  shares: string[];
  joinedAt: Date;
}

/** The circle's members, longest-standing first (the first is the owner); empty when none. */
export async function circleMembers(db: Db, circleId: string): Promise<CircleMemberRow[]> {
  return db.communityMember.findMany({
    where: { circleId },
    orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }],
    select: { userId: true, shares: true, joinedAt: true },
  });
}

/** The circle's owner (its longest-standing member), or null for a circle with no member. */
export async function circleOwnerId(db: Db, circleId: string): Promise<number | null> {
  const first = await db.communityMember.findFirst({
    where: { circleId },
    orderBy: [{ joinedAt: 'asc' }, { userId: 'asc' }],
    select: { userId: true },
  });
  return first?.userId ?? null;
}

/** Whether the person is a member of the circle. */
export async function isCircleMember(db: Db, circleId: string, userId: number): Promise<boolean> {
  const row = await db.communityMember.findUnique({
    where: { circleId_userId: { circleId, userId } },
    select: { userId: true },
  });
  return row !== null;
}

/**
 * The people who share at least one circle with the person (their friends), the person excluded,
 * by user id.
 */
export async function friendIds(db: Db, userId: number): Promise<number[]> {
  const rows = await db.communityMember.findMany({
    where: { circle: { members: { some: { userId } } }, userId: { not: userId } },
    distinct: ['userId'],
    orderBy: { userId: 'asc' },
    select: { userId: true },
  });
  return rows.map((r) => r.userId);
}

/** Whether two people share at least one circle. */
export async function shareACircle(db: Db, a: number, b: number): Promise<boolean> {
  if (a === b) return false;
  const row = await db.communityMember.findFirst({
    where: { userId: b, circle: { members: { some: { userId: a } } } },
    select: { userId: true },
  });
  return row !== null;
}

/**
 * What each of these people shares with the viewer: the union of the summaries (CIRCLE_SHARES)
 * each lets a circle see that the viewer is also in (challenges: whose points a viewer sees).
 * A person with no circle in common, or who shares nothing, is absent. The viewer's own id is not
 * special here: the caller decides what one sees of oneself.
 *
 * NOTE: privacy. This is the only answer to "may the viewer see this person's figure"; it reads
 * the membership on every call, so narrowing a circle's visibility takes effect at once.
 */
export async function sharesWithViewer(
  db: Db,
  viewerId: number,
  userIds: number[],
): Promise<Map<number, Set<string>>> {
  const rows = await db.communityMember.findMany({
    where: { userId: { in: userIds }, circle: { members: { some: { userId: viewerId } } } },
    select: { userId: true, shares: true },
  });
  const out = new Map<number, Set<string>>();
  for (const r of rows) {
    const set = out.get(r.userId) ?? new Set<string>();
    for (const share of r.shares) set.add(share);
    out.set(r.userId, set);
  }
  return out;
}

/** One circle a person is in. */
export interface PersonCircleRow {
  circleId: string;
  name: string;
}

/** The circles the person is in, the longest-held membership first. */
export async function circlesOf(db: Db, userId: number): Promise<PersonCircleRow[]> {
  const rows = await db.communityMember.findMany({
    where: { userId },
    orderBy: [{ joinedAt: 'asc' }, { circleId: 'asc' }],
    select: { circleId: true, circle: { select: { name: true } } },
  });
  return rows.map((r) => ({ circleId: r.circleId, name: r.circle.name }));
}
