/**
 * The admin system status: is the database reachable and migrated, which limits store counts
 * (memory or Redis), the version and uptime, and a few row counts.
 * NOTE: nothing secret: no URL, key, host name or address is ever part of the answer.
 */
import { readFileSync } from 'node:fs';
import { pendingMigrations } from '../../db/migrate.ts';
import type { AppliedRow } from '../../db/migrate.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { accountCounts } from '../account/index.ts';
import { glucoseAggregate } from '../glucose/index.ts';
import { fromRoot } from '../../base/paths.ts';
import { clock } from '../../base/clock.ts';

const VERSION = (
  JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as {
    version: string;
  }
).version;

export interface SystemStatusView {
  status: 'ok' | 'degraded';
  version: string;
  nodeVersion: string;
  uptimeSeconds: number;
  database: { kind: 'pglite' | 'postgresql'; reachable: boolean; latencyMs: number | null };
  migrations: { upToDate: boolean; pending: string[] };
  /** where rate-limit counts live (REDIS_URL set: Redis, shared by every replica) */
  limitsStore: { kind: 'memory' | 'redis' };
  aiConfigured: boolean;
  counts: { users: number; glucoseReadings: number; rawSamples: number } | null;
  checkedAt: Date;
}

/** The database's round-trip time and what it is (PGlite names itself in version()). */
async function probeDatabase(
  ctx: AuthedContext,
): Promise<{ latencyMs: number; kind: 'pglite' | 'postgresql' } | null> {
  const started = performance.now();
  try {
    const [row] = await ctx.prisma.$queryRaw<{ version: string }[]>`SELECT version() AS version`;
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    return { latencyMs, kind: /\bPGlite\b/.test(row.version) ? 'pglite' : 'postgresql' };
  } catch {
    return null;
  }
}

/** Checks each part; a part that fails is reported, never thrown (the answer stays 200). */
export async function adminSystemStatus(ctx: AuthedContext): Promise<SystemStatusView> {
  const probe = await probeDatabase(ctx);
  const reachable = probe !== null;
  const latencyMs = probe?.latencyMs ?? null;
  // NOTE: the runner's one read is a fixed statement (of _prisma_migrations), never input.
  const pending = reachable
    ? await pendingMigrations((sql) => ctx.prisma.$queryRawUnsafe<AppliedRow[]>(sql)).catch(() => [
        '(unknown)',
      ])
    : ['(unknown)'];
  const redis = Boolean(ctx.config.REDIS_URL);
  const counts = reachable
    ? await Promise.all([accountCounts(ctx), glucoseAggregate(ctx)]).then(
        ([a, g]) => ({ users: a.users, glucoseReadings: g.readings, rawSamples: g.rawSamples }),
        () => null,
      )
    : null;
  const healthy = reachable && pending.length === 0;
  return {
    status: healthy ? 'ok' : 'degraded',
    version: VERSION,
    nodeVersion: process.version,
    uptimeSeconds: Math.round(process.uptime()),
    database: {
      kind: probe?.kind ?? (ctx.config.DATABASE_URL ? 'postgresql' : 'pglite'),
      reachable,
      latencyMs,
    },
    migrations: { upToDate: pending.length === 0, pending },
    limitsStore: { kind: redis ? 'redis' : 'memory' },
    aiConfigured: ctx.models !== null,
    counts,
    checkedAt: clock.now(),
  };
}
