import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startCatalogueAutoload } from '../../src/domains/foods/foods.bundle.ts';
import { importCatalogue } from '../../src/domains/foods/import/foods.catalogue-import.ts';
import { createLogger } from '../../src/base/logger.ts';
import type { ImportProgress } from '../../src/domains/foods/import/foods.catalogue-import.ts';
import { normaliseGtin } from '../../src/domains/foods/foods.gtin.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

// An empty catalogue: these tests import (parts of) the shipped files themselves.
const app = await startTestApp();
const db = app.db.prisma;

const count = async (sql: string): Promise<number> =>
  Number((await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${sql}`))[0].n);

describe('catalogue import (npm run foods:import)', () => {
  it('resumes a killed import from its last committed chunk, then a re-run writes nothing', async () => {
    const abort = new AbortController();
    const seen: ImportProgress[] = [];
    const killed = importCatalogue(db, {
      sources: ['open_food_facts'],
      chunkFoods: 300,
      signal: abort.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p.phase === 'chunk' && p.chunk === 2) abort.abort();
      },
    });
    await expect(killed).rejects.toThrow();
    expect(await count(`foods WHERE source = 'open_food_facts'`)).toBe(600);

    const resumed = await importCatalogue(db, { sources: ['open_food_facts'], chunkFoods: 300 });
    expect(resumed).toMatchObject([
      { source: 'open_food_facts', upToDate: false, foods: 946, chunksWritten: 2 },
    ]);
    expect(await count(`foods WHERE source = 'open_food_facts'`)).toBe(946);

    const again = await importCatalogue(db, { sources: ['open_food_facts'], chunkFoods: 300 });
    expect(again).toMatchObject([{ upToDate: true, chunksWritten: 0 }]);
  });

  it('changes no row when the same files are imported again without checkpoints', async () => {
    await importCatalogue(db, { sources: ['open_food_facts'] });
    const before = await db.$queryRawUnsafe<{ updated_at: Date }[]>(
      `SELECT max(updated_at) AS updated_at FROM foods`,
    );
    const nutrients = await count('food_nutrients');
    await db.$executeRawUnsafe('DELETE FROM food_import_checkpoints');
    const report = await importCatalogue(db, { sources: ['open_food_facts'] });
    expect(report[0]).toMatchObject({ upToDate: false, chunksWritten: 1 });
    const after = await db.$queryRawUnsafe<{ updated_at: Date }[]>(
      `SELECT max(updated_at) AS updated_at FROM foods`,
    );
    expect(after[0].updated_at).toEqual(before[0].updated_at);
    expect(await count('food_nutrients')).toBe(nutrients);
  });

  it('imports Foundation Foods with their own and SR Legacy portions, and maps Open Food Facts nutrients', async () => {
    await importCatalogue(db, { sources: ['usda_foundation'] });
    expect(await count(`foods WHERE source = 'usda_foundation'`)).toBe(387);
    // Hummus, commercial (321358): 2 tablespoons from Foundation, tbsp and cup from SR Legacy NDB 16158
    const hummus = await rest(app, 'GET', '/api/foods/321358');
    expect(hummus.body.portions).toEqual([
      {
        seq: 1,
        amount: 2,
        unit: 'tablespoon',
        description: null,
        modifier: null,
        gram_weight: 33.9,
      },
      { seq: 1001, amount: 1, unit: null, description: null, modifier: 'tbsp', gram_weight: 15 },
      { seq: 1002, amount: 1, unit: null, description: null, modifier: 'cup', gram_weight: 246 },
    ]);
    // SR Legacy foods themselves are not catalogue foods (no nutrient values in the shipped tables)
    expect(await count(`foods WHERE id = '167512'`)).toBe(0);
    // Open Food Facts "Andrè" (0000000000000207025004): sodium from g to mg, countries as ISO-2
    const andre = await rest(app, 'GET', '/api/foods/off:0000000000000207025004');
    expect(andre.body).toMatchObject({
      countries: ['DE'],
      gtin: '00000207025004',
      has_full_nutrients: false,
    });
  });

  it('serves the core bundle once Foundation Foods are imported', async () => {
    const res = await app.fetch('/api/foods/core-bundle');
    expect(res.status).toBe(200);
    expect((await res.json()).foods).toHaveLength(387);
  });
});

describe('barcode normalisation', () => {
  it('maps every GTIN form to one GTIN-14 and refuses wrong check digits', () => {
    expect(
      ['96385074', '036000291452', '0036000291452', '00036000291452'].map(normaliseGtin),
    ).toEqual(['00000096385074', '00036000291452', '00036000291452', '00036000291452']);
    expect(
      ['036000291453', '12345', '1234567890123456', '03600029145x'].map(normaliseGtin),
    ).toEqual([null, null, null, null]);
  });
});

const run = promisify(execFile);

/** Runs the CLI as `npm run foods:import` does, on an embedded database of its own. */
async function cli(
  dataDir: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/foods-import.ts', ...args],
      {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('npm run foods:import', () => {
  it('prints progress on stderr and a JSON summary with timings; a second run has nothing to do', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-foods-cli-'));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
    expect((await cli(dataDir, '--source', 'sr_legacy')).code).toBe(2);
    const first = await cli(dataDir, '--source', 'open_food_facts');
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/open_food_facts: read 946 foods/);
    expect(first.stderr).toMatch(/open_food_facts: \[#{20}\] chunk 1\/1, 946\/946 foods/);
    expect(JSON.parse(first.stdout)).toMatchObject({
      database: 'pglite',
      sources: [{ source: 'open_food_facts', foods: 946, chunksWritten: 1 }],
    });
    const second = await cli(dataDir, '--source', 'open_food_facts');
    expect(second.stderr).toMatch(/open_food_facts: up to date/);
    expect(JSON.parse(second.stdout).sources[0]).toMatchObject({
      upToDate: true,
      chunksWritten: 0,
    });
  }, 120_000);
});

describe('FOODS_AUTOLOAD', async () => {
  // started in the describe body, not the test, so that its database is closed (and dropped) after the file
  const fresh = await startTestApp();
  it('off imports nothing; auto imports in the background, the core bundle answering 503 meanwhile, and stops on shutdown', async () => {
    const log = createLogger('silent');
    await startCatalogueAutoload(fresh.db.prisma, { FOODS_AUTOLOAD: 'off' }, log).stop();
    expect(await fresh.db.prisma.food.count()).toBe(0);

    const autoload = startCatalogueAutoload(fresh.db.prisma, { FOODS_AUTOLOAD: 'auto' }, log);
    const during = await rest(fresh, 'GET', '/api/foods/core-bundle');
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBe('10');
    expect((await rest(fresh, 'GET', '/api/foods/stats')).status).toBe(200);
    await autoload.stop();
    // stopped between chunks: whatever was committed is whole (a food's rows come with it)
    const orphans = await fresh.db.prisma.$queryRawUnsafe<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM foods f WHERE f.source = 'usda_foundation' AND NOT EXISTS (SELECT 1 FROM food_nutrients n WHERE n.food_id = f.id)`,
    );
    expect(orphans[0].n).toBe(0);
  }, 120_000);
});
