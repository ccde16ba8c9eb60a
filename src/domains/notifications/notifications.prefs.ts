/**
 * Notification preferences: categories on, quiet hours (local "HH:MM" in a stored IANA zone) and
 * the tone. A person with no row has the defaults. Sends read them through `pushPolicyOf`.
 */
import { readerUserId } from '../../auth/principal.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { localMinutesOf } from '../../platform/local-dates.ts';
import { zoneOrUtc } from '../../platform/time-zones.ts';
import { personZone } from '../profile/index.ts';
import { NOTIFICATION_CATEGORIES, minutesOf } from './notifications.catalogue.ts';
import type { NotificationCategory } from './notifications.catalogue.ts';
import { listReminders } from './notifications.reminders.ts';
import type { ReminderView } from './notifications.reminders.ts';
import { clock } from '../../base/clock.ts';

export interface PrefsView {
  categories: NotificationCategory[];
  quietStart: string | null;
  quietEnd: string | null;
  timeZone: string;
  tone: string;
  /** whether quiet hours hold right now */
  quietNow: boolean;
  reminders: ReminderView[];
}

export interface SetPrefsOptions {
  /** the categories to receive pushes for (the whole set; omitted: unchanged) */
  categories?: NotificationCategory[] | null;
  /** quiet hours start, local "HH:MM" (null with quietEnd null: no quiet hours; omitted: unchanged) */
  quietStart?: string | null;
  /** quiet hours end, local "HH:MM" (before the start: the quiet hours span midnight) */
  quietEnd?: string | null;
  /** the IANA zone of the quiet hours (omitted: unchanged, first time the profile's zone) */
  timeZone?: string | null;
  /** a tone id of the shipped catalogue (omitted: unchanged) */
  tone?: string | null;
}

/** What a send needs to know of a person's preferences. */
export interface PushPolicy {
  categories: ReadonlySet<string>;
  tone: string;
  /** whether quiet hours hold at `now` */
  quietAt(now: Date): boolean;
}

interface PrefsRow {
  categories: string[];
  quietStart: string | null;
  quietEnd: string | null;
  timeZone: string;
  tone: string;
}

const DEFAULTS: Omit<PrefsRow, 'timeZone'> = {
  categories: [...NOTIFICATION_CATEGORIES],
  quietStart: null,
  quietEnd: null,
  tone: 'default',
};

const select = {
  categories: true,
  quietStart: true,
  quietEnd: true,
  timeZone: true,
  tone: true,
} as const;

/** Whether `now` falls in [start, end) local time; an end before the start spans midnight. */
function inQuietHours(row: PrefsRow, now: Date): boolean {
  if (!row.quietStart || !row.quietEnd) return false;
  const m = localMinutesOf(now, zoneOrUtc(row.timeZone));
  const start = minutesOf(row.quietStart);
  const end = minutesOf(row.quietEnd);
  return start < end ? m >= start && m < end : m >= start || m < end;
}

async function prefsRow(ctx: Context, userId: number): Promise<PrefsRow | null> {
  return ctx.prisma.notificationPrefs.findUnique({ where: { userId }, select });
}

/** The preferences a send to `userId` honours (the defaults when none are stored). */
export async function pushPolicyOf(ctx: Context, userId: number): Promise<PushPolicy> {
  const row = (await prefsRow(ctx, userId)) ?? { ...DEFAULTS, timeZone: 'UTC' };
  return {
    categories: new Set(row.categories),
    tone: row.tone,
    quietAt: (now) => inQuietHours(row, now),
  };
}

function view(row: PrefsRow, reminders: ReminderView[]): PrefsView {
  return {
    ...row,
    categories: NOTIFICATION_CATEGORIES.filter((c) => row.categories.includes(c)),
    quietNow: inQuietHours(row, clock.now()),
    reminders,
  };
}

/** The caller's preferences and reminders (the defaults, in the profile's zone, until set). */
export async function notificationPrefs(ctx: AuthedContext): Promise<PrefsView> {
  // NOTE: the person's data: the owner's while a grantee views as (reads only).
  const userId = readerUserId(ctx);
  const row = (await prefsRow(ctx, userId)) ?? { ...DEFAULTS, timeZone: await personZone(ctx) };
  return view(row, await listReminders(ctx));
}

/** Sets the caller's preferences; omitted fields keep their value. */
export async function setNotificationPrefs(
  ctx: AuthedContext,
  options: SetPrefsOptions,
): Promise<PrefsView> {
  const userId = ctx.principal.userId;
  const current = (await prefsRow(ctx, userId)) ?? {
    ...DEFAULTS,
    timeZone: await personZone(ctx),
  };
  const quietGiven = options.quietStart !== undefined || options.quietEnd !== undefined;
  const next: PrefsRow = {
    categories: options.categories ?? current.categories,
    quietStart: quietGiven ? (options.quietStart ?? null) : current.quietStart,
    quietEnd: quietGiven ? (options.quietEnd ?? null) : current.quietEnd,
    timeZone: options.timeZone ?? current.timeZone,
    tone: options.tone ?? current.tone,
  };
  // NOTE: keyed by the caller: a person only ever writes their own preferences.
  const row = await ctx.prisma.notificationPrefs.upsert({
    where: { userId },
    create: { userId, ...next },
    update: next,
    select,
  });
  return view(row, await listReminders(ctx));
}
