/**
 * Room-monitor readings: storing them idempotently (one per device and time, whoever brings them:
 * a webhook delivery or a sync) and reading the person's own a keyset page at a time.
 */
import type { Prisma } from '../../generated/prisma/client.ts';
import { z } from 'zod';
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

/** Longest window a read or a sync covers, in days. */
export const MONITOR_DAYS_MAX = 30;
/** Readings per page of the paged read (a day of 5-minute samples of one monitor is 288). */
export const MONITOR_PAGE_DEFAULT = 288;
export const MONITOR_PAGE_MAX = 1000;

/** A reading as answered. */
export interface MonitorReadingView {
  serialNumber: string;
  recordedAt: Date;
  temperature: number | null;
  humidity: number | null;
  co2: number | null;
  pm25: number | null;
}

/** A reading to store (its owner decided by the caller). */
export interface NewMonitorReading extends MonitorReadingView {
  userId: number | null;
  deliveryId?: number | null;
}

/** A page of readings and the cursor of the next page. */
export interface MonitorReadingPageView {
  items: MonitorReadingView[];
  nextCursor: string | null;
}

export interface MonitorReadingPageOptions {
  /** the window: the last `days` days (1..30) */
  days: number;
  /** only this monitor (its serial number); absent: all the person's monitors */
  serialNumber?: string | null;
  /** readings per page (1..1000) */
  limit: number;
  /** nextCursor of the previous page; absent: the first page */
  cursor?: string | null;
}

type Tx = Prisma.TransactionClient;

/**
 * Stores readings, skipping any whose (device, time) is already stored: a repeat changes nothing.
 * Answers how many were new.
 */
export async function storeReadings(tx: Tx, readings: NewMonitorReading[]): Promise<number> {
  if (readings.length === 0) return 0;
  const { count } = await tx.monitorReading.createMany({ data: readings, skipDuplicates: true });
  return count;
}

const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';
const PageCursor = z.tuple([z.number().int(), z.number().int(), z.number().int()]);

function decodeCursor(text: string): z.infer<typeof PageCursor> {
  try {
    const parsed = PageCursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString()));
    if (parsed.success) return parsed.data;
  } catch {
    // not base64url JSON: refused below
  }
  throw appError('VALIDATION_FAILED', `cursor: ${CURSOR_ISSUE}`, {
    detail: [{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }],
  });
}

/**
 * One page of the person's readings of the last days, newest first (keyset on time and id, so
 * pages never repeat or skip a reading as new ones arrive; the first page fixes the window).
 */
export async function monitorReadingPage(
  ctx: AuthedContext,
  options: MonitorReadingPageOptions,
): Promise<MonitorReadingPageView> {
  const [since, atMs, afterId] = options.cursor
    ? decodeCursor(options.cursor)
    : [clock.ms() - options.days * 86_400_000, 0, 0];
  const at = new Date(atMs);
  const rows = await ctx.prisma.monitorReading.findMany({
    // NOTE: ownership: only the person's (or the viewed owner's) readings, never unattached ones.
    where: {
      userId: readerUserId(ctx),
      recordedAt: { gte: new Date(since) },
      ...(options.serialNumber ? { serialNumber: options.serialNumber } : {}),
      ...(options.cursor
        ? { OR: [{ recordedAt: { lt: at } }, { recordedAt: at, id: { lt: afterId } }] }
        : {}),
    },
    orderBy: [{ recordedAt: 'desc' }, { id: 'desc' }],
    take: options.limit + 1,
  });
  const items = rows.slice(0, options.limit);
  const last = items.at(-1);
  const nextCursor =
    rows.length > options.limit && last
      ? Buffer.from(JSON.stringify([since, last.recordedAt.getTime(), last.id])).toString(
          'base64url',
        )
      : null;
  return { items: items.map(viewOf), nextCursor };
}

/** The answered fields of a stored reading. */
export function viewOf(r: MonitorReadingView): MonitorReadingView {
  return {
    serialNumber: r.serialNumber,
    recordedAt: r.recordedAt,
    temperature: r.temperature,
    humidity: r.humidity,
    co2: r.co2,
    pm25: r.pm25,
  };
}
