import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importAppleHealthFile } from '../../src/domains/health/health.apple-import.ts';
import { activityName, parseHealthDate } from '../../src/domains/health/health.apple-parser.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const fixture = (name: string): string => path.resolve('test/fixtures/apple_health', name);
const db = app.db;

describe('the Apple Health importer (issue 4)', () => {
  it('parses export dates with their offset and names workout activities', () => {
    expect(parseHealthDate('2016-11-14 07:25:41 -0700')?.toISOString()).toBe(
      '2016-11-14T14:25:41.000Z',
    );
    expect(parseHealthDate('not a date')).toBeNull();
    expect(activityName('HKWorkoutActivityTypeTraditionalStrengthTraining')).toBe(
      'traditional_strength_training',
    );
  });

  it('imports the real export6s3sample export: its workout, and nothing twice on a second run', async () => {
    const { user } = await seedUser(app);
    const lines: string[] = [];
    const first = await importAppleHealthFile(db, {
      userId: user.id,
      file: fixture('export6s3sample.xml'),
      onProgress: (l) => lines.push(l),
    });
    // 10 StepCount + 5 DistanceWalkingRunning records, 1 Workout
    expect(first).toMatchObject({ seen: 16, mapped: 11, ignored: 5 });
    expect(first.metrics).toEqual({ inserted: 10, skipped: 0 });
    expect(first.workouts).toEqual({ inserted: 1, skipped: 0 });
    expect(lines.at(-1)).toMatch(/read 16 records/);
    const workout = await app.db.prisma.workoutSample.findFirstOrThrow({
      where: { userId: user.id },
    });
    // Workout.csv: "NJR Apple Watch", 2016-04-02 10:40:38 +0100 .. 11:12:22 +0100, Other, 0 km, 139.317 kcal
    expect(workout).toMatchObject({
      activityType: 'other',
      source: 'NJR Apple\u00a0Watch', // the export's own no-break space
      startAt: new Date('2016-04-02T09:40:38Z'),
      endAt: new Date('2016-04-02T10:12:22Z'),
      distanceM: 0,
    });
    expect(workout.energyKcal).toBeCloseTo(139.317, 3);
    const again = await importAppleHealthFile(db, {
      userId: user.id,
      file: fixture('export6s3sample.xml'),
    });
    expect(again.metrics).toEqual({ inserted: 0, skipped: 10 });
    expect(again.workouts).toEqual({ inserted: 0, skipped: 1 });
  });

  it('reads the export zip (healthkit-to-sqlite) and the same data as plain XML deduplicates against it', async () => {
    const { user } = await seedUser(app);
    const zipped = await importAppleHealthFile(db, {
      userId: user.id,
      file: fixture('healthkit_to_sqlite_export.zip'),
    });
    expect(zipped.metrics).toEqual({ inserted: 1, skipped: 0 }); // the HeartRate record (BodyMassIndex is not imported)
    expect(zipped.workouts).toEqual({ inserted: 1, skipped: 0 });
    const hr = await app.db.prisma.healthMetric.findFirstOrThrow({ where: { userId: user.id } });
    expect(hr).toMatchObject({
      metricType: 'heart_rate',
      value: 72,
      unit: 'bpm',
      source: 'Apple\u00a0Watch',
      timestamp: new Date('2018-09-10T09:28:55Z'),
    });
    const w = await app.db.prisma.workoutSample.findFirstOrThrow({ where: { userId: user.id } });
    expect(w.distanceM).toBeCloseTo(0.4971749504535062 * 1609.344, 6);
    const plain = await importAppleHealthFile(db, {
      userId: user.id,
      file: fixture('healthkit_to_sqlite_export.xml'),
    });
    expect(plain.metrics.inserted + plain.workouts.inserted).toBe(0);
  });

  it('maps HRV, resting heart rate, body mass in lb, respiratory rate, energy in kJ and sleep stages, in batches', async () => {
    const { user, token } = await seedUser(app);
    const at = (h: number): string => {
      const d = new Date(clock.ms() - h * 3_600_000);
      return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} +0000`;
    };
    // hand-written in the export's format (the real fixtures hold none of these types)
    const rec = (type: string, unit: string, value: string, h: number, h2 = h): string =>
      `<Record type="${type}" sourceName="Watch" unit="${unit}" startDate="${at(h)}" endDate="${at(h2)}" value="${value}"/>`;
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">
${rec('HKQuantityTypeIdentifierHeartRateVariabilitySDNN', 'ms', '48.5', 1)}
${rec('HKQuantityTypeIdentifierRestingHeartRate', 'count/min', '55', 2)}
${rec('HKQuantityTypeIdentifierBodyMass', 'lb', '150', 3)}
${rec('HKQuantityTypeIdentifierRespiratoryRate', 'count/min', '14.5', 4)}
${rec('HKQuantityTypeIdentifierActiveEnergyBurned', 'kJ', '418.4', 5)}
${rec('HKCategoryTypeIdentifierSleepAnalysis', '', 'HKCategoryValueSleepAnalysisAsleepDeep', 10, 9)}
${rec('HKCategoryTypeIdentifierSleepAnalysis', '', 'HKCategoryValueSleepAnalysisAsleepREM', 9, 8)}
${rec('HKCategoryTypeIdentifierSleepAnalysis', '', 'HKCategoryValueSleepAnalysisInBed', 11, 7)}
${rec('HKQuantityTypeIdentifierBloodGlucose', 'mg/dL', '100', 1)}
</HealthData>`;
    const dir = mkdtempSync(path.join(tmpdir(), 'hdp-ah-'));
    writeFileSync(path.join(dir, 'export.xml'), xml);
    const summary = await importAppleHealthFile(db, {
      userId: user.id,
      file: path.join(dir, 'export.xml'),
      batchSize: 2,
    });
    expect(summary).toMatchObject({
      seen: 9,
      mapped: 8,
      ignored: 1,
      metrics: { inserted: 5, skipped: 0 },
      sleep: { inserted: 3, skipped: 0 },
    });
    const weight = await rest(app, 'GET', '/api/health/metrics?metric_type=body_weight', { token });
    expect(weight.body[0].value).toBeCloseTo(68.0388555, 6);
    const energy = await rest(app, 'GET', '/api/health/metrics?metric_type=active_energy', {
      token,
    });
    expect(energy.body[0].value).toBeCloseTo(100, 6);
    const hrv = await rest(app, 'GET', '/api/health/metrics?metric_type=hrv', { token });
    expect(hrv.body[0]).toMatchObject({ value: 48.5, unit: 'ms' });
    const sleep = await rest(app, 'GET', '/api/health/sleep', { token });
    expect(sleep.body.map((s: any) => s.stage)).toEqual(['in_bed', 'deep', 'rem']);
  });
});
