/**
 * Applies pending migrations at start and from `npm run db:deploy`.
 *
 * Fast path: when `_prisma_migrations` already lists every migration folder with a matching
 * checksum, nothing is loaded; only otherwise is the wasm schema engine started (about 150 ms).
 * That keeps a restart on an existing database well under the 3 s start goal.
 */
import { createHash } from 'node:crypto';
import { noFilters, openEngine, readMigrationsList } from './schema-engine.ts';
import type { DbTarget } from './target.ts';

export interface AppliedRow {
  migration_name: string;
  checksum: string;
}

/** Runs a read-only query on the target; used only to list applied migrations. */
export type RawQuery = (sql: string) => Promise<AppliedRow[]>;

/** Names of migration folders not yet applied (or applied with another checksum). */
export async function pendingMigrations(query: RawQuery): Promise<string[]> {
  const list = await readMigrationsList();
  let applied: AppliedRow[] = [];
  try {
    applied = await query(
      'SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
  } catch {
    // no _prisma_migrations table yet: everything is pending
  }
  const done = new Map(applied.map((r) => [r.migration_name, r.checksum]));
  return list.migrationDirectories
    .filter((d) => {
      const sql = d.migrationFile.content.value;
      return done.get(d.path) !== createHash('sha256').update(sql).digest('hex');
    })
    .map((d) => d.path);
}

/** Applies pending migrations; returns the names applied. */
export async function deployMigrations(target: DbTarget, query: RawQuery): Promise<string[]> {
  if ((await pendingMigrations(query)).length === 0) return [];
  const engine = await openEngine(target);
  try {
    const r = await engine.applyMigrations({
      migrationsList: await readMigrationsList(),
      filters: noFilters,
    });
    return r.appliedMigrationNames;
  } finally {
    await engine.close();
  }
}
