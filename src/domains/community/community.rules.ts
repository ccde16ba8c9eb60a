/**
 * The fixed lists and limits of community (issue 32): what a member may let a circle see, the
 * kinds of nudge, and the sizes. Data only; the services enforce them.
 */

/**
 * The daily summaries a member may let a circle see, per circle (default: none, so a circle sees
 * only the member's name and challenge standing). NOTE: privacy. Raw glucose readings, meals, labs
 * and DNA are never on this list and no community answer has a field for them.
 */
export const CIRCLE_SHARES = [
  'steps',
  'active_energy',
  'exercise_minutes',
  'sleep_minutes',
  'activity_score',
  'sleep_score',
  'glucose_time_in_range',
] as const;
export type CircleShare = (typeof CIRCLE_SHARES)[number];

/** What each share shows, for the schema's enum. */
export const CIRCLE_SHARE_DESCRIPTIONS: Record<CircleShare, string> = {
  steps: 'daily step count',
  active_energy: 'daily active energy, kcal',
  exercise_minutes: 'daily workout minutes',
  sleep_minutes: 'minutes asleep of the night ending that day',
  activity_score: 'the daily activity score (0..100), without its components',
  sleep_score: 'the daily sleep score (0..100), without its components',
  glucose_time_in_range: 'daily percent of glucose readings within 70..180 mg/dL (no readings)',
};

/** The preset nudges, and the line each one reads as in the recipient's notification. */
export const NUDGE_KINDS = ['cheer', 'high_five', 'keep_going', 'lets_move', 'congrats'] as const;
export type NudgeKind = (typeof NUDGE_KINDS)[number];
export const NUDGE_LINES: Record<NudgeKind, string> = {
  cheer: 'cheered you on',
  high_five: 'sent you a high five',
  keep_going: 'says keep going',
  lets_move: "says let's move",
  congrats: 'congratulates you',
};

/** Circle name length, trimmed. */
export const CIRCLE_NAME_MAX = 60;
/** Members of one circle (Apple Fitness sharing allows 40 friends; Oura circles are small too). */
export const CIRCLE_MEMBERS_MAX = 50;
/** Circles one person may be in. */
export const CIRCLES_PER_PERSON_MAX = 20;
/** Nudges from one sender to one recipient per sender's local day. */
export const NUDGES_PER_DAY = 3;
/** Longest nudge text. */
export const NUDGE_TEXT_MAX = 140;
/** Days a member view covers: 1..31, default 7. */
export const VIEW_DAYS_MAX = 31;
export const VIEW_DAYS_DEFAULT = 7;
/** Invite codes: this many characters of an alphabet without look-alikes (0/O, 1/I/L), 60 bits. */
export const INVITE_CODE_LENGTH = 12;
export const INVITE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** Nudges read per page (limit), and ids one mark-seen call names. */
export const NUDGE_PAGE_DEFAULT = 50;
export const NUDGE_PAGE_MAX = 100;
export const MARK_SEEN_MAX = 100;
