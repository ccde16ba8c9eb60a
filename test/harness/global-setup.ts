/**
 * Builds one migrated template database per test run; every test file then starts from a copy.
 * Embedded (default): a PGlite data-dir dump. With TEST_DATABASE_URL (CI): a PostgreSQL template
 * database that files clone with CREATE DATABASE ... TEMPLATE.
 * First it rebuilds dist/ (scripts/build.mjs), so the tests that spawn `npm start` run these sources,
 * and unpacks the headless Chromium that ships in the @sparticuz/chromium package (once per machine,
 * before any worker can race on it; test/harness/browser.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import chromium from '@sparticuz/chromium';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.ts';
import { noFilters, openEngine, readMigrationsList } from '../../src/db/schema-engine.ts';
import { openPglite } from '../../src/db/target.ts';
import { importCatalogue } from '../../src/domains/foods/import/foods.catalogue-import.ts';

export const TEMPLATE_DUMP = '/tmp/hdp-test/template.tar.gz';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  project.provide('chromium', await chromium.executablePath());
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
    // The same database with the shipped food catalogue imported once, for the files that need it.
    const withCatalogue = await openDatabase({ dataDir: null, loadDataDir: dump });
    await importCatalogue(withCatalogue.prisma);
    const catalogueFile = `/tmp/hdp-test/template-catalogue-${process.pid}.tar.gz`;
    const instance = withCatalogue.target.kind === 'pglite' ? withCatalogue.target.instance! : null;
    writeFileSync(
      catalogueFile,
      Buffer.from(await (await instance!.dumpDataDir('gzip')).arrayBuffer()),
    );
    await withCatalogue.close();
    project.provide('database', {
      kind: 'pglite',
      template: file,
      catalogueTemplate: catalogueFile,
    });
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
  const catalogueTemplate = `hdp_template_catalogue_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS "${catalogueTemplate}" WITH (FORCE)`);
  await admin.query(`CREATE DATABASE "${catalogueTemplate}" TEMPLATE "${template}"`);
  u.pathname = `/${catalogueTemplate}`;
  const withCatalogue = await openDatabase({ url: u.toString(), dataDir: null });
  await importCatalogue(withCatalogue.prisma);
  await withCatalogue.close();
  const filePrefix = `hdp_t_${process.pid}_`;
  project.provide('database', {
    kind: 'pg',
    template,
    catalogueTemplate,
    adminUrl: url,
    filePrefix,
  });
  return async () => {
    // the files' databases a file left open (its worker ended before it closed its app), then the templates
    const { rows } = await admin.query<{ name: string }>(
      `SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)`,
      [filePrefix],
    );
    for (const { name } of rows)
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await admin.query(`DROP DATABASE IF EXISTS "${catalogueTemplate}" WITH (FORCE)`);
    await admin.end();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** the headless Chromium binary unpacked from @sparticuz/chromium */
    chromium: string;
    /** catalogueTemplate: the same database with the shipped food catalogue imported */
    database:
      | { kind: 'pglite'; template: string; catalogueTemplate: string }
      | {
          kind: 'pg';
          template: string;
          catalogueTemplate: string;
          adminUrl: string;
          /** the start of every file's database name in this run (dropped at its end) */
          filePrefix: string;
        };
  }
}
