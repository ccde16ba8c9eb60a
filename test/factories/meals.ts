/**
 * Catalogue foods for meal tests, with real USDA FoodData Central values (Foundation Foods,
 * 2024-10-31 release; amounts per 100 g, keyed by USDA nutrient id), and helpers that log meals and
 * upload meal photos through the real REST paths.
 */
import { expect } from 'vitest';
import type { TestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import type { JsonResponse } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { seedPersonalToken } from './users.ts';

export interface SeedFood {
  id: string;
  description: string;
  /** USDA nutrient id -> amount per 100 g */
  nutrients: Record<number, number>;
  portions?: {
    seq: number;
    amount: number;
    unit?: string;
    modifier?: string;
    gramWeight: number;
  }[];
  ownerUserId?: number;
}

/** Bananas, ripe and slightly ripe, raw (fdc 1105314): energy 1008 given; one banana = 115 g. */
export const BANANA: SeedFood = {
  id: '1105314',
  description: 'Bananas, ripe and slightly ripe, raw',
  nutrients: { 1008: 97.0, 2047: 98, 2048: 88, 1003: 0.74, 1004: 0.29, 1005: 23.0, 1079: 1.7 },
  portions: [{ seq: 1, amount: 1, unit: 'Banana', modifier: 'Peeled', gramWeight: 115 }],
};

/** Rice, white, long grain, unenriched, raw (fdc 2512381): no 1008, energy from 2048. */
export const RICE: SeedFood = {
  id: '2512381',
  description: 'Rice, white, long grain, unenriched, raw',
  nutrients: {
    2048: 369.637321,
    2047: 358.705,
    1005: 80.31315,
    1003: 7.03885,
    1004: 1.033,
    1079: 0.1488,
  },
};

/** Apples, fuji, with skin, raw (fdc 1750340): energy from 2048, total sugars 2000. */
export const APPLE: SeedFood = {
  id: '1750340',
  description: 'Apples, fuji, with skin, raw',
  nutrients: {
    2048: 58.20306,
    2047: 64.6609,
    1005: 15.6511625,
    1003: 0.1484375,
    1079: 2.075,
    1004: 0.1625,
    2000: 13.33,
  },
};

/** Oat milk, unsweetened, plain, refrigerated (fdc 2257046): energy only as 2047. */
export const OAT_MILK: SeedFood = {
  id: '2257046',
  description: 'Oat milk, unsweetened, plain, refrigerated',
  nutrients: { 2047: 48.3298, 1005: 5.100325, 1003: 0.796875, 1004: 2.749, 1079: 0.0 },
};

const NUTRIENT_DEFS: Record<number, { name: string; unit: string }> = {
  1003: { name: 'Protein', unit: 'G' },
  1004: { name: 'Total lipid (fat)', unit: 'G' },
  1005: { name: 'Carbohydrate, by difference', unit: 'G' },
  1008: { name: 'Energy', unit: 'KCAL' },
  1079: { name: 'Fiber, total dietary', unit: 'G' },
  2000: { name: 'Total Sugars', unit: 'G' },
  2047: { name: 'Energy (Atwater General Factors)', unit: 'KCAL' },
  2048: { name: 'Energy (Atwater Specific Factors)', unit: 'KCAL' },
};

/** Stores a catalogue food (idempotent: seeding it again changes nothing). */
export async function seedFood(app: TestApp, food: SeedFood): Promise<void> {
  const p = app.db.prisma;
  for (const id of Object.keys(food.nutrients).map(Number)) {
    await p.nutrient.upsert({ where: { id }, create: { id, ...NUTRIENT_DEFS[id] }, update: {} });
  }
  await p.food.upsert({
    where: { id: food.id },
    update: {},
    create: {
      id: food.id,
      source: food.ownerUserId ? 'custom' : 'usda_foundation',
      description: food.description,
      ownerUserId: food.ownerUserId ?? null,
      nutrients: {
        create: Object.entries(food.nutrients).map(([id, amount]) => ({
          nutrientId: Number(id),
          amount,
        })),
      },
      portions: {
        create: (food.portions ?? []).map((q) => ({
          id: `${food.id}:${q.seq}`,
          seq: q.seq,
          amount: q.amount,
          unit: q.unit,
          modifier: q.modifier,
          gramWeight: q.gramWeight,
        })),
      },
    },
  });
}

/** Logs a meal through the MCP tool nutrition_meal_log (there is no REST create route); answers MealLogOut. */
export async function logMeal(
  app: TestApp,
  userId: number,
  meal: Record<string, unknown>,
): Promise<any> {
  const client = await mcpClient(
    app,
    await seedPersonalToken(app, userId, ['health:nutrition:write']),
  );
  const result = await callTool(client, 'nutrition_meal_log', {
    idempotency_key: `k-${Math.random().toString(36).slice(2)}`,
    ...meal,
  });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  const { meta: _meta, ...out } = result.structuredContent as Record<string, unknown>;
  return out;
}

/** Uploads a meal photo (multipart field `file`, text fields as form fields) to `path`. */
export async function uploadMealPhoto(
  app: TestApp,
  path: string,
  token: string | null,
  data: Uint8Array<ArrayBuffer> | null,
  type = 'image/png',
  fields: Record<string, string> = {},
): Promise<JsonResponse> {
  const form = new FormData();
  if (data) form.append('file', new Blob([data], { type }), 'meal');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await app.fetch(path, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** A meal with one free-text item, for tests that do not care about nutrients. */
export const plainMeal = (name: string, eatenAt: string, kcal = 100): Record<string, unknown> => ({
  meal_name: name,
  eaten_at: eatenAt,
  items: [{ name, grams: 100, kcal }],
});

/** Answers of a list in `rest` form, checked to be 200. */
export async function listMeals(app: TestApp, token: string, query = ''): Promise<any[]> {
  const res = await rest(app, 'GET', `/api/meals${query}`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}
