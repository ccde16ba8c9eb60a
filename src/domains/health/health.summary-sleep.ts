/**
 * Sleep nights (issue 16): the person's sleep intervals grouped into nights, and the stage intervals
 * of one night. A night belongs to the local date it ends on: intervals ending from 18:00 local the
 * day before to 18:00 local that day (docs/scores.md, "Days and time zones"), so the answers agree
 * with the sleep score. When several sources recorded the same night (a watch and a phone app), the
 * night's totals come from the one that recorded the most sleep, never from their sum; `sources`
 * names all of them. Totals are SQL aggregates (GROUP BY night and source).
 */
import { z } from 'zod';
import { Prisma } from '../../generated/prisma/client.ts';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, daysBetween, localDateOf, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import { clock } from '../../base/clock.ts';

/** Nights per page of the nights list. */
export const NIGHTS_PAGE_DEFAULT = 14;
export const NIGHTS_PAGE_MAX = 100;
/** The longest window of the nights list, in days (ten years). */
export const NIGHTS_SPAN_MAX_DAYS = 3660;
/** The window when `from` is left out: this many days up to `to`. */
const NIGHTS_DEFAULT_DAYS = 366;
/** The most stage intervals one night's read answers (a tracked night has 20..80). */
export const STAGES_MAX = 500;

/** Minutes per stage of one night (of the night's chosen source). */
export interface NightStagesView {
  core: number;
  deep: number;
  rem: number;
  /** asleep without a stage (older devices) */
  asleepUnspecified: number;
  awake: number;
  inBed: number;
}

export interface NightView {
  /** the local date the night ends on */
  date: LocalDate;
  startAt: Date;
  endAt: Date;
  /** the source whose intervals make the totals (the one with the most sleep that night) */
  source: string;
  /** every source that recorded intervals that night */
  sources: string[];
  /** minutes asleep (core, deep, rem and unspecified asleep) */
  asleepMinutes: number;
  /** minutes in bed: the in_bed intervals, or from the first start to the last end without them */
  inBedMinutes: number;
  awakeMinutes: number;
  /** asleep / in bed, percent (0..100), null when in-bed time is 0 */
  efficiency: number | null;
  stages: NightStagesView;
}

export interface NightPageView {
  timezone: string;
  items: NightView[];
  nextCursor: string | null;
}

export interface NightPageOptions {
  /** first local date (inclusive); absent: a year before `to` */
  from?: LocalDate | null;
  /** last local date (inclusive); absent: today */
  to?: LocalDate | null;
  /** nights per page */
  limit: number;
  /** nextCursor of the previous page */
  cursor?: string | null;
}

export interface SleepIntervalView {
  stage: string;
  startAt: Date;
  endAt: Date;
  minutes: number;
  source: string;
}

export interface NightStagesReadView extends NightView {
  timezone: string;
  intervals: SleepIntervalView[];
  /** true when the night holds more than STAGES_MAX intervals (the first ones are answered) */
  truncated: boolean;
}

export interface NightStagesOptions {
  /** the local date the night ends on */
  date: LocalDate;
  /** read this source's intervals; absent: the night's chosen source */
  source?: string | null;
}

interface NightRow {
  night: string;
  source: string;
  sources: string[];
  start_at: Date;
  end_at: Date;
  core: number;
  deep: number;
  rem: number;
  unspecified: number;
  awake: number;
  in_bed: number | null;
  span: number;
}

/** [start, end) of the sleep ending on the nights from..to: 18:00 the day before to 18:00. */
function nightBounds(from: LocalDate, to: LocalDate, zone: string): { start: Date; end: Date } {
  return { start: localTime(addDays(from, -1), 18, zone), end: localTime(to, 18, zone) };
}

const minutes = (stage: string): Prisma.Sql =>
  Prisma.sql`coalesce(sum(s.minutes) FILTER (WHERE s.stage = ${stage}), 0)::float8`;

/** The nights ending from..to, newest first, at most `limit`, each from its chosen source. */
function nightsSql(userId: number, zone: string, from: LocalDate, to: LocalDate, limit: number) {
  const { start, end } = nightBounds(from, to, zone);
  return Prisma.sql`
WITH s AS (
  SELECT stage, start_at, end_at, source,
         to_char(((end_at AT TIME ZONE 'UTC') AT TIME ZONE ${zone}) + interval '6 hours', 'YYYY-MM-DD') AS night,
         extract(epoch FROM end_at - start_at) / 60 AS minutes
  FROM sleep_samples
  WHERE user_id = ${userId}::int AND deleted_at IS NULL
    AND end_at >= (${start.toISOString()}::timestamptz AT TIME ZONE 'UTC')
    AND end_at < (${end.toISOString()}::timestamptz AT TIME ZONE 'UTC')
), per_source AS (
  SELECT s.night, s.source,
         ${minutes('core')} AS core, ${minutes('deep')} AS deep, ${minutes('rem')} AS rem,
         ${minutes('asleep')} AS unspecified, ${minutes('awake')} AS awake,
         (sum(s.minutes) FILTER (WHERE s.stage = 'in_bed'))::float8 AS in_bed,
         min(s.start_at) AS start_at, max(s.end_at) AS end_at,
         (extract(epoch FROM max(s.end_at) - min(s.start_at)) / 60)::float8 AS span
  FROM s GROUP BY s.night, s.source
), ranked AS (
  SELECT p.*,
         row_number() OVER (PARTITION BY p.night
                            ORDER BY p.core + p.deep + p.rem + p.unspecified DESC,
                                     coalesce(p.in_bed, 0) DESC, p.source) AS rk,
         array_agg(p.source) OVER (PARTITION BY p.night) AS sources
  FROM per_source p
)
SELECT night, source, sources, start_at, end_at, core, deep, rem, unspecified, awake, in_bed, span
FROM ranked WHERE rk = 1
ORDER BY night DESC
LIMIT ${limit}`;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

function nightOfRow(r: NightRow): NightView {
  const asleep = r.core + r.deep + r.rem + r.unspecified;
  const inBed = r.in_bed ?? r.span;
  return {
    date: r.night,
    startAt: r.start_at,
    endAt: r.end_at,
    source: r.source,
    sources: [...r.sources].sort(),
    asleepMinutes: round1(asleep),
    inBedMinutes: round1(inBed),
    awakeMinutes: round1(r.awake),
    efficiency: inBed > 0 ? Math.min(100, Math.round((asleep / inBed) * 100)) : null,
    stages: {
      core: round1(r.core),
      deep: round1(r.deep),
      rem: round1(r.rem),
      asleepUnspecified: round1(r.unspecified),
      awake: round1(r.awake),
      inBed: round1(r.in_bed ?? 0),
    },
  };
}

async function nights(
  ctx: AuthedContext,
  zone: string,
  from: LocalDate,
  to: LocalDate,
  limit: number,
): Promise<NightView[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.$queryRaw<NightRow[]>(
    nightsSql(readerUserId(ctx), zone, from, to, limit),
  );
  return rows.map(nightOfRow);
}

/** The night ending on `date` in `zone`, or null without sleep (the day summary's sleep). */
export async function nightOf(
  ctx: AuthedContext,
  options: { date: LocalDate; zone: string },
): Promise<NightView | null> {
  const [night] = await nights(ctx, options.zone, options.date, options.date, 1);
  return night ?? null;
}

/**
 * Every night ending from..to in `zone` (at most one a local date), oldest first, each from its
 * chosen source: the range summary's sleep. One aggregate query, whatever the number of intervals.
 */
export async function nightsEnding(
  ctx: AuthedContext,
  options: { from: LocalDate; to: LocalDate; zone: string },
): Promise<NightView[]> {
  const { from, to, zone } = options;
  return (await nights(ctx, zone, from, to, daysBetween(from, to) + 1)).reverse();
}

const NightCursor = z.tuple([z.string().regex(/^\d{4}-\d{2}-\d{2}$/), z.string().max(10)]);
const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';

function decodeNightCursor(text: string): LocalDate {
  try {
    const parsed = NightCursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString()));
    if (parsed.success && parsed.data[1] === 'night') return parsed.data[0];
  } catch {
    // not base64url JSON: refused below
  }
  throw validationError([{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }]);
}

/**
 * The person's nights ending from..to, newest first, a page at a time (keyset on the night's date:
 * the next page reads the nights before the last one answered).
 */
export async function healthSleepNights(
  ctx: AuthedContext,
  options: NightPageOptions,
): Promise<NightPageView> {
  const zone = await personZone(ctx);
  const to = options.to ?? localDateOf(clock.now(), zone);
  const from = options.from ?? addDays(to, -(NIGHTS_DEFAULT_DAYS - 1));
  if (from > to)
    throw validationError([
      { loc: ['to'], msg: 'to must not be before from', type: 'value_error' },
    ]);
  if (Date.parse(to) - Date.parse(from) >= NIGHTS_SPAN_MAX_DAYS * 86_400_000)
    throw validationError([
      {
        loc: ['from'],
        msg: `the range may span at most ${NIGHTS_SPAN_MAX_DAYS} days: ask for a shorter range`,
        type: 'value_error',
      },
    ]);
  const before = options.cursor ? decodeNightCursor(options.cursor) : null;
  const last = before && addDays(before, -1) < to ? addDays(before, -1) : to;
  const rows = last < from ? [] : await nights(ctx, zone, from, last, options.limit + 1);
  const items = rows.slice(0, options.limit);
  const nextCursor =
    rows.length > options.limit
      ? Buffer.from(JSON.stringify([items.at(-1)!.date, 'night'])).toString('base64url')
      : null;
  return { timezone: zone, items, nextCursor };
}

/**
 * The stage intervals of the night ending on `date` (of its chosen source unless `source` names
 * another), oldest first, at most STAGES_MAX, with the night's totals. NOT_FOUND without sleep.
 */
export async function healthSleepNight(
  ctx: AuthedContext,
  options: NightStagesOptions,
): Promise<NightStagesReadView> {
  const zone = await personZone(ctx);
  const night = await nightOf(ctx, { date: options.date, zone });
  if (!night || (options.source != null && !night.sources.includes(options.source)))
    throw appError(
      'NOT_FOUND',
      `No sleep recorded${options.source != null ? ' by that source' : ''} for the night ending ` +
        `${options.date}: sleep_nights_list names the nights (and their sources) that have sleep`,
    );
  const source = options.source ?? night.source;
  const { start, end } = nightBounds(options.date, options.date, zone);
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  const rows = await ctx.prisma.sleepSample.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      source,
      endAt: { gte: start, lt: end },
    },
    orderBy: [{ startAt: 'asc' }, { id: 'asc' }],
    take: STAGES_MAX + 1,
    select: { stage: true, startAt: true, endAt: true, source: true },
  });
  return {
    ...night,
    timezone: zone,
    intervals: rows.slice(0, STAGES_MAX).map((r) => ({
      ...r,
      minutes: round1((r.endAt.getTime() - r.startAt.getTime()) / 60_000),
    })),
    truncated: rows.length > STAGES_MAX,
  };
}
