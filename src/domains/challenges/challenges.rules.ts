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

/**
 * The least daily goal a challenge scores against (issue 47): a lower goal of one's own is raised
 * to it, so a goal lowered before joining does not buy the daily cap. Each is a goal a person of
 * low fitness can still reach, and below which the figure says little about health:
 * - steps 3,000: all-cause mortality already falls from about 2,500..4,000 steps a day (Banach et
 *   al. 2023); under 5,000 is "sedentary" (Tudor-Locke), so 3,000 is modest, not idle;
 * - active_energy 150 kcal: about 30 minutes of brisk walking for a 70 kg adult;
 * - exercise_minutes 15: half the default 30; WHO's 150 minutes a week is about 21 a day;
 * - sleep_minutes 360 (6 h): under 6 h is short sleep (the AASM/SRS consensus asks 7 h or more);
 * - glucose_time_in_range 50 %: the international consensus target for older or high-risk
 *   adults (Battelino et al. 2019; 70 % for most adults is the default goal).
 */
export const DAILY_GOAL_FLOORS: Record<Exclude<ChallengeMetric, 'habit'>, number> = {
  steps: 3_000,
  active_energy: 150,
  exercise_minutes: 15,
  sleep_minutes: 360,
  glucose_time_in_range: 50,
};

/** The goal a challenge scores against: one's own goal, at least the metric's floor. */
export function flooredGoal(metric: ChallengeMetric, goal: number | null | undefined): number {
  if (metric === 'habit') return 1;
  return Math.max(goal ?? DEFAULT_DAILY_GOALS[metric], DAILY_GOAL_FLOORS[metric]);
}

/** goal_percent: points for a day are capped here (200: twice one's own goal, the Apple scheme). */
export const DAILY_POINTS_CAP = 200;
/**
 * goal_percent: sleep's cap is the goal itself (100 points): sleeping twice one's goal (16 h of an
 * 8 h goal) is not better sleep (issue 47).
 */
export const SLEEP_POINTS_CAP = 100;
/** total: a night counts at most this many minutes asleep (8 h, the default sleep goal). */
export const SLEEP_TOTAL_DAILY_MAX = 480;
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
