/**
 * The health archive (issue 16): the whole Apple Health export, read a bounded page at a time; and
 * the phone's upload of the export.zip with its background import's progress (issue 30).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import {
  ARCHIVE_INTERVALS,
  ARCHIVE_LIMITS,
  healthArchiveCoverage,
  healthArchiveEcg,
  healthArchiveEvents,
  healthArchiveRoute,
  healthArchiveSamples,
  healthArchiveWorkouts,
  healthArchiveWorkoutSeries,
} from './health.archive.ts';
import type {
  ArchiveBucketView,
  ArchiveCoverageView,
  ArchiveEcgView,
  ArchiveEventPageView,
  ArchiveEventView,
  ArchiveRouteView,
  ArchiveSamplePageView,
  ArchiveSampleView,
  ArchiveSeriesView,
  ArchiveWorkoutPageView,
  ArchiveWorkoutRefView,
  ArchiveWorkoutView,
  CoverageSpanView,
  CoverageTypeView,
  EcgRecordingView,
  EcgSamplesView,
  KeyValueView,
  RoutePointView,
  WorkoutStatisticView,
} from './health.archive.ts';
import {
  ARCHIVE_IMPORT_LIST,
  ARCHIVE_IMPORT_STATUSES,
  healthArchiveImport,
  healthArchiveImports,
  latestArchiveImport,
  importHealthArchive,
} from './health.archive-upload.ts';
import type { ArchiveImportCountsView, ArchiveImportView } from './health.archive-upload.ts';

const HEART_RATE = 'HKQuantityTypeIdentifierHeartRate';

const ArchiveInterval = builder.enumType('HealthArchiveInterval', {
  description: 'An interval samples are aggregated to (buckets start at its UTC boundary)',
  values: enumValues(ARCHIVE_INTERVALS),
});

const KeyValue = builder.objectRef<KeyValueView>('HealthArchiveMetadataEntry').implement({
  description: 'One MetadataEntry of the export (key and value as exported)',
  fields: (t) => ({ key: t.exposeString('key'), value: t.exposeString('value') }),
});

const CoverageType = builder.objectRef<CoverageTypeView>('HealthArchiveTypeCoverage').implement({
  description: 'What the archive holds of one record type',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'the HealthKit type as exported' }),
    kind: t.exposeString('kind', {
      description: 'quantity, category, correlation, workout_event or activity_summary',
    }),
    count: t.exposeInt('count', { description: 'records stored' }),
    first: t.expose('first', { type: 'DateTime', description: 'start of the earliest record' }),
    last: t.expose('last', { type: 'DateTime', description: 'end of the latest record' }),
    units: t.exposeStringList('units', { description: 'units of its values (at most 20)' }),
    sources: t.exposeStringList('sources', { description: 'apps and devices (at most 20)' }),
  }),
});

const CoverageSpan = builder.objectRef<CoverageSpanView>('HealthArchiveSpan').implement({
  description: 'A count and the date range it covers',
  fields: (t) => ({
    count: t.exposeInt('count'),
    first: t.expose('first', { type: 'DateTime', nullable: true }),
    last: t.expose('last', { type: 'DateTime', nullable: true }),
  }),
});

const ImportStatus = builder.enumType('HealthArchiveImportStatus', {
  description: 'queued, running, ready (the archive holds the export) or failed (see error)',
  values: enumValues(ARCHIVE_IMPORT_STATUSES),
});

const stored = (table: string) => ({ description: `new rows stored in ${table}` });

const ImportCounts = builder
  .objectRef<ArchiveImportCountsView>('HealthArchiveImportCounts')
  .implement({
    description: 'What a finished import stored, per table, and the files of the export it missed',
    fields: (t) => ({
      healthMetrics: t.exposeInt('healthMetrics', stored('the metrics (HRV, steps, ...)')),
      sleepSamples: t.exposeInt('sleepSamples', stored('sleep')),
      workoutSamples: t.exposeInt('workoutSamples', stored('workouts')),
      archiveRecords: t.exposeInt('archiveRecords', stored('the archive records')),
      archiveWorkouts: t.exposeInt('archiveWorkouts', stored('the archive workouts')),
      archiveRoutePoints: t.exposeInt('archiveRoutePoints', stored('the workout routes')),
      archiveEcg: t.exposeInt('archiveEcg', stored('the ECG recordings')),
      alreadyStored: t.exposeInt('alreadyStored', {
        description: 'samples the account already had (from the phone or an earlier import)',
      }),
      missingRouteFiles: t.exposeInt('missingRouteFiles', {
        description: 'route files a workout names that the zip does not hold',
      }),
      unreadableEcgFiles: t.exposeInt('unreadableEcgFiles', {
        description: 'ECG files that were not readable',
      }),
    }),
  });

const ArchiveImport = builder.objectRef<ArchiveImportView>('HealthArchiveImport').implement({
  description: 'An uploaded Apple Health export.zip and where its import into the archive is',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'read the progress by it' }),
    status: t.field({ type: ImportStatus, resolve: (i) => i.status }),
    fileName: t.exposeString('fileName', { description: 'the name the phone sent' }),
    sizeBytes: t.exposeFloat('sizeBytes', { description: 'bytes uploaded' }),
    sha256: t.exposeString('sha256', {
      description: 'of the bytes: the same file uploaded again answers this import',
    }),
    recordsRead: t.exposeInt('recordsRead', {
      description: 'records and workouts of export.xml read so far (all of them once ready)',
    }),
    recordsStored: t.exposeInt('recordsStored', { description: 'new rows stored so far' }),
    counts: t.field({
      type: ImportCounts,
      nullable: true,
      description: 'per table, once ready',
      resolve: (i) => i.counts,
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'why it failed and what to do',
    }),
    attempts: t.exposeInt('attempts', { description: 'times a worker started it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'when it was uploaded' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  }),
});

const Coverage = builder.objectRef<ArchiveCoverageView>('HealthArchiveCoverage').implement({
  description: 'What the health archive holds, per record type, plus workouts, routes and ECGs',
  fields: (t) => ({
    types: t.field({ type: [CoverageType], resolve: (c) => c.types }),
    workouts: t.field({ type: CoverageSpan, resolve: (c) => c.workouts }),
    ecg: t.field({ type: CoverageSpan, resolve: (c) => c.ecg }),
    routePoints: t.exposeInt('routePoints', { description: 'workout route points stored' }),
    latestImport: t.withAuth({ scope: 'health:metrics:read' }).field({
      type: ArchiveImport,
      nullable: true,
      description: "the person's latest export.zip upload and its import's progress (null: none)",
      resolve: (_c, _args, ctx) => latestArchiveImport(ctx),
    }),
  }),
});

const Sample = builder.objectRef<ArchiveSampleView>('HealthArchiveSample').implement({
  description: 'One record of the archive',
  fields: (t) => ({
    id: t.exposeString('id'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    value: t.exposeFloat('value', { nullable: true, description: 'the value when numeric' }),
    valueText: t.exposeString('valueText', { description: 'the value exactly as exported' }),
    unit: t.exposeString('unit', { nullable: true }),
    sourceName: t.exposeString('sourceName'),
  }),
});

const Bucket = builder.objectRef<ArchiveBucketView>('HealthArchiveBucket').implement({
  description: "An interval's aggregate of the numeric values",
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime', description: 'the interval start (UTC)' }),
    count: t.exposeInt('count'),
    min: t.exposeFloat('min', { nullable: true }),
    max: t.exposeFloat('max', { nullable: true }),
    avg: t.exposeFloat('avg', { nullable: true }),
    sum: t.exposeFloat('sum', { nullable: true }),
  }),
});

const nextCursor = {
  nullable: true as const,
  description: 'pass it as cursor for the next page; null on the last page',
};

const SamplePage = builder.objectRef<ArchiveSamplePageView>('HealthArchiveSamplePage').implement({
  description: 'A page of samples of one type, or of interval buckets when an interval was asked',
  fields: (t) => ({
    type: t.exposeString('type'),
    interval: t.field({ type: ArchiveInterval, nullable: true, resolve: (p) => p.interval }),
    items: t.field({ type: [Sample], resolve: (p) => p.items }),
    buckets: t.field({ type: [Bucket], resolve: (p) => p.buckets }),
    nextCursor: t.exposeString('nextCursor', nextCursor),
  }),
});

const WorkoutRef = builder.objectRef<ArchiveWorkoutRefView>('HealthArchiveWorkoutRef').implement({
  description: 'The workout a series or route belongs to',
  fields: (t) => ({
    id: t.exposeString('id'),
    activityType: t.exposeString('activityType'),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
  }),
});

const Series = builder.objectRef<ArchiveSeriesView>('HealthArchiveWorkoutSeries').implement({
  description: "Samples of one type during a workout's time span",
  fields: (t) => ({
    workout: t.field({ type: WorkoutRef, resolve: (s) => s.workout }),
    type: t.exposeString('type'),
    interval: t.field({ type: ArchiveInterval, nullable: true, resolve: (p) => p.interval }),
    items: t.field({ type: [Sample], resolve: (p) => p.items }),
    buckets: t.field({ type: [Bucket], resolve: (p) => p.buckets }),
    nextCursor: t.exposeString('nextCursor', nextCursor),
  }),
});

const Event = builder.objectRef<ArchiveEventView>('HealthArchiveEvent').implement({
  description:
    'A category-type record (mindful session, heart-rate notification, ...) or a workout event',
  fields: (t) => ({
    id: t.exposeString('id'),
    kind: t.exposeString('kind', { description: 'category or workout_event' }),
    type: t.exposeString('type'),
    valueText: t.exposeString('valueText', { description: 'the category value as exported' }),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    sourceName: t.exposeString('sourceName'),
    workoutId: t.exposeString('workoutId', { nullable: true }),
    metadata: t.field({ type: [KeyValue], resolve: (e) => e.metadata }),
  }),
});

const EventPage = builder.objectRef<ArchiveEventPageView>('HealthArchiveEventPage').implement({
  description: 'A page of events, oldest first',
  fields: (t) => ({
    items: t.field({ type: [Event], resolve: (p) => p.items }),
    nextCursor: t.exposeString('nextCursor', nextCursor),
  }),
});

const Statistic = builder
  .objectRef<WorkoutStatisticView>('HealthArchiveWorkoutStatistic')
  .implement({
    description: 'One WorkoutStatistics element of a workout',
    fields: (t) => ({
      type: t.exposeString('type'),
      startAt: t.expose('startAt', { type: 'DateTime', nullable: true }),
      endAt: t.expose('endAt', { type: 'DateTime', nullable: true }),
      average: t.exposeFloat('average', { nullable: true }),
      minimum: t.exposeFloat('minimum', { nullable: true }),
      maximum: t.exposeFloat('maximum', { nullable: true }),
      sum: t.exposeFloat('sum', { nullable: true }),
      unit: t.exposeString('unit', { nullable: true }),
    }),
  });

const Workout = builder.objectRef<ArchiveWorkoutView>('HealthArchiveWorkout').implement({
  description: 'A workout of the archive with its statistics and metadata',
  fields: (t) => ({
    id: t.exposeString('id'),
    activityType: t.exposeString('activityType', {
      description: 'as exported (HKWorkoutActivityTypeRunning)',
    }),
    startAt: t.expose('startAt', { type: 'DateTime' }),
    endAt: t.expose('endAt', { type: 'DateTime' }),
    durationMinutes: t.exposeFloat('durationMinutes', { nullable: true }),
    distanceM: t.exposeFloat('distanceM', { nullable: true, description: 'metres' }),
    energyKcal: t.exposeFloat('energyKcal', { nullable: true }),
    sourceName: t.exposeString('sourceName'),
    sourceVersion: t.exposeString('sourceVersion', { nullable: true }),
    metadata: t.field({ type: [KeyValue], resolve: (w) => w.metadata }),
    statistics: t.field({ type: [Statistic], resolve: (w) => w.statistics }),
    routePoints: t.exposeInt('routePoints', {
      description: 'route points stored (read them with the route read)',
    }),
    events: t.exposeInt('events', { description: 'workout events (pause, resume, lap, ...)' }),
  }),
});

const WorkoutPage = builder
  .objectRef<ArchiveWorkoutPageView>('HealthArchiveWorkoutPage')
  .implement({
    description: 'A page of workouts, newest first',
    fields: (t) => ({
      items: t.field({ type: [Workout], resolve: (p) => p.items }),
      nextCursor: t.exposeString('nextCursor', nextCursor),
    }),
  });

const RoutePoint = builder.objectRef<RoutePointView>('HealthArchiveRoutePoint').implement({
  description: 'One point of a workout route',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    lat: t.exposeFloat('lat'),
    lon: t.exposeFloat('lon'),
    elevation: t.exposeFloat('elevation', { nullable: true, description: 'metres' }),
    speed: t.exposeFloat('speed', { nullable: true, description: 'metres per second' }),
    course: t.exposeFloat('course', { nullable: true, description: 'degrees from north' }),
  }),
});

const Route = builder.objectRef<ArchiveRouteView>('HealthArchiveRoute').implement({
  description: "A workout's route: a page of points, or the whole track downsampled",
  fields: (t) => ({
    workout: t.field({ type: WorkoutRef, resolve: (r) => r.workout }),
    totalPoints: t.exposeInt('totalPoints'),
    step: t.exposeInt('step', { description: 'every step-th point is answered (1: all)' }),
    points: t.field({ type: [RoutePoint], resolve: (r) => r.points }),
    nextCursor: t.exposeString('nextCursor', nextCursor),
  }),
});

const EcgRecording = builder.objectRef<EcgRecordingView>('HealthArchiveEcgRecording').implement({
  description: 'An ECG recording (its samples are read one window at a time)',
  fields: (t) => ({
    id: t.exposeString('id'),
    recordedAt: t.expose('recordedAt', { type: 'DateTime' }),
    classification: t.exposeString('classification', { nullable: true }),
    symptoms: t.exposeString('symptoms', { nullable: true }),
    softwareVersion: t.exposeString('softwareVersion', { nullable: true }),
    device: t.exposeString('device', { nullable: true }),
    sampleRateHz: t.exposeFloat('sampleRateHz'),
    lead: t.exposeString('lead', { nullable: true }),
    unit: t.exposeString('unit', { nullable: true, description: 'unit of the samples (µV)' }),
    sampleCount: t.exposeInt('sampleCount'),
    durationSeconds: t.exposeFloat('durationSeconds'),
  }),
});

const EcgSamples = builder.objectRef<EcgSamplesView>('HealthArchiveEcgSamples').implement({
  description: "A window of one ECG recording's samples",
  fields: (t) => ({
    id: t.exposeString('id'),
    recordedAt: t.expose('recordedAt', { type: 'DateTime' }),
    classification: t.exposeString('classification', { nullable: true }),
    sampleRateHz: t.exposeFloat('sampleRateHz', { description: 'samples per second' }),
    lead: t.exposeString('lead', { nullable: true }),
    unit: t.exposeString('unit', { nullable: true }),
    sampleCount: t.exposeInt('sampleCount', { description: 'samples in the whole recording' }),
    durationSeconds: t.exposeFloat('durationSeconds'),
    sampleOffset: t.exposeInt('sampleOffset', {
      description: 'index of the first sample answered',
    }),
    samples: t.exposeFloatList('samples'),
    nextSampleOffset: t.exposeInt('nextSampleOffset', {
      nullable: true,
      description: 'pass it as sample_offset for the next window; null at the end',
    }),
  }),
});

const Ecg = builder.objectRef<ArchiveEcgView>('HealthArchiveEcg').implement({
  description: "ECG recordings, newest first, or one recording's samples when ecg_id is given",
  fields: (t) => ({
    recordings: t.field({ type: [EcgRecording], resolve: (e) => e.recordings }),
    nextCursor: t.exposeString('nextCursor', nextCursor),
    recording: t.field({ type: EcgSamples, nullable: true, resolve: (e) => e.recording }),
  }),
});

const limitArg = (what: string, bounds: { default: number; max: number }) => ({
  required: true as const,
  defaultValue: bounds.default,
  description: `${what} per page (1..${bounds.max}, default ${bounds.default})`,
  validate: z.number().int().min(1).max(bounds.max),
});
const cursorArg = {
  description: 'next_cursor of the previous page; leave it out for the first page',
  validate: z.string().min(1).max(200).nullish(),
};
const typeArg = (description: string) => ({
  description,
  validate: z
    .string()
    .regex(/^[A-Za-z0-9_.]{1,100}$/, 'a HealthKit type identifier (letters, digits, _ and .)')
    .nullish(),
});
const idArg = (what: string) => ({
  required: true as const,
  description: `the ${what} id (from the list)`,
  validate: z.string().min(1).max(100),
});

builder.queryFields((t) => {
  /** the [start, end) arguments of the ranged reads */
  const instantWindow = () => ({
    start: t.arg({ type: 'DateTime', required: true, description: 'first instant (inclusive)' }),
    end: t.arg({
      type: 'DateTime',
      required: true,
      description: 'end instant (exclusive), after start',
    }),
  });
  return {
    healthArchiveCoverage: t.withAuth({ scope: 'health:metrics:read' }).field({
      type: Coverage,
      description: 'What the health archive holds per record type (range, count, units, sources)',
      resolve: (_root, _args, ctx) => healthArchiveCoverage(ctx),
    }),
    healthArchiveSamples: t.withAuth({ scope: 'health:metrics:read' }).field({
      type: SamplePage,
      description: 'Records of one type in [start, end), oldest first, or interval aggregates',
      args: {
        type: t.arg.string({
          ...typeArg(
            'the HealthKit type as exported, e.g. HKQuantityTypeIdentifierHeartRate (see the coverage)',
          ),
          required: true,
        }),
        ...instantWindow(),
        interval: t.arg({
          type: ArchiveInterval,
          description:
            'aggregate to buckets of this interval (count, min, max, avg, sum) instead of listing records',
        }),
        limit: t.arg.int(limitArg('records (or buckets)', ARCHIVE_LIMITS.samples)),
        cursor: t.arg.string(cursorArg),
      },
      resolve: (_root, args, ctx) => healthArchiveSamples(ctx, args),
    }),
    healthArchiveEvents: t.withAuth({ scope: 'health:metrics:read' }).field({
      type: EventPage,
      description: 'Category-type records and workout events in [start, end), oldest first',
      args: {
        ...instantWindow(),
        type: t.arg.string(
          typeArg(
            'only this type, e.g. HKCategoryTypeIdentifierMindfulSession or HKWorkoutEventTypePause',
          ),
        ),
        limit: t.arg.int(limitArg('events', ARCHIVE_LIMITS.events)),
        cursor: t.arg.string(cursorArg),
      },
      resolve: (_root, args, ctx) => healthArchiveEvents(ctx, args),
    }),
    healthArchiveWorkouts: t.withAuth({ scope: 'health:workouts:read' }).field({
      type: WorkoutPage,
      description: 'Workouts that started in [start, end), newest first, with statistics',
      args: {
        ...instantWindow(),
        activityType: t.arg.string(
          typeArg('only this activity: HKWorkoutActivityTypeRunning or running'),
        ),
        limit: t.arg.int(limitArg('workouts', ARCHIVE_LIMITS.workouts)),
        cursor: t.arg.string(cursorArg),
      },
      resolve: (_root, args, ctx) => healthArchiveWorkouts(ctx, args),
    }),
  };
});

builder.queryFields((t) => ({
  healthArchiveWorkoutSeries: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: Series,
    description: "Records of one type during an archive workout's time span",
    args: {
      workoutId: t.arg.string(idArg('archive workout')),
      type: t.arg.string({
        ...typeArg(`the record type (default ${HEART_RATE})`),
        required: true,
        defaultValue: HEART_RATE,
      }),
      interval: t.arg({
        type: ArchiveInterval,
        description: 'aggregate to buckets of this interval',
      }),
      limit: t.arg.int(limitArg('records (or buckets)', ARCHIVE_LIMITS.samples)),
      cursor: t.arg.string(cursorArg),
    },
    resolve: (_root, args, ctx) => healthArchiveWorkoutSeries(ctx, args),
  }),
  healthArchiveRoute: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: Route,
    description: "An archive workout's route points, a page at a time or downsampled",
    args: {
      workoutId: t.arg.string(idArg('archive workout')),
      maxPoints: t.arg.int({
        description: `answer the whole track downsampled to at most this many points (2..${ARCHIVE_LIMITS.route.max}); no paging`,
        validate: z.number().int().min(2).max(ARCHIVE_LIMITS.route.max).nullish(),
      }),
      limit: t.arg.int(limitArg('points', ARCHIVE_LIMITS.route)),
      cursor: t.arg.string(cursorArg),
    },
    resolve: (_root, args, ctx) => healthArchiveRoute(ctx, args),
  }),
  healthArchiveEcg: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: Ecg,
    description: "The person's ECG recordings, or one recording's samples a window at a time",
    args: {
      ecgId: t.arg.string({
        description: "read this recording's samples; leave it out to list the recordings",
        validate: z.string().min(1).max(100).nullish(),
      }),
      limit: t.arg.int(limitArg('recordings', ARCHIVE_LIMITS.ecgList)),
      cursor: t.arg.string(cursorArg),
      sampleOffset: t.arg.int({
        required: true,
        defaultValue: 0,
        description: 'first sample of the window (0-based, default 0)',
        validate: z.number().int().min(0).max(10_000_000),
      }),
      sampleCount: t.arg.int(limitArg('samples', ARCHIVE_LIMITS.ecgSamples)),
    },
    resolve: (_root, args, ctx) => healthArchiveEcg(ctx, args),
  }),
  healthArchiveImport: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: ArchiveImport,
    description: "One export.zip upload's import: its status, progress and counts",
    args: { id: t.arg.string(idArg('import')) },
    resolve: (_root, args, ctx) => healthArchiveImport(ctx, args),
  }),
  healthArchiveImports: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: [ArchiveImport],
    description: "The person's export.zip uploads and their imports, newest first",
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: ARCHIVE_IMPORT_LIST.default,
        description: `imports to answer (1..${ARCHIVE_IMPORT_LIST.max}, default ${ARCHIVE_IMPORT_LIST.default})`,
        validate: z.number().int().min(1).max(ARCHIVE_IMPORT_LIST.max),
      }),
    },
    resolve: (_root, args, ctx) => healthArchiveImports(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  importHealthArchive: t.withAuth({ loginSession: true }).field({
    type: ArchiveImport,
    description:
      "Takes the person's Apple Health export.zip and queues its import into the archive; the same file (or Idempotency-Key) again answers the same import",
    args: {
      file: t.arg({
        type: 'File',
        required: true,
        description:
          'the export.zip of "Export All Health Data" (streamed; HEALTH_ARCHIVE_MAX_BYTES)',
      }),
      idempotencyKey: t.arg.string({
        description:
          'a retry with the same key answers the same import without sending the file again',
        validate: z
          .string()
          .regex(/^[\x21-\x7e]{1,200}$/, '1 to 200 printable ASCII characters')
          .nullish(),
      }),
    },
    resolve: (_root, args, ctx) => importHealthArchive(ctx, args),
  }),
}));
