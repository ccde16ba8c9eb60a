/**
 * The PostgreSQL pools this process has open (one per database; none on PGlite), for the
 * db_pool_* gauges on /metrics (src/platform/metrics.ts reads them; the database knows no metrics).
 */
import type { Pool } from 'pg';

const pools = new Set<Pool>();

/** Counts `pool` among the open pools until it ends. */
export function trackPool(pool: Pool): void {
  pools.add(pool);
}

/** The pools still open (an ended one is forgotten). */
export function openPools(): Pool[] {
  for (const pool of pools) if (pool.ended) pools.delete(pool);
  return [...pools];
}
