/**
 * Measuring the detected-meal rule (src/domains/nutrition/nutrition.detect.ts) on the real CGM
 * traces of test/fixtures/cgm/ (Hall 2018, D1NAMO, iglu; sources and licenses in its README):
 * detections per day on the traces as published, and precision and recall against meals planted
 * in them. THE PLANTED MEALS ARE CONSTRUCTED: a gamma-shaped rise (amplitude 40..80 mg/dL, peak at
 * 30..60 min, f(t) = A (t/tp)^2 e^(2 (1 - t/tp))) added to the real readings at known times chosen
 * by a seeded generator. Used by `npm run measure:meal-detection` and test/domains/meal-detection.test.ts.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { DETECT_RULE, detectRises } from '../src/domains/nutrition/nutrition.detect.ts';
import type { DetectedRise, DetectRule } from '../src/domains/nutrition/nutrition.detect.ts';
import type { GlucoseSample } from '../src/domains/nutrition/nutrition.response.ts';
import { seededRandom } from '../test/fixtures/seeded-random.ts';

const MINUTE = 60_000;
/** A detection matches a planted meal when its start is within this many minutes of it. */
export const MATCH_MINUTES = 30;

/** The data sets of test/fixtures/cgm/, by name. */
export const DATASETS = {
  hall2018: 'hall2018_cgm.csv.gz',
  dubosson2018: 'dubosson2018_cgm.csv',
  iglu: 'iglu_example_data_5_subject.csv',
} as const;
export type DatasetName = keyof typeof DATASETS;

/** Every subject's readings of a data set, sorted by time (local times read as UTC; NA skipped). */
export function loadDataset(name: DatasetName): Map<string, GlucoseSample[]> {
  const raw = readFileSync(new URL(`../test/fixtures/cgm/${DATASETS[name]}`, import.meta.url));
  const text = name === 'hall2018' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8');
  const bySubject = new Map<string, GlucoseSample[]>();
  for (const line of text.trim().split('\n').slice(1)) {
    const [id, time, gl] = line.split(',');
    const v = Number(gl);
    if (!Number.isFinite(v)) continue;
    const t = Date.parse(`${time.replace(' ', 'T')}Z`);
    const list = bySubject.get(id) ?? [];
    list.push({ t, v });
    bySubject.set(id, list);
  }
  for (const list of bySubject.values()) list.sort((a, b) => a.t - b.t);
  return bySubject;
}

/** Days of readings: the sum of intervals of at most 15 minutes between readings. */
export function coveredDays(samples: readonly GlucoseSample[]): number {
  let ms = 0;
  for (let i = 1; i < samples.length; i++) {
    const d = samples[i].t - samples[i - 1].t;
    if (d <= 15 * MINUTE) ms += d;
  }
  return ms / 86_400_000;
}

/**
 * A seeded generator (mulberry32: seededRandom of test/fixtures/seeded-random.ts): the same
 * plantings on every run.
 */
export function seeded(seed: number): () => number {
  return seededRandom(seed);
}

/** A constructed meal: when, how high and how fast. */
export interface PlantedMeal {
  t: number;
  amplitude: number;
  peakMinutes: number;
}

/** The constructed meal curve: mg/dL added `m` minutes after the meal (gamma-shaped, k = 2). */
export function mealCurve(meal: PlantedMeal, m: number): number {
  if (m <= 0) return 0;
  const x = m / meal.peakMinutes;
  return meal.amplitude * x * x * Math.exp(2 * (1 - x));
}

/** True when readings cover [t - 60 min, t + 120 min] without a gap of more than 15 minutes. */
function covered(samples: readonly GlucoseSample[], t: number): boolean {
  const lo = t - 60 * MINUTE;
  const hi = t + 120 * MINUTE;
  let previous: number | null = null;
  for (const s of samples) {
    if (s.t < lo) continue;
    if (s.t > hi) break;
    if (previous == null ? s.t - lo > 15 * MINUTE : s.t - previous > 15 * MINUTE) return false;
    previous = s.t;
  }
  return previous != null && hi - previous <= 15 * MINUTE;
}

/**
 * Plants meals in a copy of `samples`: one every 8 hours (+/- 1 hour, seeded) where the readings
 * cover the hour before and 2 hours after (and no earlier planting is within 5 hours).
 */
export function plant(
  samples: readonly GlucoseSample[],
  random: () => number,
): { samples: GlucoseSample[]; meals: PlantedMeal[] } {
  const meals: PlantedMeal[] = [];
  if (samples.length === 0) return { samples: [], meals };
  const end = samples[samples.length - 1].t;
  for (let t = samples[0].t + 3 * 60 * MINUTE; t < end - 3 * 60 * MINUTE; t += 8 * 60 * MINUTE) {
    const at = Math.round(t + (random() * 2 - 1) * 60 * MINUTE);
    const meal = {
      t: at,
      amplitude: 40 + random() * 40,
      peakMinutes: 30 + random() * 30,
    };
    const previous = meals[meals.length - 1];
    if (previous && at - previous.t < 5 * 60 * MINUTE) continue;
    if (covered(samples, at)) meals.push(meal);
  }
  const out = samples.map((s) => {
    let v = s.v;
    for (const m of meals) v += mealCurve(m, (s.t - m.t) / MINUTE);
    return { t: s.t, v: Math.round(v * 10) / 10 };
  });
  return { samples: out, meals };
}

/** Detections matched one-to-one to targets whose time is within MATCH_MINUTES of their start. */
function matchCount(detections: readonly DetectedRise[], targets: readonly number[]): number {
  const used = new Set<number>();
  let n = 0;
  for (const d of detections) {
    let best = -1;
    for (let i = 0; i < targets.length; i++) {
      if (used.has(i)) continue;
      const off = Math.abs(targets[i] - d.startedAt);
      if (
        off <= MATCH_MINUTES * MINUTE &&
        (best < 0 || off < Math.abs(targets[best] - d.startedAt))
      )
        best = i;
    }
    if (best >= 0) {
      used.add(best);
      n++;
    }
  }
  return n;
}

/** The figures of one data set. */
export interface DetectionFigures {
  dataset: string;
  subjects: number;
  days: number;
  /** detections on the traces as published */
  detections: number;
  detectionsPerDay: number;
  planted: number;
  /** planted meals found (a detection within 30 min) */
  found: number;
  recall: number;
  /** detections on the planted traces */
  plantedDetections: number;
  /** detections matching a planted meal / all detections on the planted traces */
  precisionPlantedOnly: number;
  /** the same, not counting as false a detection that the published trace has too (a real rise) */
  precisionBeyondBaseline: number;
}

/** Runs the rule on every subject of `name`, as published and with planted meals (seed `seed`). */
export function measureDataset(
  name: DatasetName,
  seed = 17,
  subjectLimit = Infinity,
  rule: DetectRule = DETECT_RULE,
): DetectionFigures {
  const random = seeded(seed);
  const subjects = [...loadDataset(name).entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .slice(0, subjectLimit);
  let days = 0;
  let detections = 0;
  let planted = 0;
  let found = 0;
  let plantedDetections = 0;
  let matched = 0;
  let baselineOnly = 0;
  for (const [, samples] of subjects) {
    days += coveredDays(samples);
    const real = detectRises(samples, rule);
    detections += real.length;
    const p = plant(samples, random);
    const got = detectRises(p.samples, rule);
    planted += p.meals.length;
    plantedDetections += got.length;
    const times = p.meals.map((m) => m.t);
    found += matchCount(got, times);
    const matchedHere = got.filter((d) =>
      times.some((t) => Math.abs(t - d.startedAt) <= MATCH_MINUTES * MINUTE),
    );
    matched += matchedHere.length;
    // a detection near no planted meal but near a detection of the published trace: a real rise
    baselineOnly += got.filter(
      (d) =>
        !matchedHere.includes(d) &&
        real.some((r) => Math.abs(r.startedAt - d.startedAt) <= MATCH_MINUTES * MINUTE),
    ).length;
  }
  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    dataset: name,
    subjects: subjects.length,
    days: Math.round(days * 10) / 10,
    detections,
    detectionsPerDay: Math.round((detections / days) * 100) / 100,
    planted,
    found,
    recall: r3(found / planted),
    plantedDetections,
    precisionPlantedOnly: r3(matched / plantedDetections),
    precisionBeyondBaseline: r3(matched / (plantedDetections - baselineOnly)),
  };
}
