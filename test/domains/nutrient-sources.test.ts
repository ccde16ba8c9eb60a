/**
 * Issue 11, item 9: each amount comes from every FoodData Central nutrient id that carries it
 * (src/domains/foods/foods.nutrients.ts), read the same way by the catalogue summary and the meal
 * arithmetic. One real food per source, from the shipped files (data/catalogue, the copy of
 * /work/shared/data/fdc and openfoodfacts that the catalogue template imported): the summary shows
 * the raw row's per-100 g amounts, and an item logged through the MCP tool carries them scaled to
 * its grams. The expected values are computed here from the raw rows.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { NUTRIENT_SOURCES } from '../../src/domains/foods/foods.nutrients.ts';
import { SHIPPED_CATALOGUE_DIR } from '../../src/domains/foods/import/foods.catalogue-import.ts';
import { logMeal } from '../factories/meals.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp({}, { catalogue: true });

type Row = Record<string, string>;
type Amounts = Record<
  'kcal' | 'protein_g' | 'carbs_g' | 'fat_g' | 'fiber_g' | 'sugar_g',
  number | null
>;

/** FDC integer columns written as floats ("75.0") by the Branded slice */
const int = (s: string): string => s.replace(/\.0+$/, '');

/** The rows of a shipped file whose `column` is `value` (only lines holding the value are parsed). */
function rawRows(file: string, column: string, value: string, tsv = false): Row[] {
  const bytes = readFileSync(path.join(SHIPPED_CATALOGUE_DIR, file));
  const [header, ...lines] = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes)
    .toString('utf8')
    .split('\n');
  const text = [header, ...lines.filter((l) => l.includes(value))].join('\n');
  const rows: Row[] = parse(text, {
    columns: true,
    relax_column_count: true,
    ...(tsv ? { delimiter: '\t', quote: false } : {}),
  });
  return rows.filter((r) => int(r[column]) === value);
}

/** A food's per-100 g amounts in an FDC food_nutrient file: nutrient id -> amount. */
function fdcNutrients(file: string, fdcId: string): Map<number, number> {
  const rows = rawRows(file, 'fdc_id', fdcId).filter((r) => r.amount !== '');
  return new Map(rows.map((r) => [Number(int(r.nutrient_id)), Number(r.amount)]));
}

/** The per-100 g amounts of the raw row: for each amount, the nutrient id that carries it for this food. */
function per100g(
  raw: Map<number, number>,
  carriers: Record<keyof Amounts, number | null>,
): Amounts {
  const out = {} as Amounts;
  for (const [k, id] of Object.entries(carriers) as [keyof Amounts, number | null][]) {
    expect(id === null || raw.has(id), `raw row has ${id}`).toBe(true);
    out[k] = id === null ? null : raw.get(id)!;
  }
  return out;
}

const round2 = (n: number): number => Math.round(n * 100) / 100;
/** An item's amounts: per 100 g x grams / 100 to 0.01, a missing amount counting 0 (docs/meals.md). */
const scaled = (a: Amounts, grams: number): Amounts =>
  Object.fromEntries(
    Object.entries(a).map(([k, v]) => [k, round2(((v ?? 0) * grams) / 100)]),
  ) as Amounts;
const amountsOf = (o: Record<string, unknown>): Amounts => ({
  kcal: o.kcal as number | null,
  protein_g: o.protein_g as number | null,
  carbs_g: o.carbs_g as number | null,
  fat_g: o.fat_g as number | null,
  fiber_g: o.fiber_g as number | null,
  sugar_g: o.sugar_g as number | null,
});

/** The catalogue summary of a food, from GET /api/foods/{id} and from a search by its name. */
async function summary(id: string): Promise<{ food: any; amounts: Amounts }> {
  const food = await rest(app, 'GET', `/api/foods/${encodeURIComponent(id)}`);
  expect(food.status).toBe(200);
  const search = await rest(
    app,
    'GET',
    `/api/foods/search?q=${encodeURIComponent(food.body.description)}&limit=100`,
  );
  const hit = search.body.find((f: { fdc_id: string }) => f.fdc_id === id);
  expect(amountsOf(hit), 'search and detail agree').toEqual(amountsOf(food.body));
  return { food: food.body, amounts: amountsOf(food.body) };
}

/** Logs one item through nutrition_meal_log; answers the stored item. */
async function logItem(item: Record<string, unknown>): Promise<any> {
  const { user } = await seedUser(app);
  const meal = await logMeal(app, user.id, {
    meal_name: 'issue 11',
    eaten_at: clock.now().toISOString(),
    items: [item],
  });
  return meal.items[0];
}

describe('nutrient ids of each amount, by source (issue 11)', () => {
  it('Foundation: the overripe banana (1105073) carries its sugars from 1063 (18.96 g in 120 g)', async () => {
    const raw = fdcNutrients('usda_foundation/food_nutrient.csv.gz', '1105073');
    // no 2000 "Total Sugars": Foundation foods give "Sugars, Total" as 1063
    expect(raw.has(2000)).toBe(false);
    const expected = per100g(raw, {
      kcal: 1008,
      protein_g: 1003,
      carbs_g: 1005,
      fat_g: 1004,
      fiber_g: 1079,
      sugar_g: 1063,
    });
    expect(expected.sugar_g).toBe(15.8);

    expect((await summary('1105073')).amounts).toEqual(expected);
    const item = await logItem({ food_id: '1105073', grams: 120 });
    expect(amountsOf(item)).toEqual(scaled(expected, 120));
    expect(item.sugar_g).toBe(18.96);
  });

  it('SR Legacy: rolled oats (2346396) logged by an SR Legacy portion carry their Atwater energy and AOAC fibre', async () => {
    // SR Legacy foods carry no nutrients in the shipped tables: their portions reach meals through
    // the Foundation food of the same NDB number (foundation_food -> sr_legacy_food -> food_portion)
    const [{ NDB_number: ndb }] = rawRows(
      'usda_foundation/foundation_food.csv',
      'fdc_id',
      '2346396',
    );
    const [{ fdc_id: srId }] = rawRows('usda_sr_legacy/sr_legacy_food.csv', 'NDB_number', ndb);
    const [cup] = rawRows('usda_sr_legacy/food_portion.csv.gz', 'fdc_id', srId).filter(
      (p) => p.seq_num === '1',
    );
    expect(cup).toMatchObject({ modifier: 'cup', gram_weight: '156' });

    const raw = fdcNutrients('usda_foundation/food_nutrient.csv.gz', '2346396');
    // energy only from Atwater factors, fibre only as 2033 (AOAC 2011.25), no sugars at all
    for (const id of [1008, 1062, 1079, 2000, 1063]) expect(raw.has(id), `${id}`).toBe(false);
    const expected = per100g(raw, {
      kcal: 2048,
      protein_g: 1003,
      carbs_g: 1005,
      fat_g: 1004,
      fiber_g: 2033,
      sugar_g: null,
    });

    const { food, amounts } = await summary('2346396');
    expect(amounts).toEqual(expected);
    expect(food.portions).toContainEqual(
      expect.objectContaining({ seq: 1001, modifier: 'cup', gram_weight: 156 }),
    );
    const item = await logItem({ food_id: '2346396', portion_id: '2346396:1001' });
    expect(item).toMatchObject({ grams: 156, portion: '1, cup' });
    expect(amountsOf(item)).toEqual(scaled(expected, Number(cup.gram_weight)));
  });

  it('SR Legacy and Foundation mean the same amount by each id of the table', () => {
    const units = (text: string) => {
      const rows: Row[] = parse(text, { columns: true });
      return new Map(rows.map((r) => [Number(r.id), r.unit_name]));
    };
    const foundation = units(
      readFileSync(path.join(SHIPPED_CATALOGUE_DIR, 'usda_foundation/nutrient.csv'), 'utf8'),
    );
    const srLegacy = units(
      readFileSync(new URL('../fixtures/fdc/sr_legacy_nutrient.csv', import.meta.url), 'utf8'),
    );
    const unitOf = {
      kcal: 'KCAL',
      proteinG: 'G',
      carbsG: 'G',
      fatG: 'G',
      fiberG: 'G',
      sugarG: 'G',
      sodiumMg: 'MG',
    };
    for (const [amount, ids] of Object.entries(NUTRIENT_SOURCES) as [
      keyof typeof unitOf,
      readonly number[],
    ][]) {
      for (const id of ids) {
        // 1062 is energy in kJ, converted to kcal (/ 4.184)
        const unit = id === 1062 ? 'kJ' : unitOf[amount];
        expect([foundation.get(id), srLegacy.get(id)], `${amount} ${id}`).toEqual([unit, unit]);
      }
    }
  });

  it('Branded: a label whose total fat is 1085 "Total fat (NLEA)" (2650672) carries that fat', async () => {
    const [name] = rawRows('usda_branded/food.csv', 'fdc_id', '2650672');
    expect(name.data_type).toBe('branded_food');
    const raw = fdcNutrients('usda_branded/food_nutrient.csv.gz', '2650672');
    expect(raw.has(1004)).toBe(false);
    const expected = per100g(raw, {
      kcal: 1008,
      protein_g: 1003,
      carbs_g: 1005,
      fat_g: 1085,
      fiber_g: 1079,
      sugar_g: 2000,
    });

    expect((await summary('2650672')).amounts).toEqual(expected);
    const item = await logItem({ food_id: '2650672', grams: 112 });
    expect(amountsOf(item)).toEqual(scaled(expected, 112));
    expect(item.fat_g).toBeGreaterThan(0);
  });

  it('Open Food Facts: a product labelled in kJ only (0000000274722) carries kcal = kJ / 4.184', async () => {
    const [row] = rawRows(
      'open_food_facts/en.openfoodfacts.org.products.sample-1000.csv.gz',
      'code',
      '0000000274722',
      true,
    );
    expect(row['energy-kcal_100g']).toBe('');
    const g = (column: string): number => Number(row[column]);
    const expected: Amounts = {
      // the catalogue's conversion, to one decimal (docs/foods.md)
      kcal: Math.round((g('energy-kj_100g') / 4.184) * 10) / 10,
      protein_g: g('proteins_100g'),
      carbs_g: g('carbohydrates_100g'),
      fat_g: g('fat_100g'),
      fiber_g: g('fiber_100g'),
      sugar_g: g('sugars_100g'),
    };

    expect((await summary('off:0000000274722')).amounts).toEqual(expected);
    const item = await logItem({ food_id: 'off:0000000274722', grams: 250 });
    expect(amountsOf(item)).toEqual(scaled(expected, 250));
    expect(item.kcal).toBeGreaterThan(0);
  });
});
