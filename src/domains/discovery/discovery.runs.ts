/**
 * Starting a discovery run and reading its findings (issue 33). A start records the run (queued)
 * and hands it to the job queue; the worker (discovery.worker.ts) tests the pairs and stores every
 * pair's result. One run at a time per person (a second start answers 409 with the open run's id),
 * at most DISCOVERY_RUNS_PER_DAY starts a UTC day, and only the RUNS_KEPT newest runs are kept. Runs
 * are the caller's own; the read uses readerUserId (a grantee viewing as reads the owner's findings).
 *
 * The day's starts are counted by the limits store (ctx.limits), never by the runs kept: a start
 * deletes all but the newest runs, so a count of rows would never reach the limit (issue 45).
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { DiscoveryHypothesis, DiscoveryRun } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { spendLimit } from '../../platform/limits.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { addDays, localDateOf } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import type { ExperimentProposal } from './discovery.experiments.ts';
import { DISCOVERY_QUEUE, HYPOTHESES_PAGE_DEFAULT, RUNS_KEPT } from './discovery.rules.ts';
import type { RunKind } from './discovery.rules.ts';
import { isSignalKey } from './discovery.signals-read.ts';
import { RUN_DAYS_DEFAULT } from './discovery.types.ts';
import { clock } from '../../base/clock.ts';

export interface RunView {
  id: string;
  kind: string;
  focus: string | null;
  from: string;
  to: string;
  timeZone: string;
  status: string;
  pairsTested: number;
  pairsSkipped: number;
  found: number;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export const runViewOf = (r: DiscoveryRun): RunView => ({
  id: r.id,
  kind: r.kind,
  focus: r.focus,
  from: r.fromDate,
  to: r.toDate,
  timeZone: r.zone,
  status: r.status,
  pairsTested: r.pairsTested,
  pairsSkipped: r.pairsSkipped,
  found: r.found,
  error: r.error,
  createdAt: r.createdAt,
  startedAt: r.startedAt,
  finishedAt: r.finishedAt,
});

interface StartOptions {
  /** local days to look back, ending yesterday (today is not over) */
  days?: number | null;
}

/** Counts one start of the person's against DISCOVERY_RUNS_PER_DAY; 429 once the day's are spent. */
async function chargeRunStart(ctx: AuthedContext): Promise<void> {
  const perDay = ctx.config.DISCOVERY_RUNS_PER_DAY;
  const rule: LimitRule = { name: 'discovery:runs', points: perDay, seconds: 'utc-day' };
  await spendLimit(
    ctx.limits,
    rule,
    String(ctx.principal.userId),
    `At most ${perDay} discovery runs a day: read the latest findings (discovery_hypotheses_read) instead`,
  );
}

/** Records a run (or an exploration) under the person's lock and queues it. */
async function startRun(
  ctx: AuthedContext,
  kind: RunKind,
  options: StartOptions & { focus?: string },
): Promise<RunView> {
  const me = ctx.principal.userId;
  const zone = await personZone(ctx);
  const to = addDays(localDateOf(clock.now(), zone), -1);
  const from = addDays(to, -((options.days ?? RUN_DAYS_DEFAULT) - 1));
  const run = await ctx.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(3333, ${me}::int)`;
    const open = await tx.discoveryRun.findFirst({
      where: { userId: me, status: { in: ['queued', 'running'] } },
      select: { id: true },
    });
    if (open)
      throw appError(
        'CONFLICT',
        'A discovery run is in progress: read it with discovery_hypotheses_read (run_id) and start another when it is done',
        { detail: { code: 'run_in_progress', run_id: open.id } },
      );
    // counted once no run is open, so a start refused with 409 costs nothing
    await chargeRunStart(ctx);
    const kept = await tx.discoveryRun.findMany({
      where: { userId: me },
      orderBy: { createdAt: 'desc' },
      skip: RUNS_KEPT - 1,
      select: { id: true },
    });
    await tx.discoveryRun.deleteMany({ where: { id: { in: kept.map((r) => r.id) } } });
    return tx.discoveryRun.create({
      data: { userId: me, kind, focus: options.focus ?? null, fromDate: from, toDate: to, zone },
    });
  });
  await ctx.jobs.send(DISCOVERY_QUEUE, { id: run.id });
  return runViewOf(run);
}

/** Starts a run over the default pairs of the person's signals (lags 0 and 1). */
export function startDiscoveryRun(ctx: AuthedContext, options: StartOptions): Promise<RunView> {
  return startRun(ctx, 'run', options);
}

/** Starts an exploration around one signal (as driver or outcome, lags 0..3). */
export function startDiscoveryExplore(
  ctx: AuthedContext,
  options: StartOptions & { signal: string },
): Promise<RunView> {
  const focus = options.signal.trim();
  if (!isSignalKey(focus))
    throw validationError([
      {
        loc: ['signal'],
        msg: "Unknown signal: list the person's signals with discovery_signals_read and pass one of their keys",
        type: 'value_error',
      },
    ]);
  return startRun(ctx, 'explore', { ...options, focus });
}

export interface HypothesisView {
  id: string;
  driver: string;
  outcome: string;
  lag: number;
  method: string;
  n: number;
  nHigh: number;
  nLow: number;
  effect: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  p: number | null;
  q: number | null;
  significant: boolean;
  direction: string | null;
  notEnoughData: string | null;
  statement: string;
  /** ready arguments for insights_experiment_start, or null */
  experiment: ExperimentView | null;
}

/** A finding's proposed experiment, as insights_experiment_start takes it. */
export interface ExperimentView {
  name: string;
  intervention: string;
  mealType: string | null;
  baselineDays: number;
  interventionDays: number;
}

function experimentOf(text: string | null): ExperimentView | null {
  if (!text) return null;
  const e = JSON.parse(text) as ExperimentProposal;
  return {
    name: e.name,
    intervention: e.intervention,
    mealType: e.meal_type ?? null,
    baselineDays: e.baseline_days,
    interventionDays: e.intervention_days,
  };
}

const hypothesisViewOf = (h: DiscoveryHypothesis): HypothesisView => ({
  ...h,
  experiment: experimentOf(h.experiment),
});

export interface HypothesesOptions {
  /** the run (default: the person's latest) */
  runId?: string | null;
  /** found: significant only (default); tested: every tested pair; all: also those without enough data */
  include?: 'found' | 'tested' | 'all' | null;
  limit?: number | null;
}

export interface HypothesesView {
  /** null when the person has never started a run */
  run: RunView | null;
  hypotheses: HypothesisView[];
  /** pairs matching `include` beyond those answered */
  more: number;
}

/** A run (the latest by default) and its findings, the strongest evidence first. */
export async function discoveryHypotheses(
  ctx: AuthedContext,
  options: HypothesesOptions,
): Promise<HypothesesView> {
  const userId = readerUserId(ctx);
  const run = await ctx.prisma.discoveryRun.findFirst({
    where: options.runId ? { id: options.runId, userId } : { userId },
    orderBy: { createdAt: 'desc' },
  });
  if (!run && options.runId) throw appError('NOT_FOUND', 'Discovery run not found');
  if (!run) return { run: null, hypotheses: [], more: 0 };
  const include = options.include ?? 'found';
  const where = {
    runId: run.id,
    userId,
    ...(include === 'found' ? { significant: true } : {}),
    ...(include === 'tested' ? { p: { not: null } } : {}),
  };
  const take = options.limit ?? HYPOTHESES_PAGE_DEFAULT;
  const [rows, total] = await Promise.all([
    ctx.prisma.discoveryHypothesis.findMany({
      where,
      orderBy: [{ significant: 'desc' }, { q: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }],
      take,
    }),
    ctx.prisma.discoveryHypothesis.count({ where }),
  ]);
  return {
    run: runViewOf(run),
    hypotheses: rows.map(hypothesisViewOf),
    more: Math.max(0, total - rows.length),
  };
}
