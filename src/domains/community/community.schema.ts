/**
 * Community (issue 32): circles (create, join, rename, invite rotation, visibility, leave, remove
 * a member), a member's shared days, and nudges (send, read, mark seen, mute). Resolvers unpack,
 * call the service of the same name and return; the rules are in the services.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
// account deletion's step: a circle left empty ends (registered when the schema loads)
import './community.deletion.ts';
import {
  communityCircle,
  communityCircles,
  createCircle,
  joinCircle,
  leaveCircle,
  removeCircleMember,
  renameCircle,
  rotateCircleInvite,
  setCircleVisibility,
} from './community.circles.ts';
import type { CircleLeaveView, CircleMemberView, CircleView } from './community.circles.ts';
import {
  communityNudges,
  markNudgesSeen,
  muteCommunityMember,
  sendNudge,
  unmuteCommunityMember,
} from './community.nudges.ts';
import type { MuteView, NudgeView, SentNudgeView } from './community.nudges.ts';
import {
  CIRCLE_NAME_MAX,
  CIRCLE_SHARE_DESCRIPTIONS,
  CIRCLE_SHARES,
  MARK_SEEN_MAX,
  NUDGE_KINDS,
  NUDGE_LINES,
  NUDGE_PAGE_DEFAULT,
  NUDGE_PAGE_MAX,
  NUDGE_TEXT_MAX,
  VIEW_DAYS_DEFAULT,
  VIEW_DAYS_MAX,
} from './community.rules.ts';
import type { CircleShare, NudgeKind } from './community.rules.ts';
import { communityMemberView } from './community.view.ts';
import type { MemberDayView, MemberView } from './community.view.ts';

const idText = z.string().trim().min(1).max(64);
const personId = z.number().int().min(1);

export const CircleShareEnum = builder.enumType('CircleShare', {
  description: 'A daily summary a member may let one circle see',
  values: Object.fromEntries(
    CIRCLE_SHARES.map((s) => [s, { value: s, description: CIRCLE_SHARE_DESCRIPTIONS[s] }]),
  ) as Record<CircleShare, { value: CircleShare; description: string }>,
});

const NudgeKindEnum = builder.enumType('NudgeKind', {
  description: 'The preset kinds of nudge',
  values: Object.fromEntries(
    NUDGE_KINDS.map((k) => [k, { value: k, description: `"<name> ${NUDGE_LINES[k]}"` }]),
  ) as Record<NudgeKind, { value: NudgeKind; description: string }>,
});

const CircleMember = builder.objectRef<CircleMemberView>('CommunityCircleMember').implement({
  description: 'A member of a circle as the circle sees them (name only: never an email address)',
  fields: (t) => ({
    userId: t.exposeInt('userId'),
    name: t.exposeString('name'),
    isOwner: t.exposeBoolean('isOwner', { description: 'the longest-standing member' }),
    isYou: t.exposeBoolean('isYou'),
    mutedByYou: t.exposeBoolean('mutedByYou', { description: "you muted this member's nudges" }),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
    shares: t.field({
      type: [CircleShareEnum],
      description: 'what the member lets this circle see',
      resolve: (m) => m.shares,
    }),
  }),
});

export const CommunityCircle = builder.objectRef<CircleView>('CommunityCircle').implement({
  description: 'A circle the caller is in, with its members (the first is the owner)',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    memberCount: t.exposeInt('memberCount'),
    isOwner: t.exposeBoolean('isOwner', { description: 'the caller owns the circle' }),
    yourShares: t.field({
      type: [CircleShareEnum],
      description: 'what the caller lets this circle see (empty: name and challenge standing)',
      resolve: (c) => c.yourShares,
    }),
    members: t.field({ type: [CircleMember], resolve: (c) => c.members }),
    inviteCode: t.exposeString('inviteCode', {
      nullable: true,
      description: 'the invite code: only answered when created or replaced (stored hashed)',
    }),
  }),
});

const CircleLeave = builder.objectRef<CircleLeaveView>('CommunityCircleLeave').implement({
  description: 'What leaving a circle did',
  fields: (t) => ({
    circleId: t.exposeString('circleId'),
    circleDeleted: t.exposeBoolean('circleDeleted', {
      description: 'the caller was the last member: the circle ended',
    }),
    ownerUserId: t.exposeInt('ownerUserId', {
      nullable: true,
      description: 'the owner now (null when the circle ended)',
    }),
  }),
});

const MemberDay = builder.objectRef<MemberDayView>('CommunityMemberDay').implement({
  description: "One of the member's local days; a summary they did not share is null",
  fields: (t) => ({
    date: t.exposeString('date', { description: "the member's local date" }),
    steps: t.exposeFloat('steps', { nullable: true }),
    activeEnergyKcal: t.exposeFloat('activeEnergyKcal', { nullable: true }),
    exerciseMinutes: t.exposeFloat('exerciseMinutes', { nullable: true }),
    sleepMinutes: t.exposeFloat('sleepMinutes', { nullable: true }),
    activityScore: t.exposeFloat('activityScore', { nullable: true, description: '0..100' }),
    sleepScore: t.exposeFloat('sleepScore', { nullable: true, description: '0..100' }),
    glucoseTimeInRangePct: t.exposeFloat('glucoseTimeInRangePct', {
      nullable: true,
      description: 'percent of the day within 70..180 mg/dL',
    }),
  }),
});

const MemberViewRef = builder.objectRef<MemberView>('CommunityMemberView').implement({
  description: 'What a circle sees of one member: exactly the summaries they chose for it',
  fields: (t) => ({
    circleId: t.exposeString('circleId'),
    userId: t.exposeInt('userId'),
    name: t.exposeString('name'),
    isYou: t.exposeBoolean('isYou'),
    from: t.exposeString('from', { description: "first local date (the member's zone)" }),
    to: t.exposeString('to', { description: "last local date: the member's today" }),
    shared: t.field({ type: [CircleShareEnum], resolve: (v) => v.shared }),
    notShared: t.field({
      type: [CircleShareEnum],
      description: 'summaries the member keeps to themselves (no values)',
      resolve: (v) => v.notShared,
    }),
    days: t.field({ type: [MemberDay], resolve: (v) => v.days }),
  }),
});

export const CommunityNudge = builder.objectRef<NudgeView>('CommunityNudge').implement({
  description: 'A nudge the caller received from a circle-mate',
  fields: (t) => ({
    id: t.exposeString('id'),
    kind: t.field({ type: NudgeKindEnum, resolve: (n) => n.kind }),
    text: t.exposeString('text', { nullable: true }),
    senderUserId: t.exposeInt('senderUserId'),
    senderName: t.exposeString('senderName'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    seenAt: t.expose('seenAt', { type: 'DateTime', nullable: true }),
  }),
});

const SentNudge = builder.objectRef<SentNudgeView>('CommunitySentNudge').implement({
  description: 'A nudge the caller sent',
  fields: (t) => ({
    id: t.exposeString('id'),
    kind: t.field({ type: NudgeKindEnum, resolve: (n) => n.kind }),
    text: t.exposeString('text', { nullable: true }),
    recipientUserId: t.exposeInt('recipientUserId'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    remainingToday: t.exposeInt('remainingToday', {
      description: 'nudges left to this person today (your local day)',
    }),
  }),
});

const NudgesMarked = builder.objectRef<{ marked: number }>('CommunityNudgesMarked').implement({
  description: 'How many nudges a mark-seen call changed',
  fields: (t) => ({ marked: t.exposeInt('marked') }),
});

const Mute = builder.objectRef<MuteView>('CommunityMute').implement({
  description: "Whether a person's nudges to the caller are muted",
  fields: (t) => ({ userId: t.exposeInt('userId'), muted: t.exposeBoolean('muted') }),
});

builder.queryFields((t) => ({
  communityCircles: t.withAuth({ scope: 'community:read' }).field({
    type: [CommunityCircle],
    description: 'The circles the caller is in, with members and what each shares',
    resolve: (_root, _args, ctx) => communityCircles(ctx),
  }),
  communityCircle: t.withAuth({ scope: 'community:read' }).field({
    type: CommunityCircle,
    description: 'One circle the caller is in',
    args: {
      circleId: t.arg.string({ required: true, description: "the circle's id", validate: idText }),
    },
    resolve: (_root, args, ctx) => communityCircle(ctx, args),
  }),
  communityMemberView: t.withAuth({ scope: 'community:read' }).field({
    type: MemberViewRef,
    description: "A circle member's last days: only the summaries they chose for that circle",
    args: {
      circleId: t.arg.string({ required: true, description: "the circle's id", validate: idText }),
      userId: t.arg.int({
        required: true,
        description: "the member's user id",
        validate: personId,
      }),
      days: t.arg.int({
        required: true,
        defaultValue: VIEW_DAYS_DEFAULT,
        description: "days ending the member's today",
        validate: z.number().int().min(1).max(VIEW_DAYS_MAX),
      }),
    },
    resolve: (_root, args, ctx) => communityMemberView(ctx, args),
  }),
  communityNudges: t.withAuth({ scope: 'community:read' }).field({
    type: [CommunityNudge],
    description: 'Nudges the caller received, newest first',
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: NUDGE_PAGE_DEFAULT,
        description: 'at most this many',
        validate: z.number().int().min(1).max(NUDGE_PAGE_MAX),
      }),
      offset: t.arg.int({
        required: true,
        defaultValue: 0,
        description: 'skip this many',
        validate: z.number().int().min(0).max(100_000),
      }),
      unreadOnly: t.arg.boolean({
        required: true,
        defaultValue: false,
        description: 'only those not yet seen',
      }),
    },
    resolve: (_root, args, ctx) => communityNudges(ctx, args),
  }),
}));

const circleIdArg = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) =>
  t.arg.string({ required: true, description: "the circle's id", validate: idText });
const circleName = z.string().trim().min(1).max(CIRCLE_NAME_MAX);

// NOTE: scopes. Creating, joining and choosing what a circle sees share the person's data, so
// these three need sharing:write beside community:write (the spec's MCP rows list both).
builder.mutationFields((t) => ({
  createCircle: t.withAuth({ scope: 'community:write', $all: { scope: 'sharing:write' } }).field({
    type: CommunityCircle,
    description: 'Creates a circle with the caller as owner; answers it with its invite code',
    args: {
      name: t.arg.string({ required: true, description: 'the name', validate: circleName }),
    },
    resolve: (_root, args, ctx) => createCircle(ctx, { name: args.name.trim() }),
  }),
  joinCircle: t.withAuth({ scope: 'community:write', $all: { scope: 'sharing:write' } }).field({
    type: CommunityCircle,
    description: 'Joins the circle of an invite code (already a member: answers the circle)',
    args: {
      code: t.arg.string({
        required: true,
        description: 'the invite code (case and dashes ignored)',
        validate: z.string().trim().min(1).max(64),
      }),
    },
    resolve: (_root, args, ctx) => joinCircle(ctx, args),
  }),
  setCircleVisibility: t
    .withAuth({ scope: 'community:write', $all: { scope: 'sharing:write' } })
    .field({
      type: CommunityCircle,
      description: 'Sets which daily summaries a circle sees of the caller (the whole set)',
      args: {
        circleId: circleIdArg(t),
        shares: t.arg({
          type: [CircleShareEnum],
          required: true,
          description: 'the whole set; empty: name and challenge standing only',
          validate: z.array(z.enum(CIRCLE_SHARES)).max(CIRCLE_SHARES.length),
        }),
      },
      resolve: (_root, args, ctx) => setCircleVisibility(ctx, args),
    }),
  leaveCircle: t.withAuth({ scope: 'community:write' }).field({
    type: CircleLeave,
    description: 'Leaves a circle; the owner hands over, the last member ends it',
    args: { circleId: circleIdArg(t) },
    resolve: (_root, args, ctx) => leaveCircle(ctx, args),
  }),
  removeCircleMember: t.withAuth({ scope: 'community:write' }).field({
    type: CommunityCircle,
    description: 'Removes a member (owner only)',
    args: {
      circleId: circleIdArg(t),
      userId: t.arg.int({
        required: true,
        description: "the member's user id",
        validate: personId,
      }),
    },
    resolve: (_root, args, ctx) => removeCircleMember(ctx, args),
  }),
  renameCircle: t.withAuth({ scope: 'community:write' }).field({
    type: CommunityCircle,
    description: 'Renames a circle (owner only)',
    args: {
      circleId: circleIdArg(t),
      name: t.arg.string({ required: true, description: 'the new name', validate: circleName }),
    },
    resolve: (_root, args, ctx) => renameCircle(ctx, { ...args, name: args.name.trim() }),
  }),
  rotateCircleInvite: t.withAuth({ scope: 'community:write' }).field({
    type: CommunityCircle,
    description: 'Replaces the invite code (owner only); the old one stops working',
    args: { circleId: circleIdArg(t) },
    resolve: (_root, args, ctx) => rotateCircleInvite(ctx, args),
  }),
}));

// Nudges and mutes: the caller is always the sender or the recipient.
builder.mutationFields((t) => ({
  sendNudge: t.withAuth({ scope: 'community:write' }).field({
    type: SentNudge,
    description: 'Sends a circle-mate a nudge (at most 3 a day to one person)',
    args: {
      userId: t.arg.int({
        required: true,
        description: "the circle-mate's user id",
        validate: personId,
      }),
      kind: t.arg({ type: NudgeKindEnum, required: true, description: 'the nudge' }),
      text: t.arg.string({
        description: 'an optional message',
        validate: z.string().max(NUDGE_TEXT_MAX).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => sendNudge(ctx, args),
  }),
  markNudgesSeen: t.withAuth({ scope: 'community:write' }).field({
    type: NudgesMarked,
    description: "Marks the caller's nudges seen: the given ids, or every unseen one",
    args: {
      ids: t.arg.stringList({
        description: 'nudge ids; leave out for all',
        validate: z.array(z.string().min(1).max(64)).min(1).max(MARK_SEEN_MAX).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => markNudgesSeen(ctx, args),
  }),
  muteCommunityMember: t.withAuth({ scope: 'community:write' }).field({
    type: Mute,
    description: "Mutes a circle-mate's nudges to the caller (they are not told)",
    args: {
      userId: t.arg.int({
        required: true,
        description: "the person's user id",
        validate: personId,
      }),
    },
    resolve: (_root, args, ctx) => muteCommunityMember(ctx, args),
  }),
  unmuteCommunityMember: t.withAuth({ scope: 'community:write' }).field({
    type: Mute,
    description: "Ends a mute of a person's nudges",
    args: {
      userId: t.arg.int({
        required: true,
        description: "the person's user id",
        validate: personId,
      }),
    },
    resolve: (_root, args, ctx) => unmuteCommunityMember(ctx, args),
  }),
}));
