/**
 * Streaks (home_streak_read), over at most the last 90 days (README.md):
 * - goals: consecutive days, ending yesterday (and today once today meets them), on which every
 *   daily goal now set was met (the goals as they are now: changes of a goal are not kept);
 * - logging: consecutive days, ending yesterday (and today once today has data), with any health
 *   sample (metric, workout, sleep ending that morning) or glucose reading.
 * Today never breaks a streak: it only extends it once it counts.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { goals, loadDays, periodValue, progressOf } from '../goals/index.ts';
import { addDays } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { todayOf } from './home.today.ts';

/** Days a streak looks back at most (a streak of 90 means at least 90). */
export const STREAK_WINDOW_DAYS = 90;

export interface StreakView {
  days: number;
  includesToday: boolean;
}

export interface HomeStreakView {
  date: LocalDate;
  /** the IANA zone the days are local to (the person's profile zone, UTC when unset) */
  timeZone: string;
  windowDays: number;
  /** daily goals the goals streak checks (0: no goals streak) */
  dailyGoals: number;
  goals: StreakView;
  logging: StreakView;
}

/** The streak of days ending today (or yesterday when today does not count yet). */
function streak(today: LocalDate, counts: (d: LocalDate) => boolean): StreakView {
  const includesToday = counts(today);
  let days = includesToday ? 1 : 0;
  for (let i = 1; i < STREAK_WINDOW_DAYS && counts(addDays(today, -i)); i++) days++;
  return { days, includesToday };
}

export async function homeStreak(ctx: AuthedContext): Promise<HomeStreakView> {
  const today = await todayOf(ctx);
  const daily = (await goals(ctx)).filter((g) => g.period === 'day');
  const data = await loadDays(ctx, {
    from: addDays(today.date, -(STREAK_WINDOW_DAYS - 1)),
    to: today.date,
    zone: today.zone,
    glucose: true,
  });
  const logged = (d: LocalDate) =>
    (data.health.get(d)?.samples ?? 0) > 0 || (data.glucose.get(d)?.readings ?? 0) > 0;
  const allMet = (d: LocalDate) =>
    daily.length > 0 &&
    daily.every(
      (g) =>
        progressOf(g, periodValue(data, g.metric, d, d), {
          start: d,
          end: d,
          current: false,
          elapsed: 1,
        }).met,
    );
  return {
    date: today.date,
    timeZone: today.zone,
    windowDays: STREAK_WINDOW_DAYS,
    dailyGoals: daily.length,
    goals: streak(today.date, allMet),
    logging: streak(today.date, logged),
  };
}
