/**
 * n-of-1 experiments (issue 17): start one, control it (pause, resume, stop, abandon), read them
 * with their result. The result compares the glucose responses (nutrition's responsesOfMeals)
 * of the qualifying meals (the meals domain's listMeals) of the control period (the baseline days
 * before start_at) and of the intervention period (from start_at). Design: docs/nutrition.md,
 * "Experiments"; the arithmetic is experiments.result.ts.
 *
 * NOTE: ownership. Writes use ctx.principal.userId; reads use readerUserId(ctx). Another person's
 * experiment id answers NOT_FOUND.
 */
import { randomUUID } from 'node:crypto';
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { meals } from '../meals/index.ts';
import { responsesOfMeals } from '../nutrition/index.ts';
import { comparePeriods, MIN_MEALS_PER_PERIOD } from './experiments.result.ts';
import type { ComparisonFigures, PeriodSample } from './experiments.result.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;
/** At most this many experiments running (active or paused, not past their end) at once. */
export const MAX_RUNNING_EXPERIMENTS = 3;
/** Bounds of a period's length, days. */
export const PERIOD_DAYS_MIN = 3;
export const PERIOD_DAYS_MAX = 60;
/** The most meals of one experiment's span read for its result (newest first). */
export const EXPERIMENT_MEALS_MAX = 2000;
/** The most experiments a list answers (newest first). */
export const EXPERIMENTS_LIST_MAX = 20;

export const EXPERIMENT_ACTIONS = ['pause', 'resume', 'stop', 'abandon'] as const;
export type ExperimentAction = (typeof EXPERIMENT_ACTIONS)[number];
export const EXPERIMENT_MEAL_TYPES = ['breakfast', 'lunch', 'dinner', 'snack'] as const;

export type ExperimentStatus = 'active' | 'paused' | 'completed' | 'stopped' | 'abandoned';

export interface StartExperimentOptions {
  /** a short name, e.g. "Walk after dinner" */
  name: string;
  /** what the person does differently in the intervention period */
  intervention: string;
  /** the meal type it applies to; null: every meal */
  mealType: string | null;
  /** control period length, days (the days just before startAt) */
  baselineDays: number;
  /** intervention period length, days from startAt */
  interventionDays: number;
  /** when the intervention starts; default now (may be in the past: a person already trying) */
  startAt: Date | null;
}

export interface ControlExperimentOptions {
  /** the experiment's id */
  id: string;
  /** pause, resume, stop (ends it, keeps its result) or abandon (ends it, marked abandoned) */
  action: ExperimentAction;
}

/** One period's span and figures. */
export interface PeriodView {
  start: Date;
  end: Date;
  meals: number;
  mealsWithResponse: number;
  meanIaucMgDlMin: number | null;
  sdIaucMgDlMin: number | null;
  meanRiseMgDl: number | null;
  sdRiseMgDl: number | null;
}

export interface ExperimentResultView extends Omit<ComparisonFigures, 'control' | 'intervention'> {
  control: PeriodView;
  intervention: PeriodView;
  minMealsPerPeriod: number;
}

export interface ExperimentView {
  id: string;
  name: string;
  intervention: string;
  mealType: string | null;
  baselineDays: number;
  interventionDays: number;
  startAt: Date;
  /** the planned end of the intervention period */
  endAt: Date;
  status: ExperimentStatus;
  pausedAt: Date | null;
  endedAt: Date | null;
  createdAt: Date;
  result: ExperimentResultView;
}

type ExperimentRow = Awaited<ReturnType<AuthedContext['prisma']['experiment']['findFirstOrThrow']>>;

const notFound = (): Error => appError('NOT_FOUND', 'Experiment not found');

const plannedEnd = (e: ExperimentRow): number => e.startAt.getTime() + e.interventionDays * DAY_MS;

/** The status as answered: active or paused past the planned end is completed. */
function statusOf(e: ExperimentRow, now: number): ExperimentStatus {
  if (e.status === 'stopped' || e.status === 'abandoned') return e.status;
  if (now >= plannedEnd(e)) return 'completed';
  return e.status as ExperimentStatus;
}

/** The [start, end) ms spans whose meals do not count: closed pauses and an open one. */
function pauseSpans(e: ExperimentRow, now: number): [number, number][] {
  const spans = JSON.parse(e.pauses) as [number, number][];
  if (e.pausedAt) spans.push([e.pausedAt.getTime(), now]);
  return spans;
}

/** The experiment's result from its meals and their responses (one meal read, one reading read). */
async function resultOf(
  ctx: AuthedContext,
  e: ExperimentRow,
  now: number,
): Promise<ExperimentResultView> {
  const start = e.startAt.getTime();
  const controlStart = start - e.baselineDays * DAY_MS;
  const interventionEnd = Math.max(
    start,
    Math.min(plannedEnd(e), e.endedAt?.getTime() ?? Infinity, now),
  );
  const eaten = (
    await meals(ctx, {
      startMs: controlStart,
      endMs: interventionEnd,
      limit: EXPERIMENT_MEALS_MAX,
    })
  ).filter((m) => e.mealType === null || m.mealType === e.mealType);
  const pauses = pauseSpans(e, now);
  const counted = eaten.filter((m) => {
    const t = m.eatenAt.getTime();
    return t < start || !pauses.some(([a, b]) => t >= a && t < b);
  });
  const responses = await responsesOfMeals(ctx, counted);
  const control: PeriodSample = { meals: 0, iaucs: [], rises: [] };
  const treated: PeriodSample = { meals: 0, iaucs: [], rises: [] };
  counted.forEach((m, index) => {
    const period = m.eatenAt.getTime() < start ? control : treated;
    period.meals += 1;
    const r = responses[index].response;
    if (r) {
      period.iaucs.push(r.iaucMgDlMin);
      period.rises.push(r.riseMgDl);
    }
  });
  const figures = comparePeriods(control, treated);
  return {
    ...figures,
    minMealsPerPeriod: MIN_MEALS_PER_PERIOD,
    control: { start: new Date(controlStart), end: new Date(start), ...figures.control },
    intervention: {
      start: new Date(start),
      end: new Date(interventionEnd),
      ...figures.intervention,
    },
  };
}

async function viewOf(ctx: AuthedContext, e: ExperimentRow, now: number): Promise<ExperimentView> {
  return {
    id: e.id,
    name: e.name,
    intervention: e.intervention,
    mealType: e.mealType,
    baselineDays: e.baselineDays,
    interventionDays: e.interventionDays,
    startAt: e.startAt,
    endAt: new Date(plannedEnd(e)),
    status: statusOf(e, now),
    pausedAt: e.pausedAt,
    endedAt: e.endedAt,
    createdAt: e.createdAt,
    result: await resultOf(ctx, e, now),
  };
}

/**
 * Starts an experiment. At most MAX_RUNNING_EXPERIMENTS may run at once (CONFLICT,
 * detail.code too_many_experiments).
 */
export async function startExperiment(
  ctx: AuthedContext,
  options: StartExperimentOptions,
): Promise<ExperimentView> {
  const userId = ctx.principal.userId;
  const now = clock.ms();
  const open = await ctx.prisma.experiment.findMany({
    where: { userId, status: { in: ['active', 'paused'] } },
  });
  const running = open.filter((e) => plannedEnd(e) > now).length;
  if (running >= MAX_RUNNING_EXPERIMENTS) {
    throw appError(
      'CONFLICT',
      `At most ${MAX_RUNNING_EXPERIMENTS} experiments may run at once: stop or abandon one first (insights_experiment_control)`,
      { detail: { code: 'too_many_experiments', max: MAX_RUNNING_EXPERIMENTS } },
    );
  }
  const row = await ctx.prisma.experiment.create({
    data: {
      id: randomUUID(),
      userId,
      name: options.name.trim(),
      intervention: options.intervention.trim(),
      mealType: options.mealType,
      baselineDays: options.baselineDays,
      interventionDays: options.interventionDays,
      startAt: options.startAt ?? new Date(now),
    },
  });
  return viewOf(ctx, row, now);
}

/**
 * Pauses, resumes, stops or abandons an experiment. Pausing a paused one, resuming an active one,
 * stopping a stopped one or abandoning an abandoned one changes nothing; otherwise an ended one (stopped, abandoned, completed) answers CONFLICT
 * (detail.code experiment_ended).
 */
export async function controlExperiment(
  ctx: AuthedContext,
  options: ControlExperimentOptions,
): Promise<ExperimentView> {
  const userId = ctx.principal.userId;
  const now = clock.ms();
  const e = await ctx.prisma.experiment.findFirst({ where: { id: options.id, userId } });
  if (!e) throw notFound();
  const status = statusOf(e, now);
  // the same end twice is once
  if (
    (options.action === 'stop' && status === 'stopped') ||
    (options.action === 'abandon' && status === 'abandoned')
  )
    return viewOf(ctx, e, now);
  if (status === 'stopped' || status === 'abandoned' || status === 'completed') {
    throw appError('CONFLICT', `The experiment has ended (${status}); start a new one`, {
      detail: { code: 'experiment_ended', status },
    });
  }
  const pauses = JSON.parse(e.pauses) as [number, number][];
  const closeOpenPause = (): string =>
    JSON.stringify(e.pausedAt ? [...pauses, [e.pausedAt.getTime(), now]] : pauses);
  let data: Parameters<AuthedContext['prisma']['experiment']['update']>[0]['data'];
  switch (options.action) {
    case 'pause':
      data = status === 'paused' ? {} : { status: 'paused', pausedAt: new Date(now) };
      break;
    case 'resume':
      data =
        status === 'active' ? {} : { status: 'active', pausedAt: null, pauses: closeOpenPause() };
      break;
    case 'stop':
    case 'abandon':
      data = {
        status: options.action === 'stop' ? 'stopped' : 'abandoned',
        pausedAt: null,
        pauses: closeOpenPause(),
        endedAt: new Date(now),
      };
      break;
  }
  const row = await ctx.prisma.experiment.update({ where: { id: e.id }, data });
  return viewOf(ctx, row, now);
}

/** The person's experiments with their results, newest first (at most EXPERIMENTS_LIST_MAX). */
export async function experiments(ctx: AuthedContext): Promise<ExperimentView[]> {
  const now = clock.ms();
  const rows = await ctx.prisma.experiment.findMany({
    where: { userId: readerUserId(ctx) },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: EXPERIMENTS_LIST_MAX,
  });
  const views: ExperimentView[] = [];
  for (const row of rows) views.push(await viewOf(ctx, row, now));
  return views;
}

/** One experiment of the person with its result. */
export async function experiment(ctx: AuthedContext, id: string): Promise<ExperimentView> {
  const row = await ctx.prisma.experiment.findFirst({ where: { id, userId: readerUserId(ctx) } });
  if (!row) throw notFound();
  return viewOf(ctx, row, clock.ms());
}
