/**
 * The home headline (home_headline_read): one sentence about today and the numbers behind it.
 * Rule (README.md): the sentence joins, in this order, last night's sleep ("You slept 7 h 12 min"
 * or "No sleep recorded last night"), today's recovery score when insights has one ("recovery 72"),
 * and the goals met in their current period when goals are set ("2 of 3 goals met so far"),
 * separated by commas and ended with a full stop.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { currentGoals, hoursAndMinutes, todayFigures, todayOf, todayScores } from './home.today.ts';

export interface HomeHeadlineView {
  date: LocalDate;
  timezone: string;
  sentence: string;
  sleepMinutesLastNight: number | null;
  sleepScore: number | null;
  recoveryScore: number | null;
  overallScore: number | null;
  stepsToday: number | null;
  goalsMet: number;
  goalsTotal: number;
}

export async function homeHeadline(ctx: AuthedContext): Promise<HomeHeadlineView> {
  const today = await todayOf(ctx);
  const [figures, goals, scores] = await Promise.all([
    todayFigures(ctx, today),
    currentGoals(ctx),
    todayScores(ctx, today),
  ]);
  const goalsTotal = goals.goals.length;
  const goalsMet = goals.goals.filter((g) => g.periods[0].met).length;
  const parts = [
    figures.sleepMinutes !== null
      ? `You slept ${hoursAndMinutes(figures.sleepMinutes)}`
      : 'No sleep recorded last night',
  ];
  if (scores.recovery.score !== null) parts.push(`recovery ${scores.recovery.score}`);
  if (goalsTotal) parts.push(`${goalsMet} of ${goalsTotal} goals met so far`);
  return {
    date: today.date,
    timezone: today.zone,
    sentence: `${parts.join(', ')}.`,
    sleepMinutesLastNight: figures.sleepMinutes,
    sleepScore: scores.sleep.score,
    recoveryScore: scores.recovery.score,
    overallScore: scores.overall.score,
    stepsToday: figures.steps,
    goalsMet,
    goalsTotal,
  };
}
