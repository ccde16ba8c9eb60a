/**
 * The fixed lists of notifications: categories a person turns on or off, and the tones the app
 * ships (sound files in the app bundle: a tone id names `<id>.caf` on iOS and a raw resource on
 * Android). Changing a list is an app release, so they are constants, not tables.
 */

/** What a notification is about; each can be turned off in the preferences. */
export const NOTIFICATION_CATEGORIES = [
  'reminders',
  'glucose',
  'meals',
  'insights',
  'account',
  'news',
  'community',
] as const;

export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number];

/** What each category covers (the GraphQL enum's descriptions). */
export const CATEGORY_DESCRIPTIONS: Record<NotificationCategory, string> = {
  reminders: "the person's own reminders",
  glucose: 'glucose alerts and sensor events',
  meals: 'meal logging and meal insights',
  insights: 'scores and weekly insights',
  account: 'account and security messages (sign-ins, exports, shares)',
  news: 'product news from the team',
  community: "nudges and challenges from the person's circles",
};

/** One tone the app ships. */
export interface ToneView {
  /** the tone's id (what preferences store) */
  id: string;
  /** its name as the app shows it */
  name: string;
  /** how it sounds */
  description: string;
}

/** The tones the app ships, in the order it lists them. */
export const NOTIFICATION_TONES: readonly ToneView[] = [
  { id: 'default', name: 'Default', description: "the phone's own notification sound" },
  { id: 'chime', name: 'Chime', description: 'a soft two-note chime' },
  { id: 'pulse', name: 'Pulse', description: 'three short low pulses' },
  { id: 'bell', name: 'Bell', description: 'a single clear bell' },
  { id: 'breeze', name: 'Breeze', description: 'a quiet rising tone' },
  { id: 'silent', name: 'Silent', description: 'no sound (the banner only)' },
];

export const TONE_IDS = NOTIFICATION_TONES.map((t) => t.id) as [string, ...string[]];

/** Where an item's source came from: an admin, the person's own test send, the system. */
export const NOTIFICATION_SOURCES = ['admin', 'test', 'system'] as const;

/**
 * What happened to an item's push (failed: every device's push service refused it;
 * not_configured: the server has no push service configured, PUSH_HTTP_URL, so nothing was sent).
 */
export const PUSH_STATUSES = [
  'sent',
  'no_devices',
  'category_off',
  'quiet_hours',
  'failed',
  'not_configured',
] as const;

/** Where an item without a link of its own leads in the app: its category's screen. */
export const CATEGORY_LINKS: Record<NotificationCategory, string> = {
  reminders: 'app://reminders',
  glucose: 'app://glucose',
  meals: 'app://meals',
  insights: 'app://insights',
  account: 'app://account',
  news: 'app://inbox',
  community: 'app://community',
};

export type PushStatus = (typeof PUSH_STATUSES)[number];

/** Local "HH:MM" (00:00 .. 23:59). */
export const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Minutes since midnight of "HH:MM". */
export function minutesOf(hhmm: string): number {
  return Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
}

/** The notification tones the app ships (`notificationTones`). */
export function notificationTones(): ToneView[] {
  return [...NOTIFICATION_TONES];
}
