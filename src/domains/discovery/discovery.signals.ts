/**
 * Discovery's signals (issue 33): the daily series a person's data supports, each a per-local-day
 * SQL aggregate in the person's IANA zone, never a load of raw samples into JS (a year of one heavy
 * user, per-minute steps, energy and heart rate, 5-minute CGM and room readings, reads in well
 * under a second on PostgreSQL: `bench/discovery-run.bench.ts`). The rules of each signal are
 * the catalogue's `aggregation` sentences, and docs/discovery.md ("Signals").
 *
 * Other domains' data is read through their index.ts (health, glucose, meals, logs, monitor), one
 * statement per source whatever the range; only discovery's own table (discovery_observations) is
 * read here. A series is answered only when it has at least one day with a value. Event-like
 * signals (medication, nicotine, sun minutes, sleep factors, observations) count 0 on the days
 * without one from the person's first entry on, so that "without" days exist; workout minutes count
 * 0 on days with steps but no workout.
 *
 * NOTE: the caller decides whose data is read: `userId` is bound into every statement as given
 * (the run job passes the person who started it); never pass an id from a request unchecked.
 */
import type { Db, DbTx } from '../../db/client.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import { dailyGlucoseStatsOf } from '../glucose/index.ts';
import { dailyHealthFor, dailySleepDetailOf, dailyVitalsOf } from '../health/index.ts';
import { dailyLogSignalsOf } from '../logs/index.ts';
import type { DailyLogEntryView, DailyLogSignalsView } from '../logs/index.ts';
import { dailyMealsOf } from '../meals/index.ts';
import { dailyRoomOf } from '../monitor/index.ts';
import { datesFrom, daysBetween, dayBounds } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import type { DailySeries, SignalInfo } from './discovery.types.ts';

const NIGHT =
  'of the night ending that morning (intervals ending from 18:00 the day before to 18:00)';
const ZERO_FILL = 'days without one count 0 from the first one on';

/** The fixed signals, in the order a catalogue lists them. */
export const SIGNAL_CATALOGUE: readonly SignalInfo[] = [
  {
    key: 'sleep_minutes',
    label: 'Sleep',
    unit: 'min',
    domain: 'sleep',
    role: 'both',
    aggregation: `asleep minutes (stages asleep, core, deep, rem; overlaps once) ${NIGHT}`,
    binary: false,
  },
  {
    key: 'sleep_efficiency_pct',
    label: 'Sleep efficiency',
    unit: '%',
    domain: 'sleep',
    role: 'outcome',
    aggregation: `asleep minutes over the minutes covered by any interval (in bed, awake, asleep) ${NIGHT}, x 100; only nights with an in-bed or awake interval`,
    binary: false,
  },
  {
    key: 'bedtime_hour',
    label: 'Bedtime',
    unit: 'hour of day',
    domain: 'sleep',
    role: 'driver',
    aggregation: `local start of the first asleep interval ${NIGHT}, in hours from midnight of the day before (23.5 is 23:30, 24.5 is 00:30)`,
    binary: false,
  },
  {
    key: 'steps',
    label: 'Steps',
    unit: 'steps',
    domain: 'activity',
    role: 'both',
    aggregation: "sum of the day's steps per source, the largest source",
    binary: false,
  },
  {
    key: 'active_energy_kcal',
    label: 'Active energy',
    unit: 'kcal',
    domain: 'activity',
    role: 'both',
    aggregation: "sum of the day's active energy per source, the largest source",
    binary: false,
  },
  {
    key: 'workout_minutes',
    label: 'Workout minutes',
    unit: 'min',
    domain: 'activity',
    role: 'driver',
    aggregation: 'minutes of the workouts starting that day; 0 on a day with steps and no workout',
    binary: false,
  },
  {
    key: 'hrv_ms',
    label: 'Heart rate variability',
    unit: 'ms',
    domain: 'heart',
    role: 'both',
    aggregation: "mean of the day's HRV samples",
    binary: false,
  },
  {
    key: 'resting_heart_rate_bpm',
    label: 'Resting heart rate',
    unit: 'bpm',
    domain: 'heart',
    role: 'both',
    aggregation: "mean of the day's resting heart rate samples",
    binary: false,
  },
  {
    key: 'glucose_mean',
    label: 'Mean glucose',
    unit: 'mg/dL',
    domain: 'glucose',
    role: 'outcome',
    aggregation: "mean of the day's glucose readings (every source)",
    binary: false,
  },
  {
    key: 'glucose_time_in_range_pct',
    label: 'Time in range',
    unit: '%',
    domain: 'glucose',
    role: 'outcome',
    aggregation: "share of the day's readings within 70..180 mg/dL",
    binary: false,
  },
  {
    key: 'glucose_cv_pct',
    label: 'Glucose variability (CV)',
    unit: '%',
    domain: 'glucose',
    role: 'outcome',
    aggregation:
      "sample standard deviation over mean of the day's readings, x 100; 2 readings or more",
    binary: false,
  },
  {
    key: 'glucose_fasting',
    label: 'Fasting glucose',
    unit: 'mg/dL',
    domain: 'glucose',
    role: 'outcome',
    aggregation: 'mean of the readings taken from 05:00 to 07:00 local (07:00 excluded)',
    binary: false,
  },
  {
    key: 'last_meal_hour',
    label: 'Last meal',
    unit: 'hour of day',
    domain: 'meals',
    role: 'driver',
    aggregation: "local time of the day's last meal, in hours since midnight (21.5 is 21:30)",
    binary: false,
  },
  {
    key: 'carbs_g',
    label: 'Carbohydrate',
    unit: 'g',
    domain: 'meals',
    role: 'driver',
    aggregation: "sum of the carbohydrate of the day's meals",
    binary: false,
  },
  {
    key: 'sugar_g',
    label: 'Sugar',
    unit: 'g',
    domain: 'meals',
    role: 'driver',
    aggregation: "sum of the sugar of the day's meals",
    binary: false,
  },
  {
    key: 'hydration_ml',
    label: 'Hydration',
    unit: 'ml',
    domain: 'logs',
    role: 'driver',
    aggregation: "sum of the day's hydration entries",
    binary: false,
  },
  {
    key: 'nicotine',
    label: 'Nicotine',
    unit: 'units',
    domain: 'logs',
    role: 'driver',
    aggregation: `sum of the day's nicotine entries; ${ZERO_FILL}`,
    binary: false,
  },
  {
    key: 'medication',
    label: 'Medication',
    unit: 'doses',
    domain: 'logs',
    role: 'driver',
    aggregation: `count of the day's medication entries (any medication); ${ZERO_FILL}`,
    binary: false,
  },
  {
    key: 'sun_minutes',
    label: 'Sun',
    unit: 'min',
    domain: 'logs',
    role: 'driver',
    aggregation: `sum of the minutes of the day's sun sessions; ${ZERO_FILL}`,
    binary: false,
  },
  {
    key: 'weight_kg',
    label: 'Weight',
    unit: 'kg',
    domain: 'logs',
    role: 'outcome',
    aggregation:
      "the day's last logged weight; on a day without one, the last body weight from the health store",
    binary: false,
  },
  {
    key: 'bp_systolic',
    label: 'Systolic blood pressure',
    unit: 'mmHg',
    domain: 'logs',
    role: 'outcome',
    aggregation: "mean systolic of the day's blood-pressure readings",
    binary: false,
  },
  {
    key: 'bp_diastolic',
    label: 'Diastolic blood pressure',
    unit: 'mmHg',
    domain: 'logs',
    role: 'outcome',
    aggregation: "mean diastolic of the day's blood-pressure readings",
    binary: false,
  },
  {
    key: 'room_co2_ppm',
    label: 'Room CO2',
    unit: 'ppm',
    domain: 'room',
    role: 'driver',
    aggregation: "mean CO2 of the day's room-monitor readings (all the person's monitors)",
    binary: false,
  },
  {
    key: 'room_temperature_c',
    label: 'Room temperature',
    unit: '°C',
    domain: 'room',
    role: 'driver',
    aggregation: "mean temperature of the day's room-monitor readings (all the person's monitors)",
    binary: false,
  },
];

/** The signals made per name: their key with `<name>` or `<label>` for the name. */
export const DYNAMIC_SIGNALS: readonly SignalInfo[] = [
  {
    key: 'log:sleep_factor:<name>',
    label: '<name>',
    unit: '0/1',
    domain: 'logs',
    role: 'driver',
    aggregation: `1 on a night with the sleep factor logged (logged from 18:00 the day before to 18:00 counts for the night ending that morning); ${ZERO_FILL}`,
    binary: true,
  },
  {
    key: 'log:custom:<name>',
    label: '<name>',
    unit: "the metric's unit",
    domain: 'logs',
    role: 'both',
    aggregation: "mean of the day's values of the custom metric",
    binary: false,
  },
  {
    key: 'observation:<label>',
    label: '<label>',
    unit: '0-5',
    domain: 'observations',
    role: 'both',
    aggregation:
      "the day's highest intensity of the label (an observation without intensity counts 1); 0 on the days without it from the person's first observation of the label on; compared as with/without days while every value is 0 or 1",
    binary: false,
  },
];

const FIXED = new Map(SIGNAL_CATALOGUE.map((s) => [s.key, s]));

/** The info of a signal key, fixed or per name (`log:custom:mood`), or null for an unknown key. */
export function signalInfo(key: string): SignalInfo | null {
  const fixed = FIXED.get(key);
  if (fixed) return fixed;
  const m = /^(log:sleep_factor|log:custom|observation):(.+)$/.exec(key);
  if (!m) return null;
  const template = DYNAMIC_SIGNALS.find((s) => s.key.startsWith(`${m[1]}:`))!;
  // a custom metric's unit is the person's own (collectLogs sets it from the entries)
  const unit = m[1] === 'log:custom' ? '' : template.unit;
  return { ...template, key, label: m[2], unit };
}

/** What loadSignals reads. */
export interface LoadSignalsOptions {
  /** whose data: the caller decides (see the header's NOTE) */
  userId: number;
  /** the person's IANA zone: days are its local dates */
  zone: string;
  /** first local date (inclusive) */
  from: LocalDate;
  /** last local date (inclusive) */
  to: LocalDate;
  /** false: leave the person's observations out (default true) */
  observations?: boolean;
}

/** The series being built, by key. */
type Series = Map<string, DailySeries>;

function seriesOf(out: Series, info: SignalInfo): DailySeries {
  let s = out.get(info.key);
  if (!s) {
    s = { ...info, values: new Map() };
    out.set(info.key, s);
  }
  return s;
}

/** Sets a fixed signal's value of a day (null or not finite: no value). */
function put(out: Series, key: string, date: LocalDate, v: number | null | undefined): void {
  if (v === null || v === undefined || !Number.isFinite(v)) return;
  seriesOf(out, FIXED.get(key)!).values.set(date, v);
}

/** 0 on each day from..to (from the first day on) that has no value. */
function fillZeros(s: DailySeries, first: LocalDate, from: LocalDate, to: LocalDate): void {
  const start = first > from ? first : from;
  if (start > to) return;
  for (const d of datesFrom(start, to)) if (!s.values.has(d)) s.values.set(d, 0);
}

/** Health: activity, heart and sleep. */
async function readHealth(db: Db | DbTx, o: LoadSignalsOptions, out: Series): Promise<void> {
  const range = { userId: o.userId, zone: o.zone, from: o.from, to: o.to };
  const [days, vitals, nights] = await Promise.all([
    dailyHealthFor(db, { ...range, pointCounts: false }),
    dailyVitalsOf(db, range),
    dailySleepDetailOf(db, range),
  ]);
  for (const d of days) {
    put(out, 'steps', d.date, d.steps);
    put(out, 'active_energy_kcal', d.date, d.activeEnergyKcal);
    put(out, 'workout_minutes', d.date, d.exerciseMinutes ?? (d.steps !== null ? 0 : null));
    put(out, 'sleep_minutes', d.date, d.sleepMinutes);
    put(out, 'weight_kg', d.date, d.bodyWeightKg);
  }
  for (const v of vitals) {
    put(out, 'hrv_ms', v.date, v.hrvMs);
    put(out, 'resting_heart_rate_bpm', v.date, v.restingHeartRateBpm);
  }
  for (const n of nights) {
    const eff =
      n.asleepMinutes !== null && n.inBedMinutes ? (100 * n.asleepMinutes) / n.inBedMinutes : null;
    put(out, 'sleep_efficiency_pct', n.date, eff);
    if (n.asleepMinutes) put(out, 'bedtime_hour', n.date, n.bedtimeHour);
  }
}

/** Glucose, meals and the room. */
async function readGlucoseMealsRoom(
  db: Db | DbTx,
  o: LoadSignalsOptions,
  out: Series,
): Promise<void> {
  const range = { userId: o.userId, zone: o.zone, from: o.from, to: o.to };
  const [glucose, meals, room] = await Promise.all([
    dailyGlucoseStatsOf(db, range),
    dailyMealsOf(db, range),
    dailyRoomOf(db, range),
  ]);
  for (const g of glucose) {
    put(out, 'glucose_mean', g.date, g.meanMgDl);
    put(out, 'glucose_time_in_range_pct', g.date, g.inRangePct);
    put(out, 'glucose_cv_pct', g.date, g.cvPct);
    put(out, 'glucose_fasting', g.date, g.fastingMgDl);
  }
  for (const m of meals) {
    put(out, 'last_meal_hour', m.date, m.lastMealHour);
    put(out, 'carbs_g', m.date, m.carbsG);
    put(out, 'sugar_g', m.date, m.sugarG);
  }
  for (const r of room) {
    put(out, 'room_co2_ppm', r.date, r.co2Ppm);
    put(out, 'room_temperature_c', r.date, r.temperatureC);
  }
}

/** The fixed key of an event kind (zero-filled), or of a summed kind. */
const EVENT_KEYS: Record<string, string> = {
  nicotine: 'nicotine',
  medication: 'medication',
  sun_session: 'sun_minutes',
};

/** A custom metric's mean, or a sleep factor's 1 (answered: the factor's series). */
function putNamed(out: Series, e: DailyLogEntryView): DailySeries | null {
  if (!e.name) return null;
  if (e.kind === 'custom_metric' && e.mean !== null) {
    const s = seriesOf(out, signalInfo(`log:custom:${e.name}`)!);
    if (e.unit) s.unit = e.unit;
    s.values.set(e.date, e.mean);
  }
  if (e.kind !== 'sleep_factor') return null;
  const s = seriesOf(out, signalInfo(`log:sleep_factor:${e.name}`)!);
  s.values.set(e.date, 1);
  return s;
}

/** Logs: entries per kind (and name) and blood pressure. */
function collectLogs(logs: DailyLogSignalsView, o: LoadSignalsOptions, out: Series): void {
  // the zero-filled series, by kind (and sleep factor name)
  const events = new Map<string, DailySeries>();
  for (const e of logs.entries) {
    if (e.kind === 'hydration') put(out, 'hydration_ml', e.date, e.sum);
    // a logged weight is the day's weight, over the health store's
    if (e.kind === 'weight') put(out, 'weight_kg', e.date, e.last);
    if (e.kind === 'nicotine') put(out, 'nicotine', e.date, e.sum ?? 0);
    if (e.kind === 'medication') put(out, 'medication', e.date, e.entries);
    if (e.kind === 'sun_session') put(out, 'sun_minutes', e.date, e.minutes ?? 0);
    const factor = putNamed(out, e);
    if (factor) events.set(`sleep_factor:${e.name}`, factor);
    const fixed = out.get(EVENT_KEYS[e.kind] ?? '');
    if (fixed) events.set(e.kind, fixed);
  }
  for (const f of logs.firsts) {
    const s = events.get(f.kind === 'sleep_factor' ? `sleep_factor:${f.name}` : f.kind);
    if (s) fillZeros(s, f.first, o.from, o.to);
  }
  for (const b of logs.bloodPressure) {
    put(out, 'bp_systolic', b.date, b.systolic);
    put(out, 'bp_diastolic', b.date, b.diastolic);
  }
}

/**
 * The person's observations per label and local day: the day's highest intensity (an observation
 * without one counts 1), and the label's first local day ever (up to the range's end) so that the
 * days without it count 0. Discovery's own table, one statement.
 */
async function readObservations(db: Db | DbTx, o: LoadSignalsOptions, out: Series): Promise<void> {
  const end = dayBounds(o.to, o.zone).end.toISOString();
  const rows = await db.$queryRaw<{ label: string; d: string; v: number; first: string }[]>(
    observationsSql(o.userId, o.zone, o.from, end),
  );
  const firsts = new Map<string, LocalDate>();
  for (const r of rows) {
    const s = seriesOf(out, signalInfo(`observation:${r.label}`)!);
    s.values.set(r.d, r.v);
    firsts.set(r.label, r.first);
  }
  for (const [label, first] of firsts) {
    const s = out.get(`observation:${label}`)!;
    fillZeros(s, first, o.from, o.to);
    s.binary = [...s.values.values()].every((v) => v === 0 || v === 1);
    s.unit = s.binary ? '0/1' : '0-5';
  }
}

/**
 * The statement of readObservations (exported for its shape's test): rows `(label, d, v, first)`
 * for the days from `from` that have the label, `first` the label's first day ever before `end`.
 */
export function observationsSql(
  userId: number,
  zone: string,
  from: LocalDate,
  end: string,
): Prisma.Sql {
  return Prisma.sql`
    SELECT label, d, v, first FROM (
      SELECT label, d::text AS d, max(v)::int AS v, (min(d) OVER (PARTITION BY label))::text AS first
        FROM (SELECT label, (observed_at AT TIME ZONE ${zone}::text)::date AS d,
                     coalesce(intensity, 1) AS v
                FROM discovery_observations
               WHERE user_id = ${userId}::int AND observed_at < ${end}::timestamptz) o
       GROUP BY label, d) x
     WHERE d >= ${from}
     ORDER BY label, d`;
}

/**
 * Every daily series of the person's data over the local days from..to that has at least one
 * day with a value, fixed signals in catalogue order then the per-name ones by key, each series'
 * values in date order. About a dozen statements, run together; none loads raw samples.
 */
export async function loadSignals(
  db: Db | DbTx,
  options: LoadSignalsOptions,
): Promise<DailySeries[]> {
  const out: Series = new Map();
  const range = { userId: options.userId, zone: options.zone, from: options.from, to: options.to };
  const [, , logs] = await Promise.all([
    readHealth(db, options, out),
    readGlucoseMealsRoom(db, options, out),
    dailyLogSignalsOf(db, range),
    options.observations === false ? undefined : readObservations(db, options, out),
  ]);
  collectLogs(logs, options, out);
  const order = new Map(SIGNAL_CATALOGUE.map((s, i) => [s.key, i]));
  return [...out.values()]
    .filter((s) => s.values.size > 0)
    .map((s) => ({ ...s, values: new Map([...s.values].sort(([a], [b]) => a.localeCompare(b))) }))
    .sort(
      (a, b) =>
        (order.get(a.key) ?? order.size) - (order.get(b.key) ?? order.size) ||
        a.key.localeCompare(b.key),
    );
}

/** How much of a range a series covers. */
export interface SignalCoverage {
  key: string;
  /** days with a value within from..to */
  days: number;
  /** first and last of those days; null without any */
  first: LocalDate | null;
  last: LocalDate | null;
  /** days over the range's days, percent (one decimal) */
  coveragePct: number;
}

/** The coverage of each series over the local days from..to (inclusive). */
export function signalCoverage(
  series: readonly DailySeries[],
  from: LocalDate,
  to: LocalDate,
): SignalCoverage[] {
  const total = Math.max(0, daysBetween(from, to) + 1);
  return series.map((s) => {
    const dates = [...s.values.keys()].filter((d) => d >= from && d <= to).sort();
    return {
      key: s.key,
      days: dates.length,
      first: dates[0] ?? null,
      last: dates.at(-1) ?? null,
      coveragePct: total ? Math.round((1000 * dates.length) / total) / 10 : 0,
    };
  });
}
