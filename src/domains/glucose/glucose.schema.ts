/** Glucose: readings (canonical mg/dL), raw sensor data and processing, trends, CGM sensor status. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isStorableDate } from '../../platform/input-guards.ts';
import { dateTimeOfInput } from '../../platform/local-time.ts';
import {
  cgmSensors,
  createRawSensorDataBatch,
  createGlucoseReading,
  createGlucoseReadingsBatch,
  deleteAllGlucoseReadings,
  GLUCOSE_BATCH_MAX,
  GLUCOSE_PAGE_DEFAULT,
  GLUCOSE_PAGE_MAX,
  glucoseTrends,
  glucoseReadingPage,
  glucoseReadings,
  processSensorPayload,
  rebuildSensorFromRaw,
} from './glucose.service.ts';
import type {
  GlucoseReadingView,
  ReadingPageView,
  RebuildView,
  SensorStatusView,
  TrendView,
} from './glucose.service.ts';
import type { FingerstickStats, HourlyPercentiles } from './glucose.stats.ts';

/** Hours a read may look back: 5 years. */
export const MAX_SINCE_HOURS = 43_800;

export const GlucoseReading = builder.objectRef<GlucoseReadingView>('GlucoseReading').implement({
  description: 'One glucose reading, canonical mg/dL',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'client id, or g:<user>:<sensor>:<epoch ms>' }),
    sensorId: t.exposeInt('sensorId', { description: "the client's sensor number (0: manual)" }),
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    valueMgDl: t.exposeFloat('valueMgDl', { description: 'glucose, mg/dL' }),
    source: t.exposeString('source', {
      description: 'manual, cgm (batch) or sensor (processed from raw data)',
    }),
    processingVersion: t.exposeInt('processingVersion', {
      nullable: true,
      description: 'PROCESSING_VERSION of a sensor reading',
    }),
  }),
});

const GlucoseReadingPage = builder.objectRef<ReadingPageView>('GlucoseReadingPage').implement({
  description: 'One page of glucose readings and the cursor of the next page',
  fields: (t) => ({
    items: t.expose('items', {
      type: [GlucoseReading],
      description: 'the readings of this page, in the order asked for',
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description:
        'pass it as cursor (with the same other arguments) for the next page; null on the last page',
    }),
  }),
});

const HourlyGlucose = builder.objectRef<HourlyPercentiles>('HourlyGlucose').implement({
  description:
    "Percentiles of one hour of the day (the person's local time), for an ambulatory glucose profile",
  fields: (t) => ({
    hour: t.exposeInt('hour'),
    count: t.exposeInt('count'),
    p5: t.exposeFloat('p5', { nullable: true }),
    p25: t.exposeFloat('p25', { nullable: true }),
    p50: t.exposeFloat('p50', { nullable: true }),
    p75: t.exposeFloat('p75', { nullable: true }),
    p95: t.exposeFloat('p95', { nullable: true }),
  }),
});

const Fingersticks = builder.objectRef<FingerstickStats>('GlucoseFingersticks').implement({
  description:
    'Readings typed by hand (fingersticks) in the window: reported beside the CGM figures, never mixed in',
  fields: (t) => ({
    count: t.exposeInt('count'),
    mean: t.exposeFloat('mean', { nullable: true, description: 'mg/dL' }),
    min: t.exposeFloat('min', { nullable: true, description: 'mg/dL' }),
    max: t.exposeFloat('max', { nullable: true, description: 'mg/dL' }),
  }),
});

export const GlucoseTrend = builder.objectRef<TrendView>('GlucoseTrend').implement({
  description: 'Glucose statistics of a window (formulas: docs/glucose.md)',
  fields: (t) => ({
    start: t.expose('start', { type: 'DateTime' }),
    end: t.expose('end', { type: 'DateTime' }),
    count: t.exposeInt('count', {
      description: 'CGM readings: every figure below but fingersticks is of them alone',
    }),
    coveragePct: t.exposeFloat('coveragePct', {
      description: 'percent of expected 5-minute readings present',
    }),
    mean: t.exposeFloat('mean', { nullable: true, description: 'mg/dL' }),
    sd: t.exposeFloat('sd', { nullable: true, description: 'sample standard deviation, mg/dL' }),
    cv: t.exposeFloat('cv', { nullable: true, description: 'coefficient of variation, percent' }),
    gmi: t.exposeFloat('gmi', {
      nullable: true,
      description:
        'glucose management indicator, percent: only over at least 14 days with 70 % coverage',
    }),
    gmiNote: t.exposeString('gmiNote', {
      nullable: true,
      description: 'why gmi is null, or null',
    }),
    min: t.exposeFloat('min', { nullable: true }),
    max: t.exposeFloat('max', { nullable: true }),
    timeVeryLowPct: t.exposeFloat('timeVeryLowPct', {
      description: 'percent of readings < 54 mg/dL',
    }),
    timeLowPct: t.exposeFloat('timeLowPct', { description: 'percent of readings 54-69 mg/dL' }),
    timeInRangePct: t.exposeFloat('timeInRangePct', {
      description: 'percent of readings 70-180 mg/dL',
    }),
    timeHighPct: t.exposeFloat('timeHighPct', { description: 'percent of readings 181-250 mg/dL' }),
    timeVeryHighPct: t.exposeFloat('timeVeryHighPct', {
      description: 'percent of readings > 250 mg/dL',
    }),
    hourly: t.expose('hourly', { type: [HourlyGlucose] }),
    timezone: t.exposeString('timezone', {
      description: "the person's IANA zone: the hourly percentiles are by its local hour",
    }),
    fingersticks: t.expose('fingersticks', { type: Fingersticks }),
  }),
});

const GlucoseRebuild = builder.objectRef<RebuildView>('GlucoseRebuild').implement({
  description: "The result of rebuilding a sensor's glucose from its raw data",
  fields: (t) => ({
    deleted: t.exposeInt('deleted'),
    inserted: t.exposeInt('inserted'),
    processingVersion: t.exposeInt('processingVersion'),
  }),
});

const GlucoseDeletion = builder.objectRef<{ deleted: number }>('GlucoseDeletion').implement({
  fields: (t) => ({ deleted: t.exposeInt('deleted', { description: 'readings deleted' }) }),
});

const CgmSensorStatus = builder.objectRef<SensorStatusView>('CgmSensorStatus').implement({
  description: 'A CGM sensor of the person: wear and latest reading',
  fields: (t) => ({
    sensorId: t.exposeInt('sensorId'),
    serialNumber: t.exposeString('serialNumber', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    readingCount: t.exposeInt('readingCount'),
    lastReadingAt: t.expose('lastReadingAt', { type: 'DateTime', nullable: true }),
    lastValueMgDl: t.exposeFloat('lastValueMgDl', { nullable: true }),
  }),
});

const mgDl = z.number().min(10).max(1000);
const sensorId = z.number().int().min(0).max(2_147_483_647);
const readingSchema = z.object({
  id: z.string().min(1).max(128).nullish(),
  sensorId: sensorId.nullish(),
  timestamp: z.date(),
  valueMgDl: mgDl,
  source: z.enum(['manual', 'cgm']).nullish(),
});
// raw samples always come from a sensor: sensor 0 (manual readings) has none, as every raw route says
const rawSchema = z.object({
  id: z.string().min(1).max(128).nullish(),
  sensorId: sensorId.min(1),
  timestamp: z.date(),
  rawValue: z.number(),
  temperatureC: z.number().min(-20).max(60).nullish(),
});

const GlucoseReadingInput = builder.inputType('GlucoseReadingInput', {
  description: 'A glucose reading in mg/dL (GlucoseReadingIn)',
  fields: (t) => ({
    id: t.string({
      description: 'client id (WatermelonDB id); default g:<user>:<sensor>:<epoch ms>',
    }),
    sensorId: t.int({ description: "the client's sensor number; default 0 (manual)" }),
    timestamp: t.field({ type: 'DateTime', required: true }),
    valueMgDl: t.float({ required: true, description: 'glucose, mg/dL (10..1000)' }),
    source: t.string({ description: 'manual (default for one reading) or cgm (batches)' }),
  }),
});

const RawSensorDataInput = builder.inputType('RawSensorDataInput', {
  description: 'One raw sensor sample (RawSensorDataIn)',
  fields: (t) => ({
    id: t.string({ description: 'client id; default r:<user>:<sensor>:<epoch ms>' }),
    sensorId: t.int({ required: true, description: "the client's sensor number (1 or more)" }),
    timestamp: t.field({ type: 'DateTime', required: true }),
    rawValue: t.float({ required: true, description: 'raw sensor counts before calibration' }),
    temperatureC: t.float({ description: 'sensor temperature, °C' }),
  }),
});

const SensorSampleInput = builder.inputType('SensorSampleInput', {
  fields: (t) => ({
    timestamp: t.field({ type: 'DateTime', required: true }),
    rawValue: t.float({ required: true, description: 'raw sensor counts before calibration' }),
    temperatureC: t.float({ description: 'sensor temperature, °C' }),
  }),
});

const SensorPayloadInput = builder.inputType('SensorPayloadInput', {
  description: 'A sensor read-out (SensorPayloadIn): calibration and raw samples',
  fields: (t) => ({
    sensorId: t.int({ required: true }),
    serialNumber: t.string(),
    calibrationSlope: t.float({ description: 'mg/dL per raw count (kept per sensor; default 1)' }),
    calibrationIntercept: t.float({
      description: 'mg/dL at zero counts (kept per sensor; default 0)',
    }),
    samples: t.field({
      type: [SensorSampleInput],
      required: true,
      description: '1..50,000 raw samples',
    }),
  }),
  validate: z.object({
    sensorId: sensorId.min(1),
    serialNumber: z.string().max(64).nullish(),
    calibrationSlope: z.number().positive().max(1000).nullish(),
    calibrationIntercept: z.number().min(-1000).max(1000).nullish(),
    samples: z
      .array(rawSchema.omit({ id: true, sensorId: true }))
      .min(1)
      .max(GLUCOSE_BATCH_MAX),
  }),
});

const SensorRebuildFromRawInput = builder.inputType('SensorRebuildFromRawInput', {
  fields: (t) => ({ sensorId: t.int({ required: true }) }),
  validate: z.object({ sensorId: sensorId.min(1) }),
});

export const dateText = z.string().refine((s) => isStorableDate(new Date(s)), {
  message: 'not an ISO date or date-time of the years 0001..9999',
});
export const toDate = (s: string | null | undefined): Date | null => (s ? new Date(s) : null);

/** The window of glucose trends: the last sinceHours, or [startDate, endDate). */
export const trendArgs = {
  sinceHours: {
    defaultValue: 6,
    required: true,
    validate: z.number().int().min(1).max(MAX_SINCE_HOURS),
  },
  startDate: { validate: dateText.nullish() },
  endDate: { validate: dateText.nullish() },
} as const;

/** The arguments of a read of readings: window, sensor and order (the page adds limit and cursor). */
export const readingArgs = {
  sinceHours: {
    defaultValue: 24,
    required: true,
    description: `readings of the last this many hours (1..${MAX_SINCE_HOURS}, five years)`,
    validate: z.number().int().min(1).max(MAX_SINCE_HOURS),
  },
  sensorId: {
    description: "only the readings of this sensor (the client's sensor number; 0: manual)",
    validate: sensorId.nullish(),
  },
  sort: {
    defaultValue: 'desc',
    required: true,
    description: 'desc: newest first; asc: oldest first',
    validate: z.enum(['asc', 'desc']),
  },
} as const;

builder.queryFields((t) => ({
  glucoseReadings: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: [GlucoseReading],
    description: "The person's glucose readings of the last hours, in mg/dL",
    args: {
      sinceHours: t.arg.int(readingArgs.sinceHours),
      limit: t.arg.int({
        defaultValue: 500,
        required: true,
        description: `at most this many readings (1..${GLUCOSE_BATCH_MAX})`,
        validate: z.number().int().min(1).max(GLUCOSE_BATCH_MAX),
      }),
      sensorId: t.arg.int(readingArgs.sensorId),
      sort: t.arg.string(readingArgs.sort),
    },
    resolve: (_root, args, ctx) =>
      glucoseReadings(ctx, { ...args, sort: args.sort as 'asc' | 'desc' }),
  }),
  glucoseReadingPage: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: GlucoseReadingPage,
    description:
      "One page of the person's glucose readings of the last hours, in mg/dL, and the cursor of the next page",
    args: {
      sinceHours: t.arg.int(readingArgs.sinceHours),
      limit: t.arg.int({
        defaultValue: GLUCOSE_PAGE_DEFAULT,
        required: true,
        description: `readings per page (1..${GLUCOSE_PAGE_MAX}, default ${GLUCOSE_PAGE_DEFAULT}; a day of 5-minute readings is 288)`,
        validate: z.number().int().min(1).max(GLUCOSE_PAGE_MAX),
      }),
      sensorId: t.arg.int(readingArgs.sensorId),
      sort: t.arg.string(readingArgs.sort),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page; leave it out for the first page',
        validate: z.string().min(1).max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) =>
      glucoseReadingPage(ctx, { ...args, sort: args.sort as 'asc' | 'desc' }),
  }),
  glucoseTrends: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: GlucoseTrend,
    description: 'Glucose statistics and hourly percentiles of a window',
    args: {
      sinceHours: t.arg.int(trendArgs.sinceHours),
      startDate: t.arg.string(trendArgs.startDate),
      endDate: t.arg.string(trendArgs.endDate),
    },
    resolve: (_root, args, ctx) =>
      glucoseTrends(ctx, {
        sinceHours: args.sinceHours,
        // an offset-less date or date-time is the person's local time
        startDate: args.startDate ? dateTimeOfInput(args.startDate) : null,
        endDate: args.endDate ? dateTimeOfInput(args.endDate) : null,
      }),
  }),
  cgmSensors: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: [CgmSensorStatus],
    description: "The person's CGM sensors with wear and latest reading",
    resolve: (_root, _args, ctx) => cgmSensors(ctx),
  }),
}));

builder.mutationFields((t) => ({
  createGlucoseReading: t.withAuth({ scope: 'health:logs:write' }).field({
    type: GlucoseReading,
    description: 'Stores one glucose reading (idempotent on sensor and timestamp)',
    args: { input: t.arg({ type: GlucoseReadingInput, required: true, validate: readingSchema }) },
    resolve: (_root, { input }, ctx) => createGlucoseReading(ctx, input),
  }),
  createGlucoseReadingsBatch: t.withAuth({ scope: 'health:logs:write' }).int({
    description: 'Stores up to 50,000 readings; answers how many were new',
    args: {
      readings: t.arg({
        type: [GlucoseReadingInput],
        required: true,
        validate: z.array(readingSchema).max(GLUCOSE_BATCH_MAX),
      }),
    },
    resolve: (_root, { readings }, ctx) => createGlucoseReadingsBatch(ctx, readings),
  }),
  deleteAllGlucoseReadings: t.withAuth({ scope: 'health:logs:write' }).field({
    type: GlucoseDeletion,
    description: 'Deletes every glucose reading of the caller',
    resolve: async (_root, _args, ctx) => ({ deleted: await deleteAllGlucoseReadings(ctx) }),
  }),
  createRawSensorDataBatch: t.withAuth({ scope: 'health:logs:write' }).int({
    description: 'Stores up to 50,000 raw sensor samples; answers how many were new',
    args: {
      samples: t.arg({
        type: [RawSensorDataInput],
        required: true,
        validate: z.array(rawSchema).max(GLUCOSE_BATCH_MAX),
      }),
    },
    resolve: (_root, { samples }, ctx) => createRawSensorDataBatch(ctx, samples),
  }),
  processSensorPayload: t.withAuth({ scope: 'health:logs:write' }).field({
    type: [GlucoseReading],
    description: 'Stores a sensor read-out and answers the glucose processed from it',
    args: { input: t.arg({ type: SensorPayloadInput, required: true }) },
    resolve: (_root, { input }, ctx) => processSensorPayload(ctx, input),
  }),
  rebuildSensorFromRaw: t.withAuth({ scope: 'health:logs:write' }).field({
    type: GlucoseRebuild,
    description: 'Wipes the backend glucose of a sensor and replays its stored raw data',
    args: { input: t.arg({ type: SensorRebuildFromRawInput, required: true }) },
    resolve: (_root, { input }, ctx) => rebuildSensorFromRaw(ctx, input),
  }),
}));
