/**
 * Goals on the graph (issue 16): the person's goals (goals_list_read), their progress
 * (goals_progress_read), set one by metric (goals_goal_set) and clear it (goals_goal_clear).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { GOAL_DIRECTIONS, GOAL_METRICS, GOAL_PERIODS } from './goals.metrics.ts';
import type { GoalDirection, GoalMetric, GoalPeriod } from './goals.metrics.ts';
import { goalProgress, PROGRESS_PERIODS_MAX } from './goals.progress.ts';
import type {
  GoalProgressListView,
  GoalProgressView,
  PeriodProgressView,
} from './goals.progress.ts';
import { clearGoal, goals, setGoal } from './goals.service.ts';
import type { GoalView } from './goals.service.ts';

const Goal = builder.objectRef<GoalView>('Goal').implement({
  description: "One of the person's goals: a target for one metric per day or per week",
  fields: (t) => ({
    id: t.exposeString('id', { description: 'the synced record id' }),
    metric: t.exposeString('metric', { description: GOAL_METRICS.join(', ') }),
    unit: t.exposeString('unit', { description: "the target's unit" }),
    target: t.exposeFloat('target'),
    period: t.exposeString('period', { description: 'day or week (Monday..Sunday)' }),
    direction: t.exposeString('direction', {
      description: 'at_least: reach the target; at_most: stay at or under it',
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'last set or cleared' }),
  }),
});

const PeriodProgress = builder.objectRef<PeriodProgressView>('GoalPeriodProgress').implement({
  description: "A goal's value over one period and whether it met the target",
  fields: (t) => ({
    start: t.exposeString('start', { description: 'first local date, YYYY-MM-DD' }),
    end: t.exposeString('end', { description: 'last local date, YYYY-MM-DD' }),
    current: t.exposeBoolean('current', { description: 'the period containing today' }),
    value: t.exposeFloat('value', { nullable: true, description: "in the goal's unit" }),
    percent: t.exposeInt('percent', { nullable: true, description: 'value as % of the target' }),
    met: t.exposeBoolean('met'),
    status: t.exposeString('status', {
      description:
        'met; on_track (current period, cumulative metric, at the pace the elapsed share of the period asks); behind (current period); missed (a past period); no_data',
    }),
  }),
});

const GoalProgress = builder.objectRef<GoalProgressView>('GoalProgress').implement({
  description: 'A goal and its progress, the current period first',
  fields: (t) => ({
    goal: t.field({ type: Goal, resolve: (p) => p.goal }),
    periods: t.field({ type: [PeriodProgress], resolve: (p) => p.periods }),
  }),
});

const GoalProgressList = builder.objectRef<GoalProgressListView>('GoalProgressList').implement({
  description: "The progress of the person's goals, days counted in their time zone",
  fields: (t) => ({
    date: t.exposeString('date', { description: "today in the person's zone" }),
    timezone: t.exposeString('timezone'),
    goals: t.field({ type: [GoalProgress], resolve: (p) => p.goals }),
  }),
});

const metricArg = (required: boolean) => ({
  required,
  description: "the goal's metric",
  validate: required ? z.enum(GOAL_METRICS) : z.enum(GOAL_METRICS).nullish(),
});

builder.queryFields((t) => ({
  goals: t.withAuth({ scope: 'goals:read' }).field({
    type: [Goal],
    description: "The person's active goals, one per metric",
    resolve: (_root, _args, ctx) => goals(ctx),
  }),
  goalProgress: t.withAuth({ scope: 'goals:read' }).field({
    type: GoalProgressList,
    description: "Each goal's progress for the current period and optionally the ones before",
    args: {
      periods: t.arg.int({
        required: true,
        defaultValue: 1,
        description: `periods per goal, the current one included (1..${PROGRESS_PERIODS_MAX}, default 1)`,
        validate: z.number().int().min(1).max(PROGRESS_PERIODS_MAX),
      }),
      metric: t.arg.string({ ...metricArg(false), required: false }),
    },
    resolve: (_root, args, ctx) =>
      goalProgress(ctx, { periods: args.periods, metric: args.metric as GoalMetric | null }),
  }),
}));

builder.mutationFields((t) => ({
  setGoal: t.withAuth({ scope: 'goals:write' }).field({
    type: Goal,
    description: 'Sets the goal of a metric (replacing its current goal): setting it twice is once',
    args: {
      metric: t.arg.string(metricArg(true)),
      target: t.arg.float({
        required: true,
        description:
          'the target in the metric unit: steps 100..100000 (count), active_energy 10..10000 (kcal), exercise_minutes 1..1440, sleep_minutes 60..1440, body_weight 20..400 (kg), glucose_time_in_range 1..100 (%), hydration 100..10000 (ml); weekly steps, active_energy, exercise_minutes and hydration up to 7 times as much',
        validate: z.number().finite().min(1).max(700_000),
      }),
      period: t.arg.string({
        required: true,
        defaultValue: 'day',
        description: 'day (default) or week (Monday..Sunday)',
        validate: z.enum(GOAL_PERIODS),
      }),
      direction: t.arg.string({
        required: true,
        defaultValue: 'at_least',
        description: 'at_least (default): reach the target; at_most: stay at or under it',
        validate: z.enum(GOAL_DIRECTIONS),
      }),
    },
    resolve: (_root, args, ctx) =>
      setGoal(ctx, {
        metric: args.metric as GoalMetric,
        target: args.target,
        period: args.period as GoalPeriod,
        direction: args.direction as GoalDirection,
      }),
  }),
  clearGoal: t.withAuth({ scope: 'goals:write' }).field({
    type: Goal,
    description: 'Clears the goal of a metric; answers the cleared goal',
    args: { metric: t.arg.string(metricArg(true)) },
    resolve: (_root, args, ctx) => clearGoal(ctx, { metric: args.metric as GoalMetric }),
  }),
}));
