/**
 * The catalogue import (`npm run foods:import`, and the background autoload of a first start):
 * reads each source (foods.catalogue-sources.ts) and writes it in chunks of foods, one transaction
 * per chunk with its checkpoint row, using bulk parameterised SQL (unnest), the same on PGlite and
 * PostgreSQL.
 *
 * - Idempotent: rows are upserted only where a value differs (IS DISTINCT FROM), so a re-run of
 *   the same files writes nothing; a source whose chunks are all checkpointed for the same file
 *   contents is not even parsed.
 * - Resumable: a killed import keeps its committed chunks; the next run skips them.
 * - Concurrent runs (two replicas starting at once) serialise each chunk on an advisory lock and
 *   skip chunks the other committed.
 * It never deletes a food: rows that disappear from a later release stay (docs/foods.md).
 */
import path from 'node:path';
import type { Db } from '../../../db/client.ts';
import { Prisma } from '../../../generated/prisma/client.ts';
import {
  CATALOGUE_SOURCES,
  hasFullNutrients,
  SOURCE_READERS,
  sourceHash,
} from './foods.catalogue-sources.ts';
import type {
  CatalogueFood,
  CatalogueSource,
  NutrientDefinition,
} from './foods.catalogue-sources.ts';
import { fromRoot } from '../../../base/paths.ts';

/** Bump when a reader's output changes: every source then re-imports once. */
export const READER_VERSION = 1;
/** Foods per chunk (one transaction and one checkpoint each). */
export const CHUNK_FOODS = 2000;
/** The catalogue the repository ships. */
export const SHIPPED_CATALOGUE_DIR = fromRoot('data', 'catalogue');

export interface ImportProgress {
  source: CatalogueSource;
  /** "skipped" (already imported), "read" (parsed), "chunk" (a chunk committed or found committed), "done" */
  phase: 'skipped' | 'read' | 'chunk' | 'done';
  chunk?: number;
  chunks?: number;
  foods?: number;
  /** foods of this source */
  total?: number;
  skippedRows?: Record<string, number>;
}

export interface ImportCatalogueOptions {
  /** the catalogue folder (default: data/catalogue of the repository) */
  dir?: string;
  /** the sources to import (default: all, in CATALOGUE_SOURCES order) */
  sources?: readonly CatalogueSource[];
  /** called after each step, for the CLI's progress lines */
  onProgress?: (p: ImportProgress) => void;
  /** stops the import between chunks (a shutting-down server); the next run resumes */
  signal?: AbortSignal;
  /** foods per chunk (default CHUNK_FOODS); part of the checkpoint identity */
  chunkFoods?: number;
}

export interface SourceReport {
  source: CatalogueSource;
  /** true when nothing had to be done (all chunks already committed for these files) */
  upToDate: boolean;
  foods: number;
  chunksWritten: number;
  ms: number;
}

type Tx = Pick<Db, '$executeRaw' | '$queryRaw'>;

const upsertNutrientsSql = (defs: readonly NutrientDefinition[]): Prisma.Sql => Prisma.sql`
  INSERT INTO nutrients (id, name, unit, number, rank)
  SELECT * FROM unnest(${defs.map((d) => d.id)}::int[], ${defs.map((d) => d.name)}::text[],
                       ${defs.map((d) => d.unit)}::text[], ${defs.map((d) => d.number)}::text[],
                       ${defs.map((d) => (d.rank === null ? null : Math.round(d.rank)))}::int[])
  ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, unit = EXCLUDED.unit,
    number = COALESCE(EXCLUDED.number, nutrients.number), rank = COALESCE(EXCLUDED.rank, nutrients.rank)
  WHERE (nutrients.name, nutrients.unit) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.unit)
     OR (EXCLUDED.number IS NOT NULL AND nutrients.number IS DISTINCT FROM EXCLUDED.number)
     OR (EXCLUDED.rank IS NOT NULL AND nutrients.rank IS DISTINCT FROM EXCLUDED.rank)`;

/**
 * search_text and search_vector are derived here, so every writer (import, custom foods) agrees:
 * `d` and `b` are the description and brand, as text (a column, or a parameter cast to text).
 */
export const SEARCH_TEXT_SQL = (d: Prisma.Sql, b: Prisma.Sql): Prisma.Sql =>
  Prisma.sql`lower(${d} || COALESCE(' ' || ${b}, ''))`;
export const SEARCH_VECTOR_SQL = (d: Prisma.Sql, b: Prisma.Sql): Prisma.Sql =>
  Prisma.sql`to_tsvector('english', ${d} || COALESCE(' ' || ${b}, ''))`;

const upsertFoodsSql = (source: CatalogueSource, foods: readonly CatalogueFood[]): Prisma.Sql => {
  const [description, brand] = [Prisma.sql`f.description`, Prisma.sql`f.brand`];
  return Prisma.sql`
  INSERT INTO foods (id, source, description, brand, category, gtin, countries, serving_size, serving_unit,
                     has_full_nutrients, search_text, search_vector, updated_at)
  SELECT f.id, ${source}::text, f.description, f.brand, f.category, f.gtin, string_to_array(f.countries, ','),
         f.serving_size, f.serving_unit, f.is_full, ${SEARCH_TEXT_SQL(description, brand)},
         ${SEARCH_VECTOR_SQL(description, brand)}, now()
  FROM unnest(${foods.map((f) => f.id)}::text[], ${foods.map((f) => f.description)}::text[],
              ${foods.map((f) => f.brand)}::text[], ${foods.map((f) => f.category)}::text[],
              ${foods.map((f) => f.gtin)}::text[], ${foods.map((f) => f.countries.join(','))}::text[],
              ${foods.map((f) => f.servingSize)}::float8[], ${foods.map((f) => f.servingUnit)}::text[],
              ${foods.map((f) => hasFullNutrients(f.nutrients))}::bool[])
    AS f(id, description, brand, category, gtin, countries, serving_size, serving_unit, is_full)
  ON CONFLICT (id) DO UPDATE SET source = EXCLUDED.source, description = EXCLUDED.description, brand = EXCLUDED.brand,
    category = EXCLUDED.category, gtin = EXCLUDED.gtin, countries = EXCLUDED.countries,
    serving_size = EXCLUDED.serving_size, serving_unit = EXCLUDED.serving_unit,
    has_full_nutrients = EXCLUDED.has_full_nutrients, search_text = EXCLUDED.search_text,
    search_vector = EXCLUDED.search_vector, updated_at = now()
  WHERE (foods.source, foods.description, foods.brand, foods.category, foods.gtin, foods.countries,
         foods.serving_size, foods.serving_unit, foods.has_full_nutrients)
    IS DISTINCT FROM (EXCLUDED.source, EXCLUDED.description, EXCLUDED.brand, EXCLUDED.category, EXCLUDED.gtin,
         EXCLUDED.countries, EXCLUDED.serving_size, EXCLUDED.serving_unit, EXCLUDED.has_full_nutrients)`;
};

const upsertFoodNutrientsSql = (foodIds: string[], ids: number[], amounts: number[]): Prisma.Sql =>
  Prisma.sql`
  INSERT INTO food_nutrients (food_id, nutrient_id, amount)
  SELECT * FROM unnest(${foodIds}::text[], ${ids}::int[], ${amounts}::float8[])
  ON CONFLICT (food_id, nutrient_id) DO UPDATE SET amount = EXCLUDED.amount
  WHERE food_nutrients.amount IS DISTINCT FROM EXCLUDED.amount`;

const deleteStaleNutrientsSql = (
  chunkIds: string[],
  foodIds: string[],
  ids: number[],
): Prisma.Sql => Prisma.sql`
  DELETE FROM food_nutrients fn
  WHERE fn.food_id = ANY(${chunkIds}::text[])
    AND NOT EXISTS (SELECT 1 FROM unnest(${foodIds}::text[], ${ids}::int[]) AS k(food_id, nutrient_id)
                    WHERE k.food_id = fn.food_id AND k.nutrient_id = fn.nutrient_id)`;

type PortionRow = CatalogueFood['portions'][number] & { foodId: string };

const upsertPortionsSql = (portions: readonly PortionRow[]): Prisma.Sql => Prisma.sql`
  INSERT INTO food_portions (id, food_id, seq, amount, unit, description, modifier, gram_weight)
  SELECT p.food_id || ':' || p.seq, p.food_id, p.seq, p.amount, p.unit, p.description, p.modifier, p.gram_weight
  FROM unnest(${portions.map((p) => p.foodId)}::text[], ${portions.map((p) => p.seq)}::int[],
              ${portions.map((p) => p.amount)}::float8[], ${portions.map((p) => p.unit)}::text[],
              ${portions.map((p) => p.description)}::text[], ${portions.map((p) => p.modifier)}::text[],
              ${portions.map((p) => p.gramWeight)}::float8[])
    AS p(food_id, seq, amount, unit, description, modifier, gram_weight)
  ON CONFLICT (id) DO UPDATE SET amount = EXCLUDED.amount, unit = EXCLUDED.unit, description = EXCLUDED.description,
    modifier = EXCLUDED.modifier, gram_weight = EXCLUDED.gram_weight
  WHERE (food_portions.amount, food_portions.unit, food_portions.description, food_portions.modifier, food_portions.gram_weight)
    IS DISTINCT FROM (EXCLUDED.amount, EXCLUDED.unit, EXCLUDED.description, EXCLUDED.modifier, EXCLUDED.gram_weight)`;

async function upsertNutrients(db: Tx, defs: readonly NutrientDefinition[]): Promise<void> {
  if (!defs.length) return;
  await db.$executeRaw(upsertNutrientsSql(defs));
}

/** Writes one chunk of foods with their nutrients and portions (inside the caller's transaction). */
async function writeFoods(
  db: Tx,
  source: CatalogueSource,
  foods: readonly CatalogueFood[],
): Promise<void> {
  const ids = foods.map((f) => f.id);
  await db.$executeRaw(upsertFoodsSql(source, foods));
  const nFood: string[] = [];
  const nId: number[] = [];
  const nAmount: number[] = [];
  for (const f of foods) {
    for (const [id, amount] of f.nutrients) {
      nFood.push(f.id);
      nId.push(id);
      nAmount.push(amount);
    }
  }
  await db.$executeRaw(deleteStaleNutrientsSql(ids, nFood, nId));
  if (nFood.length) await db.$executeRaw(upsertFoodNutrientsSql(nFood, nId, nAmount));
  const portions: PortionRow[] = foods.flatMap((f) =>
    f.portions.map((p) => ({ foodId: f.id, ...p })),
  );
  const portionIds = portions.map((p) => `${p.foodId}:${p.seq}`);
  await db.$executeRaw`
    DELETE FROM food_portions fp WHERE fp.food_id = ANY(${ids}::text[]) AND NOT (fp.id = ANY(${portionIds}::text[]))`;
  if (portions.length) await db.$executeRaw(upsertPortionsSql(portions));
}

const checkpointKey = (source: string, hash: string, chunk: number) => `${source}:${hash}:${chunk}`;

/** Chunks of this source's files already committed (and how many the import has). */
async function committedChunks(
  db: Tx,
  source: CatalogueSource,
  hash: string,
): Promise<{ done: Set<number>; chunks: number | null }> {
  const rows = await db.$queryRaw<{ chunk: number; chunks: number }[]>`
    SELECT chunk, chunks FROM food_import_checkpoints WHERE source = ${source}::text AND file_hash = ${hash}::text`;
  return { done: new Set(rows.map((r) => r.chunk)), chunks: rows[0]?.chunks ?? null };
}

/** Imports one source; answers what it did. */
async function importSource(
  db: Db,
  dir: string,
  source: CatalogueSource,
  options: ImportCatalogueOptions,
): Promise<SourceReport> {
  const { onProgress, signal } = options;
  const chunkFoods = options.chunkFoods ?? CHUNK_FOODS;
  const started = performance.now();
  // the chunk size is part of the files' identity: chunk numbers mean nothing across sizes
  const hash = `${sourceHash(dir, source, READER_VERSION)}-${chunkFoods}`;
  const before = await committedChunks(db, source, hash);
  if (before.chunks !== null && before.done.size >= before.chunks) {
    onProgress?.({ source, phase: 'skipped', chunks: before.chunks });
    return {
      source,
      upToDate: true,
      foods: 0,
      chunksWritten: 0,
      ms: Math.round(performance.now() - started),
    };
  }
  const data = await SOURCE_READERS[source](dir);
  onProgress?.({ source, phase: 'read', total: data.foods.length, skippedRows: data.skipped });
  await upsertNutrients(db, data.nutrients);
  const chunks = Math.max(1, Math.ceil(data.foods.length / chunkFoods));
  // two advisory-lock keys: a constant namespace and the source's position
  const lockKey = CATALOGUE_SOURCES.indexOf(source);
  let written = 0;
  let foodsDone = 0;
  for (let chunk = 0; chunk < chunks; chunk++) {
    const part = data.foods.slice(chunk * chunkFoods, (chunk + 1) * chunkFoods);
    foodsDone += part.length;
    signal?.throwIfAborted();
    if (!before.done.has(chunk)) {
      const key = checkpointKey(source, hash, chunk);
      const didWrite = await db.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(5105, ${lockKey}::int)`;
          const exists = await tx.$queryRaw<
            unknown[]
          >`SELECT 1 FROM food_import_checkpoints WHERE key = ${key}::text`;
          if (exists.length) return false; // another process committed it meanwhile
          await writeFoods(tx, source, part);
          await tx.$executeRaw`
            INSERT INTO food_import_checkpoints (key, source, file_hash, chunk, chunks, foods)
            VALUES (${key}, ${source}, ${hash}, ${chunk}, ${chunks}, ${part.length})`;
          return true;
        },
        { timeout: 120_000, maxWait: 120_000 },
      );
      if (didWrite) written++;
    }
    onProgress?.({
      source,
      phase: 'chunk',
      chunk: chunk + 1,
      chunks,
      foods: foodsDone,
      total: data.foods.length,
    });
  }
  onProgress?.({ source, phase: 'done', chunks, total: data.foods.length });
  return {
    source,
    upToDate: false,
    foods: data.foods.length,
    chunksWritten: written,
    ms: Math.round(performance.now() - started),
  };
}

/** Imports the catalogue, source by source (each resumable and idempotent); answers a report per source. */
export async function importCatalogue(
  db: Db,
  options: ImportCatalogueOptions = {},
): Promise<SourceReport[]> {
  const dir = path.resolve(options.dir ?? SHIPPED_CATALOGUE_DIR);
  const reports: SourceReport[] = [];
  for (const source of options.sources ?? CATALOGUE_SOURCES) {
    options.signal?.throwIfAborted();
    reports.push(await importSource(db, dir, source, options));
  }
  // fresh planner statistics (PGlite has no autovacuum): the search plans depend on them
  if (reports.some((r) => r.chunksWritten > 0))
    await db.$executeRaw`ANALYZE foods, food_nutrients, food_portions`;
  return reports;
}

/** True when every chunk of `source` is committed for some version of its files. */
export async function sourceImported(db: Tx, source: CatalogueSource): Promise<boolean> {
  const rows = await db.$queryRaw<{ complete: boolean }[]>`
    SELECT count(*) >= max(chunks) AS complete FROM food_import_checkpoints
     WHERE source = ${source}::text GROUP BY file_hash`;
  return rows.some((r) => r.complete);
}
