/**
 * The home's next actions (get_home_next_actions): a short list derived from the data by fixed
 * rules, ranked by the rule's priority, then in goal order (README.md):
 *   1 sync_phone   the phone has not synced in 24 h (or never)
 *   2 goal_behind  a goal's current period is behind (at_least under the pace; at_most over)
 *   3 log_weight   no body weight in the last 7 days
 *   4 goal_no_data a goal has no data yet in its current period (body weight: rule 3 instead)
 *   5 set_goal     no goal is set
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { lastMetricAt } from '../health/index.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { readerUserId } from '../../auth/principal.ts';
import { currentGoals, todayOf } from './home.today.ts';

export const ACTION_KINDS = [
  'sync_phone',
  'goal_behind',
  'log_weight',
  'goal_no_data',
  'set_goal',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ACTIONS_MAX = 10;
/** Hours without a phone sync before sync_phone applies. */
export const SYNC_STALE_HOURS = 24;
/** Days without a body weight before log_weight applies. */
export const WEIGHT_STALE_DAYS = 7;

export interface HomeActionView {
  rank: number;
  kind: ActionKind;
  /** the goal's metric for goal actions */
  metric: string | null;
  title: string;
  reason: string;
}

export interface HomeActionsView {
  date: LocalDate;
  /** the IANA zone date is local to (the person's profile zone, UTC when unset) */
  timeZone: string;
  actions: HomeActionView[];
}

export interface HomeActionsOptions {
  /** at most this many actions (1..10) */
  limit: number;
}

const fmt = (v: number) => (Math.round(v * 10) / 10).toLocaleString('en-US');

export async function homeNextActions(
  ctx: AuthedContext,
  options: HomeActionsOptions,
): Promise<HomeActionsView> {
  const today = await todayOf(ctx);
  const [user, goals, weighedAt] = await Promise.all([
    ctx.prisma.user.findUnique({
      where: { id: readerUserId(ctx) },
      select: { phoneLastSyncAt: true },
    }),
    currentGoals(ctx),
    lastMetricAt(ctx, 'body_weight'),
  ]);
  const found: Omit<HomeActionView, 'rank'>[] = [];
  const synced = user?.phoneLastSyncAt ?? null;
  const hours = synced ? (today.now.getTime() - synced.getTime()) / 3_600_000 : null;
  if (hours === null || hours > SYNC_STALE_HOURS) {
    found.push({
      kind: 'sync_phone',
      metric: null,
      title: 'Sync the phone',
      reason:
        hours === null
          ? 'The phone has never synced: open the app so its data reaches the record'
          : `The phone last synced ${Math.floor(hours)} h ago: open the app to sync`,
    });
  }
  for (const { goal, periods } of goals.goals) {
    const p = periods[0];
    const when = goal.period === 'day' ? 'today' : 'this week';
    if (p.status === 'behind') {
      found.push({
        kind: 'goal_behind',
        metric: goal.metric,
        title: `Catch up on ${goal.metric.replaceAll('_', ' ')}`,
        reason:
          goal.direction === 'at_least'
            ? `${fmt(p.value!)} of ${fmt(goal.target)} ${goal.unit} ${when} (${p.percent}%)`
            : `${fmt(p.value!)} ${goal.unit} ${when}, over the limit of ${fmt(goal.target)}`,
      });
    }
  }
  const weightDays = weighedAt ? (today.now.getTime() - weighedAt.getTime()) / 86_400_000 : null;
  if (weightDays === null || weightDays > WEIGHT_STALE_DAYS) {
    found.push({
      kind: 'log_weight',
      metric: 'body_weight',
      title: 'Log your weight',
      reason:
        weightDays === null
          ? 'No body weight recorded yet'
          : `No body weight in ${Math.floor(weightDays)} days`,
    });
  }
  for (const { goal, periods } of goals.goals) {
    if (periods[0].status === 'no_data' && goal.metric !== 'body_weight') {
      found.push({
        kind: 'goal_no_data',
        metric: goal.metric,
        title: `Record ${goal.metric.replaceAll('_', ' ')}`,
        reason: `No ${goal.metric.replaceAll('_', ' ')} data ${goal.period === 'day' ? 'today' : 'this week'} yet`,
      });
    }
  }
  if (!goals.goals.length) {
    found.push({
      kind: 'set_goal',
      metric: null,
      title: 'Set a goal',
      reason: 'No goal is set: a daily steps or sleep goal gives the home something to track',
    });
  }
  return {
    date: today.date,
    timeZone: today.zone,
    actions: found.slice(0, options.limit).map((a, i) => ({ ...a, rank: i + 1 })),
  };
}
