/**
 * The Prisma client factory: one generated client (PostgreSQL), two driver adapters.
 * PGlite runs in process (one connection, queries serialised); PostgreSQL uses a pg pool.
 */
import type { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { trackPool } from './pools.ts';
import { countingStatements } from './statement-count.ts';
import type { DbTarget } from './target.ts';

export type Db = PrismaClient;
/** The client inside an interactive transaction (`db.$transaction(async (tx) => ...)`). */
export type DbTx = Prisma.TransactionClient;

/** A Prisma client on the target; for PGlite the caller passes the open instance. */
export function createPrismaClient(target: DbTarget, pglite?: PGlite): Db {
  if (target.kind === 'pglite') {
    if (!pglite) throw new Error('createPrismaClient: an open PGlite instance is required');
    return new PrismaClient({ adapter: countingStatements(new PrismaPGlite(pglite)) });
  }
  // the pool is ours (its gauges are on /metrics) but the adapter still ends it on $disconnect
  const pool = new pg.Pool({ connectionString: target.url, max: 10 });
  trackPool(pool);
  // every statement counts into its request's tally (src/db/statement-count.ts)
  const adapter = countingStatements(new PrismaPg(pool, { disposeExternalPool: true }));
  return new PrismaClient({ adapter });
}
