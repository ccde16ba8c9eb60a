/**
 * Discovery (issue 33): the person's daily signals and their coverage, observations (add, delete,
 * list), runs and explorations (started here, run in the background) and their findings.
 * Resolvers unpack, call the service of the same name and return; the rules are in the services.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import {
  addDiscoveryObservation,
  deleteDiscoveryObservation,
  discoveryObservations,
} from './discovery.observations.ts';
import type { ObservationView, ObservationsView } from './discovery.observations.ts';
import {
  HYPOTHESES_PAGE_DEFAULT,
  HYPOTHESES_PAGE_MAX,
  INTENSITY_MAX,
  INTENSITY_MIN,
  LABEL_MAX,
  NOTE_MAX,
  OBSERVATIONS_DAYS_DEFAULT,
  OBSERVATIONS_PAGE_DEFAULT,
  OBSERVATIONS_PAGE_MAX,
} from './discovery.rules.ts';
import { discoveryHypotheses, startDiscoveryExplore, startDiscoveryRun } from './discovery.runs.ts';
import type { ExperimentView, HypothesesView, HypothesisView, RunView } from './discovery.runs.ts';
import { discoverySignals } from './discovery.signals-read.ts';
import type { SignalCoverageView, SignalsView } from './discovery.signals-read.ts';
import { RUN_DAYS_DEFAULT, RUN_DAYS_MAX } from './discovery.types.ts';

const label = z
  .string()
  .trim()
  .min(1)
  .max(LABEL_MAX)
  .refine((s) => ![...s].some((c) => c.charCodeAt(0) < 32), { message: 'no control characters' });
const runDays = z.number().int().min(14).max(RUN_DAYS_MAX);

export const Observation = builder.objectRef<ObservationView>('DiscoveryObservation').implement({
  description: "A person's own note: a label at a time, with an optional 1-5 intensity",
  fields: (t) => ({
    id: t.exposeString('id'),
    observedAt: t.expose('observedAt', { type: 'DateTime' }),
    date: t.exposeString('date', { description: 'the local day it counts on, in timeZone' }),
    timeZone: t.exposeString('timeZone', { description: 'the IANA zone of date' }),
    label: t.exposeString('label', { description: 'normalised: lower case, single spaces' }),
    intensity: t.exposeInt('intensity', { nullable: true, description: '1 slight .. 5 strong' }),
    note: t.exposeString('note', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const LabelCount = builder
  .objectRef<{ label: string; count: number }>('DiscoveryLabelCount')
  .implement({
    description: 'A label the person uses, and how many observations carry it',
    fields: (t) => ({ label: t.exposeString('label'), count: t.exposeInt('count') }),
  });

const Observations = builder.objectRef<ObservationsView>('DiscoveryObservations').implement({
  description: 'Observations of a window, newest first, and every label in use',
  fields: (t) => ({
    timeZone: t.exposeString('timeZone'),
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    observations: t.field({ type: [Observation], resolve: (v) => v.observations }),
    labels: t.field({ type: [LabelCount], resolve: (v) => v.labels }),
  }),
});

const Signal = builder.objectRef<SignalCoverageView>('DiscoverySignal').implement({
  description: 'One daily series the person’s data supports, with its coverage',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'pass it to discovery_explore_start' }),
    label: t.exposeString('label'),
    unit: t.exposeString('unit'),
    domain: t.exposeString('domain'),
    role: t.exposeString('role', { description: 'driver, outcome or both' }),
    aggregation: t.exposeString('aggregation', { description: "how a day's value is made" }),
    binary: t.exposeBoolean('binary', { description: 'a day with or without it (0/1)' }),
    days: t.exposeInt('days', { description: 'days with a value' }),
    firstDate: t.exposeString('firstDate', { nullable: true }),
    lastDate: t.exposeString('lastDate', { nullable: true }),
    coveragePct: t.exposeFloat('coveragePct', {
      description: 'days with a value, % of the window',
    }),
  }),
});

const Signals = builder.objectRef<SignalsView>('DiscoverySignals').implement({
  description: 'The daily series of a window of local days, with their coverage',
  fields: (t) => ({
    timeZone: t.exposeString('timeZone'),
    from: t.exposeString('from', { description: 'first local date' }),
    to: t.exposeString('to', { description: 'last local date (yesterday: today is not over)' }),
    signals: t.field({ type: [Signal], resolve: (v) => v.signals }),
    missing: t.exposeStringList('missing', {
      description: 'signals of the catalogue without any day in the window',
    }),
  }),
});

export const DiscoveryRunRef = builder.objectRef<RunView>('DiscoveryRun').implement({
  description: 'A discovery run or exploration: queued, running, done or failed',
  fields: (t) => ({
    id: t.exposeString('id'),
    kind: t.exposeString('kind', { description: 'run or explore' }),
    focus: t.exposeString('focus', { nullable: true, description: 'the explored signal' }),
    from: t.exposeString('from', { description: 'first local date read' }),
    to: t.exposeString('to', { description: 'last local date read' }),
    timeZone: t.exposeString('timeZone'),
    status: t.exposeString('status', { description: 'queued, running, done, failed' }),
    pairsTested: t.exposeInt('pairsTested', {
      description: 'driver -> outcome pairs x lags tested',
    }),
    pairsSkipped: t.exposeInt('pairsSkipped', { description: 'pairs without enough data' }),
    found: t.exposeInt('found', { description: 'associations at q <= 0.1' }),
    error: t.exposeString('error', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const ExperimentProposal = builder
  .objectRef<ExperimentView>('DiscoveryExperimentProposal')
  .implement({
    description: 'Ready arguments for insights_experiment_start (an n-of-1 test of the finding)',
    fields: (t) => ({
      name: t.exposeString('name'),
      intervention: t.exposeString('intervention'),
      mealType: t.exposeString('mealType', { nullable: true }),
      baselineDays: t.exposeInt('baselineDays'),
      interventionDays: t.exposeInt('interventionDays'),
    }),
  });

export const Hypothesis = builder.objectRef<HypothesisView>('DiscoveryHypothesis').implement({
  description: 'One tested pair: an association in the person’s own data, never a cause',
  fields: (t) => ({
    id: t.exposeString('id'),
    driver: t.exposeString('driver', { description: 'the signal key of the driver' }),
    outcome: t.exposeString('outcome', { description: 'the signal key of the outcome' }),
    lag: t.exposeInt('lag', {
      description:
        'the outcome’s period after the driver’s: 0 the first that begins after the driver’s ends (a day -> the night after it, a night -> the day after it, a day -> the same day), 1 the next one, ...',
    }),
    method: t.exposeString('method', { description: 'difference (high vs low days) or slope' }),
    n: t.exposeInt('n', { description: 'paired days' }),
    nHigh: t.exposeInt('nHigh', { description: 'days in the high (or with) group' }),
    nLow: t.exposeInt('nLow', { description: 'days in the low (or without) group' }),
    effect: t.exposeFloat('effect', { nullable: true, description: 'in the outcome’s unit' }),
    ciLow: t.exposeFloat('ciLow', { nullable: true, description: '95% interval, low end' }),
    ciHigh: t.exposeFloat('ciHigh', { nullable: true, description: '95% interval, high end' }),
    p: t.exposeFloat('p', { nullable: true }),
    q: t.exposeFloat('q', { nullable: true, description: 'Benjamini-Hochberg over the run' }),
    significant: t.exposeBoolean('significant', { description: 'q <= 0.1' }),
    direction: t.exposeString('direction', { nullable: true, description: 'higher or lower' }),
    notEnoughData: t.exposeString('notEnoughData', {
      nullable: true,
      description: 'what is missing',
    }),
    statement: t.exposeString('statement', { description: 'the finding in a sentence' }),
    experiment: t.field({ type: ExperimentProposal, nullable: true, resolve: (h) => h.experiment }),
  }),
});

const Hypotheses = builder.objectRef<HypothesesView>('DiscoveryHypotheses').implement({
  description: 'A run and its findings, the strongest evidence first',
  fields: (t) => ({
    run: t.field({ type: DiscoveryRunRef, nullable: true, resolve: (v) => v.run }),
    hypotheses: t.field({ type: [Hypothesis], resolve: (v) => v.hypotheses }),
    more: t.exposeInt('more', { description: 'matching pairs beyond those answered' }),
  }),
});

const HypothesisInclude = builder.enumType('DiscoveryHypothesisInclude', {
  description: 'Which pairs of a run to answer',
  values: {
    found: { description: 'associations at q <= 0.1 (default)' },
    tested: { description: 'every pair with enough data' },
    all: { description: 'also the pairs without enough data, with what is missing' },
  },
});

builder.queryFields((t) => ({
  discoverySignals: t.withAuth({ scope: 'discovery:read' }).field({
    type: Signals,
    description: 'The daily series the person’s data supports, with coverage',
    args: {
      days: t.arg.int({
        description: `local days ending yesterday (14..${RUN_DAYS_MAX}, default ${RUN_DAYS_DEFAULT})`,
        validate: runDays,
      }),
    },
    resolve: (_root, args, ctx) => discoverySignals(ctx, args),
  }),
  discoveryObservations: t.withAuth({ scope: 'discovery:read' }).field({
    type: Observations,
    description: 'The person’s observations, newest first',
    args: {
      from: t.arg({
        type: 'DateTime',
        description: `from (default ${OBSERVATIONS_DAYS_DEFAULT} days ago)`,
      }),
      to: t.arg({ type: 'DateTime', description: 'to, exclusive (default now)' }),
      label: t.arg.string({ description: 'only this label', validate: label }),
      limit: t.arg.int({
        description: `1..${OBSERVATIONS_PAGE_MAX}, default ${OBSERVATIONS_PAGE_DEFAULT}`,
        validate: z.number().int().min(1).max(OBSERVATIONS_PAGE_MAX),
      }),
    },
    resolve: (_root, args, ctx) => discoveryObservations(ctx, args),
  }),
  discoveryHypotheses: t.withAuth({ scope: 'discovery:read' }).field({
    type: Hypotheses,
    description: 'A run (default the latest) and its findings',
    args: {
      runId: t.arg.string({
        description: 'the run (default: the latest)',
        validate: z.string().trim().min(1).max(64),
      }),
      include: t.arg({ type: HypothesisInclude, description: 'found (default), tested or all' }),
      limit: t.arg.int({
        description: `1..${HYPOTHESES_PAGE_MAX}, default ${HYPOTHESES_PAGE_DEFAULT}`,
        validate: z.number().int().min(1).max(HYPOTHESES_PAGE_MAX),
      }),
    },
    resolve: (_root, args, ctx) => discoveryHypotheses(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  addDiscoveryObservation: t.withAuth({ scope: 'discovery:write' }).field({
    type: Observation,
    description: 'Records an observation (a label, a time, an optional 1-5 intensity)',
    args: {
      label: t.arg.string({
        required: true,
        description: `what was noticed, e.g. "headache" (1..${LABEL_MAX} characters)`,
        validate: label,
      }),
      observedAt: t.arg({
        type: 'DateTime',
        description: 'when (default now; no offset: local time)',
      }),
      intensity: t.arg.int({
        description: `${INTENSITY_MIN} slight .. ${INTENSITY_MAX} strong`,
        validate: z.number().int().min(INTENSITY_MIN).max(INTENSITY_MAX),
      }),
      note: t.arg.string({
        description: `free text (at most ${NOTE_MAX} characters)`,
        validate: z.string().max(NOTE_MAX),
      }),
    },
    resolve: (_root, args, ctx) => addDiscoveryObservation(ctx, args),
  }),
  deleteDiscoveryObservation: t.withAuth({ scope: 'discovery:write' }).field({
    type: Observation,
    description: 'Deletes one observation; answers it as it was',
    args: {
      id: t.arg.string({
        required: true,
        description: 'the observation id',
        validate: z.string().trim().min(1).max(64),
      }),
    },
    resolve: (_root, args, ctx) => deleteDiscoveryObservation(ctx, args),
  }),
  startDiscoveryRun: t.withAuth({ scope: 'discovery:write' }).field({
    type: DiscoveryRunRef,
    description:
      'Starts a run over the person’s signals in the background; read it with discovery_hypotheses_read',
    args: {
      days: t.arg.int({
        description: `local days ending yesterday (14..${RUN_DAYS_MAX}, default ${RUN_DAYS_DEFAULT})`,
        validate: runDays,
      }),
    },
    resolve: (_root, args, ctx) => startDiscoveryRun(ctx, args),
  }),
  startDiscoveryExplore: t.withAuth({ scope: 'discovery:write' }).field({
    type: DiscoveryRunRef,
    description: 'Explores one signal against the others at lags 0-3, in the background',
    args: {
      signal: t.arg.string({
        required: true,
        description: 'a signal key from discovery_signals_read (driver or outcome)',
        validate: z.string().trim().min(1).max(120),
      }),
      days: t.arg.int({
        description: `local days ending yesterday (14..${RUN_DAYS_MAX}, default ${RUN_DAYS_DEFAULT})`,
        validate: runDays,
      }),
    },
    resolve: (_root, args, ctx) => startDiscoveryExplore(ctx, args),
  }),
}));
