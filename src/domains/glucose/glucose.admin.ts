/**
 * Glucose reads for the admin API (src/domains/admin): platform-wide aggregates, one person's
 * counts, and raw sensor samples for export in chunks (keyset order: person, sensor, time, which
 * the unique index (user_id, sensor_id, timestamp) serves without a sort).
 * NOTE: these read every person's rows; only admin fields (`t.withAuth({ admin: true })`) call them.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

/** The range counted "in range" by the aggregate, mg/dL (the consensus 70..180). */
const IN_RANGE = { low: 70, high: 180 } as const;

export interface GlucoseAggregateView {
  readings: number;
  /** people with at least one reading */
  people: number;
  meanMgDl: number | null;
  minMgDl: number | null;
  maxMgDl: number | null;
  /** share of readings within 70..180 mg/dL, percent */
  inRangePct: number | null;
  readingsLast24h: number;
  rawSamples: number;
  firstReadingAt: Date | null;
  lastReadingAt: Date | null;
}

/** Live readings of every person, aggregated in one statement (plus one count of raw samples). */
export async function glucoseAggregate(ctx: Context): Promise<GlucoseAggregateView> {
  const since = new Date(clock.ms() - 24 * 3600_000).toISOString();
  const [row] = await ctx.prisma.$queryRaw<
    {
      readings: number;
      people: number;
      mean: number | null;
      min: number | null;
      max: number | null;
      in_range: number;
      last24h: number;
      first_at: Date | null;
      last_at: Date | null;
    }[]
  >`SELECT count(*)::int AS readings, count(DISTINCT user_id)::int AS people,
           avg(value_mg_dl)::float8 AS mean, min(value_mg_dl)::float8 AS min, max(value_mg_dl)::float8 AS max,
           (count(*) FILTER (WHERE value_mg_dl BETWEEN ${IN_RANGE.low}::float8 AND ${IN_RANGE.high}::float8))::int AS in_range,
           (count(*) FILTER (WHERE "timestamp" >= ${since}::timestamptz))::int AS last24h,
           min("timestamp") AS first_at, max("timestamp") AS last_at
      FROM glucose_readings WHERE deleted_at IS NULL`;
  const rawSamples = await ctx.prisma.rawSensorData.count({ where: { deletedAt: null } });
  const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  return {
    readings: row.readings,
    people: row.people,
    meanMgDl: round(row.mean),
    minMgDl: row.min,
    maxMgDl: row.max,
    inRangePct: row.readings ? round((100 * row.in_range) / row.readings) : null,
    readingsLast24h: row.last24h,
    rawSamples,
    firstReadingAt: row.first_at,
    lastReadingAt: row.last_at,
  };
}

export interface PersonGlucoseCountsView {
  readings: number;
  rawSamples: number;
  lastReadingAt: Date | null;
}

/** One person's live reading and raw sample counts. */
export async function glucoseCountsOf(
  ctx: Context,
  userId: number,
): Promise<PersonGlucoseCountsView> {
  const live = { userId, deletedAt: null };
  const [readings, rawSamples, last] = await Promise.all([
    ctx.prisma.glucoseReading.count({ where: live }),
    ctx.prisma.rawSensorData.count({ where: live }),
    ctx.prisma.glucoseReading.findFirst({
      where: live,
      orderBy: { timestamp: 'desc' },
      select: { timestamp: true },
    }),
  ]);
  return { readings, rawSamples, lastReadingAt: last?.timestamp ?? null };
}

export interface RawSampleView {
  id: string;
  userId: number;
  sensorId: number;
  timestamp: Date;
  rawValue: number;
  temperatureC: number | null;
}

/** Where a chunk continues: after this sample in keyset order. */
export interface RawSampleKey {
  userId: number;
  sensorId: number;
  timestamp: Date;
}

export interface RawSamplesOptions {
  /** one person's samples; none: everyone's */
  userId?: number | null;
  /** one sensor's samples */
  sensorId?: number | null;
  /** first instant (inclusive) */
  start?: Date | null;
  /** end of the window (exclusive) */
  end?: Date | null;
  /** samples skipped before the first one (used only without `after`) */
  offset: number;
  /** continue after this sample (keyset); it wins over `offset` */
  after?: RawSampleKey | null;
  /** samples answered */
  take: number;
}

/** The WHERE conditions of a chunk of raw samples (filters, then the keyset after `after`). */
function rawSampleConditions(options: RawSamplesOptions): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`deleted_at IS NULL`];
  if (options.userId != null) conditions.push(Prisma.sql`user_id = ${options.userId}::int`);
  if (options.sensorId != null) conditions.push(Prisma.sql`sensor_id = ${options.sensorId}::int`);
  if (options.start) {
    conditions.push(Prisma.sql`"timestamp" >= ${options.start.toISOString()}::timestamptz`);
  }
  if (options.end) {
    conditions.push(Prisma.sql`"timestamp" < ${options.end.toISOString()}::timestamptz`);
  }
  const a = options.after;
  if (a) {
    conditions.push(
      Prisma.sql`(user_id, sensor_id, "timestamp") > (${a.userId}::int, ${a.sensorId}::int, ${a.timestamp.toISOString()}::timestamptz)`,
    );
  }
  return Prisma.join(conditions, ' AND ');
}

/** One chunk of live raw sensor samples in (person, sensor, time) order. */
export async function rawSamples(
  ctx: Context,
  options: RawSamplesOptions,
): Promise<RawSampleView[]> {
  const rows = await ctx.prisma.$queryRaw<
    {
      id: string;
      user_id: number;
      sensor_id: number;
      timestamp: Date;
      raw_value: number;
      temperature_c: number | null;
    }[]
  >`SELECT id, user_id, sensor_id, "timestamp", raw_value, temperature_c FROM raw_sensor_data
     WHERE ${rawSampleConditions(options)}
     ORDER BY user_id, sensor_id, "timestamp"
     LIMIT ${options.take}::int OFFSET ${options.after ? 0 : options.offset}::bigint`;
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    sensorId: r.sensor_id,
    timestamp: r.timestamp,
    rawValue: r.raw_value,
    temperatureC: r.temperature_c,
  }));
}

/** A chunk of raw samples as the database wrote it: one JSON array, and where it ended. */
export interface RawSamplesJsonView {
  /** the samples as one JSON array text, keys in wire names (snake_case), times in ISO 8601 UTC */
  json: string;
  /** samples in it */
  count: number;
  /** the last sample's key (the keyset of the next chunk); null when empty */
  last: RawSampleKey | null;
}

/**
 * The same chunk as rawSamples, serialised by the database: no row becomes a JavaScript object, so
 * a large export costs the process one string per chunk. Times are written as
 * Date.prototype.toISOString writes them (milliseconds, `Z`), numbers as PostgreSQL's shortest
 * round-trip text, which is JavaScript's.
 */
export async function rawSamplesJson(
  ctx: Context,
  options: RawSamplesOptions,
): Promise<RawSamplesJsonView> {
  const [row] = await ctx.prisma.$queryRaw<
    {
      json: string;
      count: number;
      user_id: number | null;
      sensor_id: number | null;
      timestamp: Date | null;
    }[]
  >`WITH chunk AS (
      SELECT id, user_id, sensor_id, "timestamp", raw_value, temperature_c FROM raw_sensor_data
       WHERE ${rawSampleConditions(options)}
       ORDER BY user_id, sensor_id, "timestamp"
       LIMIT ${options.take}::int OFFSET ${options.after ? 0 : options.offset}::bigint)
    SELECT (SELECT coalesce('[' || string_agg(row_to_json(w)::text, ','
                      ORDER BY c.user_id, c.sensor_id, c."timestamp") || ']', '[]')
              FROM chunk AS c
             CROSS JOIN LATERAL (
               SELECT c.id, c.user_id, c.sensor_id,
                      to_char(c."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "timestamp",
                      c.raw_value, c.temperature_c) AS w) AS json,
           (SELECT count(*)::int FROM chunk) AS count,
           l.user_id, l.sensor_id, l."timestamp"
      FROM (SELECT 1) AS one
      LEFT JOIN LATERAL (SELECT user_id, sensor_id, "timestamp" FROM chunk
                          ORDER BY user_id DESC, sensor_id DESC, "timestamp" DESC LIMIT 1) AS l ON true`;
  const last =
    row.user_id !== null && row.sensor_id !== null && row.timestamp !== null
      ? { userId: row.user_id, sensorId: row.sensor_id, timestamp: row.timestamp }
      : null;
  return { json: row.json, count: row.count, last };
}
