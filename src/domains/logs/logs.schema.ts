/** Logs: blood pressure readings and sessions, log entries of seven kinds, sun advice (README.md). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import {
  deleteBloodPressureReading,
  bloodPressureSessions,
  logBloodPressureReading,
  READINGS_PAGE_MAX,
  SESSIONS_DEFAULT,
  SESSIONS_MAX,
  updateBloodPressureReading,
} from './logs.blood-pressure.ts';
import type {
  BloodPressureReadingView,
  BloodPressureSessionPage,
  BloodPressureSessionView,
} from './logs.blood-pressure.ts';
import { deleteLogEntry, logEntry, updateLogEntry } from './logs.entries.ts';
import type { LogEntryView } from './logs.entries.ts';
import {
  DIASTOLIC,
  DOSE_MAX,
  EARLIEST,
  FUTURE_MS,
  KIND_RULES,
  NAME_MAX,
  NOTE_MAX,
  PULSE,
  SYSTOLIC,
  UNIT_MAX,
} from './logs.kinds.ts';
import type { Bounds } from './logs.kinds.ts';
import { sunAdvice } from './logs.sun.ts';
import type { SunAdviceView, SunHour } from './logs.sun.ts';
import { clock } from '../../base/clock.ts';

const BloodPressureReading = builder
  .objectRef<BloodPressureReadingView>('BloodPressureReading')
  .implement({
    description: 'One blood-pressure reading, mmHg',
    fields: (t) => ({
      id: t.exposeString('id', { description: 'the id to edit or delete the reading with' }),
      systolic: t.exposeInt('systolic', { description: 'mmHg' }),
      diastolic: t.exposeInt('diastolic', { description: 'mmHg' }),
      pulse: t.exposeInt('pulse', { nullable: true, description: 'beats per minute' }),
      measuredAt: t.expose('measuredAt', { type: 'DateTime' }),
      source: t.exposeString('source', { description: 'phone, manual or mcp' }),
      note: t.exposeString('note', { nullable: true }),
    }),
  });

const BloodPressureSession = builder
  .objectRef<BloodPressureSessionView>('BloodPressureSession')
  .implement({
    description:
      "Readings measured within 10 minutes of the session's first reading, and their means",
    fields: (t) => ({
      startedAt: t.expose('startedAt', { type: 'DateTime', description: 'the first reading' }),
      endedAt: t.expose('endedAt', { type: 'DateTime', description: 'the last reading' }),
      readingCount: t.exposeInt('readingCount'),
      systolic: t.exposeFloat('systolic', { description: 'mean systolic, mmHg (1 decimal)' }),
      diastolic: t.exposeFloat('diastolic', { description: 'mean diastolic, mmHg (1 decimal)' }),
      pulse: t.exposeFloat('pulse', {
        nullable: true,
        description: 'mean pulse of the readings that have one, bpm',
      }),
      category: t.exposeString('category', {
        description:
          '2017 ACC/AHA category of the means: normal, elevated, stage_1, stage_2 or crisis',
      }),
      readings: t.expose('readings', { type: [BloodPressureReading] }),
    }),
  });

const BloodPressureSessionPageRef = builder
  .objectRef<BloodPressureSessionPage>('BloodPressureSessionPage')
  .implement({
    description:
      'Blood-pressure sessions of a range, oldest first, and the cursor of the next page',
    fields: (t) => ({
      from: t.expose('from', { type: 'DateTime', description: 'the range read (included)' }),
      to: t.expose('to', { type: 'DateTime', description: 'the range read (excluded)' }),
      sessions: t.expose('sessions', { type: [BloodPressureSession] }),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'pass as cursor for the next page; null on the last page',
      }),
    }),
  });

const LogEntry = builder.objectRef<LogEntryView>('LogEntry').implement({
  description: 'One logged entry (hydration, weight, medication, ...)',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'the id to edit or delete the entry with' }),
    kind: t.exposeString('kind', {
      description:
        'custom_metric, hydration, medication, nicotine, sleep_factor, weight or sun_session',
    }),
    name: t.exposeString('name', {
      nullable: true,
      description: 'the metric, medication, nicotine product or sleep factor',
    }),
    value: t.exposeFloat('value', { nullable: true, description: 'the amount, in unit' }),
    unit: t.exposeString('unit', { nullable: true }),
    dose: t.exposeString('dose', { nullable: true, description: "a medication's dose" }),
    durationMinutes: t.exposeFloat('durationMinutes', {
      nullable: true,
      description: "a sun session's length",
    }),
    loggedAt: t.expose('loggedAt', { type: 'DateTime', description: 'when it happened' }),
    note: t.exposeString('note', { nullable: true }),
    source: t.exposeString('source', { description: 'phone, manual or mcp' }),
  }),
});

const LogDeletion = builder.objectRef<{ deleted: number }>('LogDeletion').implement({
  fields: (t) => ({ deleted: t.exposeInt('deleted', { description: 'records deleted (1)' }) }),
});

const SunHourRef = builder.objectRef<SunHour>('SunHour').implement({
  description: 'The sun at the start of a local hour',
  fields: (t) => ({
    at: t.expose('at', { type: 'DateTime' }),
    elevationDeg: t.exposeFloat('elevationDeg', { description: 'degrees above the horizon' }),
    uvIndex: t.exposeFloat('uvIndex', { description: 'clear-sky UV index estimate' }),
  }),
});

const SunAdvice = builder.objectRef<SunAdviceView>('SunAdvice').implement({
  description:
    'Sun advice for a local day at a place: clear-sky UV from the sun elevation (no weather data)',
  fields: (t) => ({
    date: t.exposeString('date', { description: "YYYY-MM-DD in the person's time zone" }),
    timezone: t.exposeString('timezone'),
    latitude: t.exposeFloat('latitude'),
    longitude: t.exposeFloat('longitude'),
    skinType: t.exposeInt('skinType', { description: 'Fitzpatrick skin type 1..6' }),
    sunrise: t.expose('sunrise', { type: 'DateTime', nullable: true }),
    sunset: t.expose('sunset', { type: 'DateTime', nullable: true }),
    solarNoon: t.expose('solarNoon', { type: 'DateTime' }),
    maxElevationDeg: t.exposeFloat('maxElevationDeg'),
    peakUvIndex: t.exposeFloat('peakUvIndex', { description: 'clear-sky UV index at solar noon' }),
    uvCategory: t.exposeString('uvCategory', {
      description: 'WHO category: low, moderate, high, very_high or extreme',
    }),
    minutesToBurn: t.exposeInt('minutesToBurn', {
      nullable: true,
      description: 'minutes of solar-noon sun to a minimal erythemal dose for the skin type',
    }),
    advisedMinutes: t.exposeInt('advisedMinutes', {
      description: 'minutes of unprotected midday sun advised (0: none advised)',
    }),
    advice: t.exposeString('advice'),
    hours: t.expose('hours', { type: [SunHourRef], description: 'the daylight hours' }),
  }),
});

// ---- validation shared by the inputs

const at = z
  .date()
  .refine((d) => d >= EARLIEST, { message: 'must be in 1900 or later' })
  .refine((d) => d.getTime() <= clock.ms() + FUTURE_MS, {
    message: 'may be at most 24 hours ahead',
  });
const text = (max: number) =>
  z
    .string()
    .max(max, { message: `At most ${max} characters` })
    .refine((s) => s.trim().length > 0, { message: 'Must not be blank' });
const note = z.string().max(NOTE_MAX, { message: `At most ${NOTE_MAX} characters` });
const within = (b: Bounds) => z.number().min(b.min).max(b.max);
const int = (b: Bounds) => z.number().int().min(b.min).max(b.max);
const id = z.string().min(1).max(64);
const bounds = (b: Bounds | undefined): string => (b ? `${b.min}..${b.max}` : '');
const atDoc = 'ISO-8601 or ms since the epoch; default now; at most 24 hours ahead';
const noteDoc = 'free text';

const LogBloodPressureInput = builder.inputType('LogBloodPressureInput', {
  description: 'A blood-pressure reading; diastolic must be lower than systolic',
  fields: (t) => ({
    systolic: t.int({ required: true, description: `mmHg, ${bounds(SYSTOLIC)}` }),
    diastolic: t.int({ required: true, description: `mmHg, ${bounds(DIASTOLIC)}` }),
    pulse: t.int({ description: `beats per minute, ${bounds(PULSE)}` }),
    measuredAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: z.object({
    systolic: int(SYSTOLIC),
    diastolic: int(DIASTOLIC),
    pulse: int(PULSE).nullish(),
    measuredAt: at.nullish(),
    note: note.nullish(),
  }),
});

const BloodPressureChangesInput = builder.inputType('BloodPressureChangesInput', {
  description: 'Changes: fields left out stay; diastolic stays below systolic',
  fields: (t) => ({
    systolic: t.int({ description: `mmHg, ${bounds(SYSTOLIC)}` }),
    diastolic: t.int({ description: `mmHg, ${bounds(DIASTOLIC)}` }),
    pulse: t.int({ description: `beats per minute, ${bounds(PULSE)}; null clears it` }),
    measuredAt: t.field({ type: 'DateTime', description: 'at most 24 hours ahead' }),
    note: t.string({ description: `${noteDoc}; null clears it` }),
  }),
  validate: z.object({
    systolic: int(SYSTOLIC).nullish(),
    diastolic: int(DIASTOLIC).nullish(),
    pulse: int(PULSE).nullish(),
    measuredAt: at.nullish(),
    note: note.nullish(),
  }),
});

const R = KIND_RULES;
const entryInput = <F extends Record<string, z.ZodType>>(fields: F) =>
  z.object({ ...fields, loggedAt: at.nullish(), note: note.nullish() });

const CustomMetricInput = builder.inputType('CustomMetricInput', {
  description: 'A value of a metric of the person\'s own ("resting glucose", "mood")',
  fields: (t) => ({
    name: t.string({ required: true, description: `the metric, at most ${NAME_MAX} characters` }),
    value: t.float({ required: true, description: bounds(R.custom_metric.valueBounds) }),
    unit: t.string({ description: `at most ${UNIT_MAX} characters` }),
    loggedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: entryInput({
    name: text(NAME_MAX),
    value: within(R.custom_metric.valueBounds!),
    unit: text(UNIT_MAX).nullish(),
  }),
});

const HydrationInput = builder.inputType('HydrationInput', {
  description: 'Water drunk',
  fields: (t) => ({
    ml: t.float({ required: true, description: `millilitres, ${bounds(R.hydration.valueBounds)}` }),
    loggedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: entryInput({ ml: within(R.hydration.valueBounds!) }),
});

const MedicationInput = builder.inputType('MedicationInput', {
  description: 'A medication taken',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: `the medication, at most ${NAME_MAX} characters`,
    }),
    dose: t.string({
      description: `the dose as written ("500 mg"), at most ${DOSE_MAX} characters`,
    }),
    loggedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: entryInput({ name: text(NAME_MAX), dose: text(DOSE_MAX).nullish() }),
});

const NicotineInput = builder.inputType('NicotineInput', {
  description: 'Nicotine taken (cigarettes, vape sessions, pouches...)',
  fields: (t) => ({
    product: t.string({ description: `cigarette, vape, pouch...; at most ${NAME_MAX} characters` }),
    units: t.float({
      defaultValue: 1,
      description: `how many (cigarettes, pouches, sessions), ${bounds(R.nicotine.valueBounds)}; default 1`,
    }),
    loggedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: entryInput({
    product: text(NAME_MAX).nullish(),
    units: within(R.nicotine.valueBounds!).nullish(),
  }),
});

const SleepFactorInput = builder.inputType('SleepFactorInput', {
  description:
    "Something that may affect tonight's sleep (late caffeine, alcohol, screens, stress)",
  fields: (t) => ({
    factor: t.string({ required: true, description: `the factor, at most ${NAME_MAX} characters` }),
    intensity: t.int({ description: `how strong, ${bounds(R.sleep_factor.valueBounds)}` }),
    loggedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: entryInput({
    factor: text(NAME_MAX),
    intensity: int(R.sleep_factor.valueBounds!).nullish(),
  }),
});

const WeightInput = builder.inputType('WeightInput', {
  description: 'A body weight',
  fields: (t) => ({
    kg: t.float({ required: true, description: `kilograms, ${bounds(R.weight.valueBounds)}` }),
    loggedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: entryInput({ kg: within(R.weight.valueBounds!) }),
});

const SunSessionInput = builder.inputType('SunSessionInput', {
  description: 'Time spent in the sun (it counts towards the daily sun score)',
  fields: (t) => ({
    durationMinutes: t.float({
      required: true,
      description: `minutes, ${bounds(R.sun_session.durationBounds)}`,
    }),
    uvIndex: t.float({
      description: `the UV index, if known, ${bounds(R.sun_session.valueBounds)}`,
    }),
    startedAt: t.field({ type: 'DateTime', description: atDoc }),
    note: t.string({ description: noteDoc }),
  }),
  validate: z.object({
    durationMinutes: within(R.sun_session.durationBounds!),
    uvIndex: within(R.sun_session.valueBounds!).nullish(),
    startedAt: at.nullish(),
    note: note.nullish(),
  }),
});

const LogEntryChangesInput = builder.inputType('LogEntryChangesInput', {
  description:
    "Changes to a log entry: fields left out stay, null clears an optional one; the result must still suit the entry's kind (e.g. hydration value 1..5000 ml)",
  fields: (t) => ({
    name: t.string({ description: `at most ${NAME_MAX} characters` }),
    value: t.float({ description: "the amount, within the kind's bounds" }),
    unit: t.string({ description: `custom metrics only, at most ${UNIT_MAX} characters` }),
    dose: t.string({ description: `medications only, at most ${DOSE_MAX} characters` }),
    durationMinutes: t.float({ description: 'sun sessions only, 1..720' }),
    loggedAt: t.field({ type: 'DateTime', description: 'at most 24 hours ahead' }),
    note: t.string({ description: `${noteDoc}; null clears it` }),
  }),
  validate: z.object({
    name: text(NAME_MAX).nullish(),
    value: z.number().min(-1_000_000).max(1_000_000).nullish(),
    unit: text(UNIT_MAX).nullish(),
    dose: text(DOSE_MAX).nullish(),
    durationMinutes: z.number().min(0).max(1440).nullish(),
    loggedAt: at.nullish(),
    note: note.nullish(),
  }),
});

// ---- root fields

const readingId = {
  required: true,
  description: 'the reading id (from bp_readings_list)',
  validate: id,
} as const;
const entryId = {
  required: true,
  description: 'the entry id (answered when it was logged)',
  validate: id,
} as const;

builder.queryFields((t) => ({
  bloodPressureSessions: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: BloodPressureSessionPageRef,
    description: 'Blood-pressure readings of a range grouped into sessions, oldest first',
    args: {
      from: t.arg({ type: 'DateTime', description: 'measured at or after (default 30 days ago)' }),
      to: t.arg({ type: 'DateTime', description: 'measured before (default 24 hours from now)' }),
      limit: t.arg.int({
        required: true,
        defaultValue: SESSIONS_DEFAULT,
        description: `at most this many sessions (1..${SESSIONS_MAX}; a page reads at most ${READINGS_PAGE_MAX} readings)`,
        validate: z.number().int().min(1).max(SESSIONS_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page',
        validate: z.string().max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => bloodPressureSessions(ctx, args),
  }),
  sunAdvice: t.withAuth({ scope: 'health:summary:read' }).field({
    type: SunAdvice,
    description: 'Sun advice for a day at a place: clear-sky UV index and advised minutes',
    args: {
      latitude: t.arg.float({
        required: true,
        description: '-90..90',
        validate: z.number().min(-90).max(90),
      }),
      longitude: t.arg.float({
        required: true,
        description: '-180..180',
        validate: z.number().min(-180).max(180),
      }),
      date: t.arg.string({
        description: "YYYY-MM-DD, years 1900..2100 (default today in the person's time zone)",
        validate: z
          .string()
          .refine((s) => isLocalDate(s) && s >= '1900-01-01' && s <= '2100-12-31', {
            message: 'not a date YYYY-MM-DD between 1900 and 2100',
          })
          .meta({ format: 'date' })
          .nullish(),
      }),
      skinType: t.arg.int({
        required: true,
        defaultValue: 3,
        description: 'Fitzpatrick skin type 1 (always burns) .. 6 (never burns); default 3',
        validate: z.number().int().min(1).max(6),
      }),
    },
    resolve: (_root, args, ctx) => sunAdvice(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  logBloodPressureReading: t.withAuth({ scope: 'health:logs:write' }).field({
    type: BloodPressureReading,
    description: 'Logs a blood-pressure reading',
    args: { input: t.arg({ type: LogBloodPressureInput, required: true }) },
    resolve: (_root, { input }, ctx) => logBloodPressureReading(ctx, input),
  }),
  updateBloodPressureReading: t.withAuth({ scope: 'health:logs:write' }).field({
    type: BloodPressureReading,
    description: 'Changes a blood-pressure reading',
    args: {
      readingId: t.arg.string(readingId),
      input: t.arg({ type: BloodPressureChangesInput, required: true }),
    },
    resolve: (_root, args, ctx) => updateBloodPressureReading(ctx, args.readingId, args.input),
  }),
  deleteBloodPressureReading: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogDeletion,
    description: 'Deletes a blood-pressure reading',
    args: { readingId: t.arg.string(readingId) },
    resolve: (_root, args, ctx) => deleteBloodPressureReading(ctx, args.readingId),
  }),
}));

builder.mutationFields((t) => ({
  logCustomMetric: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Logs a value of a custom metric',
    args: { input: t.arg({ type: CustomMetricInput, required: true }) },
    resolve: (_root, { input }, ctx) => logEntry(ctx, 'custom_metric', input),
  }),
  addHydration: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Logs water drunk',
    args: { input: t.arg({ type: HydrationInput, required: true }) },
    resolve: (_root, { input: { ml, ...rest } }, ctx) =>
      logEntry(ctx, 'hydration', { ...rest, value: ml }),
  }),
  logMedication: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Logs a medication taken',
    args: { input: t.arg({ type: MedicationInput, required: true }) },
    resolve: (_root, { input }, ctx) => logEntry(ctx, 'medication', input),
  }),
  addNicotine: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Logs nicotine taken',
    args: { input: t.arg({ type: NicotineInput, required: true }) },
    resolve: (_root, { input: { product, units, ...rest } }, ctx) =>
      logEntry(ctx, 'nicotine', { ...rest, name: product, value: units ?? 1 }),
  }),
  logSleepFactor: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Logs a factor that may affect sleep',
    args: { input: t.arg({ type: SleepFactorInput, required: true }) },
    resolve: (_root, { input: { factor, intensity, ...rest } }, ctx) =>
      logEntry(ctx, 'sleep_factor', { ...rest, name: factor, value: intensity }),
  }),
  addWeight: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Logs a body weight',
    args: { input: t.arg({ type: WeightInput, required: true }) },
    resolve: (_root, { input: { kg, ...rest } }, ctx) =>
      logEntry(ctx, 'weight', { ...rest, value: kg }),
  }),
  logSunSession: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Saves time spent in the sun',
    args: { input: t.arg({ type: SunSessionInput, required: true }) },
    resolve: (_root, { input: { durationMinutes, uvIndex, startedAt, note: n } }, ctx) =>
      logEntry(ctx, 'sun_session', {
        durationMinutes,
        value: uvIndex,
        loggedAt: startedAt,
        note: n,
      }),
  }),
  updateLogEntry: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogEntry,
    description: 'Changes a log entry of any kind',
    args: {
      entryId: t.arg.string(entryId),
      input: t.arg({ type: LogEntryChangesInput, required: true }),
    },
    resolve: (_root, args, ctx) => updateLogEntry(ctx, args.entryId, args.input),
  }),
  deleteLogEntry: t.withAuth({ scope: 'health:logs:write' }).field({
    type: LogDeletion,
    description: 'Deletes a log entry of any kind',
    args: { entryId: t.arg.string(entryId) },
    resolve: (_root, args, ctx) => deleteLogEntry(ctx, args.entryId),
  }),
}));
