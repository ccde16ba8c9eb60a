/**
 * A streaming reader of an Apple Health export (`export.xml`, or the export zip holding
 * `apple_health_export/export.xml`). It maps HealthKit type identifiers to our metric types, sleep
 * stages and workouts, and hands them on in batches so that a multi-gigabyte export never sits in
 * memory: the next chunk of XML is read only after the batch handler has finished (backpressure).
 * It never writes anything itself. It parses an untrusted file, so it runs only in the import's
 * worker thread (health.apple-read.job.ts, issue 45), whose batches health.apple-import.ts stores
 * with the same service functions the REST import uses.
 */
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SaxesParser } from 'saxes';
import type { MetricSampleIn, SleepSampleIn, WorkoutSampleIn } from './health.samples.ts';
import type { MetricType, SleepStage } from './health.constants.ts';
import {
  ArchiveRecordColumns,
  exportDateMs,
  exportDateText,
  pushRecord,
} from './health.apple-records.ts';
import type {
  ArchiveKind,
  ArchiveRecordIn,
  ArchiveWorkoutIn,
  RoutePointIn,
} from './health.apple-records.ts';

/** Characters of export.xml parsed between two looks at the event loop while a batch is stored. */
const WRITE_SLICE = 16 * 1024;

/** HealthKit quantity types we import, and our metric type for each. */
export const HK_METRIC_TYPES: Readonly<Record<string, MetricType>> = {
  HKQuantityTypeIdentifierHeartRateVariabilitySDNN: 'hrv',
  HKQuantityTypeIdentifierRestingHeartRate: 'resting_heart_rate',
  HKQuantityTypeIdentifierStepCount: 'steps',
  HKQuantityTypeIdentifierActiveEnergyBurned: 'active_energy',
  HKQuantityTypeIdentifierBodyMass: 'body_weight',
  HKQuantityTypeIdentifierRespiratoryRate: 'respiratory_rate',
  HKQuantityTypeIdentifierHeartRate: 'heart_rate',
};

/** HKCategoryTypeIdentifierSleepAnalysis values and our stage for each. */
export const HK_SLEEP_STAGES: Readonly<Record<string, SleepStage>> = {
  HKCategoryValueSleepAnalysisInBed: 'in_bed',
  HKCategoryValueSleepAnalysisAsleep: 'asleep',
  HKCategoryValueSleepAnalysisAsleepUnspecified: 'asleep',
  HKCategoryValueSleepAnalysisAsleepCore: 'core',
  HKCategoryValueSleepAnalysisAsleepDeep: 'deep',
  HKCategoryValueSleepAnalysisAsleepREM: 'rem',
  HKCategoryValueSleepAnalysisAwake: 'awake',
};

/** One batch of mapped samples. */
export interface AppleHealthBatch {
  metrics: MetricSampleIn[];
  sleep: SleepSampleIn[];
  workouts: WorkoutSampleIn[];
  /** the archive: every element as exported (issue 16) */
  archive: { records: ArchiveRecordColumns; workouts: ArchiveWorkoutIn[] };
}

export interface ParseProgress {
  /** Record and Workout elements seen */
  seen: number;
  /** of those, mapped to something we import */
  mapped: number;
  /** of those seen, ignored (types we do not import, or values we cannot read) */
  ignored: number;
  /** elements kept in the archive (records, correlations, activity summaries, workouts) */
  archived: number;
}

export interface ParseAppleHealthOptions {
  /** called with each full batch (and the last, partial one); the parser waits for it */
  onBatch: (batch: AppleHealthBatch) => Promise<void>;
  /** samples per batch (default 5000) */
  batchSize?: number;
  /** called every `progressEvery` elements seen, and once at the end */
  onProgress?: (progress: ParseProgress) => void;
  progressEvery?: number;
}

/** Parses an export date, e.g. `2016-11-14 07:25:41 -0700`, to a Date (null when unreadable). */
export function parseHealthDate(text: string | undefined): Date | null {
  if (!text) return null;
  if (exportDateText(text)) return new Date(exportDateMs(text));
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-])(\d{2})(\d{2})$/.exec(text.trim());
  const d = m ? new Date(`${m[1]}T${m[2]}${m[3]}${m[4]}:${m[5]}`) : new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A metric's value in our unit (body weight in kg, energy in kcal), or null for a unit we do not know. */
export function toOurUnit(
  metric: MetricType,
  value: number,
  unit: string | undefined,
): number | null {
  const u = (unit ?? '').toLowerCase();
  switch (metric) {
    case 'body_weight':
      if (u === 'kg' || u === '') return value;
      if (u === 'lb') return value * 0.45359237;
      if (u === 'g') return value / 1000;
      return null;
    case 'active_energy':
      if (u === 'kcal' || u === 'cal' || u === '') return value; // HealthKit's "Cal" is the kilocalorie
      if (u === 'kj') return value / 4.184;
      return null;
    case 'hrv':
      return u === 'ms' || u === '' ? value : null;
    default:
      return value;
  }
}

function metres(value: number, unit: string | undefined): number | null {
  const factors: Record<string, number> = { m: 1, km: 1000, mi: 1609.344, ft: 0.3048, yd: 0.9144 };
  const f = factors[(unit ?? 'm').toLowerCase()];
  return f === undefined ? null : value * f;
}

function kcal(value: number, unit: string | undefined): number | null {
  const u = (unit ?? 'kcal').toLowerCase();
  if (u === 'kcal' || u === 'cal') return value;
  if (u === 'kj') return value / 4.184;
  return null;
}

/** HKWorkoutActivityTypeTraditionalStrengthTraining -> traditional_strength_training */
export function activityName(hk: string): string {
  return hk
    .replace(/^HKWorkoutActivityType/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

function num(text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

type Attrs = Record<string, string>;

/** Maps one <Record> element; null when we do not import it. */
export function mapRecord(a: Attrs): { metric?: MetricSampleIn; sleep?: SleepSampleIn } | null {
  const source = a.sourceName ?? '';
  if (a.type === 'HKCategoryTypeIdentifierSleepAnalysis') {
    const stage = HK_SLEEP_STAGES[a.value ?? ''];
    const startAt = parseHealthDate(a.startDate);
    const endAt = parseHealthDate(a.endDate);
    if (!stage || !startAt || !endAt || endAt < startAt) return null;
    return { sleep: { stage, startAt, endAt, source } };
  }
  const metricType = HK_METRIC_TYPES[a.type ?? ''];
  if (!metricType) return null;
  const raw = num(a.value);
  const timestamp = parseHealthDate(a.startDate);
  if (raw === null || !timestamp) return null;
  const value = toOurUnit(metricType, raw, a.unit);
  if (value === null || value < 0) return null;
  return { metric: { metricType, value, timestamp, source } };
}

/** Maps one <Workout> element; null when its dates are unreadable. */
export function mapWorkout(a: Attrs): WorkoutSampleIn | null {
  const startAt = parseHealthDate(a.startDate);
  const endAt = parseHealthDate(a.endDate);
  if (!startAt || !endAt || endAt < startAt || !a.workoutActivityType) return null;
  const distance = num(a.totalDistance);
  const energy = num(a.totalEnergyBurned);
  return {
    activityType: activityName(a.workoutActivityType),
    startAt,
    endAt,
    distanceM: distance === null ? null : metres(distance, a.totalDistanceUnit),
    energyKcal: energy === null ? null : kcal(energy, a.totalEnergyBurnedUnit),
    source: a.sourceName ?? '',
  };
}

const emptyBatch = (): AppleHealthBatch => ({
  metrics: [],
  sleep: [],
  workouts: [],
  archive: { records: new ArchiveRecordColumns(), workouts: [] },
});

/** An archive record from a `<Record>`'s or `<Correlation>`'s attributes; null when its dates are unreadable. */
function archiveRecord(kind: ArchiveKind, a: Attrs): ArchiveRecordIn | null {
  const start = exportDateText(a.startDate);
  const end = exportDateText(a.endDate);
  if (!start || !end || !a.type) return null;
  return {
    kind,
    type: a.type,
    valueText: a.value ?? '',
    unit: a.unit ?? null,
    start,
    end,
    created: exportDateText(a.creationDate),
    sourceName: a.sourceName ?? '',
    sourceVersion: a.sourceVersion ?? null,
    device: a.device ?? null,
    metadata: null,
  };
}

/** An `<ActivitySummary>` as an archive record of its day (its attributes as metadata). */
function activitySummary(a: Attrs): ArchiveRecordIn | null {
  const day = a.dateComponents;
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const start = exportDateText(`${day} 00:00:00 +0000`);
  if (!start) return null;
  const { dateComponents: _day, ...values } = a;
  return {
    kind: 'activity_summary',
    type: 'ActivitySummary',
    valueText: '',
    unit: null,
    start,
    end: start,
    created: null,
    sourceName: '',
    sourceVersion: null,
    device: null,
    metadata: values,
  };
}

/** The minutes of a duration in `unit` (min, s, h), null when unknown. */
function minutes(value: number | null, unit: string | undefined): number | null {
  if (value === null) return null;
  const f: Record<string, number> = {
    min: 1,
    s: 1 / 60,
    sec: 1 / 60,
    h: 60,
    hr: 60,
    ms: 1 / 60_000,
  };
  const k = f[(unit ?? 'min').toLowerCase()];
  return k === undefined ? null : value * k;
}

/** A workout event (`<WorkoutEvent type date duration durationUnit>`) as an archive record. */
function workoutEvent(a: Attrs, w: ArchiveWorkoutIn): ArchiveRecordIn | null {
  const start = exportDateText(a.date);
  const at = parseHealthDate(a.date);
  if (!start || !at || !a.type) return null;
  const mins = minutes(num(a.duration), a.durationUnit) ?? 0;
  const end = mins > 0 ? new Date(at.getTime() + mins * 60_000).toISOString() : start;
  return {
    kind: 'workout_event',
    type: a.type,
    valueText: '',
    unit: null,
    start,
    end,
    created: null,
    sourceName: w.sourceName,
    sourceVersion: w.sourceVersion,
    device: w.device,
    metadata: null,
  };
}

/** A `<Workout>`'s own fields for the archive; null when its dates are unreadable. */
function archiveWorkout(a: Attrs): ArchiveWorkoutIn | null {
  const start = exportDateText(a.startDate);
  const end = exportDateText(a.endDate);
  if (!start || !end || !a.workoutActivityType) return null;
  const distance = num(a.totalDistance);
  const energy = num(a.totalEnergyBurned);
  return {
    activityType: a.workoutActivityType,
    start,
    end,
    durationMinutes: minutes(num(a.duration), a.durationUnit),
    distanceM: distance === null ? null : metres(distance, a.totalDistanceUnit),
    energyKcal: energy === null ? null : kcal(energy, a.totalEnergyBurnedUnit),
    sourceName: a.sourceName ?? '',
    sourceVersion: a.sourceVersion ?? null,
    device: a.device ?? null,
    metadata: null,
    statistics: [],
    events: [],
    points: [],
    routeFiles: [],
  };
}

/** A route point from an inline `<Location>`; null when unreadable. */
function location(a: Attrs): RoutePointIn | null {
  const at = exportDateText(a.date);
  const lat = num(a.latitude);
  const lon = num(a.longitude);
  if (!at || lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  const nonNegative = (v: number | null): number | null => (v === null || v < 0 ? null : v);
  return {
    at,
    lat,
    lon,
    elevation: num(a.altitude),
    speed: nonNegative(num(a.speed)),
    course: nonNegative(num(a.course)),
    hAcc: num(a.horizontalAccuracy),
    vAcc: num(a.verticalAccuracy),
  };
}

const setMeta = (target: { metadata: Record<string, string> | null }, a: Attrs): void => {
  if (a.key === undefined) return;
  (target.metadata ??= {})[a.key] = a.value ?? '';
};

/**
 * What the parser has read of the export so far: the batch being filled, the counts, and the
 * archive element open now (its MetadataEntry, statistics, events and route belong to it). The
 * SAX events call open() and close(); parseAppleHealth takes the batch when it is full.
 */
class ExportReading {
  batch = emptyBatch();
  points = 0;
  readonly progress: ParseProgress = { seen: 0, mapped: 0, ignored: 0, archived: 0 };
  private record: ArchiveRecordIn | null = null;
  private correlation: ArchiveRecordIn | null = null;
  private workout: ArchiveWorkoutIn | null = null;
  private event: ArchiveRecordIn | null = null;
  private inRoute = false;

  /** What the batch holds (route points count one each). */
  size(): number {
    const { metrics, sleep, workouts, archive } = this.batch;
    return metrics.length + sleep.length + workouts.length + archive.records.length + this.points;
  }

  /** Hands over the batch and starts a new one. */
  take(): AppleHealthBatch {
    const full = this.batch;
    this.batch = emptyBatch();
    this.points = 0;
    return full;
  }

  /** An element opens: a part of the archive element open now, or a Record or a Workout (a sample). */
  open(name: string, attrs: Attrs): boolean {
    if (name === 'Record' || name === 'Workout') {
      this.openSample(name, attrs);
      return true;
    }
    this.openPart(name, attrs);
    return false;
  }

  private openPart(name: string, attrs: Attrs): void {
    const workout = this.workout;
    switch (name) {
      case 'MetadataEntry': {
        const target =
          this.event ?? this.record ?? (this.inRoute ? null : (workout ?? this.correlation));
        if (target) setMeta(target, attrs);
        return;
      }
      case 'WorkoutStatistics':
        workout?.statistics.push({ ...attrs });
        return;
      case 'WorkoutEvent':
        this.event = workout ? workoutEvent(attrs, workout) : null;
        return;
      case 'WorkoutRoute':
        this.inRoute = true;
        return;
      case 'FileReference':
        if (this.inRoute && workout && attrs.path) workout.routeFiles.push(attrs.path);
        return;
      case 'Location':
        this.openLocation(attrs);
        return;
      case 'Correlation':
        this.correlation = archiveRecord('correlation', attrs);
        return;
      case 'ActivitySummary':
        this.archive(activitySummary(attrs));
        return;
    }
  }

  private openLocation(attrs: Attrs): void {
    const p = this.inRoute && this.workout ? location(attrs) : null;
    if (!p) return;
    this.workout!.points.push(p);
    this.points += 1;
  }

  private archive(r: ArchiveRecordIn | null): void {
    if (!r) return;
    pushRecord(this.batch.archive.records, r);
    this.progress.archived += 1;
  }

  /** A Record or a Workout: kept for the archive, and mapped to the samples the app reads. */
  private openSample(name: 'Record' | 'Workout', attrs: Attrs): void {
    this.progress.seen += 1;
    const mapped = name === 'Workout' ? this.openWorkout(attrs) : this.openRecord(attrs);
    if (mapped) this.progress.mapped += 1;
    else this.progress.ignored += 1;
  }

  private openWorkout(attrs: Attrs): boolean {
    this.workout = archiveWorkout(attrs);
    const w = mapWorkout(attrs);
    if (w) this.batch.workouts.push(w);
    return w !== null && w !== undefined;
  }

  private openRecord(attrs: Attrs): boolean {
    // a record inside a correlation also appears at the top level (the export's DTD): kept once
    if (!this.correlation) {
      const kind = attrs.type?.startsWith('HKCategoryTypeIdentifier') ? 'category' : 'quantity';
      this.record = archiveRecord(kind, attrs);
    }
    const r = mapRecord(attrs);
    if (r?.metric) this.batch.metrics.push(r.metric);
    if (r?.sleep) this.batch.sleep.push(r.sleep);
    return Boolean(r?.metric || r?.sleep);
  }

  /** An element closes: the archive element it ends goes into the batch. */
  close(name: string): void {
    switch (name) {
      case 'Record':
        this.archive(this.record);
        this.record = null;
        return;
      case 'Correlation':
        this.archive(this.correlation);
        this.correlation = null;
        return;
      case 'WorkoutEvent':
        if (this.event && this.workout) this.workout.events.push(this.event);
        this.event = null;
        return;
      case 'WorkoutRoute':
        this.inRoute = false;
        return;
      case 'Workout':
        if (this.workout) {
          this.batch.archive.workouts.push(this.workout);
          this.progress.archived += 1;
          this.workout = null;
        }
        return;
    }
  }
}

/** Streams an export.xml from `input`, calling `onBatch` with mapped samples; answers the final counts. */
export async function parseAppleHealth(
  input: Readable,
  options: ParseAppleHealthOptions,
): Promise<ParseProgress> {
  const batchSize = options.batchSize ?? 5000;
  const progressEvery = options.progressEvery ?? 50_000;
  const reading = new ExportReading();
  const { progress } = reading;
  // a holder, not a variable: the compiler does not follow assignments made in the 'error' handler
  const failed: { error: Error | null } = { error: null };
  const parser = new SaxesParser();
  parser.on('error', (e) => {
    failed.error ??= e;
  });
  parser.on('opentag', (tag) => {
    const sample = reading.open(tag.name, tag.attributes as Attrs);
    if (sample && options.onProgress && progress.seen % progressEvery === 0)
      options.onProgress({ ...progress });
  });
  parser.on('closetag', (tag) => reading.close(tag.name));

  // NOTE: while a batch is being stored, the parser writes at most WRITE_SLICE characters at a time
  // and looks at the event loop in between, so the store's answer (in the reading job, the
  // importer's acknowledgement or its closing of the port) is not kept waiting behind a 64 kB chunk.
  // NOTE: one batch is stored while the next is parsed (at most two in memory): the wait for the
  // previous store is the backpressure.
  let storing: Promise<void> | null = null;
  let inFlight = false;
  const flush = async (): Promise<void> => {
    if (storing) await storing;
    storing = null;
    if (reading.size() === 0) return;
    inFlight = true;
    const pending = options.onBatch(reading.take()).finally(() => {
      inFlight = false;
    });
    pending.catch(() => undefined); // awaited at the next flush; no unhandled rejection meanwhile
    storing = pending;
  };

  input.setEncoding('utf8');
  for await (const chunk of input) {
    const text = chunk as string;
    for (let at = 0; at < text.length; at += WRITE_SLICE) {
      parser.write(
        at === 0 && text.length <= WRITE_SLICE ? text : text.slice(at, at + WRITE_SLICE),
      );
      if (failed.error) throw failed.error;
      if (reading.size() >= batchSize) await flush();
      else if (inFlight) await nextTurn();
    }
  }
  parser.close();
  if (failed.error) throw failed.error;
  await flush();
  await flush();
  options.onProgress?.({ ...progress });
  return progress;
}
