/**
 * Opens the database the config names, applies pending migrations, and hands back a Prisma client.
 * Embedded default: PGlite in DATA_DIR/pglite (created on first start). Server: DATABASE_URL.
 */
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Db } from './client.ts';
import { createPrismaClient } from './client.ts';
import { deployMigrations } from './migrate.ts';
import type { AppliedRow } from './migrate.ts';
import type { DbTarget } from './target.ts';
import { openPglite } from './target.ts';

export interface Database {
  prisma: Db;
  target: DbTarget;
  /** migrations applied by this open (empty on a restart) */
  applied: string[];
  /** a cheap round trip, for /readyz */
  ping(): Promise<void>;
  close: () => Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres:// URL, or undefined for the embedded database */
  url?: string;
  /** embedded database directory (null: in memory) */
  dataDir: string | null;
  /** start the embedded database from a dump (test templates) */
  loadDataDir?: Blob;
}

/** Opens, migrates and connects. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.url) {
    const target: DbTarget = { kind: 'pg', url: options.url };
    const prisma = createPrismaClient(target);
    // NOTE: Unsafe on purpose: the migration runner hands its one read (of _prisma_migrations) as
    // text, the same text the embedded path gives pglite.query; it has no parameters and never
    // carries a request's value.
    const applied = await deployMigrations(target, (sql) =>
      prisma.$queryRawUnsafe<AppliedRow[]>(sql),
    );
    return {
      prisma,
      target,
      applied,
      ping: async () => void (await prisma.$queryRaw`SELECT 1`),
      close: () => prisma.$disconnect(),
    };
  }
  const dir = options.dataDir === null ? null : path.join(options.dataDir, 'pglite');
  const pglite: PGlite = await openPglite(dir, options.loadDataDir);
  const target: DbTarget = { kind: 'pglite', dataDir: dir, instance: pglite };
  const applied = await deployMigrations(
    target,
    async (sql) => (await pglite.query<AppliedRow>(sql)).rows,
  );
  const prisma = createPrismaClient(target, pglite);
  return {
    prisma,
    target,
    applied,
    ping: async () => void (await pglite.query('SELECT 1')),
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
