/**
 * The food catalogue: search (full-text + trigram, personalised ranking), barcode lookup, stats,
 * recommendations, detail, full-match of label-only products, custom foods and the person's food
 * history. Formulas and rules: docs/foods.md. Reads are parameterised SQL (Prisma.sql tagged
 * templates), the same on PGlite and PostgreSQL. What the person logged is given by the caller as
 * SQL (a FoodLogSource: the meals domain's, which owns meal items and the root fields that rank by
 * them) composed into each ranking statement, so the catalogue knows no meal; their country and
 * zone come from the profile domain (personLocale, personZone).
 *
 * NOTE: visibility. Catalogue rows (owner_user_id IS NULL) are public; a custom food is visible
 * only to its owner (readerUserId: the owner's, while a grantee views as). Every query that returns
 * foods carries VISIBLE; another person's custom food answers NOT_FOUND like an unknown id.
 */
import { randomUUID } from 'node:crypto';
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { personLocale, personZone } from '../profile/index.ts';
import { normaliseGtin } from './foods.gtin.ts';
import {
  AMOUNTS,
  NUTRIENT_SOURCES,
  PER_100G_JOIN,
  per100gColumns,
  per100gOf,
} from './foods.nutrients.ts';
import type { Amount } from './foods.nutrients.ts';
import { SEARCH_TEXT_SQL, SEARCH_VECTOR_SQL } from './import/foods.catalogue-import.ts';
import type { CatalogueFood, CataloguePortion } from './import/foods.catalogue-sources.ts';

/** A food as the catalogue stores it (the importer's fields), with its source and per-100 g macros. */
export interface FoodSummaryView
  extends Pick<
    CatalogueFood,
    | 'id'
    | 'description'
    | 'brand'
    | 'category'
    | 'gtin'
    | 'countries'
    | 'servingSize'
    | 'servingUnit'
  > {
  source: string;
  hasFullNutrients: boolean;
  /** per 100 g */
  kcal: number | null;
  proteinG: number | null;
  carbsG: number | null;
  fatG: number | null;
  fiberG: number | null;
  sugarG: number | null;
  sodiumMg: number | null;
  /** ranking score of a search or recommendation (docs/foods.md); null elsewhere */
  score: number | null;
}

export interface FoodNutrientView {
  nutrientId: number;
  name: string;
  unit: string;
  /** per 100 g */
  amount: number;
}

/** A household portion as stored: the importer's shape. */
export type FoodPortionView = CataloguePortion;

export interface FoodDetailView extends FoodSummaryView {
  nutrients: FoodNutrientView[];
  portions: FoodPortionView[];
}

export interface FoodStatsView {
  total: number;
  sources: { source: string; count: number }[];
}

export interface FullMatchView {
  match: FoodSummaryView | null;
  /** the match's score (0..1; docs/foods.md), null without a match */
  score: number | null;
}

export interface FoodHistoryView {
  food: FoodSummaryView;
  timesLogged: number;
  lastLoggedAt: Date;
}

/**
 * What people logged, per catalogue food, as SQL for a CTE of a ranking statement (the meals
 * domain's; docs/foods.md). The catalogue ranks by it without knowing where it is kept.
 */
export interface FoodLogSource {
  /**
   * One row per food the person logged: `food_id`, `times_logged` (int), `last_logged_at` and
   * `near_now` (int: items eaten within `near.hourWindow` hours of this hour of the day in
   * `near.zone`; 0 without `near`). A null `userId` selects no rows.
   */
  mine(options: {
    userId: number | null;
    near?: { zone: string; hourWindow: number } | null;
  }): Prisma.Sql;
  /** One row per food: `food_id`, `people` (int), how many people log it. */
  loggers(): Prisma.Sql;
}

export interface SearchFoodsOptions {
  /** the query text (at least 2 characters) */
  q: string;
  /** 1-based page */
  page: number;
  /** results per page (1..100) */
  limit: number;
  /** what the reader logged, to rank their own foods first */
  log: FoodLogSource;
}

export interface RecommendationsOptions {
  /** at most this many foods (1..100) */
  limit: number;
  /** what the person and everyone logged */
  log: FoodLogSource;
}

export interface FoodHistoryOptions {
  /** at most this many foods (1..100), most recently logged first */
  limit: number;
  /** what the person logged */
  log: FoodLogSource;
}

export interface CustomFoodInput {
  /** the food's name */
  description: string;
  brand?: string | null;
  /** a barcode in any GTIN form (normalised to GTIN-14) */
  gtin?: string | null;
  servingSize?: number | null;
  servingUnit?: string | null;
  /** per 100 g */
  kcal: number;
  proteinG?: number | null;
  carbsG?: number | null;
  fatG?: number | null;
  fiberG?: number | null;
  sugarG?: number | null;
  sodiumMg?: number | null;
  /** household portions and their weight */
  portions?: { amount?: number | null; unit: string; gramWeight: number }[] | null;
}

/** Ranking weights (docs/foods.md, "Search ranking"). */
export const SOURCE_PRIORITY: Readonly<Record<string, number>> = {
  custom: 0.3,
  usda_foundation: 0.3,
  usda_branded: 0.1,
  open_food_facts: 0.05,
};
const COUNTRY_BOOST = 0.2;
/** a full-text match ranks above any typo match (word similarity is at most 1) */
const FULL_TEXT_BASE = 1;
/** a logged food gains HISTORY_BASE + HISTORY_RECENT * exp(-age in days / HISTORY_DAYS) */
const HISTORY_BASE = 0.5;
const HISTORY_RECENT = 1;
const HISTORY_DAYS = 30;

/**
 * The ids a custom food stores its amounts under: each amount's preferred id, so the summary and the
 * meal arithmetic read them first (foods.nutrients.ts).
 */
export const NUTRIENT = {
  kcal: NUTRIENT_SOURCES.kcal[0],
  protein: NUTRIENT_SOURCES.proteinG[0],
  fat: NUTRIENT_SOURCES.fatG[0],
  carbs: NUTRIENT_SOURCES.carbsG[0],
  fiber: NUTRIENT_SOURCES.fiberG[0],
  sugars: NUTRIENT_SOURCES.sugarG[0],
  sodium: NUTRIENT_SOURCES.sodiumMg[0],
} as const;

/** Per-100 g macros of food `f` (m.kcal ... m.sodium_mg), from the one table of nutrient ids. */
const MACROS_JOIN = PER_100G_JOIN;

/**
 * A number of this file (a ranking weight) written into the SQL text, not bound: NOTE: Prisma.raw
 * of module constants only, never of a request's value.
 */
const num = (n: number): Prisma.Sql => Prisma.raw(String(n));

/** The summary's columns; its amounts under their own names (per100gColumns, read by per100gOf). */
const SUMMARY_COLUMNS = Prisma.sql`f.id, f.source, f.description, f.brand, f.category, f.gtin, f.countries,
  f.serving_size, f.serving_unit, f.has_full_nutrients, ${per100gColumns(AMOUNTS)}`;

/** NOTE: catalogue rows, or the reader's own custom foods (viewer null: catalogue only). */
const visible = (viewer: number | null): Prisma.Sql =>
  Prisma.sql`(f.owner_user_id IS NULL OR f.owner_user_id = ${viewer}::int)`;

/**
 * `CASE f.source WHEN ... END`: each source's SOURCE_PRIORITY weight (times `sign`). NOTE:
 * Prisma.raw of this file's constant table.
 */
const sourcePriority = (sign: 1 | -1): Prisma.Sql =>
  Prisma.raw(
    `CASE f.source ${Object.entries(SOURCE_PRIORITY)
      .map(([s, w]) => `WHEN '${s}' THEN ${sign * w}`)
      .join(' ')} ELSE 0 END`,
  );

interface SummaryRow extends Record<Amount, number | null> {
  id: string;
  source: string;
  description: string;
  brand: string | null;
  category: string | null;
  gtin: string | null;
  countries: string[];
  serving_size: number | null;
  serving_unit: string | null;
  has_full_nutrients: boolean;
  score?: number | null;
}

const round = (v: number | null | undefined, digits = 4): number | null =>
  v === null || v === undefined ? null : Math.round(Number(v) * 10 ** digits) / 10 ** digits;

function toSummary(r: SummaryRow): FoodSummaryView {
  return {
    id: r.id,
    source: r.source,
    description: r.description,
    brand: r.brand,
    category: r.category,
    gtin: r.gtin,
    countries: r.countries ?? [],
    servingSize: r.serving_size,
    servingUnit: r.serving_unit,
    hasFullNutrients: r.has_full_nutrients,
    ...per100gOf(r, AMOUNTS),
    score: round(r.score),
  };
}

/** The reader of personal rankings and custom foods: null for an anonymous caller. */
const viewerOf = (ctx: Context): number | null =>
  ctx.principal ? readerUserId(ctx as AuthedContext) : null;

export interface SearchFoodsSqlOptions {
  /** the query text, trimmed */
  q: string;
  /** the reader of custom foods and history (null: anonymous, catalogue only) */
  viewer: number | null;
  /** the reader's country (ISO 3166-1 alpha-2), or null */
  country: string | null;
  /** rows of the page */
  limit: number;
  /** rows before the page */
  offset: number;
  /** what the viewer logged (their recent foods rank higher) */
  log: FoodLogSource;
}

/**
 * Ranked search: full-text matches (websearch syntax, English stemming; GIN index), or when there
 * are none, trigram word-similarity matches (typos; GIN trigram index), scored by text relevance +
 * source priority, and for a signed-in person + country + their recently logged foods
 * (docs/foods.md; the log is the caller's FoodLogSource). Trigram similarity is costly per row,
 * so it only runs when full text finds nothing.
 */
export function searchFoodsSql(options: SearchFoodsSqlOptions): Prisma.Sql {
  const { q, viewer } = options;
  return Prisma.sql`
  WITH recent AS (${options.log.mine({ userId: viewer })}),
  fts AS (
    SELECT f.id, ${num(FULL_TEXT_BASE)} + ts_rank(f.search_vector, websearch_to_tsquery('english', ${q}::text), 1) AS relevance
    FROM foods f WHERE f.search_vector @@ websearch_to_tsquery('english', ${q}::text) AND ${visible(viewer)}
  ),
  typo AS (
    SELECT f.id, word_similarity(lower(${q}::text), f.search_text) AS relevance
    FROM foods f WHERE NOT EXISTS (SELECT 1 FROM fts) AND lower(${q}::text) <% f.search_text AND ${visible(viewer)}
  ),
  hits AS (
    SELECT h.id,
      h.relevance
        + ${sourcePriority(1)}
        + CASE WHEN ${options.country}::text = ANY(f.countries) THEN ${num(COUNTRY_BOOST)} ELSE 0 END
        + COALESCE((SELECT ${num(HISTORY_BASE)} + ${num(HISTORY_RECENT)} * exp(-extract(epoch FROM now() - r.last_logged_at) / ${num(HISTORY_DAYS * 86_400)})
                    FROM recent r WHERE r.food_id = f.id), 0) AS score
    FROM (SELECT * FROM fts UNION ALL SELECT * FROM typo) h JOIN foods f ON f.id = h.id
    ORDER BY score DESC, f.id
    LIMIT ${options.limit}::int OFFSET ${options.offset}::int
  )
  SELECT ${SUMMARY_COLUMNS}, h.score FROM hits h JOIN foods f ON f.id = h.id ${MACROS_JOIN}
  ORDER BY h.score DESC, f.id`;
}

/** One page of ranked search results. */
export async function foodSearch(
  ctx: Context,
  options: SearchFoodsOptions,
): Promise<FoodSummaryView[]> {
  const viewer = viewerOf(ctx);
  const country = ctx.principal ? (await personLocale(ctx as AuthedContext)).country : null;
  const rows = await ctx.prisma.$queryRaw<SummaryRow[]>(
    searchFoodsSql({
      q: options.q.trim(),
      viewer,
      country,
      limit: options.limit,
      offset: (options.page - 1) * options.limit,
      log: options.log,
    }),
  );
  return rows.map(toSummary);
}

/** Catalogue size: all catalogue foods and per source (custom foods are private and not counted). */
export async function foodStats(ctx: Context): Promise<FoodStatsView> {
  const rows = await ctx.prisma.$queryRaw<{ source: string; count: number }[]>`
    SELECT source, count(*)::int AS count FROM foods WHERE owner_user_id IS NULL GROUP BY source ORDER BY source`;
  return { total: rows.reduce((a, r) => a + r.count, 0), sources: rows };
}

/** Foods whose barcode is this GTIN in any form (8, 12, 13 or 14 digits); 422 when it is not one. */
export async function foodsByBarcode(ctx: Context, code: string): Promise<FoodSummaryView[]> {
  const gtin = normaliseGtin(code);
  if (!gtin) {
    throw appError('VALIDATION_FAILED', 'Not a GTIN', {
      detail: [
        {
          loc: ['code'],
          msg: 'a GTIN/UPC/EAN barcode: 8, 12, 13 or 14 digits with a valid check digit',
          type: 'value_error',
        },
      ],
    });
  }
  const rows = await ctx.prisma.$queryRaw<SummaryRow[]>`
    SELECT ${SUMMARY_COLUMNS} FROM foods f ${MACROS_JOIN}
     WHERE f.gtin = ${gtin}::text AND ${visible(viewerOf(ctx))}
     ORDER BY ${sourcePriority(-1)}, f.id`;
  return rows.map(toSummary);
}

async function summaryOf(ctx: Context, id: string): Promise<FoodSummaryView> {
  const [row] = await ctx.prisma.$queryRaw<SummaryRow[]>`
    SELECT ${SUMMARY_COLUMNS} FROM foods f ${MACROS_JOIN} WHERE f.id = ${id}::text AND ${visible(viewerOf(ctx))}`;
  if (!row) throw appError('NOT_FOUND', 'Food not found');
  return toSummary(row);
}

/** A food with all its nutrients (per 100 g) and portions; NOT_FOUND for unknown or another's custom food. */
export async function food(ctx: Context, id: string): Promise<FoodDetailView> {
  const summary = await summaryOf(ctx, id);
  const [nutrients, portions] = await Promise.all([
    ctx.prisma.$queryRaw<{ nutrient_id: number; name: string; unit: string; amount: number }[]>`
      SELECT fn.nutrient_id, n.name, n.unit, fn.amount FROM food_nutrients fn JOIN nutrients n ON n.id = fn.nutrient_id
       WHERE fn.food_id = ${id}::text ORDER BY n.rank NULLS LAST, n.id`,
    ctx.prisma.foodPortion.findMany({ where: { foodId: id }, orderBy: { seq: 'asc' } }),
  ]);
  return {
    ...summary,
    nutrients: nutrients.map((n) => ({
      nutrientId: n.nutrient_id,
      name: n.name,
      unit: n.unit,
      amount: n.amount,
    })),
    portions: portions.map((p) => ({
      seq: p.seq,
      amount: p.amount,
      unit: p.unit,
      description: p.description,
      modifier: p.modifier,
      gramWeight: p.gramWeight,
    })),
  };
}

/** Full-match thresholds (docs/foods.md, "Full match"). */
export const FULL_MATCH = {
  headWeight: 0.75,
  nameWeight: 0.6,
  macroWeight: 0.4,
  minName: 0.5,
  minScore: 0.6,
} as const;

/**
 * The generic food with full vitamin/mineral data that best matches a label-only product: name
 * similarity (mostly the generic food's head noun, before its first comma, within the product's
 * name; partly the whole names) and macro closeness (protein, fat, carbohydrate per 100 g). Null when the product already has full
 * data or nothing passes the thresholds.
 */
export async function foodFullMatch(ctx: Context, id: string): Promise<FullMatchView> {
  const product = await summaryOf(ctx, id);
  if (product.hasFullNutrients) return { match: null, score: null };
  const hasMacros = product.proteinG !== null && product.fatG !== null && product.carbsG !== null;
  const [row] = await ctx.prisma.$queryRaw<SummaryRow[]>`
    WITH p AS (SELECT search_text FROM foods WHERE id = ${id}::text),
     cand AS (
       SELECT f.id, word_similarity(lower(split_part(f.description, ',', 1)), p.search_text) AS head_sim,
              similarity(f.search_text, p.search_text) AS full_sim
       FROM foods f, p WHERE f.has_full_nutrients AND f.owner_user_id IS NULL AND f.id <> ${id}::text
     ),
     named AS (SELECT id, head_sim, ${num(FULL_MATCH.headWeight)} * head_sim + ${num(1 - FULL_MATCH.headWeight)} * full_sim AS name_sim FROM cand)
     SELECT ${SUMMARY_COLUMNS},
       CASE WHEN ${hasMacros}::bool THEN
         ${num(FULL_MATCH.nameWeight)} * c.name_sim + ${num(FULL_MATCH.macroWeight)} * greatest(0, 1 - (
           abs(COALESCE(m.protein_g, 0) - ${product.proteinG ?? 0}::float8)
           + abs(COALESCE(m.fat_g, 0) - ${product.fatG ?? 0}::float8)
           + abs(COALESCE(m.carbs_g, 0) - ${product.carbsG ?? 0}::float8)) / 100.0)
       ELSE c.name_sim END AS score
     FROM named c JOIN foods f ON f.id = c.id ${MACROS_JOIN}
     WHERE c.head_sim >= ${num(FULL_MATCH.minName)}
     ORDER BY score DESC, f.id LIMIT 1`;
  if (!row || Number(row.score) < FULL_MATCH.minScore) return { match: null, score: null };
  return { match: toSummary(row), score: round(row.score) };
}

/** Recommendation weights (docs/foods.md, "Recommendations"). */
export const RECOMMEND = { history: 0.5, timeOfDay: 0.3, popularity: 0.2, hourWindow: 2 } as const;

/**
 * Foods for the person now: how often they logged each food, how much of that was near this hour of
 * the day (their time zone), and how many people log it (docs/foods.md).
 */
export async function foodRecommendations(
  ctx: AuthedContext,
  options: RecommendationsOptions,
): Promise<FoodSummaryView[]> {
  const userId = readerUserId(ctx);
  const zone = await personZone(ctx);
  const rows = await ctx.prisma.$queryRaw<SummaryRow[]>`
    WITH mine AS (${options.log.mine({ userId, near: { zone, hourWindow: RECOMMEND.hourWindow } })}),
     popular AS (${options.log.loggers()}),
     scored AS (
       SELECT c.food_id,
         ${num(RECOMMEND.history)} * COALESCE(ln(1 + mine.times_logged) / ln(1 + (SELECT max(times_logged) FROM mine)), 0)
         + ${num(RECOMMEND.timeOfDay)} * COALESCE(mine.near_now::float8 / mine.times_logged, 0)
         + ${num(RECOMMEND.popularity)} * COALESCE(popular.people::float8 / (SELECT max(people) FROM popular), 0) AS score
       FROM (SELECT food_id FROM mine UNION SELECT food_id FROM popular) c
       LEFT JOIN mine ON mine.food_id = c.food_id
       LEFT JOIN popular ON popular.food_id = c.food_id
     )
     SELECT ${SUMMARY_COLUMNS}, s.score FROM scored s JOIN foods f ON f.id = s.food_id ${MACROS_JOIN}
     WHERE ${visible(userId)}
     ORDER BY s.score DESC, f.id LIMIT ${options.limit}::int`;
  return rows.map(toSummary);
}

/** The foods the person logged (meal items), most recently logged first. */
export async function foodHistory(
  ctx: AuthedContext,
  options: FoodHistoryOptions,
): Promise<FoodHistoryView[]> {
  const userId = readerUserId(ctx);
  const rows = await ctx.prisma.$queryRaw<
    (SummaryRow & { times_logged: number; last_logged_at: Date })[]
  >`WITH mine AS (${options.log.mine({ userId })})
     SELECT ${SUMMARY_COLUMNS}, mine.times_logged, mine.last_logged_at
     FROM mine JOIN foods f ON f.id = mine.food_id ${MACROS_JOIN}
     WHERE ${visible(userId)}
     ORDER BY mine.last_logged_at DESC, f.id LIMIT ${options.limit}::int`;
  return rows.map((r) => ({
    food: toSummary(r),
    timesLogged: r.times_logged,
    lastLoggedAt: r.last_logged_at,
  }));
}

/** USDA definitions (nutrient.csv: id, name, unit, number, rank) of the nutrients a custom food can carry. */
const CUSTOM_NUTRIENTS: readonly [number, string, string, string, number][] = [
  [NUTRIENT.kcal, 'Energy', 'KCAL', '208', 300],
  [NUTRIENT.protein, 'Protein', 'G', '203', 600],
  [NUTRIENT.fat, 'Total lipid (fat)', 'G', '204', 800],
  [NUTRIENT.carbs, 'Carbohydrate, by difference', 'G', '205', 1110],
  [NUTRIENT.fiber, 'Fiber, total dietary', 'G', '291', 1200],
  [NUTRIENT.sugars, 'Total Sugars', 'G', '269', 1510],
  [NUTRIENT.sodium, 'Sodium, Na', 'MG', '307', 5800],
];

/** Creates a custom food of the caller (visible only to them); answers its detail. */
export async function createCustomFood(
  ctx: AuthedContext,
  input: CustomFoodInput,
): Promise<FoodDetailView> {
  const userId = ctx.principal.userId;
  let gtin: string | null = null;
  if (input.gtin) {
    gtin = normaliseGtin(input.gtin);
    if (!gtin) {
      throw appError('VALIDATION_FAILED', 'Not a GTIN', {
        detail: [
          {
            loc: ['input', 'gtin'],
            msg: 'a GTIN/UPC/EAN barcode: 8, 12, 13 or 14 digits with a valid check digit',
            type: 'value_error',
          },
        ],
      });
    }
  }
  const id = `custom:${randomUUID()}`;
  const nutrients: [number, number | null | undefined][] = [
    [NUTRIENT.kcal, input.kcal],
    [NUTRIENT.protein, input.proteinG],
    [NUTRIENT.carbs, input.carbsG],
    [NUTRIENT.fat, input.fatG],
    [NUTRIENT.fiber, input.fiberG],
    [NUTRIENT.sugars, input.sugarG],
    [NUTRIENT.sodium, input.sodiumMg],
  ];
  const given = nutrients.filter((n): n is [number, number] => n[1] !== null && n[1] !== undefined);
  const defs = CUSTOM_NUTRIENTS.filter((d) => given.some(([id]) => id === d[0]));
  const portions = input.portions ?? [];
  await ctx.prisma.$transaction(async (tx) => {
    const description = Prisma.sql`${input.description.trim()}::text`;
    const brand = Prisma.sql`${input.brand?.trim() || null}::text`;
    await tx.$executeRaw`
      INSERT INTO foods (id, source, description, brand, gtin, serving_size, serving_unit, owner_user_id,
                         search_text, search_vector, updated_at)
      VALUES (${id}::text, 'custom', ${description}, ${brand}, ${gtin}::text, ${input.servingSize ?? null}::float8,
              ${input.servingUnit ?? null}::text, ${userId}::int, ${SEARCH_TEXT_SQL(description, brand)},
              ${SEARCH_VECTOR_SQL(description, brand)}, now())`;
    // the catalogue may not be imported yet: the definitions a custom food uses must exist
    const column = (i: number) => defs.map((d) => d[i]);
    await tx.$executeRaw`
      INSERT INTO nutrients (id, name, unit, number, rank)
      SELECT * FROM unnest(${column(0)}::int[], ${column(1)}::text[], ${column(2)}::text[], ${column(3)}::text[],
                           ${column(4)}::int[])
      ON CONFLICT (id) DO NOTHING`;
    await tx.$executeRaw`
      INSERT INTO food_nutrients (food_id, nutrient_id, amount)
      SELECT ${id}::text, * FROM unnest(${given.map((n) => n[0])}::int[], ${given.map((n) => n[1])}::float8[])`;
    if (portions.length) {
      await tx.foodPortion.createMany({
        data: portions.map((p, i) => ({
          id: `${id}:${i + 1}`,
          foodId: id,
          seq: i + 1,
          amount: p.amount ?? 1,
          unit: p.unit,
          gramWeight: p.gramWeight,
        })),
      });
    }
  });
  return food(ctx, id);
}

/**
 * The summaries of foods by id, one value per id in the order given (null: unknown, or another
 * person's custom food): one query, for the foods loader of the dashboard graph (meal item -> food).
 */
export async function foodSummariesByIds(
  ctx: Context,
  ids: readonly string[],
): Promise<(FoodSummaryView | null)[]> {
  const rows = ids.length
    ? await ctx.prisma.$queryRaw<SummaryRow[]>`
        SELECT ${SUMMARY_COLUMNS} FROM foods f ${MACROS_JOIN}
         WHERE f.id = ANY(${[...new Set(ids)]}::text[]) AND ${visible(viewerOf(ctx))}`
    : [];
  const byId = new Map(rows.map((r) => [r.id, toSummary(r)]));
  return ids.map((id) => byId.get(id) ?? null);
}
