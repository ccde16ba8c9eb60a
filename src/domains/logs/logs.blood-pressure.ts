/**
 * Blood pressure: readings (systolic, diastolic, optional pulse) logged by the person, an agent or
 * the phone's push, and the list that groups them into sessions. `blood_pressure_readings` is a
 * synced table (src/domains/sync/README.md): every write here stamps `server_updated_at` from the
 * account's sync clock in the same transaction, and a deletion is a tombstone, so phones learn of it.
 *
 * Session rule (README.md): readings in measured_at order (then id); a reading measured at most
 * SESSION_WINDOW_MS after the first reading of the open session joins it, any later one starts a
 * new session. A session reports the mean systolic, diastolic and pulse of its readings.
 *
 * NOTE: ownership. Writes use `ctx.principal.userId`; reads use readerUserId(ctx) (the owner's data
 * while a grantee views as). Another person's reading, or an unknown or deleted one, is NOT_FOUND.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { advanceSyncClock } from '../../platform/sync-clock.ts';
import { bloodPressureOrderIssue, FUTURE_MS } from './logs.kinds.ts';
import { clock } from '../../base/clock.ts';

/** A reading joins a session when measured at most this long after the session's first reading. */
export const SESSION_WINDOW_MS = 10 * 60_000;
/** Sessions of one page: default and largest `limit`. */
export const SESSIONS_DEFAULT = 50;
export const SESSIONS_MAX = 100;
/** Readings one page reads at most (so that no answer nears 25,000 tokens). */
export const READINGS_PAGE_MAX = 300;
/** The longest range of one list, days; the default range is the last DEFAULT_RANGE_DAYS days. */
export const RANGE_MAX_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;

const DAY_MS = 86_400_000;

export interface BloodPressureReadingView {
  id: string;
  systolic: number;
  diastolic: number;
  pulse: number | null;
  measuredAt: Date;
  source: string;
  note: string | null;
}

/** 2017 ACC/AHA category of a blood pressure (the higher of the two values' categories). */
export type BloodPressureCategory = 'normal' | 'elevated' | 'stage_1' | 'stage_2' | 'crisis';

export interface BloodPressureSessionView {
  startedAt: Date;
  endedAt: Date;
  readingCount: number;
  systolic: number;
  diastolic: number;
  pulse: number | null;
  category: BloodPressureCategory;
  readings: BloodPressureReadingView[];
}

export interface BloodPressureSessionPage {
  from: Date;
  to: Date;
  sessions: BloodPressureSessionView[];
  nextCursor: string | null;
}

export interface ListSessionsOptions {
  /** measured at or after (default DEFAULT_RANGE_DAYS days ago) */
  from?: Date | null;
  /** measured before (default 24 hours from now) */
  to?: Date | null;
  /** at most this many sessions (1..SESSIONS_MAX) */
  limit: number;
  /** nextCursor of the previous page; absent: the first page */
  cursor?: string | null;
}

export interface LogReadingOptions {
  systolic: number;
  diastolic: number;
  /** beats per minute */
  pulse?: number | null;
  /** default now */
  measuredAt?: Date | null;
  note?: string | null;
}

export interface UpdateReadingOptions {
  systolic?: number | null;
  diastolic?: number | null;
  /** null clears the pulse */
  pulse?: number | null;
  measuredAt?: Date | null;
  /** null clears the note */
  note?: string | null;
}

/** 2017 ACC/AHA: crisis >180 or >120; stage 2 >=140 or >=90; stage 1 130-139 or 80-89; elevated 120-129 and <80. */
export function bloodPressureCategory(systolic: number, diastolic: number): BloodPressureCategory {
  if (systolic > 180 || diastolic > 120) return 'crisis';
  if (systolic >= 140 || diastolic >= 90) return 'stage_2';
  if (systolic >= 130 || diastolic >= 80) return 'stage_1';
  if (systolic >= 120) return 'elevated';
  return 'normal';
}

const round1 = (v: number): number => Math.round(v * 10) / 10;
const mean = (values: number[]): number => values.reduce((s, v) => s + v, 0) / values.length;

function sessionOf(readings: BloodPressureReadingView[]): BloodPressureSessionView {
  const pulses = readings.flatMap((r) => (r.pulse === null ? [] : [r.pulse]));
  const systolic = round1(mean(readings.map((r) => r.systolic)));
  const diastolic = round1(mean(readings.map((r) => r.diastolic)));
  return {
    startedAt: readings[0].measuredAt,
    endedAt: readings.at(-1)!.measuredAt,
    readingCount: readings.length,
    systolic,
    diastolic,
    pulse: pulses.length ? round1(mean(pulses)) : null,
    category: bloodPressureCategory(systolic, diastolic),
    readings,
  };
}

/** Readings (in measured_at order) grouped by the session rule of this file's header. */
export function groupSessions(
  readings: readonly BloodPressureReadingView[],
): BloodPressureReadingView[][] {
  const groups: BloodPressureReadingView[][] = [];
  let first = -Infinity;
  for (const r of readings) {
    const t = r.measuredAt.getTime();
    if (t - first <= SESSION_WINDOW_MS) groups.at(-1)!.push(r);
    else {
      groups.push([r]);
      first = t;
    }
  }
  return groups;
}

const CURSOR_ISSUE = 'not a cursor of this list: pass next_cursor of the previous page';
const PageCursor = z.tuple([z.number().int(), z.string().min(1).max(64)]);

function decodeCursor(text: string): z.infer<typeof PageCursor> {
  try {
    const parsed = PageCursor.safeParse(JSON.parse(Buffer.from(text, 'base64url').toString()));
    if (parsed.success) return parsed.data;
  } catch {
    // falls through to the validation error
  }
  throw validationError([{ loc: ['cursor'], msg: CURSOR_ISSUE, type: 'value_error' }]);
}

const encodeCursor = (r: BloodPressureReadingView): string =>
  Buffer.from(JSON.stringify([r.measuredAt.getTime(), r.id])).toString('base64url');

function rangeOf(options: ListSessionsOptions): { from: Date; to: Date } {
  const now = clock.ms();
  const to = options.to ?? new Date(now + FUTURE_MS);
  const from = options.from ?? new Date(now - DEFAULT_RANGE_DAYS * DAY_MS);
  if (from >= to)
    throw validationError([{ loc: ['from'], msg: 'from must be before to', type: 'value_error' }]);
  if (to.getTime() - from.getTime() > RANGE_MAX_DAYS * DAY_MS)
    throw validationError([
      {
        loc: ['from'],
        msg: `the range must not exceed ${RANGE_MAX_DAYS} days`,
        type: 'value_error',
      },
    ]);
  return { from, to };
}

const readingSelect = {
  id: true,
  systolic: true,
  diastolic: true,
  pulse: true,
  measuredAt: true,
  source: true,
  note: true,
} as const;

/**
 * The person's readings in [from, to) grouped into sessions, oldest first, `limit` sessions a page.
 * A page reads at most READINGS_PAGE_MAX readings: when the read is cut there, its last session
 * (which may go on) waits for the next page, unless it is the page's only session.
 */
export async function bloodPressureSessions(
  ctx: AuthedContext,
  options: ListSessionsOptions,
): Promise<BloodPressureSessionPage> {
  const { from, to } = rangeOf(options);
  const after = options.cursor ? decodeCursor(options.cursor) : null;
  const afterAt = after ? new Date(after[0]) : null;
  const rows = await ctx.prisma.bloodPressureReading.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      measuredAt: { gte: from, lt: to },
      ...(after && afterAt
        ? {
            OR: [{ measuredAt: { gt: afterAt } }, { measuredAt: afterAt, id: { gt: after[1] } }],
          }
        : {}),
    },
    orderBy: [{ measuredAt: 'asc' }, { id: 'asc' }],
    take: READINGS_PAGE_MAX + 1,
    select: readingSelect,
  });
  const cut = rows.length > READINGS_PAGE_MAX;
  let groups = groupSessions(rows.slice(0, READINGS_PAGE_MAX));
  let more = cut;
  if (groups.length > options.limit) {
    groups = groups.slice(0, options.limit);
    more = true;
  } else if (cut && groups.length > 1) groups = groups.slice(0, -1);
  const last = groups.at(-1)?.at(-1);
  return {
    from,
    to,
    sessions: groups.map(sessionOf),
    nextCursor: more && last ? encodeCursor(last) : null,
  };
}

/** The person's live readings measured in [start, end), oldest first (insights' blood-pressure score). */
export async function bloodPressureBetween(
  ctx: AuthedContext,
  range: { start: Date; end: Date },
): Promise<{ systolic: number; diastolic: number; measuredAt: Date }[]> {
  return ctx.prisma.bloodPressureReading.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      measuredAt: { gte: range.start, lt: range.end },
    },
    orderBy: { measuredAt: 'asc' },
    select: { systolic: true, diastolic: true, measuredAt: true },
  });
}

function checkOrder(systolic: number, diastolic: number): void {
  const msg = bloodPressureOrderIssue(systolic, diastolic);
  if (msg) throw validationError([{ loc: ['input', 'diastolic'], msg, type: 'value_error' }]);
}

const sourceOf = (ctx: AuthedContext): string => (ctx.via === 'mcp' ? 'mcp' : 'manual');
const readingNotFound = (): Error =>
  appError('NOT_FOUND', 'Blood pressure reading not found: list readings with bp_readings_list');

/** Logs a reading of the caller; answers the stored reading. */
export async function logBloodPressureReading(
  ctx: AuthedContext,
  options: LogReadingOptions,
): Promise<BloodPressureReadingView> {
  checkOrder(options.systolic, options.diastolic);
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    const stamp = new Date(await advanceSyncClock(tx, userId));
    return tx.bloodPressureReading.create({
      data: {
        id: randomUUID(),
        userId,
        systolic: options.systolic,
        diastolic: options.diastolic,
        pulse: options.pulse ?? null,
        measuredAt: options.measuredAt ?? clock.now(),
        note: options.note ?? null,
        source: sourceOf(ctx),
        createdAt: stamp,
        serverUpdatedAt: stamp,
      },
      select: readingSelect,
    });
  });
}

/** The caller's live reading, locked until the transaction ends; NOT_FOUND otherwise. */
async function lockReading(
  tx: DbTx,
  userId: number,
  id: string,
): Promise<BloodPressureReadingView> {
  // NOTE: the caller's own live reading only.
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM blood_pressure_readings
     WHERE id = ${id}::text AND user_id = ${userId}::int AND deleted_at IS NULL FOR UPDATE`;
  if (!rows.length) throw readingNotFound();
  return tx.bloodPressureReading.findUniqueOrThrow({ where: { id }, select: readingSelect });
}

/** Changes a reading of the caller: fields given are set (null clears pulse or note). */
export async function updateBloodPressureReading(
  ctx: AuthedContext,
  id: string,
  options: UpdateReadingOptions,
): Promise<BloodPressureReadingView> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    const current = await lockReading(tx, userId, id);
    const systolic = options.systolic ?? current.systolic;
    const diastolic = options.diastolic ?? current.diastolic;
    checkOrder(systolic, diastolic);
    const stamp = new Date(await advanceSyncClock(tx, userId));
    return tx.bloodPressureReading.update({
      where: { id },
      data: {
        systolic,
        diastolic,
        pulse: options.pulse,
        measuredAt: options.measuredAt ?? undefined,
        note: options.note,
        serverUpdatedAt: stamp,
      },
      select: readingSelect,
    });
  });
}

/** Deletes a reading of the caller (a tombstone, so phones learn of it). */
export async function deleteBloodPressureReading(
  ctx: AuthedContext,
  id: string,
): Promise<{ deleted: number }> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    await lockReading(tx, userId, id);
    const stamp = new Date(await advanceSyncClock(tx, userId));
    await tx.bloodPressureReading.update({
      where: { id },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    return { deleted: 1 };
  });
}
