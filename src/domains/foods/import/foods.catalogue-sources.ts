/**
 * Readers of the shipped catalogue files (data/catalogue/<source>/, official layouts; see
 * data/catalogue/README.md): each turns one source into catalogue foods with their nutrients (per
 * 100 g, USDA nutrient ids and units) and household portions. Pure parsing: nothing here touches
 * the database.
 */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { createGunzip } from 'node:zlib';
import { parse } from 'csv-parse';
import { catalogueGtin } from '../foods.gtin.ts';

export type CatalogueSource = 'usda_foundation' | 'usda_branded' | 'open_food_facts';

/** Import order: the generic foods first (the core bundle only needs them). */
export const CATALOGUE_SOURCES: readonly CatalogueSource[] = [
  'usda_foundation',
  'usda_branded',
  'open_food_facts',
];

export interface CataloguePortion {
  seq: number;
  amount: number;
  unit: string | null;
  description: string | null;
  modifier: string | null;
  gramWeight: number;
}

export interface CatalogueFood {
  id: string;
  description: string;
  brand: string | null;
  category: string | null;
  gtin: string | null;
  /** ISO 3166-1 alpha-2 codes */
  countries: string[];
  servingSize: number | null;
  servingUnit: string | null;
  /** USDA nutrient id -> amount per 100 g in the nutrient's unit */
  nutrients: Map<number, number>;
  portions: CataloguePortion[];
}

export interface NutrientDefinition {
  id: number;
  name: string;
  unit: string;
  number: string | null;
  rank: number | null;
}

export interface SourceData {
  foods: CatalogueFood[];
  /** nutrient definitions this source brings (upserted before its foods) */
  nutrients: NutrientDefinition[];
  /** rows read but not kept, by reason (reported by the CLI) */
  skipped: Record<string, number>;
}

/** The files each source reads (their sha256 decides whether a re-run has anything to do). */
export const SOURCE_FILES: Record<CatalogueSource, string[]> = {
  usda_foundation: [
    'usda_foundation/food.csv.gz',
    'usda_foundation/food_nutrient.csv.gz',
    'usda_foundation/food_portion.csv.gz',
    'usda_foundation/foundation_food.csv',
    'usda_foundation/nutrient.csv',
    'usda_foundation/measure_unit.csv',
    'usda_foundation/food_category.csv',
    'usda_sr_legacy/sr_legacy_food.csv',
    'usda_sr_legacy/food_portion.csv.gz',
    'usda_sr_legacy/measure_unit.csv',
  ],
  usda_branded: [
    'usda_branded/branded_food.csv.gz',
    'usda_branded/food.csv',
    'usda_branded/food_nutrient.csv.gz',
  ],
  open_food_facts: [
    'open_food_facts/en.openfoodfacts.org.products.sample-1000.csv.gz',
    'usda_foundation/nutrient.csv',
  ],
};

/**
 * Vitamins and minerals beyond a nutrition label's few: a food with at least
 * FULL_NUTRIENTS_MIN of them has "full" data (docs/foods.md). Labels carry 4-6 (Ca, Fe, K,
 * vitamins A, C, D); Foundation foods carry the eight minerals and often the B vitamins.
 */
export const MICRONUTRIENT_IDS: ReadonlySet<number> = new Set([
  1087,
  1089,
  1090,
  1091,
  1092,
  1095,
  1098,
  1101,
  1103, // Ca Fe Mg P K Zn Cu Mn Se
  1104,
  1106,
  1109,
  1110,
  1114,
  1162,
  1165,
  1166,
  1167,
  1175,
  1177,
  1178,
  1185, // vitamins
]);
export const FULL_NUTRIENTS_MIN = 8;

/** True when a food's nutrients include at least FULL_NUTRIENTS_MIN vitamins and minerals. */
export function hasFullNutrients(nutrients: Map<number, number>): boolean {
  let n = 0;
  for (const id of nutrients.keys()) if (MICRONUTRIENT_IDS.has(id)) n++;
  return n >= FULL_NUTRIENTS_MIN;
}

type Row = Record<string, string>;

/** Streams the rows of a CSV (or TSV) file, gunzipping `.gz`. */
async function* rows(
  file: string,
  options: { delimiter?: string; quote?: string | false } = {},
): AsyncGenerator<Row> {
  let input: NodeJS.ReadableStream = createReadStream(file);
  if (file.endsWith('.gz')) input = input.pipe(createGunzip());
  yield* input.pipe(
    parse({ columns: true, relax_column_count: true, skip_empty_lines: true, ...options }),
  ) as AsyncIterable<Row>;
}

async function table(file: string): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of rows(file)) out.push(r);
  return out;
}

const num = (s: string | undefined): number | null => {
  if (s === undefined || s.trim() === '') return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};
/** FDC integer columns written as floats ("75.0") by the Branded slice */
const intText = (s: string | undefined): string => (s ?? '').replace(/\.0+$/, '').trim();
const text = (s: string | undefined): string | null => {
  const t = (s ?? '').trim().replace(/\s+/g, ' ');
  return t === '' ? null : t;
};

/** A row of FDC nutrient.csv. */
const nutrientDefinition = (r: Row): NutrientDefinition => ({
  id: Number(r.id),
  name: r.name,
  unit: r.unit_name,
  number: text(r.nutrient_nbr),
  rank: num(r.rank),
});

let countryCodes: Map<string, string> | null = null;
/** ICU region codes that are not countries a product is sold in today (groupings, former states) */
const NOT_COUNTRIES = new Set([
  'EU',
  'EZ',
  'UN',
  'QO',
  'XA',
  'XB',
  'ZZ',
  'DD',
  'FX',
  'BU',
  'CS',
  'NT',
  'SU',
  'TP',
  'YU',
  'ZR',
  'AN',
]);
/** Open Food Facts names that differ from ICU's English region names */
const COUNTRY_ALIASES: Record<string, string> = {
  'czech republic': 'CZ',
  'ivory coast': 'CI',
  macedonia: 'MK',
  swaziland: 'SZ',
  turkey: 'TR',
};
/** "united-states" / "United States" -> "US", from the ICU region names Node ships. */
export function countryCode(name: string): string | null {
  if (!countryCodes) {
    countryCodes = new Map();
    const names = new Intl.DisplayNames(['en'], { type: 'region' });
    for (let a = 65; a <= 90; a++) {
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        const n = names.of(code);
        const key = n
          ?.toLowerCase()
          .replace(/[^a-z]+/g, ' ')
          .trim();
        if (n && n !== code && key && !countryCodes.has(key) && !NOT_COUNTRIES.has(code))
          countryCodes.set(key, code);
      }
    }
  }
  const key = name
    .replace(/^[a-z]{2}:/, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim();
  if (/^[a-z]{2}$/.test(key)) return key.toUpperCase();
  return countryCodes.get(key) ?? COUNTRY_ALIASES[key] ?? null;
}

/** sha256 over a source's files, in order (with the reader version, so a changed reader re-imports). */
export function sourceHash(dir: string, source: CatalogueSource, readerVersion: number): string {
  const h = createHash('sha256').update(`v${readerVersion}\n`);
  for (const f of SOURCE_FILES[source]) h.update(readFileSync(path.join(dir, f)));
  return h.digest('hex');
}

/** A USDA food with nothing known yet but its id and name (sold in the US). */
const usdaFood = (id: string, description: string): CatalogueFood => ({
  id,
  description,
  brand: null,
  category: null,
  gtin: null,
  countries: ['US'],
  servingSize: null,
  servingUnit: null,
  nutrients: new Map(),
  portions: [],
});

function portionFrom(r: Row, seq: number, units: Map<string, string>): CataloguePortion | null {
  const grams = num(r.gram_weight);
  if (grams === null || grams <= 0) return null;
  const unit = units.get(intText(r.measure_unit_id));
  return {
    seq,
    amount: num(r.amount) ?? 1,
    // 9999 is FDC's "undetermined": the modifier or description then names the portion
    unit: unit && unit !== 'undetermined' ? unit : null,
    description: text(r.portion_description),
    modifier: text(r.modifier),
    gramWeight: grams,
  };
}

/** id -> one column of a small FDC lookup table (measure units, food categories). */
async function lookup(file: string, column: string): Promise<Map<string, string>> {
  return new Map((await table(file)).map((r) => [r.id, r[column]]));
}

/** Foods by FDC id, and rows read but not kept, by reason. */
interface FoodsRead {
  foods: Map<string, CatalogueFood>;
  skipped: Record<string, number>;
}

/** The `foundation_food` rows of food.csv by FDC id (analytical samples are counted, not kept). */
async function foundationFoods(file: string, categories: Map<string, string>): Promise<FoodsRead> {
  const foods = new Map<string, CatalogueFood>();
  const skipped: Record<string, number> = { analytical_samples: 0 };
  for await (const r of rows(file)) {
    if (r.data_type !== 'foundation_food') {
      skipped.analytical_samples++;
      continue;
    }
    foods.set(r.fdc_id, {
      ...usdaFood(r.fdc_id, r.description.trim()),
      category: categories.get(r.food_category_id) ?? null,
    });
  }
  return { foods, skipped };
}

/** Sets the amounts of food_nutrient.csv on the foods they belong to (other rows are ignored). */
async function addFoundationNutrients(
  file: string,
  foods: Map<string, CatalogueFood>,
): Promise<void> {
  for await (const r of rows(file)) {
    const food = foods.get(r.fdc_id);
    const amount = num(r.amount);
    if (food && amount !== null) food.nutrients.set(Number(r.nutrient_id), amount);
  }
}

/** Adds the foods' own portions of food_portion.csv, numbered by their seq_num. */
async function addFoundationPortions(
  file: string,
  foods: Map<string, CatalogueFood>,
  units: Map<string, string>,
): Promise<void> {
  for await (const r of rows(file)) {
    const food = foods.get(r.fdc_id);
    const portion = food && portionFrom(r, Number(r.seq_num) || food.portions.length + 1, units);
    if (!portion) continue;
    // some foods number two portions alike: the later one takes the next free number
    while (food.portions.some((p) => p.seq === portion.seq)) portion.seq++;
    food.portions.push(portion);
  }
}

/** Foods by SR Legacy fdc_id (foundation_food.NDB_number -> sr_legacy_food.fdc_id). */
async function srLegacyFoods(
  foundationFoodFile: string,
  srLegacyFoodFile: string,
  foods: Map<string, CatalogueFood>,
): Promise<Map<string, CatalogueFood>> {
  const ndbToFood = new Map<string, CatalogueFood>();
  for (const r of await table(foundationFoodFile)) {
    const food = foods.get(r.fdc_id);
    if (food && r.NDB_number) ndbToFood.set(r.NDB_number, food);
  }
  const srToFood = new Map<string, CatalogueFood>();
  for (const r of await table(srLegacyFoodFile)) {
    const food = ndbToFood.get(r.NDB_number);
    if (food) srToFood.set(r.fdc_id, food);
  }
  return srToFood;
}

/**
 * Adds the SR Legacy portions of the foods in `srToFood` (by SR Legacy fdc_id): numbered after the
 * food's own (1000 + SR seq), skipping weights it already has.
 */
async function addSrLegacyPortions(
  file: string,
  srToFood: Map<string, CatalogueFood>,
  srUnits: Map<string, string>,
): Promise<void> {
  for await (const r of rows(file)) {
    const food = srToFood.get(r.fdc_id);
    const portion =
      food && portionFrom(r, 1000 + (Number(r.seq_num) || food.portions.length + 1), srUnits);
    if (!food || !portion) continue;
    const same = food.portions.some(
      (p) =>
        p.gramWeight === portion.gramWeight &&
        p.amount === portion.amount &&
        p.unit === portion.unit,
    );
    if (!same && !food.portions.some((p) => p.seq === portion.seq)) food.portions.push(portion);
  }
}

/**
 * Foundation Foods: the `foundation_food` rows of food.csv (the analytical samples around them are
 * not foods a person eats), their nutrients and portions, plus the SR Legacy portions of the same
 * food (foundation_food.NDB_number -> sr_legacy_food.fdc_id -> SR food_portion). SR Legacy foods
 * themselves are not imported: the shipped SR Legacy tables have no nutrient values.
 */
export async function readFoundation(dir: string): Promise<SourceData> {
  const f = (name: string): string => path.join(dir, 'usda_foundation', name);
  const sr = (name: string): string => path.join(dir, 'usda_sr_legacy', name);
  const categories = await lookup(f('food_category.csv'), 'description');
  const units = await lookup(f('measure_unit.csv'), 'name');
  const srUnits = await lookup(sr('measure_unit.csv'), 'name');
  const nutrients = (await table(f('nutrient.csv'))).map(nutrientDefinition);
  const { foods, skipped } = await foundationFoods(f('food.csv.gz'), categories);
  await addFoundationNutrients(f('food_nutrient.csv.gz'), foods);
  await addFoundationPortions(f('food_portion.csv.gz'), foods, units);
  const srToFood = await srLegacyFoods(f('foundation_food.csv'), sr('sr_legacy_food.csv'), foods);
  await addSrLegacyPortions(sr('food_portion.csv.gz'), srToFood, srUnits);
  return { foods: [...foods.values()], nutrients, skipped };
}

/** The names of the `branded_food` rows of food.csv, by FDC id. */
async function brandedNames(file: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for await (const r of rows(file))
    if (r.data_type === 'branded_food') names.set(r.fdc_id, r.description.trim());
  return names;
}

/** A product of branded_food.csv: its brand, category, market country and serving. */
function brandedProduct(r: Row, description: string, gtin: string | null): CatalogueFood {
  const country = r.market_country ? countryCode(r.market_country) : null;
  const servingSize = num(r.serving_size);
  return {
    ...usdaFood(r.fdc_id, description),
    brand: text(r.brand_name) ?? text(r.brand_owner),
    category: text(r.branded_food_category),
    gtin,
    countries: country ? [country] : [],
    servingSize,
    servingUnit: servingSize === null ? null : text(r.serving_size_unit),
  };
}

/** The products of branded_food.csv by FDC id, named by `names`, short description or category. */
async function brandedProducts(file: string, names: Map<string, string>): Promise<FoodsRead> {
  const foods = new Map<string, CatalogueFood>();
  const skipped: Record<string, number> = { invalid_barcode: 0, no_name: 0 };
  for await (const r of rows(file)) {
    const description =
      names.get(r.fdc_id) ?? text(r.short_description) ?? text(r.branded_food_category);
    if (!description) {
      skipped.no_name++;
      continue;
    }
    const gtin = catalogueGtin(r.gtin_upc);
    if (!gtin && r.gtin_upc) skipped.invalid_barcode++;
    foods.set(r.fdc_id, brandedProduct(r, description, gtin));
  }
  return { foods, skipped };
}

/** Sets the label nutrients of food_nutrient.csv on the foods; answers the nutrients they name. */
async function addBrandedNutrients(
  file: string,
  foods: Map<string, CatalogueFood>,
): Promise<NutrientDefinition[]> {
  const nutrients = new Map<number, NutrientDefinition>();
  for await (const r of rows(file)) {
    const food = foods.get(r.fdc_id);
    const amount = num(r.amount);
    const id = Number(intText(r.nutrient_id));
    if (!food || amount === null || !Number.isInteger(id)) continue;
    food.nutrients.set(id, amount);
    if (!nutrients.has(id) && r.name)
      nutrients.set(id, { id, name: r.name, unit: r.unit_name, number: null, rank: null });
  }
  return [...nutrients.values()];
}

/**
 * Branded Foods: every product of branded_food.csv (barcode, brand, serving) and every
 * `branded_food` row of food.csv (name), with the label nutrients of food_nutrient.csv. The shipped
 * slice's two halves barely overlap, so most products have either a barcode or nutrients; a product
 * without a name is described by its FDC category (docs/foods.md).
 */
export async function readBranded(dir: string): Promise<SourceData> {
  const f = (name: string): string => path.join(dir, 'usda_branded', name);
  const names = await brandedNames(f('food.csv'));
  const { foods, skipped } = await brandedProducts(f('branded_food.csv.gz'), names);
  for (const [id, description] of names)
    if (!foods.has(id)) foods.set(id, usdaFood(id, description));
  const nutrients = await addBrandedNutrients(f('food_nutrient.csv.gz'), foods);
  return { foods: [...foods.values()], nutrients, skipped };
}

/**
 * Open Food Facts `*_100g` columns -> USDA nutrient id and the factor from OFF's unit (grams, or
 * kcal/kJ for energy) to the USDA nutrient's unit (G, MG, UG).
 */
export const OFF_NUTRIENTS: readonly [column: string, nutrientId: number, factor: number][] = [
  ['energy-kcal_100g', 1008, 1],
  ['energy-kj_100g', 1062, 1],
  ['proteins_100g', 1003, 1],
  ['fat_100g', 1004, 1],
  ['saturated-fat_100g', 1258, 1],
  ['trans-fat_100g', 1257, 1],
  ['cholesterol_100g', 1253, 1000],
  ['carbohydrates_100g', 1005, 1],
  ['sugars_100g', 2000, 1],
  ['added-sugars_100g', 1235, 1],
  ['fiber_100g', 1079, 1],
  ['sodium_100g', 1093, 1000],
  ['calcium_100g', 1087, 1000],
  ['iron_100g', 1089, 1000],
  ['magnesium_100g', 1090, 1000],
  ['phosphorus_100g', 1091, 1000],
  ['potassium_100g', 1092, 1000],
  ['zinc_100g', 1095, 1000],
  ['copper_100g', 1098, 1000],
  ['manganese_100g', 1101, 1000],
  ['selenium_100g', 1103, 1e6],
  ['vitamin-a_100g', 1106, 1e6],
  ['vitamin-d_100g', 1114, 1e6],
  ['vitamin-e_100g', 1109, 1000],
  ['vitamin-k_100g', 1185, 1e6],
  ['vitamin-c_100g', 1162, 1000],
  ['vitamin-b1_100g', 1165, 1000],
  ['vitamin-b2_100g', 1166, 1000],
  ['vitamin-pp_100g', 1167, 1000],
  ['vitamin-b6_100g', 1175, 1000],
  ['vitamin-b9_100g', 1177, 1e6],
  ['vitamin-b12_100g', 1178, 1e6],
];

/** Salt is 2.5 times sodium by weight (the EU labelling convention Open Food Facts uses). */
const SALT_PER_SODIUM = 2.5;

/** A product's nutrients per 100 g by USDA id, in the USDA units (from its `*_100g` columns). */
function offNutrients(r: Row): Map<number, number> {
  const nutrients = new Map<number, number>();
  for (const [column, id, factor] of OFF_NUTRIENTS) {
    const v = num(r[column]);
    if (v !== null && v >= 0) nutrients.set(id, Math.round(v * factor * 1e6) / 1e6);
  }
  // energy_100g is the older energy field, in kJ whatever unit the label used: 1062 when a product
  // gives neither energy-kcal nor energy-kj (none of the shipped sample does)
  const energy = num(r.energy_100g);
  if (!nutrients.has(1008) && !nutrients.has(1062) && energy !== null && energy >= 0)
    nutrients.set(1062, energy);
  const salt = num(r.salt_100g);
  if (!nutrients.has(1093) && salt !== null)
    nutrients.set(1093, Math.round((salt / SALT_PER_SODIUM) * 1e6) / 1000);
  return nutrients;
}

/** The ISO-2 codes of a `countries_tags` list, each once, unknown names left out. */
function offCountries(tags: string | undefined): string[] {
  return [
    ...new Set(
      (tags ?? '')
        .split(',')
        .map((t) => (t.trim() ? countryCode(t) : null))
        .filter((c): c is string => !!c),
    ),
  ];
}

/** The catalogue food of an Open Food Facts row with a name and a code. */
function offFood(r: Row, code: string, description: string, gtin: string | null): CatalogueFood {
  const nutrients = offNutrients(r);
  const serving = num(r.serving_quantity);
  return {
    id: `off:${code}`,
    description,
    brand: text((r.brands ?? '').split(',')[0]),
    category: text((r.categories_en ?? '').split(',')[0]),
    gtin,
    countries: offCountries(r.countries_tags),
    servingSize: serving !== null && serving > 0 ? serving : null,
    servingUnit: serving !== null && serving > 0 ? 'g' : null,
    nutrients,
    portions: [],
  };
}

/**
 * Open Food Facts (tab-separated export, no quoting): products with a name, id `off:<code>`, their
 * `*_100g` nutrients mapped to USDA ids, countries from `countries_tags` as ISO-2 codes. Kept as
 * their own source (ODbL share-alike; data/catalogue/README.md).
 */
export async function readOpenFoodFacts(dir: string): Promise<SourceData> {
  const file = path.join(
    dir,
    'open_food_facts',
    'en.openfoodfacts.org.products.sample-1000.csv.gz',
  );
  const foods = new Map<string, CatalogueFood>();
  const skipped: Record<string, number> = { no_name: 0, invalid_barcode: 0 };
  for await (const r of rows(file, { delimiter: '\t', quote: false })) {
    const description = text(r.product_name);
    const code = (r.code ?? '').trim();
    if (!description || !code) {
      skipped.no_name++;
      continue;
    }
    const gtin = catalogueGtin(code);
    if (!gtin) skipped.invalid_barcode++;
    foods.set(code, offFood(r, code, description, gtin));
  }
  // the USDA definitions of the nutrients mapped here (the source may be imported on its own)
  const mapped = new Set(OFF_NUTRIENTS.map(([, id]) => id));
  const nutrients = (await table(path.join(dir, 'usda_foundation', 'nutrient.csv')))
    .filter((r) => mapped.has(Number(r.id)))
    .map(nutrientDefinition);
  return { foods: [...foods.values()], nutrients, skipped };
}

export const SOURCE_READERS: Record<CatalogueSource, (dir: string) => Promise<SourceData>> = {
  usda_foundation: readFoundation,
  usda_branded: readBranded,
  open_food_facts: readOpenFoodFacts,
};
