/**
 * The person's goals: list, set (upsert by metric: one active goal per metric) and clear
 * (tombstone). Goals are a synced table: every write stamps the account's sync clock
 * (syncedWrite), so what an agent sets reaches the phone on its next pull.
 *
 * NOTE: ownership. Writes use ctx.principal.userId; reads use readerUserId(ctx) (the owner's goals
 * while a grantee views as). A goal is found by the caller's own metric, never by another's id.
 */
import { randomBytes } from 'node:crypto';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { syncedWrite } from '../../platform/sync-clock.ts';
import { GOAL_METRIC_RULES, goalTargetIssue } from './goals.metrics.ts';
import type { GoalDirection, GoalMetric, GoalPeriod } from './goals.metrics.ts';

export interface GoalView {
  id: string;
  metric: GoalMetric;
  unit: string;
  target: number;
  period: GoalPeriod;
  direction: GoalDirection;
  updatedAt: Date;
}

export interface SetGoalOptions {
  /** the metric the goal tracks (one active goal per metric) */
  metric: GoalMetric;
  /** the target in the metric's unit, within the metric's bounds */
  target: number;
  /** day or week */
  period: GoalPeriod;
  /** at_least or at_most */
  direction: GoalDirection;
}

export interface ClearGoalOptions {
  /** the metric whose goal to clear */
  metric: GoalMetric;
}

type GoalRow = {
  id: string;
  metric: string;
  target: number;
  period: string;
  direction: string;
  serverUpdatedAt: Date;
};

const viewOf = (g: GoalRow): GoalView => ({
  id: g.id,
  metric: g.metric as GoalMetric,
  unit: GOAL_METRIC_RULES[g.metric as GoalMetric]?.unit ?? '',
  target: g.target,
  period: g.period as GoalPeriod,
  direction: g.direction as GoalDirection,
  updatedAt: g.serverUpdatedAt,
});

/** A WatermelonDB-style id (16 characters, a-z0-9) for a goal the server creates. */
function newGoalId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(16)].map((b) => alphabet[b % alphabet.length]).join('');
}

/**
 * The person's active goals, one per metric (when two devices each created one for a metric, the
 * one changed last), in the order of GOAL_METRICS.
 */
export async function goals(ctx: AuthedContext): Promise<GoalView[]> {
  const rows = await ctx.prisma.goal.findMany({
    where: { userId: readerUserId(ctx), deletedAt: null },
    orderBy: [{ serverUpdatedAt: 'desc' }, { id: 'asc' }],
  });
  const seen = new Set<string>();
  const order = Object.keys(GOAL_METRIC_RULES);
  return rows
    .filter((r) => r.metric in GOAL_METRIC_RULES && !seen.has(r.metric) && seen.add(r.metric))
    .map(viewOf)
    .sort((a, b) => order.indexOf(a.metric) - order.indexOf(b.metric));
}

/**
 * Sets the goal of a metric: updates the active one (all of them, should a second device have
 * created another) or creates it. Setting the same goal twice leaves one goal with those values.
 */
export async function setGoal(ctx: AuthedContext, options: SetGoalOptions): Promise<GoalView> {
  const msg = goalTargetIssue(options.metric, options.period, options.target);
  if (msg) throw validationError([{ loc: ['target'], msg, type: 'value_error' }]);
  const userId = ctx.principal.userId;
  return syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const stamp = new Date(ts);
    const data = {
      target: options.target,
      period: options.period,
      direction: options.direction,
      serverUpdatedAt: stamp,
    };
    const updated = await tx.goal.updateManyAndReturn({
      where: { userId, metric: options.metric, deletedAt: null },
      data,
    });
    if (updated.length) return viewOf(updated[0]);
    const created = await tx.goal.create({
      data: { id: newGoalId(), userId, metric: options.metric, ...data },
    });
    return viewOf(created);
  });
}

/** Clears the goal of a metric (a tombstone the phone pulls). No active goal: 404. */
export async function clearGoal(ctx: AuthedContext, options: ClearGoalOptions): Promise<GoalView> {
  const userId = ctx.principal.userId;
  return syncedWrite(ctx.prisma, userId, async (tx, ts) => {
    const stamp = new Date(ts);
    const cleared = await tx.goal.updateManyAndReturn({
      where: { userId, metric: options.metric, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    if (!cleared.length) {
      throw appError(
        'NOT_FOUND',
        `No active ${options.metric} goal: goals_list_read lists the goals that are set`,
      );
    }
    return viewOf(cleared[0]);
  });
}

/**
 * The daily at_least target of one metric for several people (challenges fix it into a
 * participant's row when they join): the active goal changed last; people without a daily
 * at_least goal of the metric are left out (a weekly or an at_most goal is no daily target).
 */
export async function dailyTargetsOf(
  db: Db | DbTx,
  userIds: number[],
  metric: GoalMetric,
): Promise<Map<number, number>> {
  if (!userIds.length) return new Map();
  const rows = await db.goal.findMany({
    where: {
      userId: { in: userIds },
      metric,
      deletedAt: null,
      period: 'day',
      direction: 'at_least',
    },
    orderBy: [{ serverUpdatedAt: 'desc' }, { id: 'asc' }],
    select: { userId: true, target: true },
  });
  const targets = new Map<number, number>();
  for (const r of rows) if (!targets.has(r.userId)) targets.set(r.userId, r.target);
  return targets;
}
