/**
 * Measures the detected-meal rule on the real CGM traces (bench/meal-detection.ts): detections per
 * day as published, and precision and recall against constructed meals planted at known times.
 * Prints one JSON line per data set and one for all of them. `npm run measure:meal-detection`.
 */
import { DATASETS, measureDataset } from './meal-detection.ts';
import type { DatasetName } from './meal-detection.ts';

const SEED = Number(process.env.SEED ?? 17);
const all = (Object.keys(DATASETS) as DatasetName[]).map((name) => measureDataset(name, SEED));
for (const figures of all) console.log(JSON.stringify(figures));
const sum = (f: (x: (typeof all)[number]) => number): number => all.reduce((a, x) => a + f(x), 0);
console.log(
  JSON.stringify({
    dataset: 'all',
    seed: SEED,
    planted: sum((x) => x.planted),
    recall: Math.round((sum((x) => x.found) / sum((x) => x.planted)) * 1000) / 1000,
    detectionsPerDay: Math.round((sum((x) => x.detections) / sum((x) => x.days)) * 100) / 100,
  }),
);
