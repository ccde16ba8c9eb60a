/**
 * Glucose: readings (canonical mg/dL), raw sensor data, sensors, trends. Bulk paths (batches,
 * processing, reads of up to 50,000 rows) are parameterised SQL, the same on PGlite and PostgreSQL
 * (docs/architecture.md section 1); everything else is Prisma.
 *
 * NOTE: ownership. Writes use `ctx.principal.userId`; reads use readerUserId(ctx) (the owner's data
 * while a grantee views as). The user id is always a bound parameter, never from the request body.
 */
import { readerUserId } from '../../auth/principal.ts';
import { writeInSlices } from '../../db/bulk.ts';
import type { DbTx } from '../../db/client.ts';
import { appError } from '../../base/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { msValue } from '../../db/sql-time.ts';
import { markPhoneSynced, syncClockCte, syncedWrite } from '../../platform/sync-clock.ts';
import type { SqlRunner } from '../../platform/sync-clock.ts';
import { glucoseStored, latestOf } from './glucose.arrivals.ts';
import { PROCESSING_VERSION, processRaw } from './glucose.processing.ts';
import type { Calibration, RawSample } from './glucose.processing.ts';
import { personZone } from '../profile/index.ts';
import { gmiOfWindow, trendStats } from './glucose.stats.ts';
import type { StatPoint, TrendStats } from './glucose.stats.ts';
import { clock } from '../../base/clock.ts';

/** Largest batch (readings or raw samples) and largest read. */
export const GLUCOSE_BATCH_MAX = 50_000;

/**
 * Pages of readings (glucoseReadingPage): a reading is about 140 characters of JSON, so the default
 * page is about 35,000 (what an agent reads comfortably), the largest about 70,000.
 */
export const GLUCOSE_PAGE_DEFAULT = 250;
export const GLUCOSE_PAGE_MAX = 500;

export interface GlucoseReadingView {
  id: string;
  sensorId: number;
  timestamp: Date;
  valueMgDl: number;
  source: string;
  processingVersion: number | null;
}

export interface GlucoseReadingInput {
  /** the client's id (WatermelonDB id); default: deterministic from (user, sensor, timestamp) */
  id?: string | null;
  /** the client's sensor number; 0 or absent: manual / no sensor */
  sensorId?: number | null;
  timestamp: Date;
  /** glucose, mg/dL */
  valueMgDl: number;
  /** "manual" or "cgm" */
  source?: string | null;
}

export interface RawSensorDataInput {
  id?: string | null;
  sensorId: number;
  timestamp: Date;
  rawValue: number;
  temperatureC?: number | null;
}

export interface SensorPayloadInput {
  sensorId: number;
  serialNumber?: string | null;
  calibrationSlope?: number | null;
  calibrationIntercept?: number | null;
  samples: { timestamp: Date; rawValue: number; temperatureC?: number | null }[];
}

export interface ListReadingsOptions {
  /** readings of the last N hours */
  sinceHours: number;
  /** at most this many rows */
  limit: number;
  /** only this sensor */
  sensorId?: number | null;
  /** "asc" or "desc" by timestamp */
  sort: 'asc' | 'desc';
}

export interface ReadingPageOptions extends ListReadingsOptions {
  /** nextCursor of the previous page; absent: the first page */
  cursor?: string | null;
  /** the window's start (inclusive), instead of the last sinceHours */
  from?: Date | null;
  /** the window's end (exclusive); absent: no end */
  to?: Date | null;
}

export interface ReadingPageView {
  items: GlucoseReadingView[];
  /** the cursor of the next page, or null on the last one */
  nextCursor: string | null;
}

export interface TrendsOptions {
  /** window of the last N hours (when no start_date) */
  sinceHours: number;
  /** window start (ISO date or date-time); overrides sinceHours */
  startDate?: Date | null;
  /** window end (ISO date or date-time); default now */
  endDate?: Date | null;
}

export interface TrendView extends TrendStats {
  start: Date;
  end: Date;
  /** the IANA zone of the hourly percentiles' hours */
  timezone: string;
  /** why gmi is null (under 14 days or 70 % coverage), else null */
  gmiNote: string | null;
}

export interface RebuildView {
  deleted: number;
  inserted: number;
  processingVersion: number;
}

export interface SensorStatusView {
  sensorId: number;
  serialNumber: string | null;
  startedAt: Date | null;
  lastSeenAt: Date | null;
  readingCount: number;
  lastReadingAt: Date | null;
  lastValueMgDl: number | null;
}

const readingId = (userId: number, sensorId: number, t: Date): string =>
  `g:${userId}:${sensorId}:${t.getTime()}`;
const rawId = (userId: number, sensorId: number, t: Date): string =>
  `r:${userId}:${sensorId}:${t.getTime()}`;
const sensorRowId = (userId: number, sensorId: number): string => `s:${userId}:${sensorId}`;

/**
 * Stores readings in one statement, stamped from the account's sync clock (reviving deleted ones
 * posted again); answers how many were new. Runs on the client or inside a caller's transaction.
 *
 * One statement per call (a slice of a batch): advance the account's sync clock, revive deleted
 * readings posted again, insert the rest. ON CONFLICT without a target: a reading already stored for
 * the same (sensor, timestamp), or an id taken by any row, is skipped, which makes batches idempotent.
 * A reading posted again after it was deleted comes back (the posting is the newer fact), stamped as
 * a change so that phones learn of it; see docs/glucose.md.
 */
async function insertReadings(
  db: SqlRunner,
  userId: number,
  rows: readonly { id: string; sensorId: number; timestamp: Date; valueMgDl: number }[],
  source: string,
  processingVersion: number | null,
): Promise<number> {
  if (rows.length === 0) return 0;
  const ids = new Array<string>(rows.length);
  const sensors = new Array<number>(rows.length);
  const times = new Array<string>(rows.length);
  const values = new Array<number>(rows.length);
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    ids[i] = r.id;
    sensors[i] = r.sensorId;
    times[i] = r.timestamp.toISOString();
    values[i] = r.valueMgDl;
    first = Math.min(first, r.timestamp.getTime());
    last = Math.max(last, r.timestamp.getTime());
  }
  const [{ stored }] = await db.$queryRaw<{ stored: number }[]>`
    WITH ${syncClockCte(userId)},
    input AS (
      SELECT * FROM unnest(${ids}::text[], ${sensors}::int[], ${times}::timestamptz[], ${values}::double precision[])
        AS r(id, sensor_id, ts, v)
    ),
    revived AS (
      UPDATE glucose_readings AS g
         SET value_mg_dl = r.v, source = ${source}::text, processing_version = ${processingVersion}::int,
             deleted_at = NULL, server_updated_at = (SELECT at FROM sync_clock)
        FROM input AS r
       WHERE g.user_id = ${userId}::int AND g.sensor_id = r.sensor_id AND g."timestamp" = r.ts
         AND g.deleted_at IS NOT NULL
         -- NOTE: evaluated once (a one-time filter): the join runs only when the slice's time range
         -- holds a deleted reading, one index range probe otherwise
         AND EXISTS (SELECT 1 FROM glucose_readings WHERE user_id = ${userId}::int AND deleted_at IS NOT NULL
                       AND "timestamp" BETWEEN ${new Date(first).toISOString()}::timestamptz
                                           AND ${new Date(last).toISOString()}::timestamptz)
      RETURNING 1
    ),
    inserted AS (
      INSERT INTO glucose_readings (id, user_id, sensor_id, "timestamp", value_mg_dl, source, processing_version, server_updated_at)
      SELECT r.id, ${userId}::int, r.sensor_id, r.ts, r.v, ${source}::text, ${processingVersion}::int,
             (SELECT at FROM sync_clock)
        FROM input AS r
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM revived)::int + (SELECT count(*) FROM inserted)::int AS stored`;
  return stored;
}

function toReadingRows(userId: number, input: readonly GlucoseReadingInput[]) {
  return input.map((r) => {
    const sensorId = r.sensorId ?? 0;
    return {
      id: r.id ?? readingId(userId, sensorId, r.timestamp),
      sensorId,
      timestamp: r.timestamp,
      valueMgDl: r.valueMgDl,
    };
  });
}

/** Stores one reading (idempotent on (sensor, timestamp)); answers the stored reading. */
export async function createGlucoseReading(
  ctx: AuthedContext,
  input: GlucoseReadingInput,
): Promise<GlucoseReadingView> {
  const userId = ctx.principal.userId;
  const [row] = toReadingRows(userId, [input]);
  await insertReadings(ctx.prisma, userId, [row], input.source ?? 'manual', null);
  const stored = await ctx.prisma.glucoseReading.findUnique({
    where: {
      userId_sensorId_timestamp: { userId, sensorId: row.sensorId, timestamp: row.timestamp },
    },
  });
  if (!stored) throw appError('CONFLICT', 'A reading with this id already exists');
  glucoseStored(ctx, { userId, latest: row.timestamp, readings: 1 });
  return stored;
}

/**
 * Rows per statement of a batch (src/db/bulk.ts). On the embedded database a slice of 100 readings
 * holds its one connection ~5 ms, which is what a request arriving meanwhile waits; 200 doubled the
 * small uploads' p95 during a backfill, and smaller slices cost more fixed work per row
 * (docs/benchmarks.md, issue 4 goals).
 */
const BATCH_SLICE = 100;

/** Stores up to GLUCOSE_BATCH_MAX readings, BATCH_SLICE per statement; answers how many were new. */
export async function createGlucoseReadingsBatch(
  ctx: AuthedContext,
  input: readonly GlucoseReadingInput[],
): Promise<number> {
  const userId = ctx.principal.userId;
  const stored = await writeInSlices(toReadingRows(userId, input), BATCH_SLICE, (slice) =>
    insertReadings(ctx.prisma, userId, slice, 'cgm', null),
  );
  await markPhoneSynced(ctx.prisma, userId);
  glucoseStored(ctx, {
    userId,
    latest: latestOf(input.map((r) => r.timestamp)),
    readings: input.length,
  });
  return stored;
}

interface ReadingRow {
  id: string;
  sensor_id: number;
  timestamp: Date;
  value_mg_dl: number;
  source: string;
  processing_version: number | null;
}

/** Where a page ends: the window start of the first page, and the (timestamp, sensor) of its last reading. */
interface PageCursor {
  /** the window start (ms) fixed by the first page, so later pages read the same window */
  since: number;
  /** the last reading's timestamp (ms) and sensor */
  at: number;
  sensor: number;
  /** the order the cursor was answered for */
  sort: 'asc' | 'desc';
}

const CURSOR_ISSUE =
  'not a cursor of this list: pass next_cursor of the previous page, with the same sort';

function encodeCursor(c: PageCursor): string {
  return Buffer.from(JSON.stringify([c.since, c.at, c.sensor, c.sort])).toString('base64url');
}

function decodeCursor(text: string, sort: 'asc' | 'desc'): PageCursor {
  try {
    const [since, at, sensor, order] = JSON.parse(
      Buffer.from(text, 'base64url').toString('utf8'),
    ) as unknown[];
    const finite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);
    if (finite(since) && finite(at) && Number.isInteger(sensor) && order === sort) {
      return { since, at, sensor: sensor as number, sort };
    }
  } catch {
    // not base64url JSON: refused below
  }
  throw appError('VALIDATION_FAILED', `cursor: ${CURSOR_ISSUE}`, {
    detail: [{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }],
  });
}

/**
 * One SELECT of the window's readings, ordered by (timestamp, sensor_id), after `after` when given
 * (keyset: the reading of a page's last timestamp and sensor, exclusive).
 */
async function selectReadings(
  ctx: AuthedContext,
  options: ListReadingsOptions & {
    since: Date;
    to?: Date | null;
    after?: { at: number; sensor: number };
  },
  limit: number,
): Promise<GlucoseReadingView[]> {
  const asc = options.sort === 'asc';
  const toFilter = options.to
    ? Prisma.sql`AND "timestamp" < ${options.to.toISOString()}::timestamptz`
    : Prisma.empty;
  const sensorFilter =
    options.sensorId !== null && options.sensorId !== undefined
      ? Prisma.sql`AND sensor_id = ${options.sensorId}::int`
      : Prisma.empty;
  let afterFilter = Prisma.empty;
  if (options.after) {
    const at = new Date(options.after.at).toISOString();
    const beyond = asc ? Prisma.sql`>` : Prisma.sql`<`;
    afterFilter = Prisma.sql`AND ("timestamp" ${beyond} ${at}::timestamptz
      OR ("timestamp" = ${at}::timestamptz AND sensor_id > ${options.after.sensor}::int))`;
  }
  const rows = await ctx.prisma.$queryRaw<ReadingRow[]>`
    SELECT id, sensor_id, "timestamp", value_mg_dl, source, processing_version FROM glucose_readings
     WHERE user_id = ${readerUserId(ctx)}::int AND "timestamp" >= ${options.since.toISOString()}::timestamptz
       AND deleted_at IS NULL ${toFilter} ${sensorFilter} ${afterFilter}
     ORDER BY "timestamp" ${asc ? Prisma.sql`ASC` : Prisma.sql`DESC`}, sensor_id LIMIT ${limit}::int`;
  return rows.map((r) => ({
    id: r.id,
    sensorId: r.sensor_id,
    timestamp: r.timestamp,
    valueMgDl: r.value_mg_dl,
    source: r.source,
    processingVersion: r.processing_version,
  }));
}

/** The readings of the last hours, one SELECT (up to 50,000 rows). */
export async function glucoseReadings(
  ctx: AuthedContext,
  options: ListReadingsOptions,
): Promise<GlucoseReadingView[]> {
  const since = new Date(clock.ms() - options.sinceHours * 3_600_000);
  return selectReadings(ctx, { ...options, since }, options.limit);
}

/**
 * One page of the readings of the last hours (or of [from, to)) and the cursor of the next (keyset
 * on timestamp and sensor, so a page never repeats or skips a reading when new ones arrive). The
 * window is fixed by the first page: the cursor carries its start.
 */
export async function glucoseReadingPage(
  ctx: AuthedContext,
  options: ReadingPageOptions,
): Promise<ReadingPageView> {
  const cursor = options.cursor ? decodeCursor(options.cursor, options.sort) : null;
  const start = options.from?.getTime() ?? clock.ms() - options.sinceHours * 3_600_000;
  const since = new Date(cursor?.since ?? start);
  const rows = await selectReadings(
    ctx,
    { ...options, since, after: cursor ?? undefined },
    options.limit + 1,
  );
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > options.limit && last
      ? encodeCursor({
          since: since.getTime(),
          at: last.timestamp.getTime(),
          sensor: last.sensorId,
          sort: options.sort,
        })
      : null;
  return { items, nextCursor };
}

/**
 * Deletes every reading of the caller; answers how many. Readings are synced, so they become
 * tombstones (deleted_at) that tell the person's other phones, not missing rows.
 */
export async function deleteAllGlucoseReadings(ctx: AuthedContext): Promise<number> {
  // NOTE: the caller's own rows only.
  const userId = ctx.principal.userId;
  return syncedWrite(
    ctx.prisma,
    userId,
    (tx, ts) =>
      tx.$executeRaw`UPDATE glucose_readings SET deleted_at = ${msValue(ts)}, server_updated_at = ${msValue(ts)}
      WHERE user_id = ${userId}::int AND deleted_at IS NULL`,
  );
}

/** Stores raw samples in one statement (idempotent on (sensor, timestamp)); answers how many were new. */
async function insertRaw(
  db: SqlRunner,
  userId: number,
  input: readonly RawSensorDataInput[],
): Promise<number> {
  if (input.length === 0) return 0;
  const n = input.length;
  const ids = new Array<string>(n);
  const sensors = new Array<number>(n);
  const times = new Array<string>(n);
  const values = new Array<number>(n);
  const temps = new Array<number | null>(n);
  for (let i = 0; i < n; i++) {
    const r = input[i];
    ids[i] = r.id ?? rawId(userId, r.sensorId, r.timestamp);
    sensors[i] = r.sensorId;
    times[i] = r.timestamp.toISOString();
    values[i] = r.rawValue;
    temps[i] = r.temperatureC ?? null;
  }
  const [{ stored }] = await db.$queryRaw<{ stored: number }[]>`
    WITH ${syncClockCte(userId)},
    inserted AS (
      INSERT INTO raw_sensor_data (id, user_id, sensor_id, "timestamp", raw_value, temperature_c, server_updated_at)
      SELECT r.id, ${userId}::int, r.sensor_id, r.ts, r.v, r.t, (SELECT at FROM sync_clock)
      FROM unnest(${ids}::text[], ${sensors}::int[], ${times}::timestamptz[], ${values}::double precision[],
                  ${temps}::double precision[])
        AS r(id, sensor_id, ts, v, t)
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS stored FROM inserted`;
  return stored;
}

/** Stores raw samples (idempotent on (sensor, timestamp)), BATCH_SLICE per statement; answers how many were new. */
export async function createRawSensorDataBatch(
  ctx: AuthedContext,
  input: readonly RawSensorDataInput[],
): Promise<number> {
  const userId = ctx.principal.userId;
  const stored = await writeInSlices(input, BATCH_SLICE, (slice) =>
    insertRaw(ctx.prisma, userId, slice),
  );
  await markPhoneSynced(ctx.prisma, userId);
  return stored;
}

async function calibrationOf(tx: DbTx, userId: number, sensorId: number): Promise<Calibration> {
  const sensor = await tx.glucoseSensor.findUnique({
    where: { userId_sensorId: { userId, sensorId } },
  });
  return { slope: sensor?.calibrationSlope ?? 1, intercept: sensor?.calibrationIntercept ?? 0 };
}

async function storedRaw(
  tx: DbTx,
  userId: number,
  sensorId: number,
  from?: Date,
  to?: Date,
): Promise<RawSample[]> {
  return tx.rawSensorData.findMany({
    where: {
      userId,
      sensorId,
      deletedAt: null,
      ...(from && to ? { timestamp: { gte: from, lte: to } } : {}),
    },
    select: { timestamp: true, rawValue: true, temperatureC: true },
    orderBy: { timestamp: 'asc' },
  });
}

/**
 * Stores a sensor payload (sensor + calibration, raw samples) and the glucose processed from the
 * stored raw samples, in one transaction; answers the stored readings of the sensor in the
 * payload's time range.
 */
export async function processSensorPayload(
  ctx: AuthedContext,
  input: SensorPayloadInput,
): Promise<GlucoseReadingView[]> {
  const userId = ctx.principal.userId;
  const { sensorId } = input;
  const times = input.samples.map((s) => s.timestamp.getTime());
  const from = new Date(Math.min(...times));
  const to = new Date(Math.max(...times));
  const calibration: Partial<{ calibrationSlope: number; calibrationIntercept: number }> = {};
  if (input.calibrationSlope != null) calibration.calibrationSlope = input.calibrationSlope;
  if (input.calibrationIntercept != null)
    calibration.calibrationIntercept = input.calibrationIntercept;
  const readings = await syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const serverUpdatedAt = new Date(ts);
    await tx.glucoseSensor.upsert({
      where: { userId_sensorId: { userId, sensorId } },
      create: {
        id: sensorRowId(userId, sensorId),
        userId,
        sensorId,
        serialNumber: input.serialNumber ?? null,
        startedAt: from,
        lastSeenAt: to,
        serverUpdatedAt,
        ...calibration,
      },
      update: {
        ...(input.serialNumber ? { serialNumber: input.serialNumber } : {}),
        lastSeenAt: to,
        serverUpdatedAt,
        ...calibration,
      },
    });
    await insertRaw(
      tx,
      userId,
      input.samples.map((s) => ({ ...s, sensorId })),
    );
    const readings = processRaw(
      await storedRaw(tx, userId, sensorId, from, to),
      await calibrationOf(tx, userId, sensorId),
    );
    const rows = readings.map((r) => ({
      ...r,
      sensorId,
      id: readingId(userId, sensorId, r.timestamp),
    }));
    await insertReadings(tx, userId, rows, 'sensor', PROCESSING_VERSION);
    await markPhoneSynced(tx, userId);
    // the stored readings of the payload's range (a reading stored earlier for a timestamp wins)
    return tx.glucoseReading.findMany({
      where: { userId, sensorId, timestamp: { gte: from, lte: to }, deletedAt: null },
      select: {
        id: true,
        sensorId: true,
        timestamp: true,
        valueMgDl: true,
        source: true,
        processingVersion: true,
      },
      orderBy: { timestamp: 'asc' },
    });
  });
  glucoseStored(ctx, { userId, latest: to, readings: readings.length });
  return readings;
}

/**
 * Wipes the backend glucose of one sensor of the caller and replays its stored raw data, in one
 * transaction. The wiped readings become tombstones; a replayed reading at the same time revives
 * its row with the recomputed value, so phones see one update, not a delete and a create.
 */
export async function rebuildSensorFromRaw(
  ctx: AuthedContext,
  options: { sensorId: number },
): Promise<RebuildView> {
  const userId = ctx.principal.userId;
  const { sensorId } = options;
  return syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const deleted = await tx.$executeRaw`
      UPDATE glucose_readings SET deleted_at = ${msValue(ts)}, server_updated_at = ${msValue(ts)}
       WHERE user_id = ${userId}::int AND sensor_id = ${sensorId}::int AND deleted_at IS NULL`;
    const readings = processRaw(
      await storedRaw(tx, userId, sensorId),
      await calibrationOf(tx, userId, sensorId),
    );
    const rows = readings.map((r) => ({
      ...r,
      sensorId,
      id: readingId(userId, sensorId, r.timestamp),
    }));
    const inserted = await insertReadings(tx, userId, rows, 'sensor', PROCESSING_VERSION);
    return { deleted, inserted, processingVersion: PROCESSING_VERSION };
  });
}

/** Trend figures and hourly AGP percentiles of a window (one SELECT of its values). */
export async function glucoseTrends(
  ctx: AuthedContext,
  options: TrendsOptions,
): Promise<TrendView> {
  const end = options.endDate ?? clock.now();
  const start = options.startDate ?? new Date(end.getTime() - options.sinceHours * 3_600_000);
  if (start.getTime() >= end.getTime()) {
    throw appError('VALIDATION_FAILED', 'start_date must be before end_date', {
      detail: [
        { loc: ['start_date'], msg: 'start_date must be before end_date', type: 'value_error' },
      ],
    });
  }
  const [points, timezone] = await Promise.all([
    glucosePoints(ctx, { start, end }),
    personZone(ctx),
  ]);
  const stats = trendStats(points, start, end, timezone);
  return { ...stats, ...gmiOfWindow(stats, start, end), start, end, timezone };
}

export interface GlucosePointsOptions {
  /** first instant of the window (inclusive) */
  start: Date;
  /** end of the window (exclusive) */
  end: Date;
}

/**
 * The person's live readings in [start, end), unordered, as statistics points: one SELECT. Trends
 * read them, and so does every other domain that needs glucose (insights' scores and alerts).
 */
export async function glucosePoints(
  ctx: AuthedContext,
  options: GlucosePointsOptions,
): Promise<StatPoint[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.$queryRaw<
    { timestamp: Date; value_mg_dl: number; manual: boolean }[]
  >`
    SELECT "timestamp", value_mg_dl, source = 'manual' AS manual FROM glucose_readings
     WHERE user_id = ${readerUserId(ctx)}::int AND "timestamp" >= ${options.start.toISOString()}::timestamptz
       AND "timestamp" < ${options.end.toISOString()}::timestamptz AND deleted_at IS NULL`;
  return rows.map((r) => ({ timestamp: r.timestamp, valueMgDl: r.value_mg_dl, manual: r.manual }));
}

/** A time window [start, end) of readings to read. */
export interface ReadingWindow {
  start: Date;
  end: Date;
}

/** Readings as bare numbers: epoch milliseconds and mg/dL. */
export interface GlucoseSeriesPoint {
  t: number;
  v: number;
}

/** `windows` sorted and merged where they touch or overlap, so no reading is in two of them. */
function mergedWindows(windows: readonly ReadingWindow[]): [number, number][] {
  const sorted = windows
    .map((w): [number, number] => [w.start.getTime(), w.end.getTime()])
    .filter(([a, b]) => a < b)
    .sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * "ms centi,ms centi,..." (integers, either may be negative) as points, read character by
 * character: half the time of splitting it into strings, for tens of thousands of readings.
 */
export function parseSeries(text: string): GlucoseSeriesPoint[] {
  const out: GlucoseSeriesPoint[] = [];
  let t = 0;
  let v = 0;
  let sign = 1;
  let tSign = 1;
  let inValue = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c === 44) {
      // ','
      out.push({ t: tSign * t, v: (sign * v) / 100 });
      t = 0;
      v = 0;
      sign = 1;
      tSign = 1;
      inValue = false;
    } else if (c === 32) inValue = true;
    else if (c === 45) {
      // '-'
      if (inValue) sign = -1;
      else tSign = -1;
    } else if (inValue) v = v * 10 + (c - 48);
    else t = t * 10 + (c - 48);
  }
  return out;
}

/**
 * The person's live readings inside any of `windows`, sorted by time, as bare numbers: what a
 * computation over many short windows needs (the glucose responses of a year of meals). One
 * SELECT: an index range scan per merged window, and the database writes the readings as one
 * text value of integers ("ms centi-mg/dL,..."), so no row object or Date is built per reading.
 * Values are read to 0.01 mg/dL (sensors report whole or tenth mg/dL; integers are the cheapest
 * text the database writes: a float's shortest form cost it more than the join itself).
 */
export async function glucoseSeries(
  ctx: AuthedContext,
  windows: readonly ReadingWindow[],
): Promise<GlucoseSeriesPoint[]> {
  const merged = mergedWindows(windows);
  if (merged.length === 0) return [];
  const starts = merged.map(([a]) => new Date(a).toISOString());
  const ends = merged.map(([, b]) => new Date(b).toISOString());
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  // NOTE: no ORDER BY in the aggregate (sorting in the database cost as much as the join); the
  // windows are disjoint and come in order, and the answer is sorted here if it is not already.
  const [row] = await ctx.prisma.$queryRaw<{ series: string | null }[]>`
    SELECT string_agg(
             round(date_part('epoch', g."timestamp") * 1000)::bigint::text || ' ' ||
             round(g.value_mg_dl * 100)::bigint::text, ',') AS series
      FROM unnest(${starts}::timestamptz[], ${ends}::timestamptz[]) AS w(s, e)
      JOIN glucose_readings g
        ON g.user_id = ${readerUserId(ctx)}::int AND g."timestamp" >= w.s AND g."timestamp" < w.e
     WHERE g.deleted_at IS NULL`;
  if (!row?.series) return [];
  const points = parseSeries(row.series);
  for (let i = 1; i < points.length; i++) {
    if (points[i].t < points[i - 1].t) return points.sort((a, b) => a.t - b.t);
  }
  return points;
}

/** Every CGM sensor of the person with its wear and latest reading. */
export async function cgmSensors(ctx: AuthedContext): Promise<SensorStatusView[]> {
  const me = readerUserId(ctx);
  const rows = await ctx.prisma.$queryRaw<
    {
      sensor_id: number;
      serial_number: string | null;
      started_at: Date | null;
      last_seen_at: Date | null;
      reading_count: bigint | number;
      last_reading_at: Date | null;
      last_value: number | null;
    }[]
  >`WITH r AS (
       SELECT sensor_id, count(*) AS reading_count, max("timestamp") AS last_reading_at
       FROM glucose_readings WHERE user_id = ${me}::int AND deleted_at IS NULL AND sensor_id <> 0 GROUP BY sensor_id
     ), ids AS (
       SELECT sensor_id FROM r
       UNION SELECT sensor_id FROM glucose_sensors WHERE user_id = ${me}::int AND deleted_at IS NULL
     )
     SELECT ids.sensor_id, s.serial_number, s.started_at, s.last_seen_at,
            coalesce(r.reading_count, 0) AS reading_count, r.last_reading_at,
            (SELECT g.value_mg_dl FROM glucose_readings g
              WHERE g.user_id = ${me}::int AND g.sensor_id = ids.sensor_id AND g."timestamp" = r.last_reading_at
              LIMIT 1) AS last_value
     FROM ids LEFT JOIN r ON r.sensor_id = ids.sensor_id
     LEFT JOIN glucose_sensors s ON s.user_id = ${me}::int AND s.sensor_id = ids.sensor_id
     ORDER BY ids.sensor_id`;
  return rows.map((r) => ({
    sensorId: r.sensor_id,
    serialNumber: r.serial_number,
    startedAt: r.started_at,
    lastSeenAt: r.last_seen_at,
    readingCount: Number(r.reading_count),
    lastReadingAt: r.last_reading_at,
    lastValueMgDl: r.last_value,
  }));
}
