/**
 * Imports the food catalogue (USDA FoodData Central Foundation + SR Legacy portions + Branded, and
 * Open Food Facts) from data/catalogue/ (or --dir) into the database:
 *   npm run foods:import [-- --dir data/catalogue] [--source usda_branded ...]
 * Idempotent and resumable (src/domains/foods/import/foods.catalogue-import.ts): a re-run writes nothing,
 * a killed run continues from its last committed chunk. Progress lines go to stderr; the summary
 * (JSON, with timings) to stdout. Database: DATABASE_URL or the embedded one in DATA_DIR.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/base/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { importCatalogue } from '../src/domains/foods/import/foods.catalogue-import.ts';
import { CATALOGUE_SOURCES } from '../src/domains/foods/import/foods.catalogue-sources.ts';
import type { CatalogueSource } from '../src/domains/foods/import/foods.catalogue-sources.ts';

const { values } = parseArgs({
  options: { dir: { type: 'string' }, source: { type: 'string', multiple: true } },
});
const sources = (values.source ?? [...CATALOGUE_SOURCES]) as CatalogueSource[];
const unknown = sources.filter((s) => !CATALOGUE_SOURCES.includes(s));
if (unknown.length) {
  console.error(`unknown source ${unknown.join(', ')}; sources: ${CATALOGUE_SOURCES.join(', ')}`);
  process.exit(2);
}

const started = performance.now();
const config = loadConfig();
const db = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  const reports = await importCatalogue(db.prisma, {
    dir: values.dir,
    sources,
    onProgress: (p) => {
      if (p.phase === 'skipped')
        console.error(`${p.source}: up to date (${p.chunks} chunks committed), nothing to do`);
      if (p.phase === 'read')
        console.error(
          `${p.source}: read ${p.total} foods; rows not kept: ${JSON.stringify(p.skippedRows)}`,
        );
      if (p.phase === 'chunk') {
        const width = 20;
        const filled = Math.round((p.foods! / Math.max(1, p.total!)) * width);
        console.error(
          `${p.source}: [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] chunk ${p.chunk}/${p.chunks}, ${p.foods}/${p.total} foods`,
        );
      }
    },
  });
  const totalMs = Math.round(performance.now() - started);
  console.error(`catalogue import finished in ${(totalMs / 1000).toFixed(1)} s`);
  console.log(JSON.stringify({ database: db.target.kind, totalMs, sources: reports }));
} finally {
  await db.close();
}
