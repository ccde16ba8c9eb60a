/**
 * Observations (issue 33): a person's own notes, a label at a time with an optional 1-5 intensity
 * ("headache", "coffee after 3 pm"); each label becomes a daily signal (discovery.signals.ts).
 * Writes are the credential's own person; reads use readerUserId (a grantee viewing as reads the
 * owner's). Another person's observation answers NOT_FOUND.
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { localDateOf } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import {
  OBSERVATIONS_DAYS_DEFAULT,
  OBSERVATIONS_MAX,
  OBSERVATIONS_PAGE_DEFAULT,
  normaliseLabel,
} from './discovery.rules.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;

export interface ObservationView {
  id: string;
  observedAt: Date;
  /** the local day it counts on, in `timeZone` */
  date: LocalDate;
  timeZone: string;
  label: string;
  intensity: number | null;
  note: string | null;
  createdAt: Date;
}

interface ObservationRow {
  id: string;
  observedAt: Date;
  label: string;
  intensity: number | null;
  note: string | null;
  createdAt: Date;
}

const viewOf = (row: ObservationRow, zone: string): ObservationView => ({
  ...row,
  date: localDateOf(row.observedAt, zone),
  timeZone: zone,
});

export interface AddObservationOptions {
  label: string;
  /** when it happened (default now; an offset-less time is the person's local time) */
  observedAt?: Date | null;
  /** 1..5, or none */
  intensity?: number | null;
  note?: string | null;
}

/** Records an observation of the caller. */
export async function addDiscoveryObservation(
  ctx: AuthedContext,
  options: AddObservationOptions,
): Promise<ObservationView> {
  const me = ctx.principal.userId;
  const observedAt = options.observedAt ?? clock.now();
  if (observedAt.getTime() > clock.ms() + 5 * 60_000)
    throw validationError([
      {
        loc: ['observedAt'],
        msg: 'is in the future: give the time it happened',
        type: 'value_error',
      },
    ]);
  const held = await ctx.prisma.discoveryObservation.count({ where: { userId: me } });
  if (held >= OBSERVATIONS_MAX)
    throw appError(
      'CONFLICT',
      `You hold ${OBSERVATIONS_MAX} observations, the most kept: delete old ones (discovery_observation_delete) first`,
      { detail: { code: 'too_many_observations', max: OBSERVATIONS_MAX } },
    );
  const row = await ctx.prisma.discoveryObservation.create({
    data: {
      userId: me,
      observedAt,
      label: normaliseLabel(options.label),
      intensity: options.intensity ?? null,
      note: options.note?.trim() || null,
    },
  });
  return viewOf(row, await personZone(ctx));
}

/** Deletes one of the caller's observations; answers it as it was. */
export async function deleteDiscoveryObservation(
  ctx: AuthedContext,
  options: { id: string },
): Promise<ObservationView> {
  const me = ctx.principal.userId;
  const row = await ctx.prisma.discoveryObservation.findFirst({
    where: { id: options.id, userId: me },
  });
  if (!row) throw appError('NOT_FOUND', 'Observation not found');
  await ctx.prisma.discoveryObservation.deleteMany({ where: { id: row.id, userId: me } });
  return viewOf(row, await personZone(ctx));
}

export interface ObservationsOptions {
  /** from (inclusive; default 30 days ago) */
  from?: Date | null;
  /** to (exclusive; default now) */
  to?: Date | null;
  /** only this label (normalised as stored) */
  label?: string | null;
  limit?: number | null;
}

export interface ObservationsView {
  timeZone: string;
  from: Date;
  to: Date;
  observations: ObservationView[];
  /** every label the person has used, with how many observations each */
  labels: { label: string; count: number }[];
}

/** The person's observations of a window, newest first, and the labels they use. */
export async function discoveryObservations(
  ctx: AuthedContext,
  options: ObservationsOptions,
): Promise<ObservationsView> {
  const userId = readerUserId(ctx);
  const to = options.to ?? clock.now();
  const from = options.from ?? new Date(to.getTime() - OBSERVATIONS_DAYS_DEFAULT * DAY_MS);
  if (from >= to)
    throw validationError([{ loc: ['from'], msg: 'must be before to', type: 'value_error' }]);
  const label = options.label ? normaliseLabel(options.label) : undefined;
  const [zone, rows, labels] = await Promise.all([
    personZone(ctx),
    ctx.prisma.discoveryObservation.findMany({
      where: { userId, label, observedAt: { gte: from, lt: to } },
      orderBy: [{ observedAt: 'desc' }, { id: 'asc' }],
      take: options.limit ?? OBSERVATIONS_PAGE_DEFAULT,
    }),
    ctx.prisma.discoveryObservation.groupBy({
      by: ['label'],
      where: { userId },
      _count: { _all: true },
      orderBy: { label: 'asc' },
    }),
  ]);
  return {
    timeZone: zone,
    from,
    to,
    observations: rows.map((r) => viewOf(r, zone)),
    labels: labels.map((l) => ({ label: l.label, count: l._count._all })),
  };
}
