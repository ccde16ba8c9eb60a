/**
 * Notifications: preferences (categories, quiet hours, tone), the inbox, reminders, the tone
 * catalogue, a test push; and for admins the list of sent notifications and a send to one person.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isTimeZone } from '../../platform/time-zones.ts';
import {
  CATEGORY_DESCRIPTIONS,
  HH_MM,
  NOTIFICATION_CATEGORIES,
  NOTIFICATION_SOURCES,
  notificationTones,
  TONE_IDS,
} from './notifications.catalogue.ts';
import type { NotificationCategory, PushStatus, ToneView } from './notifications.catalogue.ts';
import {
  leadsTo,
  notificationInbox,
  markNotificationsRead,
  openNotification,
} from './notifications.inbox.ts';
import type { InboxItemView, MarkReadView } from './notifications.inbox.ts';
import { notificationPrefs, setNotificationPrefs } from './notifications.prefs.ts';
import type { PrefsView } from './notifications.prefs.ts';
import {
  addNotificationReminder,
  deleteNotificationReminder,
  toggleNotificationReminder,
} from './notifications.reminders.ts';
import type { ReminderView } from './notifications.reminders.ts';
import {
  adminNotifications,
  sendAdminNotification,
  sendTestNotification,
} from './notifications.send.ts';
import type { SendResultView } from './notifications.send.ts';

/** Inbox and admin list pages. */
const PAGE_DEFAULT = 50;
const PAGE_MAX = 100;
/** Longest title, body, reminder label and link. */
const TITLE_MAX = 100;
const BODY_MAX = 1000;
const LABEL_MAX = 100;
const LINK_MAX = 500;
/** Items one mark-read call names. */
const MARK_MAX = 100;

const id = z.string().trim().min(1).max(100);
const hhmm = z.string().regex(HH_MM, { message: 'a local time "HH:MM" (00:00 to 23:59)' });
const zone = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: 'an IANA time zone such as Europe/Berlin' });
const categories = z.enum(NOTIFICATION_CATEGORIES);
const text = (max: number) => z.string().trim().min(1).max(max);

const NotificationCategoryEnum = builder.enumType('NotificationCategory', {
  description: 'What a notification is about; each can be turned off',
  values: Object.fromEntries(
    NOTIFICATION_CATEGORIES.map((c) => [c, { value: c, description: CATEGORY_DESCRIPTIONS[c] }]),
  ) as Record<NotificationCategory, { value: NotificationCategory; description: string }>,
});

const PushStatusEnum = builder.enumType('PushStatus', {
  description: "What happened to a notification's push",
  values: {
    sent: { value: 'sent', description: "pushed; at least one device's push service accepted it" },
    no_devices: { value: 'no_devices', description: 'the person has no registered phone' },
    category_off: { value: 'category_off', description: 'the person turned the category off' },
    quiet_hours: { value: 'quiet_hours', description: "held back: the person's quiet hours" },
    failed: { value: 'failed', description: "every device's push service refused it" },
    not_configured: {
      value: 'not_configured',
      description: 'not pushed: the server has no push service configured (PUSH_HTTP_URL)',
    },
  } as const,
});

const NotificationTone = builder.objectRef<ToneView>('NotificationTone').implement({
  description: 'A notification sound the app ships',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'what preferences store' }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
  }),
});

const NotificationReminder = builder.objectRef<ReminderView>('NotificationReminder').implement({
  description: 'A reminder: a local time on chosen weekdays; the phone schedules it locally',
  fields: (t) => ({
    id: t.exposeString('id'),
    label: t.exposeString('label'),
    localTime: t.exposeString('localTime', { description: 'local "HH:MM"' }),
    days: t.exposeIntList('days', { description: 'ISO weekdays, 1 (Monday) .. 7 (Sunday)' }),
    timeZone: t.exposeString('timeZone', { description: 'the IANA zone localTime is read in' }),
    enabled: t.exposeBoolean('enabled'),
    nextAt: t.expose('nextAt', {
      type: 'DateTime',
      nullable: true,
      description: 'the next instant it fires (null while disabled)',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const NotificationPrefs = builder.objectRef<PrefsView>('NotificationPrefs').implement({
  description: "The person's notification preferences and reminders",
  fields: (t) => ({
    categories: t.field({
      type: [NotificationCategoryEnum],
      description: 'the categories pushed (the others stay in the inbox, unpushed)',
      resolve: (p) => p.categories,
    }),
    quietStart: t.exposeString('quietStart', {
      nullable: true,
      description: 'quiet hours start, local "HH:MM" (null: no quiet hours)',
    }),
    quietEnd: t.exposeString('quietEnd', {
      nullable: true,
      description: 'quiet hours end, local "HH:MM"; before the start: they span midnight',
    }),
    timeZone: t.exposeString('timeZone', { description: 'the IANA zone of the quiet hours' }),
    quietNow: t.exposeBoolean('quietNow', { description: 'whether quiet hours hold now' }),
    tone: t.exposeString('tone', { description: 'the chosen tone id (notificationTones)' }),
    reminders: t.expose('reminders', { type: [NotificationReminder] }),
  }),
});

export const NotificationItem = builder.objectRef<InboxItemView>('NotificationItem').implement({
  description: 'A notification sent to a person (an inbox item)',
  fields: (t) => ({
    id: t.exposeString('id'),
    userId: t.exposeInt('userId', { description: 'the person it was sent to' }),
    category: t.field({
      type: NotificationCategoryEnum,
      resolve: (n) => n.category as NotificationCategory,
    }),
    title: t.exposeString('title'),
    body: t.exposeString('body'),
    link: t.exposeString('link', { nullable: true, description: 'its own deep link, if any' }),
    leadsTo: t.string({
      description: "where opening it leads in the app: its link, else its category's screen",
      resolve: (n) => leadsTo(n),
    }),
    source: t.exposeString('source', { description: NOTIFICATION_SOURCES.join(', ') }),
    pushStatus: t.field({ type: PushStatusEnum, resolve: (n) => n.pushStatus as PushStatus }),
    devicesSent: t.exposeInt('devicesSent', { description: 'devices the push reached' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    readAt: t.expose('readAt', { type: 'DateTime', nullable: true }),
    openedAt: t.expose('openedAt', { type: 'DateTime', nullable: true }),
  }),
});

const NotificationSendResult = builder
  .objectRef<SendResultView>('NotificationSendResult')
  .implement({
    description: 'What a send did: the inbox item, and the push to how many devices',
    fields: (t) => ({
      notification: t.expose('notification', { type: NotificationItem }),
      pushStatus: t.field({ type: PushStatusEnum, resolve: (r) => r.pushStatus }),
      devices: t.exposeInt('devices', { description: "the person's registered phones" }),
      sent: t.exposeInt('sent', { description: 'phones whose push service accepted it' }),
      retired: t.exposeInt('retired', { description: 'dead push tokens retired by this send' }),
      tone: t.exposeString('tone', { description: 'the tone it played' }),
    }),
  });

const NotificationsMarked = builder.objectRef<MarkReadView>('NotificationsMarked').implement({
  description: 'How many items a mark-read call changed',
  fields: (t) => ({ marked: t.exposeInt('marked') }),
});

const SetNotificationPrefsInput = builder.inputType('SetNotificationPrefsInput', {
  description: 'Notification preferences to change (omitted fields stay as they are)',
  fields: (t) => ({
    categories: t.field({
      type: [NotificationCategoryEnum],
      description: 'the categories to push (the whole set)',
    }),
    quietStart: t.string({ description: 'quiet hours start, local "HH:MM"; null to turn off' }),
    quietEnd: t.string({ description: 'quiet hours end, local "HH:MM"; null to turn off' }),
    timeZone: t.string({ description: 'IANA zone of the quiet hours (default: the profile zone)' }),
    tone: t.string({ description: `a tone id: ${TONE_IDS.join(', ')}` }),
  }),
  validate: z
    .object({
      categories: z.array(categories).max(NOTIFICATION_CATEGORIES.length).nullish(),
      quietStart: hhmm.nullish(),
      quietEnd: hhmm.nullish(),
      timeZone: zone.nullish(),
      tone: z.enum(TONE_IDS).nullish(),
    })
    .refine((v) => (v.quietStart == null) === (v.quietEnd == null), {
      message: 'quiet_start and quiet_end are set (or cleared) together',
      path: ['quietEnd'],
    })
    .refine((v) => v.quietStart == null || v.quietStart !== v.quietEnd, {
      message: 'quiet_end must differ from quiet_start',
      path: ['quietEnd'],
    }),
});

const AddReminderInput = builder.inputType('AddNotificationReminderInput', {
  description: 'A reminder to add',
  fields: (t) => ({
    label: t.string({ required: true, description: `what to remind of (1..${LABEL_MAX})` }),
    localTime: t.string({ required: true, description: 'local "HH:MM"' }),
    days: t.intList({
      required: true,
      description: 'ISO weekdays, 1 (Monday) .. 7 (Sunday), 1 to 7 of them',
    }),
    timeZone: t.string({ description: 'IANA zone (default: the profile zone)' }),
  }),
  validate: z.object({
    label: text(LABEL_MAX),
    localTime: hhmm,
    days: z.array(z.number().int().min(1).max(7)).min(1).max(7),
    timeZone: zone.nullish(),
  }),
});

const AdminSendInput = builder.inputType('AdminNotificationSendInput', {
  description: 'A notification an admin sends to one person',
  fields: (t) => ({
    userId: t.int({ required: true, description: 'the person' }),
    title: t.string({ required: true, description: `1..${TITLE_MAX} characters` }),
    body: t.string({ required: true, description: `1..${BODY_MAX} characters` }),
    category: t.field({ type: NotificationCategoryEnum, required: true }),
    link: t.string({ description: 'where it leads: an app:// or https:// link' }),
  }),
  validate: z.object({
    userId: z.number().int().min(1).max(2_147_483_647),
    title: text(TITLE_MAX),
    body: text(BODY_MAX),
    category: categories,
    link: z
      .string()
      .max(LINK_MAX)
      .regex(/^(app|https):\/\/\S+$/, { message: 'an app:// or https:// link' })
      .nullish(),
  }),
});

builder.queryFields((t) => ({
  notificationPrefs: t.withAuth({ scope: 'notifications:read' }).field({
    type: NotificationPrefs,
    description: "The person's notification preferences and reminders",
    resolve: (_root, _args, ctx) => notificationPrefs(ctx),
  }),
  notificationInbox: t.withAuth({ scope: 'notifications:read' }).field({
    type: [NotificationItem],
    description: "One page of the person's notifications, newest first",
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: PAGE_DEFAULT,
        description: `items per page (1..${PAGE_MAX})`,
        validate: z.number().int().min(1).max(PAGE_MAX),
      }),
      offset: t.arg.int({
        required: true,
        defaultValue: 0,
        description: 'items skipped',
        validate: z.number().int().min(0).max(10_000_000),
      }),
      unreadOnly: t.arg.boolean({
        required: true,
        defaultValue: false,
        description: 'only unread items',
      }),
    },
    resolve: (_root, args, ctx) => notificationInbox(ctx, args),
  }),
  notificationTones: t.withAuth({ scope: 'notifications:read' }).field({
    type: [NotificationTone],
    description: 'The notification tones the app ships',
    resolve: () => notificationTones(),
  }),
  adminNotifications: t.withAuth({ admin: true }).field({
    type: [NotificationItem],
    description: 'One page of sent notifications, newest first (admins only)',
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: PAGE_DEFAULT,
        description: `items per page (1..${PAGE_MAX})`,
        validate: z.number().int().min(1).max(PAGE_MAX),
      }),
      offset: t.arg.int({
        required: true,
        defaultValue: 0,
        description: 'items skipped',
        validate: z.number().int().min(0).max(10_000_000),
      }),
      userId: t.arg.int({
        description: 'only those sent to this person',
        validate: z.number().int().min(1).max(2_147_483_647),
      }),
    },
    resolve: (_root, args, ctx) => adminNotifications(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  setNotificationPrefs: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationPrefs,
    description: "Changes the person's notification preferences",
    args: { input: t.arg({ type: SetNotificationPrefsInput, required: true }) },
    resolve: (_root, { input }, ctx) => setNotificationPrefs(ctx, input),
  }),
  markNotificationsRead: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationsMarked,
    description: "Marks the person's notifications read: the given ones, or every unread one",
    args: {
      ids: t.arg.stringList({
        description: `item ids (at most ${MARK_MAX}); omitted: every unread item`,
        validate: z.array(id).min(1).max(MARK_MAX),
      }),
    },
    resolve: (_root, { ids }, ctx) => markNotificationsRead(ctx, { ids }),
  }),
  openNotification: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationItem,
    description:
      "Opens one of the person's notifications (read and opened); answers where it leads",
    args: { id: t.arg.string({ required: true, description: 'the item id', validate: id }) },
    resolve: (_root, args, ctx) => openNotification(ctx, args),
  }),
  addNotificationReminder: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationReminder,
    description: 'Adds a reminder for the person',
    args: { input: t.arg({ type: AddReminderInput, required: true }) },
    resolve: (_root, { input }, ctx) => addNotificationReminder(ctx, input),
  }),
  toggleNotificationReminder: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationReminder,
    description: "Turns one of the person's reminders on or off",
    args: {
      id: t.arg.string({ required: true, description: 'the reminder id', validate: id }),
      enabled: t.arg.boolean({ required: true, description: 'true: on; false: off' }),
    },
    resolve: (_root, args, ctx) => toggleNotificationReminder(ctx, args),
  }),
  deleteNotificationReminder: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationReminder,
    description: "Deletes one of the person's reminders",
    args: { id: t.arg.string({ required: true, description: 'the reminder id', validate: id }) },
    resolve: (_root, args, ctx) => deleteNotificationReminder(ctx, args),
  }),
  sendTestNotification: t.withAuth({ scope: 'notifications:write' }).field({
    type: NotificationSendResult,
    description: "Sends a test push to the person's phones now (quiet hours ignored)",
    args: {
      category: t.arg({
        type: NotificationCategoryEnum,
        description: 'the category to test (default account)',
      }),
    },
    resolve: (_root, args, ctx) => sendTestNotification(ctx, args),
  }),
  sendAdminNotification: t.withAuth({ admin: true }).field({
    type: NotificationSendResult,
    description: 'Sends a notification to one person (admins only; audited)',
    args: { input: t.arg({ type: AdminSendInput, required: true }) },
    resolve: (_root, { input }, ctx) => sendAdminNotification(ctx, input),
  }),
}));
