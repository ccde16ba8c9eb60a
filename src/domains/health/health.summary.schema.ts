/**
 * The health summaries and reads of issue 16 in the graph: day, range and catalogue summaries, the
 * activity and body-composition trend, workouts (page, detail, comparison) and sleep nights (page,
 * stages). Root fields declare their scope; resolvers only unpack and call the services.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import { WorkoutSample } from './health.schema.ts';
import {
  healthActivityTrend,
  healthCatalog,
  healthDaySummary,
  healthRangeSummary,
  SUMMARY_INTERVALS,
  SUMMARY_ROWS_MAX,
  SUMMARY_SPAN_MAX_DAYS,
  SUMMARY_TYPES,
  TREND_SPAN_MAX_DAYS,
  WEIGHT_SOURCES,
} from './health.summary.ts';
import type {
  ActivityDayView,
  ActivityTrendView,
  BodyWeightTrendView,
  CatalogIntervalView,
  CatalogMetricView,
  DaySummaryView,
  HealthCatalogView,
  MetricAggregateView,
  RangeSummaryView,
  SleepBucketView,
  WorkoutBucketView,
} from './health.summary.ts';
import {
  healthSleepNights,
  NIGHTS_PAGE_DEFAULT,
  NIGHTS_PAGE_MAX,
  healthSleepNight,
  STAGES_MAX,
} from './health.summary-sleep.ts';
import type {
  NightPageView,
  NightStagesReadView,
  NightStagesView,
  NightView,
  SleepIntervalView,
} from './health.summary-sleep.ts';
import {
  BUCKET_ACTIVITY_TYPES_MAX,
  COMPARE_DEFAULT,
  COMPARE_MAX,
  healthWorkoutPage,
  SERIES_POINTS,
  WORKOUTS_PAGE_DEFAULT,
  WORKOUTS_PAGE_MAX,
  healthWorkoutComparison,
  healthWorkout,
} from './health.summary-workouts.ts';
import type {
  ComparedWorkoutView,
  HeartRatePointView,
  WorkoutComparisonView,
  WorkoutDetailView,
  WorkoutFiguresView,
  WorkoutHeartRateView,
  WorkoutPageView,
  WorkoutTotalsView,
} from './health.summary-workouts.ts';

// format: declared for the JSON Schemas of the facades (the refinement is what checks it)
const localDate = z
  .string()
  .refine((s) => isLocalDate(s) && s >= '1970-01-01' && s <= '2100-12-31', {
    message: 'not a date YYYY-MM-DD between 1970-01-01 and 2100-12-31',
  })
  .meta({ format: 'date' });
const dateArg = (description: string) => ({ description, validate: localDate.nullish() });
const requiredDate = (description: string) => ({
  description,
  required: true as const,
  validate: localDate,
});
const cursorArg = {
  description: 'next_cursor of the previous page; leave it out for the first page',
  validate: z.string().min(1).max(200).nullish(),
};
const workoutIdArg = {
  required: true as const,
  description: "the workout's id (workouts_list answers them)",
  validate: z.string().min(1).max(100),
};

const SummaryInterval = builder.enumType('HealthSummaryInterval', {
  description: 'The bucket of a range summary: a local day, ISO week (Monday first) or month',
  values: enumValues(SUMMARY_INTERVALS),
});

const SummaryType = builder.enumType('HealthSummaryType', {
  description:
    'What a range summary answers: a metric type, sleep (the nights, per-night means) or workouts',
  values: enumValues(SUMMARY_TYPES),
});

const MetricAggregate = builder.objectRef<MetricAggregateView>('HealthMetricAggregate').implement({
  description: 'One metric over a day, week or month: its figure and the samples behind it',
  fields: (t) => ({
    metricType: t.exposeString('metricType'),
    unit: t.exposeString('unit', { description: 'ms, bpm, count, kcal, kg or breaths/min' }),
    aggregation: t.exposeString('aggregation', {
      description: 'how value is made: sum (steps, active_energy), avg (rates), last (body_weight)',
    }),
    value: t.exposeFloat('value', { description: 'the figure of the bucket' }),
    count: t.exposeInt('count', { description: 'samples in the bucket' }),
    min: t.exposeFloat('min', { description: 'smallest sample' }),
    max: t.exposeFloat('max', { description: 'largest sample' }),
    start: t.exposeString('start', { description: 'first local date of the bucket in the range' }),
    end: t.exposeString('end', { description: 'last local date of the bucket in the range' }),
    sources: t.stringList({
      nullable: true,
      description: 'apps or devices that recorded the samples, most samples first (day summary)',
      resolve: (m) => m.sources ?? null,
    }),
  }),
});

const NightStages = builder.objectRef<NightStagesView>('SleepNightStages').implement({
  description: "Minutes per stage of a night (its chosen source's intervals)",
  fields: (t) => ({
    core: t.exposeFloat('core'),
    deep: t.exposeFloat('deep'),
    rem: t.exposeFloat('rem'),
    asleepUnspecified: t.exposeFloat('asleepUnspecified', {
      description: 'asleep without a stage (older devices)',
    }),
    awake: t.exposeFloat('awake'),
    inBed: t.exposeFloat('inBed', { description: 'in_bed intervals' }),
  }),
});

const SleepNight = builder.objectRef<NightView>('SleepNight').implement({
  description:
    'A night: the sleep intervals ending from 18:00 the day before to 18:00 on `date` (local)',
  fields: (t) => ({
    date: t.exposeString('date', { description: 'the local date the night ends on' }),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    source: t.exposeString('source', {
      description: 'the source whose intervals make the totals (the most sleep that night)',
    }),
    sources: t.exposeStringList('sources', { description: 'every source that recorded the night' }),
    asleepMinutes: t.exposeFloat('asleepMinutes', { description: 'core + deep + rem + asleep' }),
    inBedMinutes: t.exposeFloat('inBedMinutes', {
      description: 'in_bed intervals, or first start to last end without them',
    }),
    awakeMinutes: t.exposeFloat('awakeMinutes'),
    efficiency: t.exposeInt('efficiency', {
      nullable: true,
      description: 'asleep / in bed, percent',
    }),
    stages: t.expose('stages', { type: NightStages }),
  }),
});

const WorkoutTotals = builder.objectRef<WorkoutTotalsView>('HealthWorkoutTotals').implement({
  description: 'The workouts that started on a day',
  fields: (t) => ({
    count: t.exposeInt('count'),
    minutes: t.exposeFloat('minutes'),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true, description: 'metres' }),
    activityTypes: t.exposeStringList('activityTypes'),
  }),
});

const DaySummary = builder.objectRef<DaySummaryView>('HealthDaySummary').implement({
  description: "The person's day: metrics, the night ending that day, workouts",
  fields: (t) => ({
    date: t.exposeString('date'),
    timezone: t.exposeString('timezone', { description: 'the zone the day is counted in' }),
    metrics: t.field({ type: [MetricAggregate], resolve: (d) => d.metrics }),
    sleep: t.field({ type: SleepNight, nullable: true, resolve: (d) => d.sleep }),
    workouts: t.field({ type: WorkoutTotals, resolve: (d) => d.workouts }),
  }),
});

const SleepBucket = builder.objectRef<SleepBucketView>('HealthSleepBucket').implement({
  description:
    'The nights ending in a day, week or month (each from its main source): per-night means, minutes',
  fields: (t) => ({
    start: t.exposeString('start', { description: 'first local date of the bucket in the range' }),
    end: t.exposeString('end', { description: 'last local date of the bucket in the range' }),
    nights: t.exposeInt('nights', { description: 'nights with sleep in the bucket (1 for a day)' }),
    asleepMinutes: t.exposeFloat('asleepMinutes', {
      description: 'asleep per night (core + deep + rem + asleep), mean',
    }),
    minAsleepMinutes: t.exposeFloat('minAsleepMinutes', { description: 'the shortest night' }),
    maxAsleepMinutes: t.exposeFloat('maxAsleepMinutes', { description: 'the longest night' }),
    inBedMinutes: t.exposeFloat('inBedMinutes', { description: 'in bed per night, mean' }),
    awakeMinutes: t.exposeFloat('awakeMinutes', { description: 'awake per night, mean' }),
    efficiency: t.exposeInt('efficiency', {
      nullable: true,
      description: 'asleep / in bed, percent, mean',
    }),
    stages: t.expose('stages', { type: NightStages, description: 'per night, mean' }),
  }),
});

const WorkoutBucket = builder.objectRef<WorkoutBucketView>('HealthWorkoutBucket').implement({
  description: 'The workouts that started in a day, week or month',
  fields: (t) => ({
    start: t.exposeString('start', { description: 'first local date of the bucket in the range' }),
    end: t.exposeString('end', { description: 'last local date of the bucket in the range' }),
    count: t.exposeInt('count'),
    minutes: t.exposeFloat('minutes'),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true, description: 'metres' }),
    activityTypes: t.exposeStringList('activityTypes', {
      description: `most minutes first, at most ${BUCKET_ACTIVITY_TYPES_MAX}`,
    }),
  }),
});

const RangeSummary = builder.objectRef<RangeSummaryView>('HealthRangeSummary').implement({
  description:
    'One row per bucket and metric type over a range, and the sleep and workouts of each bucket when asked, oldest first',
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    interval: t.exposeString('interval'),
    timezone: t.exposeString('timezone', { description: 'the zone the buckets are counted in' }),
    rows: t.field({ type: [MetricAggregate], resolve: (r) => r.rows }),
    sleep: t.field({
      type: [SleepBucket],
      description: 'buckets with sleep (when metricTypes names sleep), oldest first',
      resolve: (r) => r.sleep,
    }),
    workouts: t.field({
      type: [WorkoutBucket],
      description: 'buckets with workouts (when metricTypes names workouts), oldest first',
      resolve: (r) => r.workouts,
    }),
  }),
});

const CatalogMetric = builder.objectRef<CatalogMetricView>('HealthCatalogMetric').implement({
  description: 'A metric type the person has samples of',
  fields: (t) => ({
    metricType: t.exposeString('metricType'),
    unit: t.exposeString('unit'),
    aggregation: t.exposeString('aggregation', { description: 'how summaries aggregate it' }),
    count: t.exposeInt('count'),
    firstAt: t.expose('firstAt', { type: 'DateTime' }),
    lastAt: t.expose('lastAt', { type: 'DateTime' }),
    sources: t.exposeStringList('sources', { description: 'most samples first (at most 10)' }),
  }),
});

const CatalogInterval = builder.objectRef<CatalogIntervalView>('HealthCatalogInterval').implement({
  description: 'A sleep stage or workout activity type the person has intervals of',
  fields: (t) => ({
    type: t.exposeString('type'),
    count: t.exposeInt('count'),
    firstAt: t.expose('firstAt', { type: 'DateTime' }),
    lastAt: t.expose('lastAt', { type: 'DateTime' }),
  }),
});

const Catalog = builder.objectRef<HealthCatalogView>('HealthCatalog').implement({
  description: "What the person's health record holds",
  fields: (t) => ({
    timezone: t.exposeString('timezone'),
    metrics: t.field({ type: [CatalogMetric], resolve: (c) => c.metrics }),
    sleepStages: t.field({ type: [CatalogInterval], resolve: (c) => c.sleepStages }),
    workoutTypes: t.field({
      type: [CatalogInterval],
      description: 'most recorded first (at most 100)',
      resolve: (c) => c.workoutTypes,
    }),
  }),
});

const WeightSource = builder.enumType('HealthWeightSource', {
  description:
    "Where a body weight comes from: imported from the phone's health store, or logged (by hand, by the phone's log or by an agent)",
  values: enumValues(WEIGHT_SOURCES),
});

const ActivityDay = builder.objectRef<ActivityDayView>('HealthActivityDay').implement({
  description: 'A day of activity and body weight (null where nothing was recorded)',
  fields: (t) => ({
    date: t.exposeString('date'),
    steps: t.exposeFloat('steps', { nullable: true }),
    activeEnergyKcal: t.exposeFloat('activeEnergyKcal', { nullable: true }),
    bodyWeightKg: t.exposeFloat('bodyWeightKg', {
      nullable: true,
      description: "the day's last weight, imported or logged (whichever was taken later)",
    }),
    bodyWeightSource: t.field({
      type: WeightSource,
      nullable: true,
      description: 'where bodyWeightKg comes from',
      resolve: (d) => d.bodyWeightSource,
    }),
  }),
});

const BodyWeightTrend = builder.objectRef<BodyWeightTrendView>('HealthBodyWeightTrend').implement({
  description: 'Body weight over the range, kg',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'weight samples imported and entries logged' }),
    logged: t.exposeInt('logged', { description: 'of count, the weights logged' }),
    first: t.exposeFloat('first', { description: "the first day's weight" }),
    last: t.exposeFloat('last', { description: "the last day's weight" }),
    change: t.exposeFloat('change', { description: 'last - first' }),
    min: t.exposeFloat('min'),
    max: t.exposeFloat('max'),
  }),
});

const ActivityTrend = builder.objectRef<ActivityTrendView>('HealthActivityTrend').implement({
  description: 'Daily steps and active energy, and the body-weight trend, over a range',
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    timezone: t.exposeString('timezone'),
    days: t.field({
      type: [ActivityDay],
      description: 'days with any sample, oldest first',
      resolve: (a) => a.days,
    }),
    meanSteps: t.exposeFloat('meanSteps', { nullable: true }),
    meanActiveEnergyKcal: t.exposeFloat('meanActiveEnergyKcal', { nullable: true }),
    bodyWeight: t.field({ type: BodyWeightTrend, nullable: true, resolve: (a) => a.bodyWeight }),
  }),
});

const WorkoutPage = builder.objectRef<WorkoutPageView>('HealthWorkoutPage').implement({
  description: 'A page of workouts, newest first, and the cursor of the next page',
  fields: (t) => ({
    timezone: t.exposeString('timezone'),
    items: t.field({ type: [WorkoutSample], resolve: (p) => p.items }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass it as cursor for the next page; null on the last page',
    }),
  }),
});

const HeartRatePoint = builder.objectRef<HeartRatePointView>('HealthHeartRatePoint').implement({
  description: 'Heart rate over one slice of a workout',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime', description: 'start of the slice' }),
    avg: t.exposeFloat('avg', { description: 'mean bpm' }),
    max: t.exposeFloat('max', { description: 'highest bpm' }),
  }),
});

const WorkoutHeartRate = builder
  .objectRef<WorkoutHeartRateView>('HealthWorkoutHeartRate')
  .implement({
    description: 'Heart rate samples taken during a workout, bpm',
    fields: (t) => ({
      count: t.exposeInt('count'),
      avg: t.exposeFloat('avg'),
      min: t.exposeFloat('min'),
      max: t.exposeFloat('max'),
      series: t.field({
        type: [HeartRatePoint],
        description: `at most ${SERIES_POINTS} points, oldest first`,
        resolve: (h) => h.series,
      }),
    }),
  });

const WorkoutDetail = builder.objectRef<WorkoutDetailView>('HealthWorkoutDetail').implement({
  description: 'A workout with the heart rate recorded during it',
  fields: (t) => ({
    id: t.exposeString('id'),
    activityType: t.exposeString('activityType'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    durationMinutes: t.exposeFloat('durationMinutes'),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true }),
    source: t.exposeString('source'),
    heartRate: t.field({ type: WorkoutHeartRate, nullable: true, resolve: (w) => w.heartRate }),
  }),
});

const ComparedWorkout = builder.objectRef<ComparedWorkoutView>('HealthComparedWorkout').implement({
  description: 'A workout in a comparison',
  fields: (t) => ({
    id: t.exposeString('id'),
    activityType: t.exposeString('activityType'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    durationMinutes: t.exposeFloat('durationMinutes'),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true }),
    avgHeartRate: t.exposeFloat('avgHeartRate', { nullable: true }),
  }),
});

const WorkoutFigures = builder.objectRef<WorkoutFiguresView>('HealthWorkoutFigures').implement({
  description: 'Duration (min), energy (kcal), distance (m) and mean heart rate (bpm)',
  fields: (t) => ({
    durationMinutes: t.exposeFloat('durationMinutes', { nullable: true }),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true }),
    avgHeartRate: t.exposeFloat('avgHeartRate', { nullable: true }),
  }),
});

const WorkoutComparison = builder
  .objectRef<WorkoutComparisonView>('HealthWorkoutComparison')
  .implement({
    description: "A workout against the person's previous workouts of the same type",
    fields: (t) => ({
      workout: t.field({ type: ComparedWorkout, resolve: (c) => c.workout }),
      previous: t.field({ type: [ComparedWorkout], resolve: (c) => c.previous }),
      baseline: t.field({ type: WorkoutFigures, resolve: (c) => c.baseline }),
      deltas: t.field({ type: WorkoutFigures, resolve: (c) => c.deltas }),
    }),
  });

const SleepInterval = builder.objectRef<SleepIntervalView>('SleepStageInterval').implement({
  description: 'One stage interval of a night',
  fields: (t) => ({
    stage: t.exposeString('stage'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    minutes: t.exposeFloat('minutes'),
    source: t.exposeString('source'),
  }),
});

const NightPage = builder.objectRef<NightPageView>('SleepNightPage').implement({
  description: 'A page of nights, newest first, and the cursor of the next page',
  fields: (t) => ({
    timezone: t.exposeString('timezone'),
    items: t.field({ type: [SleepNight], resolve: (p) => p.items }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass it as cursor for the next page; null on the last page',
    }),
  }),
});

const NightStagesRead = builder.objectRef<NightStagesReadView>('SleepNightDetail').implement({
  description: "A night's totals and its stage intervals",
  fields: (t) => ({
    date: t.exposeString('date'),
    timezone: t.exposeString('timezone'),
    source: t.exposeString('source'),
    sources: t.exposeStringList('sources'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    asleepMinutes: t.exposeFloat('asleepMinutes'),
    inBedMinutes: t.exposeFloat('inBedMinutes'),
    awakeMinutes: t.exposeFloat('awakeMinutes'),
    efficiency: t.exposeInt('efficiency', { nullable: true }),
    stages: t.expose('stages', { type: NightStages }),
    intervals: t.field({
      type: [SleepInterval],
      description: `oldest first, at most ${STAGES_MAX}`,
      resolve: (n) => n.intervals,
    }),
    truncated: t.exposeBoolean('truncated', {
      description: `true when the night has more than ${STAGES_MAX} intervals`,
    }),
  }),
});

builder.queryFields((t) => ({
  healthDaySummary: t.withAuth({ scope: 'health:summary:read' }).field({
    type: DaySummary,
    description: "The person's day: each metric's aggregate, the night's sleep, the workouts",
    args: {
      date: t.arg.string(dateArg('the local date YYYY-MM-DD; leave it out for today')),
    },
    resolve: (_root, args, ctx) => healthDaySummary(ctx, { date: args.date }),
  }),
  healthRangeSummary: t.withAuth({ scope: 'health:summary:read' }).field({
    type: RangeSummary,
    description: `One row per day, week or month and metric type, and sleep and workouts when asked (at most ${SUMMARY_ROWS_MAX} rows)`,
    args: {
      from: t.arg.string(requiredDate('first local date YYYY-MM-DD')),
      to: t.arg.string(
        requiredDate(
          `last local date YYYY-MM-DD (at most ${SUMMARY_SPAN_MAX_DAYS} days after from)`,
        ),
      ),
      interval: t.arg({
        type: SummaryInterval,
        required: true,
        defaultValue: 'day',
        description: "day, week (Monday first) or month, in the person's time zone (default day)",
      }),
      metricTypes: t.arg({
        type: [SummaryType],
        description:
          'only these metric types, and sleep (the nights) or workouts when named; leave it out for every metric type',
        validate: z.array(z.string()).max(SUMMARY_TYPES.length).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => healthRangeSummary(ctx, args),
  }),
  healthCatalog: t.withAuth({ scope: 'health:summary:read' }).field({
    type: Catalog,
    description: 'What the health record holds: metric types, sleep stages, workout types',
    resolve: (_root, _args, ctx) => healthCatalog(ctx),
  }),
}));

builder.queryFields((t) => ({
  healthActivityTrend: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: ActivityTrend,
    description: 'Daily steps and active energy and the body-weight trend over a range',
    args: {
      from: t.arg.string(requiredDate('first local date YYYY-MM-DD')),
      to: t.arg.string(
        requiredDate(`last local date YYYY-MM-DD (at most ${TREND_SPAN_MAX_DAYS} days from from)`),
      ),
    },
    resolve: (_root, args, ctx) => healthActivityTrend(ctx, args),
  }),
  healthWorkoutPage: t.withAuth({ scope: 'health:workouts:read' }).field({
    type: WorkoutPage,
    description: "One page of the person's workouts, newest first",
    args: {
      from: t.arg.string(dateArg('only workouts started on or after this local date')),
      to: t.arg.string(dateArg('only workouts started on or before this local date')),
      activityType: t.arg.string({
        description: 'only this activity type, e.g. running (health_catalog_read lists them)',
        validate: z.string().min(1).max(100).nullish(),
      }),
      limit: t.arg.int({
        required: true,
        defaultValue: WORKOUTS_PAGE_DEFAULT,
        description: `workouts per page (1..${WORKOUTS_PAGE_MAX}, default ${WORKOUTS_PAGE_DEFAULT})`,
        validate: z.number().int().min(1).max(WORKOUTS_PAGE_MAX),
      }),
      cursor: t.arg.string(cursorArg),
    },
    resolve: (_root, args, ctx) => healthWorkoutPage(ctx, args),
  }),
  healthWorkout: t.withAuth({ scope: 'health:workouts:read' }).field({
    type: WorkoutDetail,
    description: 'One workout with the heart rate during it',
    args: { id: t.arg.string(workoutIdArg) },
    resolve: (_root, args, ctx) => healthWorkout(ctx, args),
  }),
  healthWorkoutComparison: t.withAuth({ scope: 'health:workouts:read' }).field({
    type: WorkoutComparison,
    description: 'One workout against the previous workouts of the same type',
    args: {
      id: t.arg.string(workoutIdArg),
      previous: t.arg.int({
        required: true,
        defaultValue: COMPARE_DEFAULT,
        description: `previous workouts of the same type to compare with (1..${COMPARE_MAX}, default ${COMPARE_DEFAULT})`,
        validate: z.number().int().min(1).max(COMPARE_MAX),
      }),
    },
    resolve: (_root, args, ctx) => healthWorkoutComparison(ctx, args),
  }),
}));

builder.queryFields((t) => ({
  healthSleepNights: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: NightPage,
    description: "One page of the person's nights, newest first",
    args: {
      from: t.arg.string(dateArg('first night (local date it ends on); default a year before to')),
      to: t.arg.string(dateArg('last night (local date it ends on); default today')),
      limit: t.arg.int({
        required: true,
        defaultValue: NIGHTS_PAGE_DEFAULT,
        description: `nights per page (1..${NIGHTS_PAGE_MAX}, default ${NIGHTS_PAGE_DEFAULT})`,
        validate: z.number().int().min(1).max(NIGHTS_PAGE_MAX),
      }),
      cursor: t.arg.string(cursorArg),
    },
    resolve: (_root, args, ctx) => healthSleepNights(ctx, args),
  }),
  healthSleepNight: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: NightStagesRead,
    description: 'The stage intervals of one night',
    args: {
      date: t.arg.string(requiredDate('the local date the night ends on, YYYY-MM-DD')),
      source: t.arg.string({
        description: "read this source's intervals (the night's sources); default its main source",
        validate: z.string().max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => healthSleepNight(ctx, args),
  }),
}));
