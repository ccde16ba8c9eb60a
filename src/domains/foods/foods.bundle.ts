/**
 * The core bundle (GET /api/foods/core-bundle): the everyday foods (USDA Foundation Foods) with all
 * their nutrients and portions, for the phone's offline search. Built once per database from the
 * imported catalogue and held in memory with a strong ETag (sha256 of its JSON); the REST facade's
 * `cached` responder serves it with If-None-Match and gzip (docs/foods.md, "Core bundle").
 *
 * It also runs the background catalogue import of a first start (FOODS_AUTOLOAD=auto): while that
 * import has not finished, or no Foundation import was ever committed, the bundle answers
 * UNAVAILABLE (503 + Retry-After).
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../base/config.ts';
import type { Db } from '../../db/client.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import type { Logger } from '../../base/logger.ts';
import { importCatalogue, sourceImported } from './import/foods.catalogue-import.ts';
import { clock } from '../../base/clock.ts';

export interface CoreBundleView {
  /** strong validator: sha256 of the document's JSON */
  etag: string;
  builtAt: Date;
  foodCount: number;
  /** the bundle itself (snake_case keys; field list in docs/foods.md) */
  document: unknown;
}

interface CatalogueState {
  /** the background import of this process, while it runs */
  importing: Promise<void> | null;
  bundle: Promise<CoreBundleView> | null;
}

/** Per database client: one process may serve several databases (tests). */
const states = new WeakMap<Db, CatalogueState>();
const stateOf = (db: Db): CatalogueState => {
  let s = states.get(db);
  if (!s) states.set(db, (s = { importing: null, bundle: null }));
  return s;
};

/** Seconds a client should wait before asking again while the catalogue is being built. */
export const BUNDLE_RETRY_AFTER_S = 10;
export const BUNDLE_VERSION = 1;

async function buildBundle(db: Db): Promise<CoreBundleView> {
  const foods = await db.$queryRaw<
    { id: string; description: string; category: string | null }[]
  >`SELECT id, description, category FROM foods
     WHERE source = 'usda_foundation' AND owner_user_id IS NULL ORDER BY id`;
  const [amounts, portions, nutrients] = await Promise.all([
    db.$queryRaw<{ food_id: string; nutrient_id: number; amount: number }[]>`
      SELECT fn.food_id, fn.nutrient_id, fn.amount FROM food_nutrients fn JOIN foods f ON f.id = fn.food_id
       WHERE f.source = 'usda_foundation' AND f.owner_user_id IS NULL ORDER BY fn.food_id, fn.nutrient_id`,
    db.$queryRaw<
      {
        food_id: string;
        amount: number;
        unit: string | null;
        description: string | null;
        modifier: string | null;
        gram_weight: number;
      }[]
    >`SELECT p.food_id, p.amount, p.unit, p.description, p.modifier, p.gram_weight
        FROM food_portions p JOIN foods f ON f.id = p.food_id
       WHERE f.source = 'usda_foundation' AND f.owner_user_id IS NULL ORDER BY p.food_id, p.seq`,
    db.$queryRaw<{ id: number; name: string; unit: string }[]>`
      SELECT DISTINCT n.id, n.name, n.unit, n.rank FROM nutrients n JOIN food_nutrients fn ON fn.nutrient_id = n.id
        JOIN foods f ON f.id = fn.food_id
       WHERE f.source = 'usda_foundation' AND f.owner_user_id IS NULL ORDER BY n.rank NULLS LAST, n.id`,
  ]);
  const byFood = new Map(
    foods.map((f) => [
      f.id,
      {
        fdc_id: f.id,
        description: f.description,
        category: f.category,
        nutrients: {} as Record<string, number>,
        portions: [] as unknown[],
      },
    ]),
  );
  for (const a of amounts) byFood.get(a.food_id)!.nutrients[a.nutrient_id] = a.amount;
  for (const p of portions) {
    byFood.get(p.food_id)!.portions.push({
      amount: p.amount,
      unit: p.unit,
      description: p.description,
      modifier: p.modifier,
      gram_weight: p.gram_weight,
    });
  }
  const document = {
    version: BUNDLE_VERSION,
    source: 'usda_foundation',
    attribution:
      'U.S. Department of Agriculture, Agricultural Research Service. FoodData Central. fdc.nal.usda.gov. (CC0 1.0)',
    nutrients: nutrients.map((n) => ({ id: n.id, name: n.name, unit: n.unit })),
    foods: [...byFood.values()],
  };
  const etag = createHash('sha256').update(JSON.stringify(document)).digest('base64url');
  return { etag, builtAt: clock.now(), foodCount: foods.length, document };
}

/**
 * The core bundle, built on first use after the catalogue's Foundation Foods are imported and then
 * served from memory. UNAVAILABLE while this process's first import runs or none was ever committed.
 */
export async function foodCoreBundle(ctx: Context): Promise<CoreBundleView> {
  const state = stateOf(ctx.prisma);
  if (state.bundle) return state.bundle;
  const unavailable = () =>
    appError('UNAVAILABLE', 'The core food bundle is still being built; retry shortly', {
      retryAfter: BUNDLE_RETRY_AFTER_S,
    });
  if (state.importing || !(await sourceImported(ctx.prisma, 'usda_foundation')))
    throw unavailable();
  if (!state.bundle) {
    state.bundle = buildBundle(ctx.prisma);
    // a failed build is not cached: the next request tries again
    state.bundle.catch(() => (state.bundle = null));
  }
  return state.bundle;
}

export interface CatalogueAutoload {
  /** stops the import between chunks and waits for it (graceful shutdown); the next start resumes */
  stop(): Promise<void>;
}

/**
 * FOODS_AUTOLOAD=auto: imports the shipped catalogue in the background (sources already imported
 * for the same files are skipped in milliseconds). The server answers meanwhile.
 */
export function startCatalogueAutoload(
  db: Db,
  config: Pick<Config, 'FOODS_AUTOLOAD'>,
  log: Logger,
): CatalogueAutoload {
  if (config.FOODS_AUTOLOAD === 'off') return { stop: async () => {} };
  const state = stateOf(db);
  const abort = new AbortController();
  const started = performance.now();
  state.importing = importCatalogue(db, { signal: abort.signal })
    .then((reports) => {
      const written = reports.filter((r) => !r.upToDate);
      if (written.length)
        log.info(
          { sources: written, ms: Math.round(performance.now() - started) },
          'food catalogue imported',
        );
    })
    .catch((e: unknown) => {
      if (!abort.signal.aborted)
        log.error({ err: e }, 'food catalogue import failed; run npm run foods:import');
    })
    .finally(() => {
      state.importing = null;
      state.bundle = null;
    });
  return {
    stop: async () => {
      abort.abort();
      await state.importing;
    },
  };
}
