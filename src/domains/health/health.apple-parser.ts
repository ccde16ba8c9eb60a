/**
 * A streaming reader of an Apple Health export (`export.xml`, or the export zip holding
 * `apple_health_export/export.xml`). It maps HealthKit type identifiers to our metric types, sleep
 * stages and workouts, and hands them on in batches so that a multi-gigabyte export never sits in
 * memory: the next chunk of XML is read only after the batch handler has finished (backpressure).
 * It never writes anything itself; scripts/import-apple-health.ts feeds the batches to the same
 * service functions the REST import uses.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import type { MetricSampleIn, SleepSampleIn, WorkoutSampleIn } from './health.service.ts';
import type { MetricType, SleepStage } from './health.constants.ts';

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
}

export interface ParseProgress {
  /** Record and Workout elements seen */
  seen: number;
  /** of those, mapped to something we import */
  mapped: number;
  /** of those seen, ignored (types we do not import, or values we cannot read) */
  ignored: number;
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

/** Streams an export.xml from `input`, calling `onBatch` with mapped samples; answers the final counts. */
export async function parseAppleHealth(
  input: Readable,
  options: ParseAppleHealthOptions,
): Promise<ParseProgress> {
  const batchSize = options.batchSize ?? 5000;
  const progressEvery = options.progressEvery ?? 50_000;
  const progress: ParseProgress = { seen: 0, mapped: 0, ignored: 0 };
  let batch: AppleHealthBatch = { metrics: [], sleep: [], workouts: [] };
  const size = (): number => batch.metrics.length + batch.sleep.length + batch.workouts.length;
  // a holder, not a variable: the compiler does not follow assignments made in the 'error' handler
  const failed: { error: Error | null } = { error: null };

  const parser = new SaxesParser();
  parser.on('error', (e) => {
    failed.error ??= e;
  });
  parser.on('opentag', (tag) => {
    if (tag.name !== 'Record' && tag.name !== 'Workout') return;
    progress.seen += 1;
    const attrs = tag.attributes as Attrs;
    let mapped = false;
    if (tag.name === 'Workout') {
      const w = mapWorkout(attrs);
      if (w) {
        batch.workouts.push(w);
        mapped = true;
      }
    } else {
      const r = mapRecord(attrs);
      if (r?.metric) {
        batch.metrics.push(r.metric);
        mapped = true;
      }
      if (r?.sleep) {
        batch.sleep.push(r.sleep);
        mapped = true;
      }
    }
    if (mapped) progress.mapped += 1;
    else progress.ignored += 1;
    if (options.onProgress && progress.seen % progressEvery === 0)
      options.onProgress({ ...progress });
  });

  const flush = async (): Promise<void> => {
    if (size() === 0) return;
    const full = batch;
    batch = { metrics: [], sleep: [], workouts: [] };
    await options.onBatch(full);
  };

  input.setEncoding('utf8');
  for await (const chunk of input) {
    parser.write(chunk as string);
    if (failed.error) throw failed.error;
    if (size() >= batchSize) await flush();
  }
  parser.close();
  if (failed.error) throw failed.error;
  await flush();
  options.onProgress?.({ ...progress });
  return progress;
}

/** Opens `file` for reading: the export.xml itself, or the export.xml inside an export zip. */
export async function openExport(file: string): Promise<Readable> {
  if (!file.toLowerCase().endsWith('.zip')) return createReadStream(file);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (err, z) =>
      err || !z ? reject(err ?? new Error('no zip')) : resolve(z),
    ),
  );
  return new Promise<Readable>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      // the main file; export_cda.xml (clinical documents) and workout routes are not read
      if (/(^|\/)export\.xml$/.test(entry.fileName)) {
        zip.openReadStream(entry, (err, stream) =>
          err || !stream ? reject(err ?? new Error('unreadable entry')) : resolve(stream),
        );
      } else {
        zip.readEntry();
      }
    });
    zip.on('end', () => reject(new Error(`no export.xml in ${file}`)));
    zip.on('error', reject);
    zip.readEntry();
  });
}
