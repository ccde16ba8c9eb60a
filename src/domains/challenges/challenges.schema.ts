/**
 * Challenges on the graph (issue 32): friends challenges (create, accept, decline, cancel, check
 * in, list, read, friends) and a circle's challenge (set, end). Rules: README.md.
 */
import type { InputFieldBuilder } from '@pothos/core';
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
// account deletion's step: a deleted participant stays counted (registered when the schema loads)
import './challenges.deletion.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import { endCircleChallenge, setCircleChallenge } from './challenges.circle.ts';
import {
  CHALLENGE_METRICS,
  CHALLENGE_SCORINGS,
  DAYS_MAX,
  DAYS_MIN,
  HABIT_MAX,
  INVITEES_MAX,
  INVITEES_MIN,
  TITLE_MAX,
  TOTAL_METRICS,
} from './challenges.rules.ts';
import type { ChallengeMetric, ChallengeScoring } from './challenges.rules.ts';
import {
  acceptChallenge,
  cancelChallenge,
  challenge,
  challengeFriends,
  challenges,
  checkinChallenge,
  createChallenge,
  declineChallenge,
} from './challenges.service.ts';
import type { FriendView } from './challenges.service.ts';
import type { DayFigure } from './challenges.standings.ts';
import type {
  ChallengeDetailView,
  ChallengeView,
  ParticipantView,
  StandingView,
} from './challenges.views.ts';

export const ChallengeRef = builder.objectRef<ChallengeView>('Challenge').implement({
  description: 'A challenge the person takes part in or is invited to',
  fields: (t) => ({
    id: t.exposeString('id'),
    kind: t.exposeString('kind', { description: 'friends (invited) or circle (every member)' }),
    circleId: t.exposeString('circleId', { nullable: true }),
    title: t.exposeString('title'),
    metric: t.exposeString('metric', { description: CHALLENGE_METRICS.join(', ') }),
    unit: t.exposeString('unit', { description: "the unit of the metric's daily figure" }),
    scoring: t.exposeString('scoring', {
      description:
        'goal_percent (1 point per % of own daily goal, at least its floor; 200 a day at most, sleep 100), total (a night at most 480 min), checkins',
    }),
    habit: t.exposeString('habit', {
      nullable: true,
      description: 'what a habit challenge checks in',
    }),
    startDate: t.exposeString('startDate', { description: 'first local day, YYYY-MM-DD' }),
    endDate: t.exposeString('endDate', { description: 'last local day, YYYY-MM-DD' }),
    days: t.exposeInt('days'),
    status: t.exposeString('status', {
      description:
        "upcoming, running, finished (last day over in everyone's zone), cancelled, ended",
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    cancelledAt: t.expose('cancelledAt', { type: 'DateTime', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'ended early' }),
    youAreCreator: t.exposeBoolean('youAreCreator'),
    yourStatus: t.exposeString('yourStatus', {
      description: 'invited, expired (not accepted within 48 hours), accepted, declined',
    }),
    invitationExpiresAt: t.expose('invitationExpiresAt', { type: 'DateTime', nullable: true }),
    selfReported: t.exposeBoolean('selfReported', {
      description: 'true: points are self-reported check-ins (habit)',
    }),
  }),
});

const Participant = builder.objectRef<ParticipantView>('ChallengeParticipant').implement({
  description: 'A person invited to or taking part in a challenge',
  fields: (t) => ({
    userId: t.exposeInt('userId'),
    name: t.exposeString('name', { nullable: true }),
    status: t.exposeString('status', { description: 'invited, expired, accepted, declined' }),
    invitedAt: t.expose('invitedAt', { type: 'DateTime' }),
    respondedAt: t.expose('respondedAt', { type: 'DateTime', nullable: true }),
    goalTarget: t.exposeFloat('goalTarget', {
      nullable: true,
      description:
        "the daily goal scored against (at least the metric's floor); null when they do not share the metric with you",
    }),
  }),
});

const DayFigureRef = builder.objectRef<DayFigure>('ChallengeDayFigure').implement({
  description: "One of a participant's days: the figure measured and the points it made",
  fields: (t) => ({
    date: t.exposeString('date', { description: "the participant's local day, YYYY-MM-DD" }),
    figure: t.exposeFloat('figure', { description: "the day's figure in the challenge's unit" }),
    points: t.exposeInt('points'),
    typed: t.exposeBoolean('typed', { description: 'the figure includes typed values' }),
  }),
});

const Standing = builder.objectRef<StandingView>('ChallengeStanding').implement({
  description:
    "A participant's points and figures (a former member: a deleted account, without points; a participant who does not share the metric with you: shared false, without points or figures)",
  fields: (t) => ({
    userId: t.exposeInt('userId', { nullable: true }),
    name: t.exposeString('name', { nullable: true }),
    formerMember: t.exposeBoolean('formerMember'),
    shared: t.exposeBoolean('shared', {
      description:
        'false: they take part but do not share this metric with you in a circle; points, goal and figures are withheld',
    }),
    points: t.exposeInt('points', { nullable: true }),
    figure: t.exposeFloat('figure', {
      nullable: true,
      description:
        "their own figure in the challenge's unit: the days summed (time in range: the mean of days with readings)",
    }),
    dailyFigures: t.field({
      type: [DayFigureRef],
      description: 'their days with data: figure and points (empty when withheld)',
      resolve: (s) => s.dailyFigures,
    }),
    rank: t.exposeInt('rank', { nullable: true, description: '1 for the leaders; ties share' }),
    daysCounted: t.exposeInt('daysCounted', {
      description: 'days with data or a check-in (0 when withheld)',
    }),
    typedDays: t.exposeInt('typedDays', {
      description: 'days whose figure includes typed values (manual or agent entries)',
    }),
    selfReported: t.exposeBoolean('selfReported'),
    goalTarget: t.exposeFloat('goalTarget', { nullable: true }),
    winner: t.exposeBoolean('winner', { description: 'a leader of a finished or ended challenge' }),
  }),
});

const ChallengeDetail = builder.objectRef<ChallengeDetailView>('ChallengeDetail').implement({
  description: 'A challenge with its participants and standings',
  fields: (t) => ({
    challenge: t.field({ type: ChallengeRef, resolve: (d) => d }),
    participants: t.field({ type: [Participant], resolve: (d) => d.participants }),
    standings: t.field({ type: [Standing], resolve: (d) => d.standings }),
    formerMembers: t.exposeInt('formerMembers'),
  }),
});

const FriendCircle = builder
  .objectRef<{ id: string; name: string }>('ChallengeFriendCircle')
  .implement({
    description: 'A circle shared with a friend',
    fields: (t) => ({ id: t.exposeString('id'), name: t.exposeString('name') }),
  });

const Friend = builder.objectRef<FriendView>('ChallengeFriend').implement({
  description: 'Someone who shares a circle with the person',
  fields: (t) => ({
    userId: t.exposeInt('userId'),
    name: t.exposeString('name', { nullable: true }),
    circles: t.field({ type: [FriendCircle], resolve: (f) => f.circles }),
  }),
});

type Types = typeof builder.$inferSchemaTypes;

const localDate = z
  .string()
  .refine(isLocalDate, { message: 'not a date YYYY-MM-DD' })
  .meta({ format: 'date' });
const challengeId = z.string().min(1).max(64);

const definition = {
  title: z.string().trim().min(1).max(TITLE_MAX),
  metric: z.enum(CHALLENGE_METRICS),
  scoring: z.enum(CHALLENGE_SCORINGS).nullish(),
  habit: z.string().trim().min(1).max(HABIT_MAX).nullish(),
  startDate: localDate.nullish(),
  days: z.number().int().min(DAYS_MIN).max(DAYS_MAX),
};

type DefinitionIn = {
  metric: ChallengeMetric;
  scoring?: ChallengeScoring | null;
  habit?: string | null;
};

/** Metric, scoring and habit fit together (README.md "Scoring"). */
function checkCombination(d: DefinitionIn, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string): void =>
    void ctx.addIssue({ code: 'custom', path: [path], message });
  const scoring = d.scoring ?? (d.metric === 'habit' ? 'checkins' : 'goal_percent');
  if (d.metric === 'habit' && scoring !== 'checkins') issue('scoring', 'a habit scores checkins');
  if (d.metric !== 'habit' && scoring === 'checkins') issue('scoring', 'checkins score a habit');
  if (scoring === 'total' && !TOTAL_METRICS.includes(d.metric))
    issue('scoring', `total scores ${TOTAL_METRICS.join(', ')}`);
  if (d.metric === 'habit' && !d.habit) issue('habit', 'a habit challenge names its habit');
  if (d.metric !== 'habit' && d.habit) issue('habit', 'only a habit challenge names a habit');
}

const definitionFields = (t: InputFieldBuilder<Types, 'InputObject'>) => ({
  title: t.string({ required: true, description: `a short title (1..${TITLE_MAX})` }),
  metric: t.string({ required: true, description: 'what counts' }),
  scoring: t.string({
    description:
      'goal_percent (default), total (summed amounts), checkins (habit, the default there)',
  }),
  habit: t.string({ description: 'habit only: what is checked in, e.g. "10 minutes of reading"' }),
  startDate: t.string({ description: 'first local day, your today..+30 (default: tomorrow)' }),
  days: t.int({ required: true, description: 'how many days' }),
});

const CreateChallengeInput = builder.inputType('CreateChallengeInput', {
  description: 'A friends challenge and whom to invite',
  fields: (t) => ({
    ...definitionFields(t),
    invitees: t.intList({
      required: true,
      description: 'user ids of friends (challenges_friends_read)',
    }),
  }),
  validate: z
    .object({
      ...definition,
      invitees: z.array(z.number().int().min(1)).min(INVITEES_MIN).max(INVITEES_MAX),
    })
    .superRefine(checkCombination),
});

const SetCircleChallengeInput = builder.inputType('SetCircleChallengeInput', {
  description: "A circle's challenge: the owner takes part, every other member is invited",

  fields: (t) => ({
    circleId: t.string({ required: true, description: 'the circle (you must own it)' }),
    ...definitionFields(t),
  }),
  validate: z
    .object({ circleId: z.string().min(1).max(64), ...definition })
    .superRefine(checkCombination),
});

/** The definition of the input, typed for the service. */
const defOf = (input: {
  title: string;
  metric: string;
  scoring?: string | null;
  habit?: string | null;
  startDate?: string | null;
  days: number;
}) => ({
  title: input.title,
  metric: input.metric as ChallengeMetric,
  scoring: (input.scoring ?? null) as ChallengeScoring | null,
  habit: input.habit ?? null,
  startDate: input.startDate ?? null,
  days: input.days,
});

const idDescription = "the challenge's id (challenges_list)";

builder.queryFields((t) => ({
  challenges: t.withAuth({ scope: 'community:read' }).field({
    type: [ChallengeRef],
    description:
      "The challenges the person is in or invited to (their circles' included), newest first",
    resolve: (_root, _args, ctx) => challenges(ctx),
  }),
  challenge: t.withAuth({ scope: 'community:read' }).field({
    type: ChallengeDetail,
    description: 'One challenge with its participants and standings',
    args: {
      challengeId: t.arg.string({
        required: true,
        description: idDescription,
        validate: challengeId,
      }),
    },
    resolve: (_root, args, ctx) => challenge(ctx, args),
  }),
  challengeFriends: t.withAuth({ scope: 'community:read' }).field({
    type: [Friend],
    description: 'The people who share a circle with the person (whom a challenge may invite)',
    resolve: (_root, _args, ctx) => challengeFriends(ctx),
  }),
}));

builder.mutationFields((t) => {
  const idArgs = {
    challengeId: t.arg.string({
      required: true,
      description: idDescription,
      validate: challengeId,
    }),
  };
  return {
    createChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description: 'Creates a friends challenge and invites friends (they have 48 hours to accept)',
      args: { input: t.arg({ type: CreateChallengeInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        createChallenge(ctx, { ...defOf(input), invitees: input.invitees }),
    }),
    acceptChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description:
        'Accepts an invitation (within 48 hours; a circle challenge too): your daily goal is fixed (read now before the start, else the one at the invitation; at least the floor)',
      args: idArgs,
      resolve: (_root, args, ctx) => acceptChallenge(ctx, args),
    }),
    declineChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description: 'Declines an invitation (a circle challenge too)',
      args: idArgs,
      resolve: (_root, args, ctx) => declineChallenge(ctx, args),
    }),
    cancelChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description: 'The creator calls a friends challenge off before its end',
      args: idArgs,
      resolve: (_root, args, ctx) => cancelChallenge(ctx, args),
    }),
    checkinChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description: 'Checks in a day of a habit challenge (self-reported; once per day)',
      args: {
        challengeId: t.arg.string({
          required: true,
          description: idDescription,
          validate: challengeId,
        }),
        date: t.arg.string({
          description:
            'the local day (default: your today); within the challenge, not in the future',
          validate: localDate.nullish(),
        }),
      },
      resolve: (_root, args, ctx) => checkinChallenge(ctx, args),
    }),
    setCircleChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description:
        "The circle's owner sets its challenge and takes part; every other member is invited and takes part once they accept (one running at a time)",
      args: { input: t.arg({ type: SetCircleChallengeInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        setCircleChallenge(ctx, { ...defOf(input), circleId: input.circleId }),
    }),
    endCircleChallenge: t.withAuth({ scope: 'community:write' }).field({
      type: ChallengeDetail,
      description: "The circle's owner ends its running challenge now; the leaders win",
      args: {
        circleId: t.arg.string({
          required: true,
          description: 'the circle (you must own it)',
          validate: z.string().min(1).max(64),
        }),
      },
      resolve: (_root, args, ctx) => endCircleChallenge(ctx, args),
    }),
  };
});
