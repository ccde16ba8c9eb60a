/**
 * Discovery's signals (issue 33): loadSignals answers each daily series of a person's data as a
 * per-local-day SQL aggregate in the person's zone (docs/discovery.md, "Signals"). A person in
 * Europe/Berlin with a few days of every kind of data (rows written straight into each domain's
 * tables, as the phone's sync or the import would leave them, tombstones included) and one in
 * Asia/Kolkata: exact daily values of every series, local-midnight boundaries, deleted rows left
 * out, zero-filled event series, coverage, and neither person's data in the other's series.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  loadSignals,
  observationsSql,
  signalCoverage,
  signalInfo,
  SIGNAL_CATALOGUE,
} from '../../src/domains/discovery/discovery.signals.ts';
import type { DailySeries } from '../../src/domains/discovery/discovery.types.ts';
import { localTime } from '../../src/platform/local-dates.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();
const db = app.db.prisma;
const id = (): string => randomUUID();
const GONE = new Date('2026-02-01T00:00:00Z');

/** The instant of local `hh:mm` on `date` in `zone`. */
const at = (zone: string, date: string, hhmm: string): Date => {
  const [h, m] = hhmm.split(':').map(Number);
  return localTime(date, h + m / 60, zone);
};

/** The series as plain data: key -> { date: value } (values rounded to 3 decimals). */
const plain = (series: DailySeries[]): Record<string, Record<string, number>> =>
  Object.fromEntries(
    series.map((s) => [
      s.key,
      Object.fromEntries([...s.values].map(([d, v]) => [d, Math.round(v * 1000) / 1000])),
    ]),
  );

const BERLIN = 'Europe/Berlin';
const KOLKATA = 'Asia/Kolkata';

/** Health samples of the Berlin person (CET, UTC+1 in January). */
async function seedHealth(userId: number): Promise<void> {
  const t = (date: string, hhmm: string): Date => at(BERLIN, date, hhmm);
  const metric = (metricType: string, value: number, timestamp: Date, source = 'Watch') => ({
    id: id(),
    userId,
    metricType,
    value,
    unit: '',
    timestamp,
    source,
  });
  await db.healthMetric.createMany({
    data: [
      metric('steps', 1000, t('2026-01-12', '10:00')),
      metric('steps', 600, t('2026-01-12', '11:00'), 'Phone'),
      metric('steps', 500, t('2026-01-12', '23:30')),
      // 23:10 UTC on the 12th is 00:10 on the 13th in Berlin
      metric('steps', 700, t('2026-01-13', '00:10')),
      { ...metric('steps', 9999, t('2026-01-14', '10:00')), deletedAt: GONE },
      metric('active_energy', 200, t('2026-01-12', '10:00')),
      metric('hrv', 40, t('2026-01-12', '03:00')),
      metric('hrv', 60, t('2026-01-12', '04:00')),
      metric('resting_heart_rate', 55, t('2026-01-13', '08:00')),
      metric('heart_rate', 140, t('2026-01-13', '08:00')),
      metric('body_weight', 81, t('2026-01-13', '06:00')),
      metric('body_weight', 80, t('2026-01-14', '08:00')),
    ],
  });
  const sleep = (stage: string, start: Date, end: Date, deletedAt: Date | null = null) => ({
    id: id(),
    userId,
    stage,
    startAt: start,
    endAt: end,
    source: 'Watch',
    deletedAt,
  });
  await db.sleepSample.createMany({
    data: [
      // the night ending on the 13th: in bed 22:45..07:00 (495 min), asleep 23:30..04:00 and
      // 04:30..06:30 (390 min, the overlap of core and deep counted once)
      sleep('in_bed', t('2026-01-12', '22:45'), t('2026-01-13', '07:00')),
      sleep('core', t('2026-01-12', '23:30'), t('2026-01-13', '03:00')),
      sleep('deep', t('2026-01-13', '02:30'), t('2026-01-13', '04:00')),
      sleep('awake', t('2026-01-13', '04:00'), t('2026-01-13', '04:30')),
      sleep('rem', t('2026-01-13', '04:30'), t('2026-01-13', '06:30')),
      // the night ending on the 14th: asleep stages only (no efficiency), bedtime after midnight
      sleep('core', t('2026-01-14', '00:30'), t('2026-01-14', '06:30')),
      sleep('core', t('2026-01-14', '23:00'), t('2026-01-15', '06:00'), GONE),
    ],
  });
  await db.workoutSample.create({
    data: {
      id: id(),
      userId,
      activityType: 'running',
      startAt: t('2026-01-13', '07:00'),
      endAt: t('2026-01-13', '07:30'),
      durationMinutes: 30,
      source: 'Watch',
    },
  });
}

/** Glucose and meals of the Berlin person. */
async function seedGlucoseMeals(userId: number): Promise<void> {
  const t = (date: string, hhmm: string): Date => at(BERLIN, date, hhmm);
  const reading = (valueMgDl: number, timestamp: Date, deletedAt: Date | null = null) => ({
    id: id(),
    userId,
    valueMgDl,
    timestamp,
    deletedAt,
  });
  await db.glucoseReading.createMany({
    data: [
      reading(100, t('2026-01-12', '05:00')),
      reading(120, t('2026-01-12', '06:55')),
      reading(200, t('2026-01-12', '07:00')),
      reading(60, t('2026-01-12', '12:00')),
      reading(150, t('2026-01-13', '00:15')),
      reading(300, t('2026-01-14', '06:00'), GONE),
    ],
  });
  const meal = (eatenAt: Date, carbsG: number, sugarG: number, deletedAt: Date | null = null) => ({
    id: id(),
    userId,
    eatenAt,
    carbsG,
    sugarG,
    deletedAt,
  });
  await db.meal.createMany({
    data: [
      meal(t('2026-01-12', '08:00'), 50, 10),
      meal(t('2026-01-12', '21:30'), 70, 5),
      meal(t('2026-01-13', '00:30'), 20, 2),
      meal(t('2026-01-14', '12:00'), 90, 30, GONE),
    ],
  });
}

/** Log entries, blood pressure and room readings of the Berlin person. */
async function seedLogsRoom(userId: number): Promise<void> {
  const t = (date: string, hhmm: string): Date => at(BERLIN, date, hhmm);
  type Entry = { name?: string; value?: number; unit?: string; durationMinutes?: number };
  const entry = (kind: string, loggedAt: Date, e: Entry = {}, deletedAt: Date | null = null) => ({
    id: id(),
    userId,
    kind,
    loggedAt,
    deletedAt,
    ...e,
  });
  await db.logEntry.createMany({
    data: [
      entry('hydration', t('2026-01-12', '09:00'), { value: 500, unit: 'ml' }),
      entry('hydration', t('2026-01-12', '15:00'), { value: 250, unit: 'ml' }),
      entry('hydration', t('2026-01-12', '16:00'), { value: 1000, unit: 'ml' }, GONE),
      entry('nicotine', t('2026-01-13', '10:00'), { value: 2, unit: 'units' }),
      entry('nicotine', t('2026-01-13', '23:59'), { value: 1, unit: 'units' }),
      entry('medication', t('2026-01-05', '08:00'), { name: 'ibuprofen' }),
      entry('medication', t('2026-01-12', '08:00'), { name: 'ibuprofen' }),
      entry('medication', t('2026-01-12', '20:00'), { name: 'vitamin d' }),
      entry('sun_session', t('2026-01-14', '12:00'), { durationMinutes: 20 }),
      entry('sun_session', t('2026-01-14', '15:00'), { durationMinutes: 15 }),
      // logged at 22:00 on the 12th: the night ending on the 13th
      entry('sleep_factor', t('2026-01-12', '22:00'), { name: 'Alcohol' }),
      entry('sleep_factor', t('2026-01-15', '10:00'), { name: 'caffeine' }),
      entry('custom_metric', t('2026-01-12', '09:00'), { name: 'Mood', value: 3, unit: 'score' }),
      entry('custom_metric', t('2026-01-12', '20:00'), { name: 'mood', value: 5, unit: 'score' }),
      entry('custom_metric', t('2026-01-14', '20:00'), { name: 'mood', value: 7, unit: 'score' }),
      entry('weight', t('2026-01-13', '07:00'), { value: 79.5, unit: 'kg' }),
      entry('weight', t('2026-01-13', '21:00'), { value: 79, unit: 'kg' }),
    ],
  });
  const bp = (
    systolic: number,
    diastolic: number,
    measuredAt: Date,
    deletedAt: Date | null = null,
  ) => ({
    id: id(),
    userId,
    systolic,
    diastolic,
    measuredAt,
    deletedAt,
  });
  await db.bloodPressureReading.createMany({
    data: [
      bp(120, 80, t('2026-01-13', '08:00')),
      bp(130, 90, t('2026-01-13', '08:05')),
      bp(180, 120, t('2026-01-13', '09:00'), GONE),
    ],
  });
  const room = (
    co2: number,
    temperature: number,
    recordedAt: Date,
    who: number | null = userId,
  ) => ({
    userId: who,
    serialNumber: `room-${userId}-${who}`,
    recordedAt,
    co2,
    temperature,
  });
  await db.monitorReading.createMany({
    data: [
      room(800, 20, t('2026-01-12', '10:00')),
      room(1000, 22, t('2026-01-12', '11:00')),
      room(600, 18, t('2026-01-13', '00:30')),
      // a monitor attached to nobody is never read
      room(5000, 40, t('2026-01-12', '12:00'), null),
    ],
  });
}

/** Observations of the Berlin person. */
async function seedObservations(userId: number): Promise<void> {
  const t = (date: string, hhmm: string): Date => at(BERLIN, date, hhmm);
  const o = (label: string, observedAt: Date, intensity: number | null = null) => ({
    userId,
    label,
    observedAt,
    intensity,
  });
  await db.discoveryObservation.createMany({
    data: [
      o('headache', t('2026-01-13', '09:00'), 3),
      o('headache', t('2026-01-13', '18:00')),
      o('headache', t('2026-01-15', '23:30')),
      o('stressful day', t('2026-01-10', '12:00')),
      o('stressful day', t('2026-01-14', '12:00')),
      o('old label', t('2026-01-01', '12:00'), 5),
    ],
  });
}

/** The Kolkata person (UTC+05:30): rows on both sides of local midnight of the 13th. */
async function seedKolkata(userId: number): Promise<void> {
  const before = new Date('2026-01-12T18:29:00Z'); // 23:59 on the 12th
  const after = new Date('2026-01-12T18:30:00Z'); // 00:00 on the 13th
  await db.healthMetric.createMany({
    data: [
      { id: id(), userId, metricType: 'steps', value: 11, unit: '', timestamp: before },
      { id: id(), userId, metricType: 'steps', value: 22, unit: '', timestamp: after },
    ],
  });
  await db.glucoseReading.createMany({
    data: [
      { id: id(), userId, valueMgDl: 90, timestamp: before },
      { id: id(), userId, valueMgDl: 110, timestamp: after },
    ],
  });
  await db.meal.create({ data: { id: id(), userId, eatenAt: before, carbsG: 5, sugarG: 1 } });
  await db.discoveryObservation.create({ data: { userId, label: 'headache', observedAt: after } });
}

const FROM = '2026-01-12';
const TO = '2026-01-15';

describe('loadSignals', () => {
  it('answers every series of a Berlin person per local day, tombstones left out', async () => {
    const a = await seedUser(app);
    const b = await seedUser(app);
    for (const seed of [seedHealth, seedGlucoseMeals, seedLogsRoom, seedObservations])
      await seed(a.user.id);
    await seedKolkata(b.user.id);
    const series = await loadSignals(db, { userId: a.user.id, zone: BERLIN, from: FROM, to: TO });
    expect(plain(series)).toEqual({
      sleep_minutes: { '2026-01-13': 390, '2026-01-14': 360 },
      sleep_efficiency_pct: { '2026-01-13': 78.788 },
      bedtime_hour: { '2026-01-13': 23.5, '2026-01-14': 24.5 },
      steps: { '2026-01-12': 1500, '2026-01-13': 700 },
      active_energy_kcal: { '2026-01-12': 200 },
      workout_minutes: { '2026-01-12': 0, '2026-01-13': 30 },
      hrv_ms: { '2026-01-12': 50 },
      resting_heart_rate_bpm: { '2026-01-13': 55 },
      glucose_mean: { '2026-01-12': 120, '2026-01-13': 150 },
      glucose_time_in_range_pct: { '2026-01-12': 50, '2026-01-13': 100 },
      glucose_cv_pct: { '2026-01-12': 49.065 },
      glucose_fasting: { '2026-01-12': 110 },
      last_meal_hour: { '2026-01-12': 21.5, '2026-01-13': 0.5 },
      carbs_g: { '2026-01-12': 120, '2026-01-13': 20 },
      sugar_g: { '2026-01-12': 15, '2026-01-13': 2 },
      hydration_ml: { '2026-01-12': 750 },
      nicotine: { '2026-01-13': 3, '2026-01-14': 0, '2026-01-15': 0 },
      medication: { '2026-01-12': 2, '2026-01-13': 0, '2026-01-14': 0, '2026-01-15': 0 },
      sun_minutes: { '2026-01-14': 35, '2026-01-15': 0 },
      weight_kg: { '2026-01-13': 79, '2026-01-14': 80 },
      bp_systolic: { '2026-01-13': 125 },
      bp_diastolic: { '2026-01-13': 85 },
      room_co2_ppm: { '2026-01-12': 900, '2026-01-13': 600 },
      room_temperature_c: { '2026-01-12': 21, '2026-01-13': 18 },
      'log:custom:mood': { '2026-01-12': 4, '2026-01-14': 7 },
      'log:sleep_factor:alcohol': { '2026-01-13': 1, '2026-01-14': 0, '2026-01-15': 0 },
      'log:sleep_factor:caffeine': { '2026-01-15': 1 },
      'observation:headache': { '2026-01-13': 3, '2026-01-14': 0, '2026-01-15': 1 },
      'observation:stressful day': {
        '2026-01-12': 0,
        '2026-01-13': 0,
        '2026-01-14': 1,
        '2026-01-15': 0,
      },
    });
    // the series' identities: the catalogue's for fixed keys, per name for the others
    const byKey = new Map(series.map((s) => [s.key, s]));
    expect(byKey.get('steps')).toMatchObject(SIGNAL_CATALOGUE.find((s) => s.key === 'steps')!);
    expect(byKey.get('log:custom:mood')).toMatchObject({ unit: 'score', binary: false });
    expect(byKey.get('log:sleep_factor:alcohol')).toMatchObject({ unit: '0/1', binary: true });
    expect(byKey.get('observation:headache')).toMatchObject({ unit: '0-5', binary: false });
    expect(byKey.get('observation:stressful day')).toMatchObject({
      label: 'stressful day',
      unit: '0/1',
      binary: true,
      domain: 'observations',
    });
    // values in date order
    for (const s of series) expect([...s.values.keys()]).toEqual([...s.values.keys()].sort());

    const none = await loadSignals(db, {
      userId: a.user.id,
      zone: BERLIN,
      from: FROM,
      to: TO,
      observations: false,
    });
    expect(none.some((s) => s.key.startsWith('observation:'))).toBe(false);

    // the other person's data never appears, and theirs counts in their own zone
    const kolkata = await loadSignals(db, {
      userId: b.user.id,
      zone: KOLKATA,
      from: FROM,
      to: TO,
    });
    expect(plain(kolkata)).toEqual({
      steps: { '2026-01-12': 11, '2026-01-13': 22 },
      workout_minutes: { '2026-01-12': 0, '2026-01-13': 0 },
      glucose_mean: { '2026-01-12': 90, '2026-01-13': 110 },
      glucose_time_in_range_pct: { '2026-01-12': 100, '2026-01-13': 100 },
      last_meal_hour: { '2026-01-12': 23.983 },
      carbs_g: { '2026-01-12': 5 },
      sugar_g: { '2026-01-12': 1 },
      'observation:headache': { '2026-01-13': 1, '2026-01-14': 0, '2026-01-15': 0 },
    });
  });

  it('answers nothing for a person without data, and only days within the range', async () => {
    const a = await seedUser(app);
    expect(await loadSignals(db, { userId: a.user.id, zone: BERLIN, from: FROM, to: TO })).toEqual(
      [],
    );
    await seedGlucoseMeals(a.user.id);
    const one = await loadSignals(db, {
      userId: a.user.id,
      zone: BERLIN,
      from: '2026-01-13',
      to: '2026-01-13',
    });
    expect(plain(one)).toEqual({
      glucose_mean: { '2026-01-13': 150 },
      glucose_time_in_range_pct: { '2026-01-13': 100 },
      last_meal_hour: { '2026-01-13': 0.5 },
      carbs_g: { '2026-01-13': 20 },
      sugar_g: { '2026-01-13': 2 },
    });
  });
});

describe('signalCoverage', () => {
  it('counts the days with a value, first and last, as a percent of the range', () => {
    const s = (key: string, dates: string[]): DailySeries => ({
      ...signalInfo(key)!,
      values: new Map(dates.map((d) => [d, 1])),
    });
    expect(
      signalCoverage(
        [
          s('steps', ['2026-01-13', '2026-01-12']),
          s('observation:headache', ['2026-01-11', '2026-01-15']),
          s('hrv_ms', []),
        ],
        FROM,
        TO,
      ),
    ).toEqual([
      { key: 'steps', days: 2, first: '2026-01-12', last: '2026-01-13', coveragePct: 50 },
      {
        key: 'observation:headache',
        days: 1,
        first: '2026-01-15',
        last: '2026-01-15',
        coveragePct: 25,
      },
      { key: 'hrv_ms', days: 0, first: null, last: null, coveragePct: 0 },
    ]);
  });
});

describe('signalInfo and the observations statement', () => {
  it('names fixed and per-name keys, refuses others, and binds every value', () => {
    expect(signalInfo('glucose_fasting')).toMatchObject({ unit: 'mg/dL', role: 'outcome' });
    expect(signalInfo('log:custom:mood')).toMatchObject({ label: 'mood', role: 'both' });
    expect(signalInfo('nope')).toBeNull();
    const sql = observationsSql(7, BERLIN, FROM, '2026-01-16T00:00:00Z');
    expect(sql.values).toEqual([BERLIN, 7, '2026-01-16T00:00:00Z', FROM]);
    expect(sql.sql).not.toContain(BERLIN);
  });
});
