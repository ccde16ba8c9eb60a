/**
 * The challenges' closed lists and limits (constants only, no I/O; README.md explains each).
 */

/** What a challenge counts (habit: self-reported daily check-ins). */
export const CHALLENGE_METRICS = [
  'steps',
  'active_energy',
  'exercise_minutes',
  'sleep_minutes',
  'glucose_time_in_range',
  'habit',
] as const;
export type ChallengeMetric = (typeof CHALLENGE_METRICS)[number];

/** How points are made from the days. */
export const CHALLENGE_SCORINGS = ['goal_percent', 'total', 'checkins'] as const;
export type ChallengeScoring = (typeof CHALLENGE_SCORINGS)[number];

/** Metrics "most in total" may score (summable amounts; a percentage or a check-in is not). */
export const TOTAL_METRICS: readonly ChallengeMetric[] = [
  'steps',
  'active_energy',
  'exercise_minutes',
  'sleep_minutes',
];

/** The daily goal of a participant without an active daily goal of the metric. */
export const DEFAULT_DAILY_GOALS: Record<Exclude<ChallengeMetric, 'habit'>, number> = {
  steps: 10_000,
  active_energy: 500,
  exercise_minutes: 30,
  sleep_minutes: 480,
  glucose_time_in_range: 70,
};

/** The unit of a metric's daily figure. */
export const METRIC_UNITS: Record<ChallengeMetric, string> = {
  steps: 'count',
  active_energy: 'kcal',
  exercise_minutes: 'min',
  sleep_minutes: 'min',
  glucose_time_in_range: '%',
  habit: 'check-in',
};

/** goal_percent: points for a day are capped here (200: twice one's own goal, the Apple scheme). */
export const DAILY_POINTS_CAP = 200;
/** Days a challenge lasts. */
export const DAYS_MIN = 1;
export const DAYS_MAX = 31;
/** People one friends challenge invites (the creator besides). */
export const INVITEES_MIN = 1;
export const INVITEES_MAX = 20;
/** How far ahead a challenge may start, in days after the creator's today. */
export const START_MAX_DAYS_AHEAD = 30;
/** An invitation not accepted within this many hours reads as expired. */
export const INVITATION_HOURS = 48;
/** Longest title and habit text. */
export const TITLE_MAX = 80;
export const HABIT_MAX = 80;
/** The name of a participant whose account was deleted. */
export const FORMER_MEMBER_NAME = 'a former member';
