/**
 * Migration drift check: does replaying the migration history give exactly the database the
 * Prisma schema describes? `npm run db:check` (CI) and the contract test call it. It works on a
 * scratch database (an in-memory PGlite unless a target is given), so it never depends on, or
 * changes, anybody's local data; it never writes a migration.
 */
import { noFilters, openEngine, readMigrationsList, readSchemaFiles } from './schema-engine.ts';
import type { SchemaFile } from './schema-engine.ts';
import type { DbTarget } from './target.ts';
import { openPglite } from './target.ts';

export interface DriftCheckOptions {
  /** where the engine replays the migrations (default: a fresh in-memory PGlite) */
  target?: DbTarget;
  /** the Prisma schema to compare with (default: the files of prisma/) */
  schemaFiles?: SchemaFile[];
  /** the migrations folder (default: prisma/migrations) */
  migrationsDir?: string;
}

export interface DriftResult {
  /** 0: no drift; non-zero (the engine answers 2): the schema has changes without a migration */
  exitCode: number;
  /** the SQL a migration would need to close the gap (empty without drift) */
  script: string;
}

/** Diffs the migration history against the Prisma schema with the wasm schema engine. */
export async function checkMigrationDrift(options: DriftCheckOptions = {}): Promise<DriftResult> {
  const migrationsList = await readMigrationsList(options.migrationsDir);
  const schemaFiles = options.schemaFiles ?? (await readSchemaFiles());
  const scratch = options.target ? null : await openPglite(null);
  const target: DbTarget = options.target ?? { kind: 'pglite', dataDir: null, instance: scratch! };
  const engine = await openEngine(target, schemaFiles);
  try {
    const r = await engine.diff({
      from: migrationsList.migrationDirectories.length
        ? { tag: 'migrations', ...migrationsList }
        : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: schemaFiles },
      script: true,
      exitCode: true,
      filters: noFilters,
    });
    return { exitCode: r.exitCode, script: r.stdout ?? '' };
  } finally {
    await engine.close();
    await scratch?.close();
  }
}
