/**
 * Experiments on the graph (issue 17): start an n-of-1 experiment (insights_experiment_start),
 * control it (insights_experiment_control), read them with their results
 * (insights_experiments_read, /api/v1/experiments).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { MIN_MEALS_PER_PERIOD } from './experiments.result.ts';
import {
  controlExperiment,
  EXPERIMENT_ACTIONS,
  EXPERIMENT_MEAL_TYPES,
  EXPERIMENTS_LIST_MAX,
  experiment,
  experiments,
  PERIOD_DAYS_MAX,
  PERIOD_DAYS_MIN,
  startExperiment,
} from './experiments.service.ts';
import type {
  ExperimentAction,
  ExperimentResultView,
  ExperimentView,
  PeriodView,
} from './experiments.service.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;
const NAME_MAX = 120;
const INTERVENTION_MAX = 1000;
/** start_at may be this far in the past (a person already trying) or ahead. */
const START_PAST_DAYS = 60;
const START_AHEAD_DAYS = 14;

const Period = builder.objectRef<PeriodView>('ExperimentPeriod').implement({
  description: 'One period of an experiment and the glucose responses of its qualifying meals',
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime' }),
    end: t.expose('end', { type: 'DateTime', description: 'exclusive; up to now while running' }),
    meals: t.exposeInt('meals', { description: 'qualifying meals (meal type, outside pauses)' }),
    mealsWithResponse: t.exposeInt('mealsWithResponse', {
      description: 'those with a glucose response (enough sensor readings around them)',
    }),
    meanIaucMgDlMin: t.exposeInt('meanIaucMgDlMin', { nullable: true, description: 'mg/dL x min' }),
    sdIaucMgDlMin: t.exposeInt('sdIaucMgDlMin', { nullable: true, description: 'sample SD' }),
    meanRiseMgDl: t.exposeFloat('meanRiseMgDl', { nullable: true, description: 'peak - baseline' }),
    sdRiseMgDl: t.exposeFloat('sdRiseMgDl', { nullable: true, description: 'sample SD' }),
  }),
});

const Result = builder.objectRef<ExperimentResultView>('ExperimentResult').implement({
  description: "The comparison of the periods' glucose responses (docs/nutrition.md, Experiments)",
  fields: (t) => ({
    verdict: t.exposeString('verdict', {
      description: 'not_enough_data, lower, higher or no_clear_difference (|g| < 0.2)',
    }),
    message: t.exposeString('message', { description: 'the verdict in a sentence' }),
    minMealsPerPeriod: t.exposeInt('minMealsPerPeriod', {
      description: 'meals with a response each period needs for a result',
    }),
    control: t.expose('control', { type: Period, description: 'the baseline days before start' }),
    intervention: t.expose('intervention', { type: Period }),
    iaucDifferenceMgDlMin: t.exposeInt('iaucDifferenceMgDlMin', {
      nullable: true,
      description: 'intervention mean iAUC minus control mean iAUC',
    }),
    riseDifferenceMgDl: t.exposeFloat('riseDifferenceMgDl', { nullable: true }),
    effectSizeIauc: t.exposeFloat('effectSizeIauc', {
      nullable: true,
      description: "Hedges' g of the iAUC (negative: smaller responses during the intervention)",
    }),
    effectSizeRise: t.exposeFloat('effectSizeRise', {
      nullable: true,
      description: "Hedges' g of the rise",
    }),
    magnitude: t.exposeString('magnitude', {
      nullable: true,
      description: "Cohen's band of |g|: negligible, small, medium, large",
    }),
  }),
});

const Experiment = builder.objectRef<ExperimentView>('Experiment').implement({
  description: 'An n-of-1 experiment: a control period, then an intervention period, compared',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    intervention: t.exposeString('intervention'),
    mealType: t.exposeString('mealType', {
      nullable: true,
      description: 'the meal type it applies to; null: every meal',
    }),
    baselineDays: t.exposeInt('baselineDays'),
    interventionDays: t.exposeInt('interventionDays'),
    startAt: t.expose('startAt', { type: 'DateTime', description: 'the intervention starts' }),
    endAt: t.expose('endAt', { type: 'DateTime', description: 'the planned end' }),
    status: t.exposeString('status', {
      description: 'active, paused, completed, stopped or abandoned',
    }),
    pausedAt: t.expose('pausedAt', { type: 'DateTime', nullable: true }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    result: t.expose('result', { type: Result }),
  }),
});

const nonBlank = (max: number) =>
  z
    .string()
    .max(max, { message: `At most ${max} characters` })
    .refine((s) => s.trim().length > 0, { message: 'Must not be blank' });
const days = z.number().int().min(PERIOD_DAYS_MIN).max(PERIOD_DAYS_MAX);

const StartExperimentInput = builder.inputType('StartExperimentInput', {
  description: 'An n-of-1 experiment to start',
  fields: (t) => ({
    name: t.string({ required: true, description: `a short name (1..${NAME_MAX} characters)` }),
    intervention: t.string({
      required: true,
      description: `what the person does differently, e.g. "a 10-minute walk after dinner" (1..${INTERVENTION_MAX} characters)`,
    }),
    mealType: t.string({
      description: `the meals it applies to: ${EXPERIMENT_MEAL_TYPES.join(', ')}; left out: every meal`,
    }),
    baselineDays: t.int({
      required: true,
      description: `control period: the ${PERIOD_DAYS_MIN}..${PERIOD_DAYS_MAX} days just before start_at`,
    }),
    interventionDays: t.int({
      required: true,
      description: `intervention period: ${PERIOD_DAYS_MIN}..${PERIOD_DAYS_MAX} days from start_at`,
    }),
    startAt: t.field({
      type: 'DateTime',
      description: `when the intervention starts (ISO-8601); default now; up to ${START_PAST_DAYS} days ago or ${START_AHEAD_DAYS} days ahead`,
    }),
  }),
  validate: z.object({
    name: nonBlank(NAME_MAX),
    intervention: nonBlank(INTERVENTION_MAX),
    mealType: z.enum(EXPERIMENT_MEAL_TYPES).nullish(),
    baselineDays: days,
    interventionDays: days,
    startAt: z
      .date()
      .refine((d) => d.getTime() >= clock.ms() - START_PAST_DAYS * DAY_MS, {
        message: `start_at may be at most ${START_PAST_DAYS} days ago`,
      })
      .refine((d) => d.getTime() <= clock.ms() + START_AHEAD_DAYS * DAY_MS, {
        message: `start_at may be at most ${START_AHEAD_DAYS} days ahead`,
      })
      .nullish(),
  }),
});

const idArg = z.string().min(1).max(64);

builder.queryFields((t) => ({
  experiments: t.withAuth({ scope: 'insights:read' }).field({
    type: [Experiment],
    description: `The person's experiments with their results, newest first (at most ${EXPERIMENTS_LIST_MAX})`,
    resolve: (_root, _args, ctx) => experiments(ctx),
  }),
  experiment: t.withAuth({ scope: 'insights:read' }).field({
    type: Experiment,
    description: 'One experiment of the person with its result',
    args: {
      id: t.arg.string({ required: true, description: 'the experiment id', validate: idArg }),
    },
    resolve: (_root, args, ctx) => experiment(ctx, args.id),
  }),
}));

builder.mutationFields((t) => ({
  startExperiment: t.withAuth({ scope: 'insights:write' }).field({
    type: Experiment,
    description: `Starts an n-of-1 experiment (control: the baseline days before start_at; at least ${MIN_MEALS_PER_PERIOD} meals with a response per period for a result)`,
    args: { input: t.arg({ type: StartExperimentInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      startExperiment(ctx, {
        ...input,
        mealType: input.mealType ?? null,
        startAt: input.startAt ?? null,
      }),
  }),
  controlExperiment: t.withAuth({ scope: 'insights:write' }).field({
    type: Experiment,
    description: 'Pauses, resumes, stops or abandons an experiment',
    args: {
      id: t.arg.string({ required: true, description: 'the experiment id', validate: idArg }),
      action: t.arg.string({
        required: true,
        description:
          'pause (meals do not count until resumed), resume, stop (the result stays) or abandon',
        validate: z.enum(EXPERIMENT_ACTIONS),
      }),
    },
    resolve: (_root, args, ctx) =>
      controlExperiment(ctx, { id: args.id, action: args.action as ExperimentAction }),
  }),
}));
