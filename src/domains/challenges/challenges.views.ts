/**
 * What a challenge looks like to one of its people: its status (from every participant's local
 * days), the caller's place, the participants and the standings (README.md). Plain data only.
 */
import { peopleCards } from '../profile/index.ts';
import type { PersonCardView } from '../profile/index.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { Challenge, ChallengeParticipant } from '../../generated/prisma/client.ts';
import { addDays, dayBounds } from '../../platform/local-dates.ts';
import type { ChallengeMetric, ChallengeScoring } from './challenges.rules.ts';
import { FORMER_MEMBER_NAME, INVITATION_HOURS, METRIC_UNITS } from './challenges.rules.ts';
import { computeStandings } from './challenges.standings.ts';

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
  goalTarget: number | null;
}

export interface StandingView {
  /** null for a former member */
  userId: number | null;
  name: string | null;
  formerMember: boolean;
  points: number | null;
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
export function participantStatus(p: ChallengeParticipant, now = new Date()): ParticipantStatus {
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
  now = new Date(),
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
  now = new Date(),
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

/** The full view: summary, participants and the standings (one SQL statement). */
export async function detailOf(
  db: Db | DbTx,
  row: ChallengeRow,
  me: number,
): Promise<ChallengeDetailView> {
  const now = new Date();
  const cards = await cardsOf(db, [row]);
  const view = viewOf(row, me, cards, now);
  const accepted = row.participants.filter((p) => p.status === 'accepted');
  const goals = new Map(accepted.map((p) => [p.userId, p.goalTarget]));
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
      goal: p.goalTarget ?? 1,
    })),
  });
  const standings: StandingView[] = rows.map((r) => ({
    ...r,
    name: cards.get(r.userId)?.name ?? null,
    formerMember: false,
    selfReported: view.selfReported,
    goalTarget: goals.get(r.userId) ?? null,
  }));
  for (let i = 0; i < row.formerMembers; i++) standings.push(formerRow(view.selfReported));
  return {
    ...view,
    participants: row.participants.map((p) => ({
      userId: p.userId,
      name: cards.get(p.userId)?.name ?? null,
      status: participantStatus(p, now),
      invitedAt: p.invitedAt,
      respondedAt: p.respondedAt,
      goalTarget: p.goalTarget,
    })),
    standings,
    formerMembers: row.formerMembers,
  };
}

/** A participant whose account was deleted: shown, without points, never a winner. */
const formerRow = (selfReported: boolean): StandingView => ({
  userId: null,
  name: FORMER_MEMBER_NAME,
  formerMember: true,
  points: null,
  rank: null,
  daysCounted: 0,
  typedDays: 0,
  selfReported,
  goalTarget: null,
  winner: false,
});
