/**
 * Builds one migrated template database per test run; every test file then starts from a copy.
 * Embedded (default): a PGlite data-dir dump. With TEST_DATABASE_URL (CI): a PostgreSQL template
 * database that files clone with CREATE DATABASE ... TEMPLATE.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { noFilters, openEngine, readMigrationsList } from '../../src/db/schema-engine.ts';
import { openPglite } from '../../src/db/target.ts';

export const TEMPLATE_DUMP = '/tmp/hdp-test/template.tar.gz';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  const migrationsList = await readMigrationsList();
  if (!url) {
    const db = await openPglite(null);
    const engine = await openEngine({ kind: 'pglite', dataDir: null, instance: db });
    await engine.applyMigrations({ migrationsList, filters: noFilters });
    await engine.close();
    const dump = await db.dumpDataDir('gzip');
    mkdirSync('/tmp/hdp-test', { recursive: true });
    const file = `/tmp/hdp-test/template-${process.pid}.tar.gz`;
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    await db.close();
    project.provide('database', { kind: 'pglite', template: file });
    return async () => {};
  }
  const u = new URL(url);
  const template = `hdp_template_${process.pid}`;
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${template}"`);
  u.pathname = `/${template}`;
  const engine = await openEngine({ kind: 'pg', url: u.toString() });
  await engine.applyMigrations({ migrationsList, filters: noFilters });
  await engine.close();
  project.provide('database', { kind: 'pg', template, adminUrl: url });
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await admin.end();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    database: { kind: 'pglite'; template: string } | { kind: 'pg'; template: string; adminUrl: string };
  }
}
