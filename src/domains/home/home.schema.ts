/**
 * Home on the graph (issue 16): headline, next actions, streaks and the morning review, each a
 * summary of today computed from the person's data by the documented rules (README.md).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { SnoreNight } from '../snoring/index.ts';
import { ACTIONS_MAX, homeNextActions } from './home.actions.ts';
import type { HomeActionsView, HomeActionView } from './home.actions.ts';
import { homeHeadline } from './home.headline.ts';
import type { HomeHeadlineView } from './home.headline.ts';
import { morningReview } from './home.morning.ts';
import type { MorningReviewView, MorningScoreView } from './home.morning.ts';
import { homeStreak } from './home.streak.ts';
import type { HomeStreakView, StreakView } from './home.streak.ts';
import type { GlucoseWindowView } from '../glucose/index.ts';

const HomeHeadline = builder.objectRef<HomeHeadlineView>('HomeHeadline').implement({
  description: 'One sentence about today and the numbers behind it',
  fields: (t) => ({
    date: t.exposeString('date', { description: "today in the person's zone" }),
    timezone: t.exposeString('timezone'),
    sentence: t.exposeString('sentence'),
    sleepMinutesLastNight: t.exposeInt('sleepMinutesLastNight', { nullable: true }),
    sleepScore: t.exposeInt('sleepScore', { nullable: true, description: '0..100' }),
    recoveryScore: t.exposeInt('recoveryScore', { nullable: true, description: '0..100' }),
    overallScore: t.exposeInt('overallScore', { nullable: true, description: '0..100' }),
    stepsToday: t.exposeFloat('stepsToday', { nullable: true }),
    goalsMet: t.exposeInt('goalsMet', { description: 'goals met in their current period' }),
    goalsTotal: t.exposeInt('goalsTotal'),
  }),
});

const HomeAction = builder.objectRef<HomeActionView>('HomeAction').implement({
  description: 'A next action and why it applies',
  fields: (t) => ({
    rank: t.exposeInt('rank', { description: '1 first' }),
    kind: t.exposeString('kind', {
      description: 'sync_phone, goal_behind, log_weight, goal_no_data or set_goal',
    }),
    metric: t.exposeString('metric', { nullable: true }),
    title: t.exposeString('title'),
    reason: t.exposeString('reason'),
  }),
});

const HomeActions = builder.objectRef<HomeActionsView>('HomeActions').implement({
  description: 'The ranked next actions of today',
  fields: (t) => ({
    date: t.exposeString('date', { description: "today in the person's zone" }),
    timeZone: t.exposeString('timeZone', {
      description:
        "the IANA zone the days are local to (the person's profile zone; UTC when unset)",
    }),
    actions: t.field({ type: [HomeAction], resolve: (a) => a.actions }),
  }),
});

const Streak = builder.objectRef<StreakView>('HomeStreakCount').implement({
  description: 'A run of consecutive days',
  fields: (t) => ({
    days: t.exposeInt('days'),
    includesToday: t.exposeBoolean('includesToday', {
      description: 'today already counts (otherwise the run ends yesterday)',
    }),
  }),
});

const HomeStreak = builder.objectRef<HomeStreakView>('HomeStreak').implement({
  description: 'Streaks of days meeting every daily goal and of days with data',
  fields: (t) => ({
    date: t.exposeString('date', { description: "today in the person's zone" }),
    timeZone: t.exposeString('timeZone', {
      description:
        "the IANA zone the days are local to (the person's profile zone; UTC when unset)",
    }),
    windowDays: t.exposeInt('windowDays', { description: 'how far back a streak is counted' }),
    dailyGoals: t.exposeInt('dailyGoals', {
      description: 'the daily goals the goals streak checks',
    }),
    goals: t.field({ type: Streak, resolve: (s) => s.goals }),
    logging: t.field({ type: Streak, resolve: (s) => s.logging }),
  }),
});

const MorningScore = builder.objectRef<MorningScoreView>('MorningScore').implement({
  description: 'A score of today (insights) or why there is none',
  fields: (t) => ({
    score: t.exposeInt('score', { nullable: true, description: '0..100' }),
    reason: t.exposeString('reason', { nullable: true, description: 'why score is null' }),
  }),
});

const NightGlucose = builder.objectRef<GlucoseWindowView>('NightGlucose').implement({
  description: 'Glucose readings of a window, summarised (in range: 70..180 mg/dL)',
  fields: (t) => ({
    readings: t.exposeInt('readings'),
    meanMgDl: t.exposeFloat('meanMgDl', { nullable: true }),
    minMgDl: t.exposeFloat('minMgDl', { nullable: true }),
    maxMgDl: t.exposeFloat('maxMgDl', { nullable: true }),
    inRangePct: t.exposeFloat('inRangePct', { nullable: true }),
    belowRangePct: t.exposeFloat('belowRangePct', { nullable: true }),
    aboveRangePct: t.exposeFloat('aboveRangePct', { nullable: true }),
  }),
});

const MorningReview = builder.objectRef<MorningReviewView>('MorningReview').implement({
  description: "Last night's sleep, snoring and glucose, and today's sleep and recovery scores",
  fields: (t) => ({
    date: t.exposeString('date'),
    timezone: t.exposeString('timezone'),
    asleepMinutes: t.exposeInt('asleepMinutes', { nullable: true }),
    bedtime: t.expose('bedtime', { type: 'DateTime', nullable: true }),
    wakeTime: t.expose('wakeTime', { type: 'DateTime', nullable: true }),
    snoring: t.field({ type: SnoreNight, nullable: true, resolve: (m) => m.snoring }),
    glucoseWindowStart: t.expose('glucoseWindowStart', { type: 'DateTime' }),
    glucoseWindowEnd: t.expose('glucoseWindowEnd', { type: 'DateTime' }),
    glucose: t.field({ type: NightGlucose, resolve: (m) => m.glucose }),
    sleepScore: t.field({ type: MorningScore, resolve: (m) => m.sleepScore }),
    recoveryScore: t.field({ type: MorningScore, resolve: (m) => m.recoveryScore }),
  }),
});

builder.queryFields((t) => ({
  homeHeadline: t.withAuth({ scope: 'health:summary:read' }).field({
    type: HomeHeadline,
    description: 'One sentence about today and the numbers behind it',
    resolve: (_root, _args, ctx) => homeHeadline(ctx),
  }),
  homeNextActions: t.withAuth({ scope: 'health:summary:read' }).field({
    type: HomeActions,
    description: 'A short ranked list of next actions derived from the data',
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: 5,
        description: `at most this many actions (1..${ACTIONS_MAX}, default 5)`,
        validate: z.number().int().min(1).max(ACTIONS_MAX),
      }),
    },
    resolve: (_root, args, ctx) => homeNextActions(ctx, args),
  }),
  homeStreak: t.withAuth({ scope: 'health:summary:read' }).field({
    type: HomeStreak,
    description: 'Streaks of days meeting every daily goal and of days with data',
    resolve: (_root, _args, ctx) => homeStreak(ctx),
  }),
  morningReview: t.withAuth({ scope: 'health:summary:read' }).field({
    type: MorningReview,
    description: "Last night's sleep, snoring and glucose, and today's scores",
    resolve: (_root, _args, ctx) => morningReview(ctx),
  }),
}));
