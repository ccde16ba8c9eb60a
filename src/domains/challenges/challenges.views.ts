/**
 * What a challenge looks like to one of its people: its status (from every participant's local
 * days), the caller's place, the participants and the standings (README.md). Plain data only.
 *
 * NOTE: privacy (issue 47). A participant's points, goal and figures reach a viewer only when the
 * participant shares the challenge's metric with a circle the viewer is also in (community's
 * sharesWithViewer), or the viewer is that participant; a habit's check-ins are made for the
 * challenge and seen by all its people. Otherwise their row says only that they take part.
 */
import { sharesWithViewer } from '../community/index.ts';
import { peopleCards } from '../profile/index.ts';
import type { PersonCardView } from '../profile/index.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { Challenge, ChallengeParticipant } from '../../generated/prisma/client.ts';
import { addDays, dayBounds } from '../../platform/local-dates.ts';
import type { ChallengeMetric, ChallengeScoring } from './challenges.rules.ts';
import {
  flooredGoal,
  FORMER_MEMBER_NAME,
  INVITATION_HOURS,
  METRIC_UNITS,
} from './challenges.rules.ts';
import { computeStandings } from './challenges.standings.ts';
import type { DayFigure } from './challenges.standings.ts';
import { clock } from '../../base/clock.ts';

export type ChallengeStatus = 'upcoming' | 'running' | 'finished' | 'cancelled' | 'ended';
export type ParticipantStatus = 'invited' | 'expired' | 'accepted' | 'declined';

/** A challenge row with its participant rows. */
export type ChallengeRow = Challenge & { participants: ChallengeParticipant[] };

export interface ChallengeView {
  id: string;
  /** friends (invited people) or circle (every current member of the circle) */
  kind: 'friends' | 'circle';
  circleId: string | null;
  title: string;
  metric: ChallengeMetric;
  unit: string;
  scoring: ChallengeScoring;
  habit: string | null;
  startDate: string;
  endDate: string;
  days: number;
  status: ChallengeStatus;
  createdAt: Date;
  cancelledAt: Date | null;
  endedAt: Date | null;
  youAreCreator: boolean;
  yourStatus: ParticipantStatus;
  /** when the caller's invitation expires (only while invited) */
  invitationExpiresAt: Date | null;
  /** a habit challenge's points are self-reported check-ins */
  selfReported: boolean;
}

export interface ParticipantView {
  userId: number;
  name: string | null;
  status: ParticipantStatus;
  invitedAt: Date;
  respondedAt: Date | null;
  /** the goal scored against (floored); null when withheld from the viewer */
  goalTarget: number | null;
}

export interface StandingView {
  /** null for a former member */
  userId: number | null;
  name: string | null;
  formerMember: boolean;
  /** false: the person does not share the metric with the viewer (no points, goal or figures) */
  shared: boolean;
  points: number | null;
  /** the person's own figure over the challenge (StandingRow.figure); null when withheld */
  figure: number | null;
  /** the person's days (figure and points); empty when withheld */
  dailyFigures: DayFigure[];
  rank: number | null;
  daysCounted: number;
  typedDays: number;
  selfReported: boolean;
  goalTarget: number | null;
  winner: boolean;
}

export interface ChallengeDetailView extends ChallengeView {
  participants: ParticipantView[];
  standings: StandingView[];
  formerMembers: number;
}

const HOUR_MS = 3_600_000;

/** The participant's status now (an invitation older than 48 hours reads as expired). */
export function participantStatus(p: ChallengeParticipant, now = clock.now()): ParticipantStatus {
  if (p.status === 'invited' && now.getTime() - p.invitedAt.getTime() >= INVITATION_HOURS * HOUR_MS)
    return 'expired';
  return p.status as ParticipantStatus;
}

/** The last local day of a challenge. */
export const lastDateOf = (c: Pick<Challenge, 'startDate' | 'days'>): string =>
  addDays(c.startDate, c.days - 1);

/** Zones of the accepted participants (UTC when none: a challenge everyone left). */
function acceptedZones(row: ChallengeRow, cards: Map<number, PersonCardView>): string[] {
  const zones = row.participants
    .filter((p) => p.status === 'accepted')
    .map((p) => cards.get(p.userId)?.timezone ?? 'UTC');
  return zones.length ? zones : ['UTC'];
}

/** The challenge's status now: finished once the last local day has ended for every participant. */
export function statusOf(
  row: ChallengeRow,
  cards: Map<number, PersonCardView>,
  now = clock.now(),
): ChallengeStatus {
  if (row.cancelledAt) return 'cancelled';
  if (row.endedAt) return 'ended';
  const zones = acceptedZones(row, cards);
  const last = lastDateOf(row);
  if (zones.every((z) => now >= dayBounds(last, z).end)) return 'finished';
  if (zones.every((z) => now < dayBounds(row.startDate, z).start)) return 'upcoming';
  return 'running';
}

export const isOpen = (s: ChallengeStatus): boolean => s === 'upcoming' || s === 'running';

/** Names and zones of everyone in the rows (one read). */
export async function cardsOf(
  db: Db | DbTx,
  rows: ChallengeRow[],
): Promise<Map<number, PersonCardView>> {
  const ids = new Set<number>();
  for (const r of rows) for (const p of r.participants) ids.add(p.userId);
  return peopleCards(db, [...ids]);
}

/** The summary of a challenge for `me` (who has a participant row). */
export function viewOf(
  row: ChallengeRow,
  me: number,
  cards: Map<number, PersonCardView>,
  now = clock.now(),
): ChallengeView {
  const mine = row.participants.find((p) => p.userId === me);
  const yourStatus = mine ? participantStatus(mine, now) : 'accepted';
  return {
    id: row.id,
    kind: row.circleId ? 'circle' : 'friends',
    circleId: row.circleId,
    title: row.title,
    metric: row.metric as ChallengeMetric,
    unit: METRIC_UNITS[row.metric as ChallengeMetric] ?? '',
    scoring: row.scoring as ChallengeScoring,
    habit: row.habit,
    startDate: row.startDate,
    endDate: lastDateOf(row),
    days: row.days,
    status: statusOf(row, cards, now),
    createdAt: row.createdAt,
    cancelledAt: row.cancelledAt,
    endedAt: row.endedAt,
    youAreCreator: row.creatorId === me,
    yourStatus,
    invitationExpiresAt:
      yourStatus === 'invited' && mine
        ? new Date(mine.invitedAt.getTime() + INVITATION_HOURS * HOUR_MS)
        : null,
    selfReported: row.metric === 'habit',
  };
}

/**
 * Whom `me` may see the figures of: themselves, everyone in a habit challenge, and each person who
 * shares the metric with a circle `me` is in.
 */
async function visibleTo(
  db: Db | DbTx,
  row: ChallengeRow,
  me: number,
): Promise<(userId: number) => boolean> {
  if (row.metric === 'habit') return () => true;
  const others = row.participants.map((p) => p.userId).filter((id) => id !== me);
  const shares = others.length
    ? await sharesWithViewer(db, me, others)
    : new Map<number, Set<string>>();
  return (userId) => userId === me || (shares.get(userId)?.has(row.metric) ?? false);
}

/** The full view: summary, participants and the standings (one SQL statement). */
export async function detailOf(
  db: Db | DbTx,
  row: ChallengeRow,
  me: number,
): Promise<ChallengeDetailView> {
  const now = clock.now();
  const cards = await cardsOf(db, [row]);
  const view = viewOf(row, me, cards, now);
  const sees = await visibleTo(db, row, me);
  const accepted = row.participants.filter((p) => p.status === 'accepted');
  const goals = new Map(accepted.map((p) => [p.userId, flooredGoal(view.metric, p.goalTarget)]));
  const rows = await computeStandings(db, {
    challengeId: row.id,
    metric: view.metric,
    scoring: view.scoring,
    startDate: row.startDate,
    days: row.days,
    stoppedAt: row.endedAt ?? row.cancelledAt,
    finished: view.status === 'finished' || view.status === 'ended',
    people: accepted.map((p) => ({
      userId: p.userId,
      zone: cards.get(p.userId)?.timezone ?? 'UTC',
      goal: goals.get(p.userId) ?? 1,
    })),
  });
  const standings: StandingView[] = rows.map((r) => {
    const base = {
      userId: r.userId,
      name: cards.get(r.userId)?.name ?? null,
      formerMember: false,
      selfReported: view.selfReported,
      rank: r.rank,
      winner: r.winner,
    };
    if (!sees(r.userId)) return { ...base, ...WITHHELD };
    return {
      ...base,
      shared: true,
      points: r.points,
      figure: r.figure,
      dailyFigures: r.dailyFigures,
      daysCounted: r.daysCounted,
      typedDays: r.typedDays,
      goalTarget: goals.get(r.userId) ?? null,
    };
  });
  for (let i = 0; i < row.formerMembers; i++) standings.push(formerRow(view.selfReported));
  return {
    ...view,
    participants: row.participants.map((p) => ({
      userId: p.userId,
      name: cards.get(p.userId)?.name ?? null,
      status: participantStatus(p, now),
      invitedAt: p.invitedAt,
      respondedAt: p.respondedAt,
      goalTarget:
        sees(p.userId) && p.goalTarget !== null ? flooredGoal(view.metric, p.goalTarget) : null,
    })),
    standings,
    formerMembers: row.formerMembers,
  };
}

/** What a row withheld from the viewer carries: that the person takes part, no figure. */
const WITHHELD: Pick<
  StandingView,
  'shared' | 'points' | 'figure' | 'dailyFigures' | 'daysCounted' | 'typedDays' | 'goalTarget'
> = {
  shared: false,
  points: null,
  figure: null,
  dailyFigures: [],
  daysCounted: 0,
  typedDays: 0,
  goalTarget: null,
};

/** A participant whose account was deleted: shown, without points, never a winner. */
const formerRow = (selfReported: boolean): StandingView => ({
  userId: null,
  name: FORMER_MEMBER_NAME,
  formerMember: true,
  ...WITHHELD,
  rank: null,
  selfReported,
  winner: false,
});
