/**
 * A scratch database for a benchmark: a fresh database on BENCH_DATABASE_URL's (or
 * TEST_DATABASE_URL's) PostgreSQL server, or, without one, a temp dir for an embedded PGlite.
 * `drop()` removes it afterwards (the PostgreSQL database is kept with BENCH_KEEP, to look at).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface Scratch {
  /** the scratch database's URL on PostgreSQL; undefined: use `dataDir` (PGlite) */
  url: string | undefined;
  /** a temp dir of this run (PGlite's data under `db`, anything else the bench writes) */
  dir: string;
  /** drops the database (unless BENCH_KEEP) and removes the temp dir */
  drop: () => Promise<void>;
}

/** Creates the scratch database `hdp_bench_<name>_<pid>` (or the PGlite temp dir). */
export async function scratchDatabase(name: string): Promise<Scratch> {
  const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const dir = mkdtempSync(path.join(tmpdir(), `hdp-bench-${name}-`));
  if (!adminUrl) {
    const drop = (): Promise<void> => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    };
    return { url: undefined, dir, drop };
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const database = `hdp_bench_${name.replace(/\W/g, '_')}_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const u = new URL(adminUrl);
  u.pathname = `/${database}`;
  return {
    url: u.toString(),
    dir,
    drop: async () => {
      if (!process.env.BENCH_KEEP)
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
