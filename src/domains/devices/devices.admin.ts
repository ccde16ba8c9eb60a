/**
 * Device reads for the admin API (src/domains/admin): every person's CGM sensors, by status.
 * NOTE: these read every person's rows; only admin fields (`t.withAuth({ admin: true })`) call them.
 */
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';
import type { SensorSessionView } from './devices.service.ts';

export interface AdminSensorView extends SensorSessionView {
  userId: number;
}

export interface ListAllSensorsOptions {
  /** active or unbound; none: both */
  status?: string | null;
  /** sensors skipped (most recently started first) */
  offset: number;
  /** sensors answered */
  limit: number;
}

/** One page of every person's live sensors, most recently started first, and how many match. */
export async function listAllSensors(
  ctx: Context,
  options: ListAllSensorsOptions,
): Promise<{ total: number; items: AdminSensorView[] }> {
  const where: Prisma.SensorSessionWhereInput = { deletedAt: null };
  if (options.status) where.status = options.status;
  const [total, items] = await Promise.all([
    ctx.prisma.sensorSession.count({ where }),
    ctx.prisma.sensorSession.findMany({
      where,
      orderBy: [{ startedAt: 'desc' }, { id: 'asc' }],
      skip: options.offset,
      take: options.limit,
      select: {
        id: true,
        userId: true,
        serialNumber: true,
        sensorType: true,
        startedAt: true,
        expiresAt: true,
        status: true,
        unboundAt: true,
      },
    }),
  ]);
  return { total, items };
}

/** Live sensors by status (active, unbound). */
export async function sensorCounts(ctx: Context): Promise<{ active: number; unbound: number }> {
  const rows = await ctx.prisma.sensorSession.groupBy({
    by: ['status'],
    where: { deletedAt: null },
    _count: { _all: true },
  });
  const of = (s: string) => rows.find((r) => r.status === s)?._count._all ?? 0;
  return { active: of('active'), unbound: of('unbound') };
}
