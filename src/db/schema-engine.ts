/**
 * Prisma's schema engine (migrations, diff) as WebAssembly, in process, talking to the database
 * through a Prisma driver adapter. Prisma's native engines cannot be downloaded on our machines, so
 * this module is the only way migrations are created, applied and checked (docs/database.md).
 *
 * It never decides *what* to migrate: it wraps the engine's typed API and works around the
 * adapter gaps listed in ../shared/notes/prisma-offline.md section 4.3.
 */
import { readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { DbTarget } from './target.ts';
import { openPglite } from './target.ts';
import { fromRoot } from '../base/paths.ts';

const require = createRequire(import.meta.url);

export interface MigrationDirectory {
  path: string;
  migrationFile: { path: string; content: { tag: 'ok' | 'error'; value: string } };
}
export interface MigrationsList {
  baseDir: string;
  lockfile: { path: string; content: string | null };
  migrationDirectories: MigrationDirectory[];
  shadowDbInitScript: string;
}
export interface SchemaFile {
  path: string;
  content: string;
}

/** The subset of the wasm SchemaEngine API this project uses. */
export interface SchemaEngine {
  applyMigrations(p: object): Promise<{ appliedMigrationNames: string[] }>;
  devDiagnostic(p: object): Promise<{ action: { tag: string; reason?: string } }>;
  createMigration(
    p: object,
  ): Promise<{ generatedMigrationName: string; migrationScript: string | null }>;
  evaluateDataLoss(
    p: object,
  ): Promise<{ warnings: { message: string }[]; unexecutableSteps: { message: string }[] }>;
  diagnoseMigrationHistory(p: object): Promise<{
    history: unknown;
    failedMigrationNames: string[];
    editedMigrationNames: string[];
  }>;
  diff(p: object): Promise<{ exitCode: number; stdout: string | null }>;
  close(): Promise<void>;
}

export const noFilters = { externalTables: [], externalEnums: [] };
export const MIGRATIONS_DIR = fromRoot('prisma', 'migrations');
export const SCHEMA_DIR = fromRoot('prisma');

const pendingTimers = new Set<NodeJS.Timeout>();
let engineClass: { new: (...args: unknown[]) => Promise<SchemaEngine & { free(): void }> } | null =
  null;

/** Instantiates the engine by hand so Node 20 needs no --experimental-wasm-modules flag. */
function loadEngineClass(): NonNullable<typeof engineClass> {
  if (engineClass) return engineClass;
  const g = glue as unknown as Record<string, unknown>;
  // Without a panic registry a Rust panic surfaces as an unrelated TypeError.
  (globalThis as Record<string, unknown>).PRISMA_WASM_PANIC_REGISTRY ??= {
    message: '',
    set_message(this: { message: string }, m: string) {
      this.message = `RuntimeError: ${m}`;
    },
  };
  // The engine arms timers it never clears (a 10 s advisory-lock timeout on PostgreSQL) that would
  // keep the process alive; track them so close() can clear them.
  const imports: Record<string, unknown> = { ...g };
  for (const name of Object.keys(g).filter((k) => k.startsWith('__wbg_setTimeout_'))) {
    imports[name] = (fn: () => void, ms: number) => {
      const t = setTimeout(() => {
        pendingTimers.delete(t);
        fn();
      }, ms >>> 0);
      pendingTimers.add(t);
      return t;
    };
  }
  const cliWasm = path.join(
    path.dirname(require.resolve('prisma/package.json')),
    'build',
    'schema_engine_bg.wasm',
  );
  const pkgWasm = path.join(
    path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')),
    'schema_engine_bg.wasm',
  );
  let instance: WebAssembly.Instance;
  try {
    // The CLI's own build has exactly the engine hash of the pinned prisma version.
    instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(cliWasm)), {
      './schema_engine_bg.js': imports as WebAssembly.ModuleImports,
    });
  } catch (e) {
    if (!(e instanceof WebAssembly.LinkError)) throw e;
    instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(pkgWasm)), {
      './schema_engine_bg.js': imports as WebAssembly.ModuleImports,
    });
  }
  (g.__wbg_set_wasm as (e: WebAssembly.Exports) => void)(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  engineClass = g.SchemaEngine as NonNullable<typeof engineClass>;
  return engineClass;
}

/** adapter-pg 7.10 cannot read the internal "char" type (OID 18) of pg_catalog: report it as text. */
function allowPgCharColumns(adapter: SqlDriverAdapter): SqlDriverAdapter {
  let proto = adapter as unknown as Record<string, unknown> | null;
  while (proto && !Object.hasOwn(proto, 'performIO'))
    proto = Object.getPrototypeOf(proto) as Record<string, unknown> | null;
  if (!proto || proto.__charPatched) return adapter;
  const performIO = proto.performIO as (
    q: unknown,
  ) => Promise<{ fields?: { dataTypeID: number }[] }>;
  proto.performIO = async function (this: unknown, query: unknown) {
    const result = await performIO.call(this, query);
    for (const f of result?.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return result;
  };
  proto.__charPatched = true;
  return adapter;
}

/** adapter-pg 7.10 splits scripts on every ';' (breaks $$ bodies, not atomic): send one query. */
function pgScriptAsOneQuery(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const a = adapter as SqlDriverAdapter & {
    underlyingDriver(): { query(sql: string): Promise<unknown> };
    onError(e: unknown): never;
  };
  a.executeScript = async (script: string) => {
    try {
      await a.underlyingDriver().query(script);
    } catch (e) {
      a.onError(e);
    }
  };
  return a;
}

async function adapterFactoryFor(
  target: DbTarget,
): Promise<SqlMigrationAwareDriverAdapterFactory & { dispose(): Promise<void> }> {
  if (target.kind === 'pglite') {
    const { PrismaPGlite } = await import('pglite-prisma-adapter');
    const db = target.instance ?? (await openPglite(target.dataDir));
    const factory = new PrismaPGlite(db) as unknown as SqlMigrationAwareDriverAdapterFactory;
    // The adapter's own shadow database is a bare PGlite: open ours, with the extensions the
    // migrations create (pg_trgm), and close it with its adapter.
    factory.connectToShadowDb = async () => {
      const shadow = await openPglite(null);
      const adapter = await (
        new PrismaPGlite(shadow) as unknown as SqlMigrationAwareDriverAdapterFactory
      ).connect();
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await shadow.close();
      };
      return adapter;
    };
    return Object.assign(factory, {
      // An instance handed in by the caller stays open; one we opened is closed with the engine.
      dispose: async () => {
        if (!target.instance) await db.close();
      },
    });
  }
  const { PrismaPg } = await import('@prisma/adapter-pg');
  const { parse } = await import('pg-connection-string');
  const { default: pg } = await import('pg');
  // Parsed fields, not { connectionString }: with a connection string adapter-pg's "shadow" pool
  // silently points at the main database.
  const { schema, ...cfg } = parse(target.url) as Record<string, string>;
  const pgConfig = cfg as unknown as import('pg').PoolConfig;
  const factory = new PrismaPg(
    pgConfig,
    schema ? { schema } : undefined,
  ) as unknown as SqlMigrationAwareDriverAdapterFactory;
  const connect = factory.connect.bind(factory);
  const opened: SqlDriverAdapter[] = [];
  factory.connect = async () => {
    const adapter = pgScriptAsOneQuery(allowPgCharColumns(await connect()));
    opened.push(adapter);
    return adapter;
  };
  // Own throw-away shadow database: adapter-pg drops it before closing its pool and leaves it behind.
  factory.connectToShadowDb = async () => {
    const admin = new pg.Client(pgConfig);
    await admin.connect();
    const database = `prisma_migrate_shadow_db_${crypto.randomUUID()}`;
    await admin.query(`CREATE DATABASE "${database}"`);
    const adapter = pgScriptAsOneQuery(
      allowPgCharColumns(await new PrismaPg({ ...pgConfig, database }).connect()),
    );
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      await admin.query(`DROP DATABASE IF EXISTS "${database}"`);
      await admin.end();
    };
    return adapter;
  };
  return Object.assign(factory, {
    dispose: async () => {
      await Promise.all(opened.map((a) => a.dispose()));
    },
  });
}

/** Migration folders in the shape the Prisma CLI builds (sorted by name). */
export async function readMigrationsList(dir = MIGRATIONS_DIR): Promise<MigrationsList> {
  const baseDir = path.resolve(dir);
  const lock = await readFile(path.join(baseDir, 'migration_lock.toml'), 'utf8').catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch(() => []);
  const migrationDirectories: MigrationDirectory[] = [];
  for (const e of entries.filter((d) => d.isDirectory())) {
    const content = await readFile(path.join(baseDir, e.name, 'migration.sql'), 'utf8')
      .then((value) => ({ tag: 'ok' as const, value }))
      .catch((err: Error) => ({ tag: 'error' as const, value: err.message }));
    migrationDirectories.push({ path: e.name, migrationFile: { path: 'migration.sql', content } });
  }
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return {
    baseDir,
    lockfile: { path: 'migration_lock.toml', content: lock },
    migrationDirectories,
    shadowDbInitScript: '',
  };
}

/** Every .prisma file of the schema folder. */
export async function readSchemaFiles(dir = SCHEMA_DIR): Promise<SchemaFile[]> {
  const abs = path.resolve(dir);
  const files: string[] = [];
  if ((await stat(abs)).isDirectory()) {
    for (const f of await readdir(abs, { recursive: true })) {
      if (f.endsWith('.prisma') && !f.startsWith('migrations')) files.push(path.join(abs, f));
    }
  } else files.push(abs);
  return Promise.all(
    files.sort().map(async (p) => ({ path: p, content: await readFile(p, 'utf8') })),
  );
}

/** Opens an engine on the target database; always close() it (clears timers, closes connections). */
export async function openEngine(
  target: DbTarget,
  schemaFiles?: SchemaFile[],
): Promise<SchemaEngine> {
  const Engine = loadEngineClass();
  const factory = await adapterFactoryFor(target);
  const files = schemaFiles ?? (await readSchemaFiles());
  const engine = await Engine.new(
    { datamodels: files.length ? files.map((f) => [f.path, f.content]) : undefined },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  engine.close = async () => {
    for (const t of pendingTimers) clearTimeout(t);
    pendingTimers.clear();
    engine.free();
    await factory.dispose();
  };
  return engine;
}
