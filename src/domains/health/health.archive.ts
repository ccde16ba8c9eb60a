/**
 * Reads of the health archive (issue 16): coverage per record type, samples of a type (keyset
 * pages, or interval aggregates computed in SQL), events, workouts with their statistics, a
 * workout's series and route, and ECG recordings. Every answer is bounded (page sizes chosen so
 * that the largest page stays well under 25,000 tokens) and reads only the person's own rows (the
 * owner's while viewing as); another person's workout or recording answers 404.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { z } from 'zod';
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';

/** Page bounds (items per page) of each read. */
export const ARCHIVE_LIMITS = {
  samples: { default: 100, max: 300 },
  events: { default: 100, max: 200 },
  workouts: { default: 20, max: 50 },
  route: { default: 200, max: 500 },
  ecgList: { default: 20, max: 50 },
  ecgSamples: { default: 2000, max: 5000 },
} as const;

/** Intervals a sample read may aggregate to (SQL date_trunc units). */
export const ARCHIVE_INTERVALS = ['minute', 'hour', 'day', 'week', 'month'] as const;
export type ArchiveInterval = (typeof ARCHIVE_INTERVALS)[number];

/** At most this many sources and units are listed per type in the coverage. */
const COVERAGE_LIST_MAX = 20;

export interface KeyValueView {
  key: string;
  value: string;
}

export interface CoverageTypeView {
  type: string;
  kind: string;
  count: number;
  first: Date;
  last: Date;
  units: string[];
  sources: string[];
}

export interface CoverageSpanView {
  count: number;
  first: Date | null;
  last: Date | null;
}

export interface ArchiveCoverageView {
  types: CoverageTypeView[];
  workouts: CoverageSpanView;
  ecg: CoverageSpanView;
  routePoints: number;
}

export interface ArchiveSampleView {
  id: string;
  startAt: Date;
  endAt: Date;
  value: number | null;
  valueText: string;
  unit: string | null;
  sourceName: string;
}

export interface ArchiveBucketView {
  start: Date;
  count: number;
  min: number | null;
  max: number | null;
  avg: number | null;
  sum: number | null;
}

export interface ArchiveSamplePageView {
  type: string;
  interval: ArchiveInterval | null;
  items: ArchiveSampleView[];
  buckets: ArchiveBucketView[];
  nextCursor: string | null;
}

export interface ArchiveEventView {
  id: string;
  kind: string;
  type: string;
  valueText: string;
  startAt: Date;
  endAt: Date;
  sourceName: string;
  workoutId: string | null;
  metadata: KeyValueView[];
}

export interface ArchiveEventPageView {
  items: ArchiveEventView[];
  nextCursor: string | null;
}

export interface WorkoutStatisticView {
  type: string;
  startAt: Date | null;
  endAt: Date | null;
  average: number | null;
  minimum: number | null;
  maximum: number | null;
  sum: number | null;
  unit: string | null;
}

export interface ArchiveWorkoutView {
  id: string;
  activityType: string;
  startAt: Date;
  endAt: Date;
  durationMinutes: number | null;
  distanceM: number | null;
  energyKcal: number | null;
  sourceName: string;
  sourceVersion: string | null;
  metadata: KeyValueView[];
  statistics: WorkoutStatisticView[];
  routePoints: number;
  events: number;
}

export interface ArchiveWorkoutPageView {
  items: ArchiveWorkoutView[];
  nextCursor: string | null;
}

export interface ArchiveWorkoutRefView {
  id: string;
  activityType: string;
  startAt: Date;
  endAt: Date;
}

export interface ArchiveSeriesView extends ArchiveSamplePageView {
  workout: ArchiveWorkoutRefView;
}

export interface RoutePointView {
  at: Date;
  lat: number;
  lon: number;
  elevation: number | null;
  speed: number | null;
  course: number | null;
}

export interface ArchiveRouteView {
  workout: ArchiveWorkoutRefView;
  /** points the route holds in all */
  totalPoints: number;
  /** every n-th point is answered (1: all, a page at a time) */
  step: number;
  points: RoutePointView[];
  nextCursor: string | null;
}

export interface EcgRecordingView {
  id: string;
  recordedAt: Date;
  classification: string | null;
  symptoms: string | null;
  softwareVersion: string | null;
  device: string | null;
  sampleRateHz: number;
  lead: string | null;
  unit: string | null;
  sampleCount: number;
  durationSeconds: number;
}

export interface EcgSamplesView extends EcgRecordingView {
  sampleOffset: number;
  samples: number[];
  nextSampleOffset: number | null;
}

export interface ArchiveEcgView {
  recordings: EcgRecordingView[];
  nextCursor: string | null;
  recording: EcgSamplesView | null;
}

export interface ArchiveRangeOptions {
  /** first instant (inclusive) */
  start: Date;
  /** end instant (exclusive), after start */
  end: Date;
  /** items per page */
  limit: number;
  /** nextCursor of the previous page; absent: the first page */
  cursor?: string | null;
}

export interface ArchiveSamplesOptions extends ArchiveRangeOptions {
  /** the HealthKit type as exported (HKQuantityTypeIdentifierHeartRate) */
  type: string;
  /** aggregate into buckets of this interval instead of answering samples */
  interval?: ArchiveInterval | null;
}

export interface ArchiveEventsOptions extends ArchiveRangeOptions {
  /** only this event type (a category type or a workout event type) */
  type?: string | null;
}

export interface ArchiveWorkoutsOptions extends ArchiveRangeOptions {
  /** only this activity type (HKWorkoutActivityTypeRunning, or running) */
  activityType?: string | null;
}

export interface ArchiveSeriesOptions {
  /** the archive workout's id */
  workoutId: string;
  /** the record type (default heart rate) */
  type: string;
  /** items (or buckets) per page */
  limit: number;
  cursor?: string | null;
  /** aggregate into buckets of this interval */
  interval?: ArchiveInterval | null;
}

export interface ArchiveRouteOptions {
  workoutId: string;
  /** points per page */
  limit: number;
  cursor?: string | null;
  /** answer the whole track downsampled to at most this many points (no paging) */
  maxPoints?: number | null;
}

export interface ArchiveEcgOptions {
  /** one recording to read the samples of; absent: the list of recordings */
  ecgId?: string | null;
  /** recordings per page of the list */
  limit: number;
  cursor?: string | null;
  /** the first sample (0-based) of the recording's page */
  sampleOffset: number;
  /** samples per page of the recording */
  sampleCount: number;
}

const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';
const Cursor = z.tuple([
  z.number().int().min(-62_135_596_800_000).max(253_402_300_799_999),
  z.string().regex(/^[A-Za-z0-9_]{0,64}$/),
]);

function decodeCursor(text: string): [number, string] {
  try {
    const parsed = Cursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString()));
    if (parsed.success) return parsed.data;
  } catch {
    // not base64url JSON: refused below
  }
  throw appError('VALIDATION_FAILED', `cursor: ${CURSOR_ISSUE}`, {
    detail: [{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }],
  });
}

/** A record id from a cursor (digits), refused like any forged cursor otherwise. */
function recordId(text: string): bigint {
  if (/^\d{1,18}$/.test(text)) return BigInt(text);
  throw appError('VALIDATION_FAILED', `cursor: ${CURSOR_ISSUE}`, {
    detail: [{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }],
  });
}

const encodeCursor = (at: Date, id: string): string =>
  Buffer.from(JSON.stringify([at.getTime(), id])).toString('base64url');

/** Refuses an empty or reversed range (VALIDATION_FAILED located at `end`). */
function checkRange(start: Date, end: Date): void {
  if (end.getTime() <= start.getTime()) {
    const msg = 'end must be after start';
    throw appError('VALIDATION_FAILED', `end: ${msg}`, {
      detail: [{ loc: ['end'], msg, type: 'value_error' }],
    });
  }
}

const notFound = (what: string): Error =>
  appError('NOT_FOUND', `${what} not found: list them with the archive tools first`);

function keyValues(json: unknown): KeyValueView[] {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return [];
  return Object.entries(json as Record<string, unknown>).map(([key, value]) => ({
    key,
    value: String(value),
  }));
}

const n = (v: unknown): number | null => {
  if (v === undefined || v === null || v === '') return null;
  const x = Number(v);
  return Number.isFinite(x) ? x : null;
};

/** Per record type: the date range stored, the count, units and sources; plus workouts, routes and ECGs. */
export async function healthArchiveCoverage(ctx: AuthedContext): Promise<ArchiveCoverageView> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const userId = readerUserId(ctx);
  const types = await ctx.prisma.$queryRaw<
    {
      type: string;
      kind: string;
      count: number;
      first: Date;
      last: Date;
      units: string[] | null;
      sources: string[] | null;
    }[]
  >`
SELECT type, min(kind) AS kind, count(*)::int AS count, min(start_at) AS first, max(end_at) AS last,
       (array_agg(DISTINCT unit) FILTER (WHERE unit IS NOT NULL))[1:${COVERAGE_LIST_MAX}] AS units,
       (array_agg(DISTINCT source_name) FILTER (WHERE source_name <> ''))[1:${COVERAGE_LIST_MAX}] AS sources
FROM health_archive_records WHERE user_id = ${userId}
GROUP BY type ORDER BY type`;
  const [spans] = await ctx.prisma.$queryRaw<
    {
      workouts: number;
      wfirst: Date | null;
      wlast: Date | null;
      ecg: number;
      efirst: Date | null;
      elast: Date | null;
      points: number;
    }[]
  >`
SELECT (SELECT count(*)::int FROM health_archive_workouts WHERE user_id = ${userId}) AS workouts,
       (SELECT min(start_at) FROM health_archive_workouts WHERE user_id = ${userId}) AS wfirst,
       (SELECT max(end_at) FROM health_archive_workouts WHERE user_id = ${userId}) AS wlast,
       (SELECT count(*)::int FROM health_archive_ecg WHERE user_id = ${userId}) AS ecg,
       (SELECT min(recorded_at) FROM health_archive_ecg WHERE user_id = ${userId}) AS efirst,
       (SELECT max(recorded_at) FROM health_archive_ecg WHERE user_id = ${userId}) AS elast,
       (SELECT count(*)::int FROM health_archive_route_points WHERE user_id = ${userId}) AS points`;
  return {
    types: types.map((t) => ({ ...t, units: t.units ?? [], sources: t.sources ?? [] })),
    workouts: { count: spans.workouts, first: spans.wfirst, last: spans.wlast },
    ecg: { count: spans.ecg, first: spans.efirst, last: spans.elast },
    routePoints: spans.points,
  };
}

/** Samples of one type in [start, end): a keyset page (start, id), or SQL buckets of an interval. */
async function samplePage(
  ctx: AuthedContext,
  userId: number,
  options: ArchiveSamplesOptions,
): Promise<ArchiveSamplePageView> {
  const { start, end, limit, type } = options;
  const interval = options.interval ?? null;
  const [atMs, afterId] = options.cursor ? decodeCursor(options.cursor) : [null, ''];
  if (interval) {
    // a bucket page: the cursor is the last bucket's start
    const from = atMs === null ? start : new Date(atMs + 1);
    const rows = await ctx.prisma.$queryRaw<
      {
        start: Date;
        count: number;
        min: number | null;
        max: number | null;
        avg: number | null;
        sum: number | null;
      }[]
    >`
SELECT date_trunc(${interval}, start_at) AS start, count(*)::int AS count, min(value) AS min,
       max(value) AS max, avg(value) AS avg, sum(value) AS sum
FROM health_archive_records
WHERE user_id = ${userId} AND type = ${type} AND start_at >= ${start} AND start_at < ${end}
  AND date_trunc(${interval}, start_at) >= date_trunc(${interval}, ${from}::timestamp)
GROUP BY 1 ORDER BY 1 LIMIT ${limit + 1}`;
    const buckets = rows.slice(0, limit);
    const last = buckets.at(-1);
    return {
      type,
      interval,
      items: [],
      buckets,
      nextCursor: rows.length > limit && last ? encodeCursor(last.start, '') : null,
    };
  }
  const after =
    atMs === null
      ? Prisma.empty
      : Prisma.sql`AND (start_at, id) > (${new Date(atMs)}::timestamp, ${recordId(afterId)}::bigint)`;
  const rows = await ctx.prisma.$queryRaw<ArchiveSampleView[]>`
SELECT id::text AS id, start_at AS "startAt", end_at AS "endAt", value, value_text AS "valueText", unit,
       source_name AS "sourceName"
FROM health_archive_records
WHERE user_id = ${userId} AND type = ${type} AND start_at >= ${start} AND start_at < ${end} ${after}
ORDER BY start_at, id LIMIT ${limit + 1}`;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    type,
    interval: null,
    items,
    buckets: [],
    nextCursor: rows.length > limit && last ? encodeCursor(last.startAt, last.id) : null,
  };
}

/** Samples of one record type in a date range (archive_samples). */
export async function healthArchiveSamples(
  ctx: AuthedContext,
  options: ArchiveSamplesOptions,
): Promise<ArchiveSamplePageView> {
  checkRange(options.start, options.end);
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  return samplePage(ctx, readerUserId(ctx), options);
}

/** Events (category-type records and workout events) in a date range, oldest first. */
export async function healthArchiveEvents(
  ctx: AuthedContext,
  options: ArchiveEventsOptions,
): Promise<ArchiveEventPageView> {
  checkRange(options.start, options.end);
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const userId = readerUserId(ctx);
  const [atMs, afterId] = options.cursor ? decodeCursor(options.cursor) : [null, ''];
  const after =
    atMs === null
      ? Prisma.empty
      : Prisma.sql`AND (start_at, id) > (${new Date(atMs)}::timestamp, ${recordId(afterId)}::bigint)`;
  const type = options.type ? Prisma.sql`AND type = ${options.type}` : Prisma.empty;
  const rows = await ctx.prisma.$queryRaw<
    (Omit<ArchiveEventView, 'metadata'> & { metadata: unknown })[]
  >`
SELECT id::text AS id, kind, type, value_text AS "valueText", start_at AS "startAt", end_at AS "endAt",
       source_name AS "sourceName", workout_id AS "workoutId", metadata
FROM health_archive_records
WHERE user_id = ${userId} AND kind IN ('category', 'workout_event')
  AND start_at >= ${options.start} AND start_at < ${options.end} ${type} ${after}
ORDER BY start_at, id LIMIT ${options.limit + 1}`;
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  return {
    items: items.map((r) => ({ ...r, metadata: keyValues(r.metadata) })),
    nextCursor: rows.length > options.limit && last ? encodeCursor(last.startAt, last.id) : null,
  };
}

type WorkoutRow = Omit<ArchiveWorkoutView, 'metadata' | 'statistics'> & {
  metadata: unknown;
  statistics: unknown;
};

function statisticsOf(json: unknown): WorkoutStatisticView[] {
  if (!Array.isArray(json)) return [];
  return json.map((s: Record<string, string>) => {
    const date = (t: string | undefined): Date | null => {
      const m = t && /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})$/.exec(t);
      const d = m ? new Date(`${m[1]}T${m[2]}${m[3]}:${m[4]}`) : null;
      return d && !Number.isNaN(d.getTime()) ? d : null;
    };
    return {
      type: s.type ?? '',
      startAt: date(s.startDate),
      endAt: date(s.endDate),
      average: n(s.average),
      minimum: n(s.minimum),
      maximum: n(s.maximum),
      sum: n(s.sum),
      unit: s.unit ?? null,
    };
  });
}

/** Workouts that started in a date range, newest first, with their statistics and metadata. */
export async function healthArchiveWorkouts(
  ctx: AuthedContext,
  options: ArchiveWorkoutsOptions,
): Promise<ArchiveWorkoutPageView> {
  checkRange(options.start, options.end);
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const userId = readerUserId(ctx);
  const [atMs, afterId] = options.cursor ? decodeCursor(options.cursor) : [null, ''];
  const after =
    atMs === null
      ? Prisma.empty
      : Prisma.sql`AND (w.start_at < ${new Date(atMs)}::timestamp OR (w.start_at = ${new Date(atMs)}::timestamp AND w.id > ${afterId}))`;
  const activity = options.activityType
    ? Prisma.sql`AND (w.activity_type = ${options.activityType} OR w.activity_type = ${activityTypeOf(options.activityType)})`
    : Prisma.empty;
  const rows = await ctx.prisma.$queryRaw<WorkoutRow[]>`
SELECT w.id, w.activity_type AS "activityType", w.start_at AS "startAt", w.end_at AS "endAt",
       w.duration_minutes AS "durationMinutes", w.distance_m AS "distanceM", w.energy_kcal AS "energyKcal",
       w.source_name AS "sourceName", w.source_version AS "sourceVersion", w.metadata, w.statistics,
       (SELECT count(*)::int FROM health_archive_route_points p WHERE p.workout_id = w.id) AS "routePoints",
       (SELECT count(*)::int FROM health_archive_records r
         WHERE r.user_id = w.user_id AND r.kind = 'workout_event' AND r.workout_id = w.id) AS events
FROM health_archive_workouts w
WHERE w.user_id = ${userId} AND w.start_at >= ${options.start} AND w.start_at < ${options.end} ${activity} ${after}
ORDER BY w.start_at DESC, w.id LIMIT ${options.limit + 1}`;
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  return {
    items: items.map((w) => ({
      ...w,
      metadata: keyValues(w.metadata),
      statistics: statisticsOf(w.statistics),
    })),
    nextCursor: rows.length > options.limit && last ? encodeCursor(last.startAt, last.id) : null,
  };
}

/** running -> HKWorkoutActivityTypeRunning (the export's spelling of a snake_case activity). */
function activityTypeOf(name: string): string {
  return `HKWorkoutActivityType${name
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('')}`;
}

/** The person's archive workout, or 404 (another person's id answers the same as an unknown one). */
async function ownWorkout(ctx: AuthedContext, workoutId: string): Promise<ArchiveWorkoutRefView> {
  // NOTE: ownership: only the person's (or the viewed owner's) workouts; others answer 404.
  const w = await ctx.prisma.healthArchiveWorkout.findFirst({
    where: { id: workoutId, userId: readerUserId(ctx) },
    select: { id: true, activityType: true, startAt: true, endAt: true },
  });
  if (!w) throw notFound('workout');
  return w;
}

/** The samples of a type recorded during one of the person's workouts (its time span). */
export async function healthArchiveWorkoutSeries(
  ctx: AuthedContext,
  options: ArchiveSeriesOptions,
): Promise<ArchiveSeriesView> {
  const workout = await ownWorkout(ctx, options.workoutId);
  const page = await samplePage(ctx, readerUserId(ctx), {
    type: options.type,
    start: workout.startAt,
    // the end instant inclusive: a sample taken at the workout's last second belongs to it
    end: new Date(workout.endAt.getTime() + 1),
    limit: options.limit,
    cursor: options.cursor,
    interval: options.interval,
  });
  return { ...page, workout };
}

/** One workout's route: a keyset page of its points, or the whole track downsampled. */
export async function healthArchiveRoute(
  ctx: AuthedContext,
  options: ArchiveRouteOptions,
): Promise<ArchiveRouteView> {
  const workout = await ownWorkout(ctx, options.workoutId);
  const [{ total }] = await ctx.prisma.$queryRaw<{ total: number }[]>`
SELECT count(*)::int AS total FROM health_archive_route_points WHERE workout_id = ${workout.id}`;
  const columns = Prisma.sql`at, lat, lon, elevation, speed, course`;
  if (options.maxPoints) {
    const step = Math.max(1, Math.ceil(total / options.maxPoints));
    const points = await ctx.prisma.$queryRaw<RoutePointView[]>`
SELECT ${columns} FROM (
  SELECT ${columns}, seq, row_number() OVER (ORDER BY at, seq) AS rn
  FROM health_archive_route_points WHERE workout_id = ${workout.id}
) p WHERE (rn - 1) % ${step} = 0 ORDER BY at, seq`;
    return { workout, totalPoints: total, step, points, nextCursor: null };
  }
  const [atMs, afterSeq] = options.cursor ? decodeCursor(options.cursor) : [null, ''];
  const after =
    atMs === null
      ? Prisma.empty
      : Prisma.sql`AND (at, seq) > (${new Date(atMs)}::timestamp, ${Number(afterSeq) || 0}::int)`;
  const rows = await ctx.prisma.$queryRaw<(RoutePointView & { seq: number })[]>`
SELECT ${columns}, seq FROM health_archive_route_points
WHERE workout_id = ${workout.id} ${after} ORDER BY at, seq LIMIT ${options.limit + 1}`;
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    workout,
    totalPoints: total,
    step: 1,
    points: page.map(({ seq: _seq, ...p }) => p),
    nextCursor:
      rows.length > options.limit && last ? encodeCursor(last.at, String(last.seq)) : null,
  };
}

const ecgColumns = Prisma.sql`id, recorded_at AS "recordedAt", classification, symptoms,
  software_version AS "softwareVersion", device, sample_rate_hz AS "sampleRateHz", lead, unit,
  coalesce(cardinality(samples), 0) AS "sampleCount"`;

const withDuration = <T extends { sampleCount: number; sampleRateHz: number }>(r: T) => ({
  ...r,
  durationSeconds: r.sampleCount / r.sampleRateHz,
});

/** The person's ECG recordings (newest first), or one recording's samples a window at a time. */
export async function healthArchiveEcg(
  ctx: AuthedContext,
  options: ArchiveEcgOptions,
): Promise<ArchiveEcgView> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee; another's id is a 404.
  const userId = readerUserId(ctx);
  if (options.ecgId) {
    const from = options.sampleOffset + 1;
    const to = options.sampleOffset + options.sampleCount;
    const [row] = await ctx.prisma.$queryRaw<
      (Omit<EcgRecordingView, 'durationSeconds'> & { samples: number[] | null })[]
    >`
SELECT ${ecgColumns}, samples[${from}:${to}]::text[]::float8[] AS samples
FROM health_archive_ecg WHERE id = ${options.ecgId} AND user_id = ${userId}`;
    if (!row) throw notFound('ECG recording');
    const samples = row.samples ?? [];
    const next = options.sampleOffset + samples.length;
    return {
      recordings: [],
      nextCursor: null,
      recording: {
        ...withDuration(row),
        sampleOffset: options.sampleOffset,
        samples,
        nextSampleOffset: next < row.sampleCount && samples.length > 0 ? next : null,
      },
    };
  }
  const [atMs, afterId] = options.cursor ? decodeCursor(options.cursor) : [null, ''];
  const after =
    atMs === null
      ? Prisma.empty
      : Prisma.sql`AND (recorded_at < ${new Date(atMs)}::timestamp OR (recorded_at = ${new Date(atMs)}::timestamp AND id > ${afterId}))`;
  const rows = await ctx.prisma.$queryRaw<Omit<EcgRecordingView, 'durationSeconds'>[]>`
SELECT ${ecgColumns} FROM health_archive_ecg WHERE user_id = ${userId} ${after}
ORDER BY recorded_at DESC, id LIMIT ${options.limit + 1}`;
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  return {
    recordings: items.map(withDuration),
    nextCursor: rows.length > options.limit && last ? encodeCursor(last.recordedAt, last.id) : null,
    recording: null,
  };
}
