/**
 * What every home read starts from: the person's zone and today, and (loaded once, one query per
 * source) the goals' current progress, today's figures and today's scores from insights.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { goalProgress } from '../goals/index.ts';
import type { GoalProgressListView } from '../goals/index.ts';
import { dailyHealth } from '../health/index.ts';
import type { DailyHealthView } from '../health/index.ts';
import { insightScore } from '../insights/index.ts';
import { personZone } from '../profile/index.ts';
import { localDateOf } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { clock } from '../../base/clock.ts';

export interface Today {
  zone: string;
  now: Date;
  date: LocalDate;
}

export async function todayOf(ctx: AuthedContext): Promise<Today> {
  const zone = await personZone(ctx);
  const now = clock.now();
  return { zone, now, date: localDateOf(now, zone) };
}

/** Today's figures (all null when the day has no sample). */
export async function todayFigures(ctx: AuthedContext, today: Today): Promise<DailyHealthView> {
  const [day] = await dailyHealth(ctx, { from: today.date, to: today.date, zone: today.zone });
  return (
    day ?? {
      date: today.date,
      steps: null,
      activeEnergyKcal: null,
      exerciseMinutes: null,
      sleepMinutes: null,
      bodyWeightKg: null,
      samples: 0,
    }
  );
}

export const currentGoals = (ctx: AuthedContext): Promise<GoalProgressListView> =>
  goalProgress(ctx, { periods: 1 });

export const todayScores = (ctx: AuthedContext, today: Today) =>
  insightScore(ctx, { date: today.date });

/** "7 h 12 min" */
export function hoursAndMinutes(minutes: number): string {
  const m = Math.round(minutes);
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}
