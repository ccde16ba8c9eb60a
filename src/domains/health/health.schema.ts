/** Health-store imports (metrics; sleep and workout intervals) and their reads. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import type {
  BatchImportResult,
  DataSubjectView,
  HealthMetricView,
  ImportResult,
  SleepSampleView,
  WorkoutSampleView,
} from './health.service.ts';
import {
  healthDataSubject,
  importHealthIntervals,
  importHealthMetrics,
  healthMetrics,
  healthSleep,
  healthWorkouts,
  MAX_IMPORT_SAMPLES,
} from './health.service.ts';
import { INTERVAL_ISSUE, intervalIssue, METRIC_TYPES, SLEEP_STAGES } from './health.constants.ts';

/** Longest read window, in days (ten years). */
const MAX_DAYS = 3650;
export const daysArg = z
  .number()
  .int()
  .min(1, 'days must be at least 1')
  .max(MAX_DAYS, `days must be at most ${MAX_DAYS}`);
const source = z.string().max(200).nullish();
const sourceId = z.string().min(1).max(200).nullish();
const interval = <T extends { startAt: Date; endAt: Date }>(s: z.ZodType<T>): z.ZodType<T> =>
  s.refine((v) => intervalIssue(v.startAt.getTime(), v.endAt.getTime()) === null, {
    message: INTERVAL_ISSUE,
    path: ['endAt'],
  });

export const HealthMetricType = builder.enumType('HealthMetricType', {
  description: "A point-in-time health metric imported from the phone's health store",
  values: enumValues(METRIC_TYPES),
});

export const SleepStage = builder.enumType('SleepStage', {
  description: 'A stage of a sleep interval',
  values: enumValues(SLEEP_STAGES),
});

const ImportResultRef = builder.objectRef<ImportResult>('HealthImportResult').implement({
  description: 'What an import stored',
  fields: (t) => ({
    inserted: t.exposeInt('inserted', { description: 'samples stored by this request' }),
    skipped: t.exposeInt('skipped', {
      description: 'samples already stored (or repeated in the request)',
    }),
  }),
});

const BatchImportResultRef = builder
  .objectRef<BatchImportResult>('HealthBatchImportResult')
  .implement({
    description: 'What an interval import stored, per kind',
    fields: (t) => ({
      sleep: t.expose('sleep', { type: ImportResultRef }),
      workouts: t.expose('workouts', { type: ImportResultRef }),
    }),
  });

export const HealthMetric = builder.objectRef<HealthMetricView>('HealthMetric').implement({
  description: 'One point-in-time health metric sample',
  fields: (t) => ({
    id: t.exposeString('id'),
    metricType: t.exposeString('metricType'),
    value: t.exposeFloat('value'),
    unit: t.exposeString('unit', { description: 'ms, bpm, count, kcal, kg or breaths/min' }),
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    source: t.exposeString('source', { description: 'the app or device that recorded it' }),
  }),
});

export const SleepSample = builder.objectRef<SleepSampleView>('SleepSample').implement({
  description: 'One sleep interval (one stage)',
  fields: (t) => ({
    id: t.exposeString('id'),
    stage: t.exposeString('stage'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    durationMinutes: t.exposeFloat('durationMinutes'),
    source: t.exposeString('source'),
  }),
});

export const WorkoutSample = builder.objectRef<WorkoutSampleView>('WorkoutSample').implement({
  description: 'One workout',
  fields: (t) => ({
    id: t.exposeString('id'),
    activityType: t.exposeString('activityType'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    durationMinutes: t.exposeFloat('durationMinutes'),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true }),
    source: t.exposeString('source'),
  }),
});

const MetricSampleInput = builder.inputType('HealthMetricSampleInput', {
  fields: (t) => ({
    metricType: t.field({ type: HealthMetricType, required: true }),
    value: t.float({ required: true, description: "in the metric's unit (body_weight in kg)" }),
    timestamp: t.field({ type: 'DateTime', required: true }),
    source: t.string({ description: 'the app or device that recorded it' }),
  }),
});

const AppleHealthImportInput = builder.inputType('AppleHealthImportIn', {
  description: "A batch of point-in-time metrics from the phone's health store",
  fields: (t) => ({
    samples: t.field({ type: [MetricSampleInput], required: true }),
  }),
  validate: z.object({
    samples: z
      .array(z.looseObject({ value: z.number().finite().min(0).max(1e6), source }))
      .max(MAX_IMPORT_SAMPLES, `at most ${MAX_IMPORT_SAMPLES} samples per request`),
  }),
});

const SleepSampleInput = builder.inputType('SleepSampleInput', {
  fields: (t) => ({
    stage: t.field({ type: SleepStage, required: true }),
    startAt: t.field({ type: 'DateTime', required: true }),
    endAt: t.field({ type: 'DateTime', required: true }),
    source: t.string(),
    sourceId: t.string({ description: "the health store's own identifier of the sample" }),
  }),
});

const WorkoutSampleInput = builder.inputType('WorkoutSampleInput', {
  fields: (t) => ({
    activityType: t.string({ required: true, description: 'e.g. running, walking, cycling' }),
    startAt: t.field({ type: 'DateTime', required: true }),
    endAt: t.field({ type: 'DateTime', required: true }),
    energyKcal: t.float(),
    distanceM: t.float({ description: 'metres' }),
    source: t.string(),
    sourceId: t.string({ description: "the health store's own identifier of the sample" }),
  }),
});

const BatchSyncInput = builder.inputType('BatchSyncIn', {
  description: "A batch of sleep and workout intervals from the phone's health store",
  fields: (t) => ({
    sleep: t.field({ type: [SleepSampleInput], defaultValue: [] }),
    workouts: t.field({ type: [WorkoutSampleInput], defaultValue: [] }),
  }),
  validate: z
    .object({
      sleep: z
        .array(interval(z.looseObject({ startAt: z.date(), endAt: z.date(), source, sourceId })))
        .nullish(),
      workouts: z
        .array(
          interval(
            z.looseObject({
              activityType: z.string().trim().min(1).max(100),
              startAt: z.date(),
              endAt: z.date(),
              energyKcal: z.number().finite().min(0).nullish(),
              distanceM: z.number().finite().min(0).nullish(),
              source,
              sourceId,
            }),
          ),
        )
        .nullish(),
    })
    .refine((v) => (v.sleep?.length ?? 0) + (v.workouts?.length ?? 0) <= MAX_IMPORT_SAMPLES, {
      message: `at most ${MAX_IMPORT_SAMPLES} samples per request`,
    }),
});

builder.queryFields((t) => ({
  healthSleep: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: [SleepSample],
    description: 'Sleep intervals that ended in the last `days` days, oldest first',
    args: { days: t.arg.int({ required: true, defaultValue: 7, validate: daysArg }) },
    resolve: (_root, { days }, ctx) => healthSleep(ctx, { days }),
  }),
  healthWorkouts: t.withAuth({ scope: 'health:workouts:read' }).field({
    type: [WorkoutSample],
    description: 'Workouts that started in the last `days` days, newest first',
    args: { days: t.arg.int({ required: true, defaultValue: 7, validate: daysArg }) },
    resolve: (_root, { days }, ctx) => healthWorkouts(ctx, { days }),
  }),
  healthMetrics: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: [HealthMetric],
    description: 'Samples of one metric in the last `days` days, oldest first',
    args: {
      metricType: t.arg({ type: HealthMetricType, required: true }),
      days: t.arg.int({ required: true, defaultValue: 30, validate: daysArg }),
    },
    resolve: (_root, { metricType, days }, ctx) => healthMetrics(ctx, { metricType, days }),
  }),
}));

const HealthDataSubject = builder.objectRef<DataSubjectView>('HealthDataSubject').implement({
  description: "Whose health data a credential reads, and when that person's phone last synced",
  fields: (t) => ({
    userId: t.exposeInt('userId', { description: 'the person whose data it is' }),
    name: t.exposeString('name', { nullable: true, description: "that person's name" }),
    viewingAs: t.exposeBoolean('viewingAs', {
      description: "true while the credential views another person's data through an access grant",
    }),
    phoneLastSyncAt: t.expose('phoneLastSyncAt', {
      type: 'DateTime',
      nullable: true,
      description:
        "when that person's phone last synced (a sync push, a glucose or raw batch, a sensor payload, a health import)",
    }),
  }),
});

builder.queryFields((t) => ({
  healthDataSubject: t.withAuth({ authenticated: true }).field({
    type: HealthDataSubject,
    description:
      "Whose health data this credential reads (the owner's while viewing as) and when their phone last synced",
    resolve: (_root, _args, ctx) => healthDataSubject(ctx),
  }),
}));

builder.mutationFields((t) => ({
  // NOTE: imports come from the person's own phone (a login session), never from a token or agent.
  importHealthMetrics: t.withAuth({ loginSession: true }).field({
    type: ImportResultRef,
    description: 'Imports point-in-time metrics; idempotent on (timestamp, metric_type, source)',
    args: { input: t.arg({ type: AppleHealthImportInput, required: true }) },
    resolve: (_root, { input }, ctx) => importHealthMetrics(ctx, { samples: input.samples }),
  }),
  importHealthIntervals: t.withAuth({ loginSession: true }).field({
    type: BatchImportResultRef,
    description:
      'Imports sleep and workout intervals; idempotent on the source id or (kind, start, end, source)',
    args: { input: t.arg({ type: BatchSyncInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      importHealthIntervals(ctx, { sleep: input.sleep ?? [], workouts: input.workouts ?? [] }),
  }),
}));
