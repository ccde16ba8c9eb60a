/**
 * Snoring nights (issue 16): the phone measures them and pushes them through sync; agents list,
 * read and delete them. A night's date is the local date, in the person's zone, of the morning it
 * ends (ended_at + 6 h: a night ending before 18:00 belongs to that day, as insights count sleep).
 *
 * NOTE: ownership. Reads use readerUserId(ctx) (the owner's nights while a grantee views as);
 * deletion uses ctx.principal.userId. Another person's night, or a deleted one, is NOT_FOUND.
 */
import { z } from 'zod';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, daysBetween, localDateOf, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { syncedWrite } from '../../platform/sync-clock.ts';
import { personZone } from '../profile/index.ts';
import { deleteStoredFiles } from '../../integrations/storage.ts';
import { clock } from '../../base/clock.ts';

/** Longest range of one list, in days. */
export const SNORE_RANGE_DAYS_MAX = 366;
export const SNORE_PAGE_DEFAULT = 30;
export const SNORE_PAGE_MAX = 100;
/** Hours added to a night's end before taking its local date (18:00 ends the day's night). */
const NIGHT_SHIFT_MS = 6 * 3_600_000;

export interface SnoreClipView {
  key: string;
  mimeType: string;
  bytes: number;
  createdAt: Date;
}

export interface SnoreNightView {
  id: string;
  nightDate: LocalDate;
  /** the IANA zone nightDate is local to (the person's profile zone, UTC when unset) */
  timeZone: string;
  startedAt: Date;
  endedAt: Date;
  snoringMinutes: number;
  snoringPercent: number | null;
  loudnessMeanDb: number | null;
  loudnessMaxDb: number | null;
  episodes: number;
  source: string;
  clips: SnoreClipView[];
}

export interface SnoreNightPageView {
  from: LocalDate;
  to: LocalDate;
  timezone: string;
  items: SnoreNightView[];
  nextCursor: string | null;
}

export interface SnoreNightsOptions {
  /** first night date (default: to - days + 1) */
  from?: LocalDate | null;
  /** last night date (default: today in the person's zone) */
  to?: LocalDate | null;
  /** the last N nights ending at `to`, when from is not given */
  days: number;
  /** nights per page */
  limit: number;
  /** nextCursor of the previous page */
  cursor?: string | null;
}

export interface SnoreNightOptions {
  /** the night's id */
  id: string;
}

type NightRow = {
  id: string;
  startedAt: Date;
  endedAt: Date;
  snoringMinutes: number;
  snoringPercent: number | null;
  loudnessMeanDb: number | null;
  loudnessMaxDb: number | null;
  episodes: number;
  source: string;
  clips: SnoreClipView[];
};

const clipSelect = { key: true, mimeType: true, bytes: true, createdAt: true } as const;

const viewOf = (n: NightRow, zone: string): SnoreNightView => ({
  id: n.id,
  nightDate: localDateOf(new Date(n.endedAt.getTime() + NIGHT_SHIFT_MS), zone),
  timeZone: zone,
  startedAt: n.startedAt,
  endedAt: n.endedAt,
  snoringMinutes: n.snoringMinutes,
  snoringPercent: n.snoringPercent,
  loudnessMeanDb: n.loudnessMeanDb,
  loudnessMaxDb: n.loudnessMaxDb,
  episodes: n.episodes,
  source: n.source,
  clips: n.clips,
});

const rangeError = (loc: string, msg: string) =>
  validationError([{ loc: [loc], msg, type: 'value_error' }]);

const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';
const Cursor = z.tuple([z.number().int(), z.string().min(1).max(64)]);

function decodeCursor(text: string): z.infer<typeof Cursor> {
  try {
    const parsed = Cursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString()));
    if (parsed.success) return parsed.data;
  } catch {
    // not base64url JSON: refused below
  }
  throw rangeError('cursor', CURSOR_ISSUE);
}

/** The [start, end) instants of the nights dated from..to. */
export function nightWindow(
  from: LocalDate,
  to: LocalDate,
  zone: string,
): { start: Date; end: Date } {
  return { start: localTime(addDays(from, -1), 18, zone), end: localTime(to, 18, zone) };
}

/** One page of the person's snoring nights dated from..to, newest first (keyset: end, id). */
export async function snoreNights(
  ctx: AuthedContext,
  options: SnoreNightsOptions,
): Promise<SnoreNightPageView> {
  const zone = await personZone(ctx);
  const to = options.to ?? localDateOf(clock.now(), zone);
  const from = options.from ?? addDays(to, -(options.days - 1));
  if (daysBetween(from, to) < 0) throw rangeError('from', 'from must not be after to');
  if (daysBetween(from, to) >= SNORE_RANGE_DAYS_MAX) {
    throw rangeError('from', `the range must not exceed ${SNORE_RANGE_DAYS_MAX} days`);
  }
  const { start, end } = nightWindow(from, to, zone);
  const after = options.cursor ? decodeCursor(options.cursor) : null;
  const rows = await ctx.prisma.snoreNight.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      endedAt: { gte: start, lt: end },
      ...(after
        ? {
            OR: [
              { endedAt: { lt: new Date(after[0]) } },
              { endedAt: new Date(after[0]), id: { lt: after[1] } },
            ],
          }
        : {}),
    },
    orderBy: [{ endedAt: 'desc' }, { id: 'desc' }],
    take: options.limit + 1,
    include: { clips: { select: clipSelect, orderBy: { id: 'asc' } } },
  });
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > options.limit && last
      ? Buffer.from(JSON.stringify([last.endedAt.getTime(), last.id])).toString('base64url')
      : null;
  return { from, to, timezone: zone, items: items.map((n) => viewOf(n, zone)), nextCursor };
}

const notFound = () =>
  appError(
    'NOT_FOUND',
    'Snoring night not found: snore_nights_list lists the nights and their ids',
  );

/** One of the person's snoring nights with its audio clips. */
export async function snoreNight(
  ctx: AuthedContext,
  options: SnoreNightOptions,
): Promise<SnoreNightView> {
  const [zone, night] = await Promise.all([
    personZone(ctx),
    ctx.prisma.snoreNight.findFirst({
      where: { id: options.id, userId: readerUserId(ctx), deletedAt: null },
      include: { clips: { select: clipSelect, orderBy: { id: 'asc' } } },
    }),
  ]);
  if (!night) throw notFound();
  return viewOf(night, zone);
}

/** The person's latest night ending in [start, end), or null. */
export async function latestSnoreNight(
  ctx: AuthedContext,
  window: { start: Date; end: Date },
): Promise<SnoreNightView | null> {
  const [zone, night] = await Promise.all([
    personZone(ctx),
    ctx.prisma.snoreNight.findFirst({
      where: {
        userId: readerUserId(ctx),
        deletedAt: null,
        endedAt: { gte: window.start, lt: window.end },
      },
      orderBy: [{ endedAt: 'desc' }, { id: 'desc' }],
      include: { clips: { select: clipSelect, orderBy: { id: 'asc' } } },
    }),
  ]);
  return night ? viewOf(night, zone) : null;
}

export interface SnoreNightDeletedView {
  id: string;
  deleted: boolean;
  /** audio clips removed with it */
  clipsRemoved: number;
}

/**
 * Deletes one of the caller's nights: a tombstone the phone pulls, and its audio clips (rows and
 * stored files) are removed.
 */
export async function deleteSnoreNight(
  ctx: AuthedContext,
  options: SnoreNightOptions,
): Promise<SnoreNightDeletedView> {
  const userId = ctx.principal.userId;
  const keys = await syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const stamp = new Date(ts);
    const { count } = await tx.snoreNight.updateMany({
      where: { id: options.id, userId, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    if (!count) throw notFound();
    const clips = await tx.snoreAudioClip.findMany({
      where: { nightId: options.id, userId },
      select: { key: true },
    });
    await tx.snoreAudioClip.deleteMany({ where: { nightId: options.id, userId } });
    return clips.map((c) => c.key);
  });
  await deleteStoredFiles(ctx, keys, 'a snoring clip');
  return { id: options.id, deleted: true, clipsRemoved: keys.length };
}
