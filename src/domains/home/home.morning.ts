/**
 * The morning review (morning_review_read): last night's sleep (the asleep stages of the night
 * that ends this morning, bedtime and wake time from its intervals), the night's snoring when the
 * phone measured it, the overnight glucose (readings between bedtime and wake time, or 00:00..06:00
 * local without a recorded sleep), and today's sleep and recovery scores from insights.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { glucoseWindow } from '../glucose/index.ts';
import type { GlucoseWindowView } from '../glucose/index.ts';
import { sleepEndingBetween } from '../health/index.ts';
import { latestSnoreNight } from '../snoring/index.ts';
import type { SnoreNightView } from '../snoring/index.ts';
import { addDays, localTime } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { todayFigures, todayOf, todayScores } from './home.today.ts';

export interface MorningScoreView {
  score: number | null;
  reason: string | null;
}

export interface MorningReviewView {
  date: LocalDate;
  timezone: string;
  asleepMinutes: number | null;
  bedtime: Date | null;
  wakeTime: Date | null;
  snoring: SnoreNightView | null;
  glucoseWindowStart: Date;
  glucoseWindowEnd: Date;
  glucose: GlucoseWindowView;
  sleepScore: MorningScoreView;
  recoveryScore: MorningScoreView;
}

export async function morningReview(ctx: AuthedContext): Promise<MorningReviewView> {
  const today = await todayOf(ctx);
  const night = {
    start: localTime(addDays(today.date, -1), 18, today.zone),
    end: localTime(today.date, 18, today.zone),
  };
  const [figures, intervals, snoring, scores] = await Promise.all([
    todayFigures(ctx, today),
    sleepEndingBetween(ctx, night),
    latestSnoreNight(ctx, night),
    todayScores(ctx, today),
  ]);
  const bedtime = intervals.length
    ? new Date(Math.min(...intervals.map((i) => i.startAt.getTime())))
    : null;
  const wakeTime = intervals.length
    ? new Date(Math.max(...intervals.map((i) => i.endAt.getTime())))
    : null;
  const window =
    bedtime && wakeTime
      ? { start: bedtime, end: wakeTime }
      : { start: localTime(today.date, 0, today.zone), end: localTime(today.date, 6, today.zone) };
  const glucose = await glucoseWindow(ctx, window);
  return {
    date: today.date,
    timezone: today.zone,
    asleepMinutes: figures.sleepMinutes,
    bedtime,
    wakeTime,
    snoring,
    glucoseWindowStart: window.start,
    glucoseWindowEnd: window.end,
    glucose,
    sleepScore: { score: scores.sleep.score, reason: scores.sleep.reason },
    recoveryScore: { score: scores.recovery.score, reason: scores.recovery.reason },
  };
}
