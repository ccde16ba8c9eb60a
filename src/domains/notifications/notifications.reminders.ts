/**
 * Reminders: a label, a local time, weekdays and a time zone. The phone schedules each enabled
 * reminder as a local notification from these fields (it fires offline and needs no push); the
 * server stores them, checks them and computes `nextAt`, the next instant it fires (DST-aware), so
 * every client schedules the same moment. The server sends no reminder pushes itself.
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, isoWeekday, localDateOf, localTime } from '../../platform/local-dates.ts';
import { zoneOrUtc } from '../../platform/time-zones.ts';
import { personZone } from '../profile/index.ts';
import { minutesOf } from './notifications.catalogue.ts';
import { clock } from '../../base/clock.ts';

/** Reminders one person may keep. */
export const REMINDERS_MAX = 50;

export interface ReminderView {
  id: string;
  label: string;
  localTime: string;
  days: number[];
  timeZone: string;
  enabled: boolean;
  /** the next instant it fires; null while disabled */
  nextAt: Date | null;
  createdAt: Date;
}

export interface AddReminderOptions {
  /** what to be reminded of */
  label: string;
  /** local "HH:MM" */
  localTime: string;
  /** ISO weekdays, 1 (Monday) .. 7 (Sunday), each at most once */
  days: number[];
  /** the IANA zone the time is read in (default: the profile's zone) */
  timeZone?: string | null;
}

export interface ToggleReminderOptions {
  /** one of the caller's reminders */
  id: string;
  /** on or off */
  enabled: boolean;
}

export interface ReminderIdOptions {
  /** one of the caller's reminders */
  id: string;
}

const select = {
  id: true,
  label: true,
  localTime: true,
  days: true,
  timeZone: true,
  enabled: true,
  createdAt: true,
} as const;

type ReminderRow = Omit<ReminderView, 'nextAt'>;

/** The next instant after `now` the reminder fires (its local time on one of its weekdays). */
export function nextFireAt(row: ReminderRow, now: Date = clock.now()): Date | null {
  if (!row.enabled || !row.days.length) return null;
  const zone = zoneOrUtc(row.timeZone);
  const today = localDateOf(now, zone);
  for (let i = 0; i <= 7; i++) {
    const date = addDays(today, i);
    if (!row.days.includes(isoWeekday(date))) continue;
    const at = localTime(date, minutesOf(row.localTime) / 60, zone);
    if (at > now) return new Date(Math.round(at.getTime() / 60_000) * 60_000);
  }
  return null;
}

const view = (row: ReminderRow): ReminderView => ({ ...row, nextAt: nextFireAt(row) });

/** The caller's reminders, oldest first. */
export async function listReminders(ctx: AuthedContext): Promise<ReminderView[]> {
  // NOTE: the person's data: the owner's while a grantee views as (reads only).
  const rows = await ctx.prisma.notificationReminder.findMany({
    where: { userId: readerUserId(ctx) },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: REMINDERS_MAX,
    select,
  });
  return rows.map(view);
}

/** Adds a reminder for the caller (at most REMINDERS_MAX; beyond, 409). */
export async function addNotificationReminder(
  ctx: AuthedContext,
  options: AddReminderOptions,
): Promise<ReminderView> {
  const userId = ctx.principal.userId;
  const count = await ctx.prisma.notificationReminder.count({ where: { userId } });
  if (count >= REMINDERS_MAX)
    throw appError('CONFLICT', `At most ${REMINDERS_MAX} reminders; delete one first`, {
      detail: { code: 'too_many_reminders', limit: REMINDERS_MAX },
    });
  const row = await ctx.prisma.notificationReminder.create({
    data: {
      userId,
      label: options.label,
      localTime: options.localTime,
      days: [...new Set(options.days)].sort((a, b) => a - b),
      timeZone: options.timeZone ?? (await personZone(ctx)),
    },
    select,
  });
  return view(row);
}

/** Turns one of the caller's reminders on or off; another person's id answers NOT_FOUND. */
export async function toggleNotificationReminder(
  ctx: AuthedContext,
  options: ToggleReminderOptions,
): Promise<ReminderView> {
  // NOTE: ownership is in the where: another person's reminder is "not found".
  const { count } = await ctx.prisma.notificationReminder.updateMany({
    where: { id: options.id, userId: ctx.principal.userId },
    data: { enabled: options.enabled },
  });
  if (!count) throw appError('NOT_FOUND', 'Reminder not found');
  return view(
    await ctx.prisma.notificationReminder.findUniqueOrThrow({ where: { id: options.id }, select }),
  );
}

/** Deletes one of the caller's reminders and answers it; another person's id answers NOT_FOUND. */
export async function deleteNotificationReminder(
  ctx: AuthedContext,
  options: ReminderIdOptions,
): Promise<ReminderView> {
  // NOTE: ownership is in the where: another person's reminder is "not found".
  const row = await ctx.prisma.notificationReminder.findFirst({
    where: { id: options.id, userId: ctx.principal.userId },
    select,
  });
  if (!row) throw appError('NOT_FOUND', 'Reminder not found');
  await ctx.prisma.notificationReminder.deleteMany({
    where: { id: options.id, userId: ctx.principal.userId },
  });
  return { ...row, enabled: false, nextAt: null };
}
