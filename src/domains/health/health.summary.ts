/**
 * Summaries of the person's health metrics for agents and the dashboard (issue 16): a day, a range
 * by day, week or month, the catalogue of what is stored, and the activity and body-composition
 * trend. Every figure is an SQL aggregate (GROUP BY over the local day, week or month in the
 * person's time zone); no function here ever loads the samples themselves. Answers are bounded
 * (SUMMARY_ROWS_MAX rows), so an answer stays well under 25,000 tokens.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { readerUserId } from '../../auth/principal.ts';
import { validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, daysBetween, localDateOf, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { dailyWeights } from '../logs/index.ts';
import type { DailyWeightView } from '../logs/index.ts';
import { personZone } from '../profile/index.ts';
import { METRIC_TYPES, METRIC_UNITS } from './health.constants.ts';
import type { MetricType } from './health.constants.ts';
import { nightOf, nightsEnding } from './health.summary-sleep.ts';
import type { NightStagesView, NightView } from './health.summary-sleep.ts';
import { workoutTotalsByBucket, workoutTotalsOn } from './health.summary-workouts.ts';
import type { WorkoutTotalsView } from './health.summary-workouts.ts';
import { clock } from '../../base/clock.ts';

/** The intervals of a range summary. */
export const SUMMARY_INTERVALS = ['day', 'week', 'month'] as const;
export type SummaryInterval = (typeof SUMMARY_INTERVALS)[number];
/** The most rows (buckets x metric types) one range summary answers (~100 characters a row). */
export const SUMMARY_ROWS_MAX = 400;
/**
 * What a range summary can be asked for: the metric types, and the sleep of each night and the
 * workouts (issue 30: comparing two weeks of sleep is one call).
 */
export const SUMMARY_TYPES = [...METRIC_TYPES, 'sleep', 'workouts'] as const;
export type SummaryType = (typeof SUMMARY_TYPES)[number];
/**
 * How many rows a bucket of sleep or workouts counts for against SUMMARY_ROWS_MAX: they are about
 * twice as long as a metric's row (stages; activity types), so a full answer stays as bounded.
 */
export const SUMMARY_ROW_WEIGHT: Record<SummaryType, number> = {
  ...(Object.fromEntries(METRIC_TYPES.map((t) => [t, 1])) as Record<MetricType, number>),
  sleep: 2,
  workouts: 2,
};
/** The longest range of a range or trend read, in days (ten years). */
export const SUMMARY_SPAN_MAX_DAYS = 3660;
/** The longest activity and body-composition trend, in days (one row a day). */
export const TREND_SPAN_MAX_DAYS = 366;
/** Sources named per metric (the catalogue and the day summary), most samples first. */
const SOURCES_MAX = 10;

/** How a metric's samples make one figure for a day, week or month. */
export type Aggregation = 'sum' | 'avg' | 'last';

/** Summed: counts and energy; last: body weight; the rest (rates) averaged with min and max. */
export const METRIC_AGGREGATION: Record<MetricType, Aggregation> = {
  steps: 'sum',
  active_energy: 'sum',
  body_weight: 'last',
  heart_rate: 'avg',
  hrv: 'avg',
  resting_heart_rate: 'avg',
  respiratory_rate: 'avg',
};

/** One metric over one bucket (a day, week or month). */
export interface MetricAggregateView {
  metricType: string;
  unit: string;
  /** how `value` is made: sum, avg or last */
  aggregation: Aggregation;
  /** the bucket's figure (`aggregation` of the samples) */
  value: number;
  count: number;
  min: number;
  max: number;
  /** the first and last local date of the bucket within the asked range */
  start: LocalDate;
  end: LocalDate;
  /** the apps or devices that recorded the samples, most samples first (day summary and catalog) */
  sources?: string[];
  /** when the bucket's last sample was taken (body weight only; the activity trend compares it) */
  lastAt?: Date;
}

export interface DaySummaryView {
  date: LocalDate;
  timezone: string;
  metrics: MetricAggregateView[];
  /** the night ending that day (docs/scores.md, "Days and time zones"), null without sleep */
  sleep: NightView | null;
  workouts: WorkoutTotalsView;
}

/**
 * The nights ending in one bucket (a local day, week or month): per-night means of the nights'
 * totals (each night from its chosen source, as sleep_nights_list answers it).
 */
export interface SleepBucketView {
  /** the first and last local date of the bucket within the asked range */
  start: LocalDate;
  end: LocalDate;
  /** nights with sleep in the bucket (1 for a day) */
  nights: number;
  /** minutes asleep per night (mean) */
  asleepMinutes: number;
  /** the shortest and longest night asleep, minutes */
  minAsleepMinutes: number;
  maxAsleepMinutes: number;
  inBedMinutes: number;
  awakeMinutes: number;
  /** asleep / in bed, percent (mean of the nights that have one), null without in-bed time */
  efficiency: number | null;
  /** minutes per stage per night (mean) */
  stages: NightStagesView;
}

/** The workouts that started in one bucket: count, minutes, energy, distance, activity types. */
export interface WorkoutBucketView extends WorkoutTotalsView {
  start: LocalDate;
  end: LocalDate;
}

export interface RangeSummaryView {
  from: LocalDate;
  to: LocalDate;
  interval: SummaryInterval;
  timezone: string;
  rows: MetricAggregateView[];
  /** per bucket with sleep, oldest first (empty unless asked for) */
  sleep: SleepBucketView[];
  /** per bucket with workouts, oldest first (empty unless asked for) */
  workouts: WorkoutBucketView[];
}

export interface DaySummaryOptions {
  /** the local date; absent: today in the person's zone */
  date?: LocalDate | null;
}

export interface RangeSummaryOptions {
  /** first local date, inclusive */
  from: LocalDate;
  /** last local date, inclusive */
  to: LocalDate;
  /** bucket size */
  interval: SummaryInterval;
  /** only these metric types, and sleep or workouts when named; absent or empty: every metric type */
  metricTypes?: readonly SummaryType[] | null;
}

/** A sliced, typed view of a local date range: its UTC bounds in the zone. */
export interface LocalRange {
  from: LocalDate;
  to: LocalDate;
  zone: string;
  start: Date;
  end: Date;
}

/** The UTC bounds [start, end) of the local dates from..to, refused when reversed or too long. */
export function localRange(
  from: LocalDate,
  to: LocalDate,
  zone: string,
  maxDays: number,
): LocalRange {
  const span = daysBetween(from, to) + 1;
  if (span < 1)
    throw validationError([
      { loc: ['to'], msg: 'to must not be before from', type: 'value_error' },
    ]);
  if (span > maxDays)
    throw validationError([
      {
        loc: ['to'],
        msg: `the range may span at most ${maxDays} days: ask for a shorter range`,
        type: 'value_error',
      },
    ]);
  return {
    from,
    to,
    zone,
    start: localTime(from, 0, zone),
    end: localTime(addDays(to, 1), 0, zone),
  };
}

/** The first local date of the bucket of `interval` holding `date` (weeks start on Monday). */
export function bucketStart(date: LocalDate, interval: SummaryInterval): LocalDate {
  if (interval === 'day') return date;
  if (interval === 'week')
    return addDays(date, -((new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7));
  return `${date.slice(0, 7)}-01`;
}

/** How many buckets of `interval` the local dates from..to touch. */
export function bucketCount(from: LocalDate, to: LocalDate, interval: SummaryInterval): number {
  if (interval === 'day') return daysBetween(from, to) + 1;
  if (interval === 'week') return Math.floor(daysBetween(bucketStart(from, 'week'), to) / 7) + 1;
  const [y1, m1] = from.split('-').map(Number);
  const [y2, m2] = to.split('-').map(Number);
  return (y2 - y1) * 12 + (m2 - m1) + 1;
}

/** `x` rounded to 2 decimals in SQL (figures an agent reads, not measurements to recompute). */
const r2 = (x: Prisma.Sql): Prisma.Sql => Prisma.sql`round((${x})::numeric, 2)::float8`;

/**
 * The aggregate SQL of a summary: one row per (bucket, metric type) of the person's live samples in
 * [start, end), buckets truncated in the zone. Exported for the benchmark (bench/health-summary.bench.ts
 * runs it directly as the baseline).
 */
export function metricAggregateSql(options: {
  userId: number;
  zone: string;
  interval: SummaryInterval;
  start: Date;
  end: Date;
  metricTypes: readonly string[];
  withSources: boolean;
}): Prisma.Sql {
  const { userId, zone, interval, start, end, metricTypes, withSources } = options;
  // the day summary's sources, most samples first (one day: the ordered aggregate is cheap)
  const sourcesAgg = withSources ? Prisma.sql`, array_agg(s.source) AS sources` : Prisma.empty;
  const sources = withSources
    ? Prisma.sql`, (SELECT array_agg(x.source ORDER BY x.n DESC, x.source)
          FROM (SELECT u.source, count(*) AS n FROM unnest(b.sources) AS u(source)
                GROUP BY u.source) x) AS sources`
    : Prisma.empty;
  // grouped on the truncated local time (a hash aggregate, no sort of the samples); the last
  // weight is the max of [epoch, value] pairs, which needs no ordered aggregate either
  return Prisma.sql`
SELECT to_char(b.bucket, 'YYYY-MM-DD') AS bucket, b.metric_type, b.count,
       ${r2(Prisma.sql`b.sum`)} AS sum, ${r2(Prisma.sql`b.avg`)} AS avg,
       ${r2(Prisma.sql`b.min`)} AS min, ${r2(Prisma.sql`b.max`)} AS max,
       ${r2(Prisma.sql`b.last[2]`)} AS last, b.last[1] AS last_epoch ${sources}
FROM (
  SELECT date_trunc(${interval}, (s."timestamp" AT TIME ZONE 'UTC') AT TIME ZONE ${zone}) AS bucket,
         s.metric_type, count(*)::int AS count, sum(s.value) AS sum, avg(s.value) AS avg,
         min(s.value) AS min, max(s.value) AS max,
         max(ARRAY[extract(epoch FROM s."timestamp")::float8, s.value])
           FILTER (WHERE s.metric_type = 'body_weight') AS last
         ${sourcesAgg}
  FROM health_metrics s
  WHERE s.user_id = ${userId}::int
    AND s.deleted_at IS NULL
    AND s.metric_type = ANY(${[...metricTypes]}::text[])
    AND s."timestamp" >= (${start.toISOString()}::timestamptz AT TIME ZONE 'UTC')
    AND s."timestamp" < (${end.toISOString()}::timestamptz AT TIME ZONE 'UTC')
  GROUP BY 1, 2
) b
ORDER BY 1, 2`;
}

interface AggregateRow {
  bucket: string;
  metric_type: string;
  count: number;
  sum: number;
  avg: number;
  min: number;
  max: number;
  last: number | null;
  /** epoch seconds of the last body weight */
  last_epoch: number | null;
  sources?: string[];
}

/** The last local date of the bucket starting `bucket`. */
function bucketEnd(bucket: LocalDate, interval: SummaryInterval): LocalDate {
  if (interval === 'day') return bucket;
  if (interval === 'week') return addDays(bucket, 6);
  const [y, m] = bucket.split('-').map(Number);
  return addDays(new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10), -1);
}

/** The bucket starting `bucket`, clipped to the range: its first and last local date in it. */
function clipped(
  bucket: LocalDate,
  interval: SummaryInterval,
  range: LocalRange,
): { start: LocalDate; end: LocalDate } {
  const end = bucketEnd(bucket, interval);
  return {
    start: bucket < range.from ? range.from : bucket,
    end: end > range.to ? range.to : end,
  };
}

/** Runs the aggregate over a local range and shapes its rows (buckets clipped to the range). */
async function aggregates(
  ctx: AuthedContext,
  range: LocalRange,
  interval: SummaryInterval,
  metricTypes: readonly MetricType[],
  withSources: boolean,
): Promise<MetricAggregateView[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.$queryRaw<AggregateRow[]>(
    metricAggregateSql({
      userId: readerUserId(ctx),
      zone: range.zone,
      interval,
      start: range.start,
      end: range.end,
      metricTypes,
      withSources,
    }),
  );
  return rows.map((r) => {
    const type = r.metric_type as MetricType;
    const aggregation = METRIC_AGGREGATION[type] ?? 'avg';
    return {
      metricType: type,
      unit: METRIC_UNITS[type] ?? '',
      aggregation,
      value: aggregation === 'sum' ? r.sum : aggregation === 'last' ? (r.last ?? r.avg) : r.avg,
      count: r.count,
      min: r.min,
      max: r.max,
      ...clipped(r.bucket, interval, range),
      ...(withSources ? { sources: (r.sources ?? []).slice(0, SOURCES_MAX) } : {}),
      ...(r.last_epoch === null ? {} : { lastAt: new Date(r.last_epoch * 1000) }),
    };
  });
}

/** Today's local date in the zone. */
const today = (zone: string): LocalDate => localDateOf(clock.now(), zone);

/**
 * The person's day: each metric's aggregate with unit, count and sources, the night ending that day
 * and the day's workouts. Three aggregate queries, whatever the number of samples.
 */
export async function healthDaySummary(
  ctx: AuthedContext,
  options: DaySummaryOptions,
): Promise<DaySummaryView> {
  const zone = await personZone(ctx);
  const date = options.date ?? today(zone);
  const range = localRange(date, date, zone, 1);
  const [metrics, sleep, workouts] = await Promise.all([
    aggregates(ctx, range, 'day', METRIC_TYPES, true),
    nightOf(ctx, { date, zone }),
    workoutTotalsOn(ctx, range),
  ]);
  return { date, timezone: zone, metrics, sleep, workouts };
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
const meanOf = (xs: readonly number[]): number => round1(xs.reduce((a, b) => a + b, 0) / xs.length);

/** The nights grouped into the buckets of `interval` (by the local date each ends on), oldest first. */
function sleepBuckets(
  nights: readonly NightView[],
  interval: SummaryInterval,
  range: LocalRange,
): SleepBucketView[] {
  const byBucket = new Map<LocalDate, NightView[]>();
  for (const n of nights) {
    const key = bucketStart(n.date, interval);
    byBucket.set(key, [...(byBucket.get(key) ?? []), n]);
  }
  return [...byBucket].map(([bucket, ns]) => {
    const asleep = ns.map((n) => n.asleepMinutes);
    const efficiencies = ns.flatMap((n) => (n.efficiency === null ? [] : [n.efficiency]));
    const stage = (k: keyof NightStagesView): number => meanOf(ns.map((n) => n.stages[k]));
    return {
      ...clipped(bucket, interval, range),
      nights: ns.length,
      asleepMinutes: meanOf(asleep),
      minAsleepMinutes: Math.min(...asleep),
      maxAsleepMinutes: Math.max(...asleep),
      inBedMinutes: meanOf(ns.map((n) => n.inBedMinutes)),
      awakeMinutes: meanOf(ns.map((n) => n.awakeMinutes)),
      efficiency: efficiencies.length ? Math.round(meanOf(efficiencies)) : null,
      stages: {
        core: stage('core'),
        deep: stage('deep'),
        rem: stage('rem'),
        asleepUnspecified: stage('asleepUnspecified'),
        awake: stage('awake'),
        inBed: stage('inBed'),
      },
    };
  });
}

/**
 * One row per bucket (day, week or month, in the person's zone) and metric type over a range, and
 * when asked, the sleep (the nights ending in the bucket, per-night means) and the workouts
 * (totals) of each bucket. Refused (VALIDATION_FAILED, saying what to ask instead) beyond
 * SUMMARY_ROWS_MAX rows, a bucket of sleep or workouts counting SUMMARY_ROW_WEIGHT rows.
 */
export async function healthRangeSummary(
  ctx: AuthedContext,
  options: RangeSummaryOptions,
): Promise<RangeSummaryView> {
  const zone = await personZone(ctx);
  const range = localRange(options.from, options.to, zone, SUMMARY_SPAN_MAX_DAYS);
  const asked: SummaryType[] = options.metricTypes?.length
    ? [...new Set(options.metricTypes)]
    : [...METRIC_TYPES];
  const weight = asked.reduce((n, t) => n + SUMMARY_ROW_WEIGHT[t], 0);
  const rows = bucketCount(range.from, range.to, options.interval) * weight;
  if (rows > SUMMARY_ROWS_MAX)
    throw validationError([
      {
        loc: ['interval'],
        msg:
          `${rows} rows (buckets x metric types; sleep and workouts count twice) exceed ` +
          `${SUMMARY_ROWS_MAX}: ask for a longer interval (week or month), fewer metric_types, ` +
          'or a shorter range',
        type: 'value_error',
      },
    ]);
  const metricTypes = asked.filter((t): t is MetricType => t !== 'sleep' && t !== 'workouts');
  const { interval } = options;
  const [metrics, nights, workouts] = await Promise.all([
    metricTypes.length ? aggregates(ctx, range, interval, metricTypes, false) : [],
    asked.includes('sleep') ? nightsEnding(ctx, range) : [],
    asked.includes('workouts') ? workoutTotalsByBucket(ctx, { ...range, interval }) : [],
  ]);
  return {
    from: range.from,
    to: range.to,
    interval,
    timezone: zone,
    rows: metrics,
    sleep: sleepBuckets(nights, interval, range),
    workouts: workouts.map(({ bucket, ...totals }) => ({
      ...clipped(bucket, interval, range),
      ...totals,
    })),
  };
}

export interface CatalogMetricView {
  metricType: string;
  unit: string;
  aggregation: Aggregation;
  count: number;
  firstAt: Date;
  lastAt: Date;
  sources: string[];
}

export interface CatalogIntervalView {
  /** the sleep stage or the workout's activity type */
  type: string;
  count: number;
  firstAt: Date;
  lastAt: Date;
}

export interface HealthCatalogView {
  timezone: string;
  metrics: CatalogMetricView[];
  sleepStages: CatalogIntervalView[];
  workoutTypes: CatalogIntervalView[];
}

/** Activity types named by the catalogue (most recorded first). */
const CATALOG_TYPES_MAX = 100;

/**
 * What the person has stored: per metric type the count, first and last time, unit and sources; per
 * sleep stage and workout activity type the count and first and last time. Three GROUP BY queries.
 */
export async function healthCatalog(ctx: AuthedContext): Promise<HealthCatalogView> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const userId = readerUserId(ctx);
  const [zone, metrics, sleep, workouts] = await Promise.all([
    personZone(ctx),
    ctx.prisma.$queryRaw<
      { metric_type: string; count: number; first_at: Date; last_at: Date; sources: string[] }[]
    >`
      SELECT t.metric_type, sum(t.n)::int AS count, min(t.first_at) AS first_at, max(t.last_at) AS last_at,
             array_agg(t.source ORDER BY t.n DESC, t.source) AS sources
      FROM (SELECT metric_type, source, count(*) AS n, min("timestamp") AS first_at, max("timestamp") AS last_at
            FROM health_metrics WHERE user_id = ${userId}::int AND deleted_at IS NULL
            GROUP BY metric_type, source) t
      GROUP BY t.metric_type ORDER BY t.metric_type`,
    ctx.prisma.$queryRaw<{ type: string; count: number; first_at: Date; last_at: Date }[]>`
      SELECT stage AS type, count(*)::int AS count, min(start_at) AS first_at, max(end_at) AS last_at
      FROM sleep_samples WHERE user_id = ${userId}::int AND deleted_at IS NULL
      GROUP BY stage ORDER BY stage`,
    ctx.prisma.$queryRaw<{ type: string; count: number; first_at: Date; last_at: Date }[]>`
      SELECT activity_type AS type, count(*)::int AS count, min(start_at) AS first_at, max(start_at) AS last_at
      FROM workout_samples WHERE user_id = ${userId}::int AND deleted_at IS NULL
      GROUP BY activity_type ORDER BY count(*) DESC, activity_type LIMIT ${CATALOG_TYPES_MAX}`,
  ]);
  const interval = (r: { type: string; count: number; first_at: Date; last_at: Date }) => ({
    type: r.type,
    count: r.count,
    firstAt: r.first_at,
    lastAt: r.last_at,
  });
  return {
    timezone: zone,
    metrics: metrics.map((m) => ({
      metricType: m.metric_type,
      unit: METRIC_UNITS[m.metric_type as MetricType] ?? '',
      aggregation: METRIC_AGGREGATION[m.metric_type as MetricType] ?? 'avg',
      count: m.count,
      firstAt: m.first_at,
      lastAt: m.last_at,
      sources: m.sources.slice(0, SOURCES_MAX),
    })),
    sleepStages: sleep.map(interval),
    workoutTypes: workouts.map(interval),
  };
}

export interface ActivityDayView {
  date: LocalDate;
  /** steps that day (sum), null without samples */
  steps: number | null;
  /** active energy that day, kcal (sum) */
  activeEnergyKcal: number | null;
  /** the day's last body weight, kg, imported or logged, whichever was taken later */
  bodyWeightKg: number | null;
  /** where that weight comes from (null without one) */
  bodyWeightSource: WeightSource | null;
}

/**
 * Where a body weight comes from: `imported` from the phone's health store (body_weight samples),
 * or `logged` through the logs domain (log_entries of kind weight: by hand, the phone or an agent).
 */
export const WEIGHT_SOURCES = ['imported', 'logged'] as const;
export type WeightSource = (typeof WEIGHT_SOURCES)[number];

export interface BodyWeightTrendView {
  /** imported samples and logged entries */
  count: number;
  /** of count, the weights logged through the logs domain */
  logged: number;
  first: number;
  last: number;
  /** last - first, kg */
  change: number;
  min: number;
  max: number;
}

export interface ActivityTrendView {
  from: LocalDate;
  to: LocalDate;
  timezone: string;
  /** the days with any activity or weight sample, oldest first */
  days: ActivityDayView[];
  /** mean daily steps and energy over the days with samples */
  meanSteps: number | null;
  meanActiveEnergyKcal: number | null;
  /** the body weight trend over the range, imported and logged (null without any weight) */
  bodyWeight: BodyWeightTrendView | null;
}

export interface ActivityTrendOptions {
  from: LocalDate;
  to: LocalDate;
}

const mean = (xs: number[]): number | null =>
  xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : null;

/** A day's body weight: its last value with when and where it was taken, and its spread. */
interface DayWeight {
  value: number;
  at: number;
  source: WeightSource;
  min: number;
  max: number;
  count: number;
}

const importedWeight = (r: MetricAggregateView): DayWeight => ({
  value: r.value,
  at: r.lastAt?.getTime() ?? 0,
  source: 'imported',
  min: r.min,
  max: r.max,
  count: r.count,
});

const loggedWeight = (w: DailyWeightView): DayWeight => ({
  value: w.lastKg,
  at: w.lastAt.getTime(),
  source: 'logged',
  min: w.minKg,
  max: w.maxKg,
  count: w.entries,
});

/** One day's weight from both origins: the later last value (logged on a tie), the whole spread. */
const mergeWeights = (a: DayWeight | undefined, b: DayWeight): DayWeight =>
  a
    ? {
        ...(a.at > b.at ? a : b),
        min: Math.min(a.min, b.min),
        max: Math.max(a.max, b.max),
        count: a.count + b.count,
      }
    : b;

/** The weight trend over the days' weights (oldest first), or null without any. */
function weightTrend(weights: DayWeight[], logged: number): BodyWeightTrendView | null {
  const first = weights[0];
  const last = weights.at(-1);
  if (!first || !last) return null;
  return {
    count: weights.reduce((n, w) => n + w.count, 0),
    logged,
    first: first.value,
    last: last.value,
    change: Math.round((last.value - first.value) * 100) / 100,
    min: Math.min(...weights.map((w) => w.min)),
    max: Math.max(...weights.map((w) => w.max)),
  };
}

/**
 * Daily steps and active energy and the body weight trend over a range (at most 366 days): the
 * range summary's aggregate by day for the three metrics, one row a day, and the weights logged
 * through the logs domain (dailyWeights) next to the imported ones, each day's weight marked by
 * where it comes from.
 */
export async function healthActivityTrend(
  ctx: AuthedContext,
  options: ActivityTrendOptions,
): Promise<ActivityTrendView> {
  const zone = await personZone(ctx);
  const range = localRange(options.from, options.to, zone, TREND_SPAN_MAX_DAYS);
  const [rows, logged] = await Promise.all([
    aggregates(ctx, range, 'day', ['steps', 'active_energy', 'body_weight'], false),
    dailyWeights(ctx, range),
  ]);
  const byDay = new Map<LocalDate, ActivityDayView>();
  const dayOf = (date: LocalDate): ActivityDayView => {
    const day = byDay.get(date) ?? {
      date,
      steps: null,
      activeEnergyKcal: null,
      bodyWeightKg: null,
      bodyWeightSource: null,
    };
    byDay.set(date, day);
    return day;
  };
  const weightOn = new Map<LocalDate, DayWeight>();
  for (const r of rows) {
    if (r.metricType === 'steps') dayOf(r.start).steps = r.value;
    else if (r.metricType === 'active_energy') dayOf(r.start).activeEnergyKcal = r.value;
    else weightOn.set(r.start, importedWeight(r));
  }
  for (const w of logged) weightOn.set(w.date, mergeWeights(weightOn.get(w.date), loggedWeight(w)));
  for (const [date, w] of weightOn) {
    const day = dayOf(date);
    day.bodyWeightKg = w.value;
    day.bodyWeightSource = w.source;
  }
  const days = [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
  const weights = days.flatMap((d) => weightOn.get(d.date) ?? []);
  return {
    from: range.from,
    to: range.to,
    timezone: zone,
    days,
    meanSteps: mean(days.flatMap((d) => (d.steps === null ? [] : [d.steps]))),
    meanActiveEnergyKcal: mean(
      days.flatMap((d) => (d.activeEnergyKcal === null ? [] : [d.activeEnergyKcal])),
    ),
    bodyWeight: weightTrend(
      weights,
      logged.reduce((n, w) => n + w.entries, 0),
    ),
  };
}
