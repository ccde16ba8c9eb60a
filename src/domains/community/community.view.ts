/**
 * A circle member's days, as the circle may see them (community_member_full_view, issue 32):
 * exactly the daily summaries the member chose for that circle, from the same SQL summaries as the
 * health summary (health's dailyHealthOf, glucose's dailyTimeInRangeOf, insights'
 * activitySleepScoresOf), in the member's own zone. Nothing is cached: the membership and the
 * member's choice are read on every call, so leaving or narrowing takes effect on the next one.
 *
 * NOTE: privacy. The caller must be a member of the circle and the person viewed a member too
 * (else NOT_FOUND); a summary the member did not choose is never read, and the answer has no field
 * for raw glucose, meals, labs or DNA.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, datesFrom, localDateOf } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { dailyTimeInRangeOf } from '../glucose/index.ts';
import type { DailyHealthView } from '../health/index.ts';
import { dailyHealthOf } from '../health/index.ts';
import { activitySleepScoresOf } from '../insights/index.ts';
import type { ActivitySleepScores } from '../insights/index.ts';
import { personZoneOf } from '../profile/index.ts';
import { CIRCLE_SHARES } from './community.rules.ts';
import type { CircleShare } from './community.rules.ts';
import { clock } from '../../base/clock.ts';

/** One of the member's local days; a summary they did not share is null (see notShared). */
export interface MemberDayView {
  date: LocalDate;
  steps: number | null;
  activeEnergyKcal: number | null;
  exerciseMinutes: number | null;
  sleepMinutes: number | null;
  activityScore: number | null;
  sleepScore: number | null;
  glucoseTimeInRangePct: number | null;
}

export interface MemberView {
  circleId: string;
  userId: number;
  name: string;
  isYou: boolean;
  /** first and last local date shown (the member's days; the last is their today) */
  from: LocalDate;
  to: LocalDate;
  /** the summaries the member lets this circle see */
  shared: CircleShare[];
  /** the summaries they keep to themselves (no values) */
  notShared: CircleShare[];
  days: MemberDayView[];
}

export interface MemberViewOptions {
  /** the circle both people are in */
  circleId: string;
  /** the member to view (the caller's own id shows what the circle sees of them) */
  userId: number;
  /** how many of the member's days, ending today (1..31) */
  days: number;
}

/** Health's daily figures are needed for any of these shares (activity score from the totals). */
const DAILY_SHARES: readonly CircleShare[] = [
  'steps',
  'active_energy',
  'exercise_minutes',
  'sleep_minutes',
  'activity_score',
];

/** The shared summaries' values of one day; the others null. */
function dayOf(
  date: LocalDate,
  has: (s: CircleShare) => boolean,
  sources: { daily?: DailyHealthView; tir?: number; scores?: ActivitySleepScores },
): MemberDayView {
  const { daily, scores } = sources;
  const pick = <T>(share: CircleShare, value: T | undefined | null): T | null =>
    has(share) ? (value ?? null) : null;
  return {
    date,
    steps: pick('steps', daily?.steps),
    activeEnergyKcal: pick('active_energy', daily?.activeEnergyKcal),
    exerciseMinutes: pick('exercise_minutes', daily?.exerciseMinutes),
    sleepMinutes: pick('sleep_minutes', daily?.sleepMinutes),
    activityScore: pick('activity_score', scores?.activity),
    sleepScore: pick('sleep_score', scores?.sleep),
    glucoseTimeInRangePct: pick('glucose_time_in_range', sources.tir),
  };
}

/** What the circle sees of one member over their last `days` local days. */
export async function communityMemberView(
  ctx: AuthedContext,
  options: MemberViewOptions,
): Promise<MemberView> {
  const me = ctx.principal.userId;
  // one read: the circle's members with the names the circle sees
  const members = await ctx.prisma.communityMember.findMany({
    where: { circleId: options.circleId },
    select: { userId: true, shares: true, user: { select: { name: true } } },
  });
  // NOTE: both must be members now; a circle the caller is not in answers like no circle at all.
  if (!members.some((m) => m.userId === me))
    throw appError('NOT_FOUND', 'Circle not found (or you are not a member of it)');
  const member = members.find((m) => m.userId === options.userId);
  if (!member) throw appError('NOT_FOUND', 'Member not found in this circle');
  const shared = CIRCLE_SHARES.filter((s) => member.shares.includes(s));
  const has = (s: CircleShare): boolean => shared.includes(s);
  const zone = await personZoneOf(ctx, member.userId);
  const to = localDateOf(clock.now(), zone);
  const from = addDays(to, -(options.days - 1));
  const dates = datesFrom(from, to);
  const range = { userId: member.userId, zone, from, to };
  // a summary the member did not choose is never read; the reads run side by side
  const [daily, tir, nights] = await Promise.all([
    DAILY_SHARES.some(has)
      ? dailyHealthOf(ctx, { ...range, bodyWeight: false, pointCounts: false })
      : undefined,
    has('glucose_time_in_range') ? dailyTimeInRangeOf(ctx, range) : undefined,
    has('sleep_score')
      ? activitySleepScoresOf(ctx, { userId: member.userId, zone, dates, sleep: true })
      : [],
  ]);
  const activity = has('activity_score')
    ? await activitySleepScoresOf(ctx, {
        userId: member.userId,
        zone,
        dates,
        daily: daily ?? [],
        sleep: false,
      })
    : [];
  const scores = dates.map((date, i) => ({
    date,
    activity: activity[i]?.activity ?? null,
    sleep: nights[i]?.sleep ?? null,
  }));
  const dailyBy = new Map((daily ?? []).map((d) => [d.date, d]));
  const tirBy = new Map((tir ?? []).map((d) => [d.date, d.inRangePct]));
  const scoresBy = new Map(scores.map((d) => [d.date, d]));
  return {
    circleId: options.circleId,
    userId: member.userId,
    name: member.user.name?.trim() || 'A member',
    isYou: member.userId === me,
    from,
    to,
    shared,
    notShared: CIRCLE_SHARES.filter((s) => !has(s)),
    days: dates.map((date) =>
      dayOf(date, has, {
        daily: dailyBy.get(date),
        tir: tirBy.get(date),
        scores: scoresBy.get(date),
      }),
    ),
  };
}
