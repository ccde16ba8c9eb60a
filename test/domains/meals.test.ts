/**
 * Meals (issue 5) through the real stack: REST routes over HTTP, MCP tools through the SDK client.
 * One test per documented rule, limit and status (docs/meals.md). Sync of meals: meals-sync.test.ts.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { meals as listMealsOf } from '../../src/domains/meals/meals.service.ts';
import { MEAL_PHOTO_MAX_BYTES } from '../../src/platform/photos.ts';
import type { AuthedContext } from '../../src/graphql/context.ts';
import {
  APPLE,
  BANANA,
  listMeals,
  logMeal,
  OAT_MILK,
  plainMeal,
  RICE,
  seedFood,
  uploadMealPhoto,
} from '../factories/meals.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser, serviceContext } from '../factories/users.ts';
import { GIF, JPEG, PNG, jpegOfSize } from '../fakes/images.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { multipartStart, rawRequest } from '../harness/raw-http.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const prisma = app.db.prisma;

beforeAll(async () => {
  for (const food of [BANANA, RICE, APPLE, OAT_MILK]) await seedFood(app, food);
});

const hoursAgo = (h: number): string => new Date(clock.ms() - h * 3_600_000).toISOString();
const r2 = (n: number): number => Math.round(n * 100) / 100;
const fileOf = (url: string): string =>
  path.join(app.config.DATA_DIR, 'uploads', url.replace(/^.*\/media\//, ''));

describe('meal routes', () => {
  it('answer 401 without a credential, on every route', async () => {
    const id = randomUUID();
    for (const [method, p] of [
      ['GET', '/api/meals'],
      ['GET', '/api/meals/daily_nutrition?start_ms=0&end_ms=1'],
      ['DELETE', '/api/meals/all'],
      ['PATCH', `/api/meals/${id}`],
      ['DELETE', `/api/meals/${id}`],
    ]) {
      const res = await rest(app, method, p, { body: method === 'PATCH' ? {} : undefined });
      expect(res.status, `${method} ${p}`).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    }
    for (const p of ['/api/meals/photo', `/api/meals/${id}/photo`]) {
      expect((await uploadMealPhoto(app, p, null, PNG)).status, p).toBe(401);
    }
  });
});

describe('logging a meal (nutrition_meal_log) and GET /api/meals', () => {
  it('computes item nutrients from the catalogue per 100 g and totals as their sum, keeping item order', async () => {
    const { user, token } = await seedUser(app);
    const eatenAt = hoursAgo(2);
    const meal = await logMeal(app, user.id, {
      meal_name: 'Breakfast bowl',
      meal_type: 'breakfast',
      eaten_at: eatenAt,
      note: 'after the run',
      items: [
        { food_id: BANANA.id, portion_id: `${BANANA.id}:1` },
        { food_id: RICE.id, grams: 150 },
        { food_id: APPLE.id, grams: 200, name: 'My apple' },
        { food_id: OAT_MILK.id, grams: 250 },
        { name: 'Honey', grams: 21, kcal: 64, carbs_g: 17.3, sugar_g: 17.2 },
      ],
    });
    expect(meal).toMatchObject({
      meal_name: 'Breakfast bowl',
      meal_type: 'breakfast',
      eaten_at: eatenAt,
      eaten_at_ms: Date.parse(eatenAt),
      note: 'after the run',
      photo_url: null,
      source: 'mcp',
    });
    expect(meal.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const [banana, rice, apple, oat, honey] = meal.items;
    // energy 1008 when present; protein 1003, fat 1004, carbohydrate 1005, fibre 1079, sugars 2000
    expect(banana).toMatchObject({
      food_id: BANANA.id,
      name: BANANA.description,
      grams: 115,
      portion: '1 Banana, Peeled',
      kcal: 111.55,
      protein_g: 0.85,
      fat_g: 0.33,
      carbs_g: 26.45,
      sugar_g: 0,
    });
    expect(banana.fiber_g).toBeCloseTo(1.955, 1);
    // no 1008: energy falls back to 2048 (Atwater specific), not 2047
    expect(rice).toMatchObject({
      food_id: RICE.id,
      grams: 150,
      kcal: r2(369.637321 * 1.5),
      protein_g: r2(7.03885 * 1.5),
      carbs_g: r2(80.31315 * 1.5),
      fiber_g: 0.22,
    });
    expect(apple).toMatchObject({
      name: 'My apple',
      kcal: r2(58.20306 * 2),
      sugar_g: 26.66,
      fiber_g: 4.15,
    });
    // only 2047 (Atwater general)
    expect(oat).toMatchObject({ kcal: r2(48.3298 * 2.5), fat_g: r2(2.749 * 2.5) });
    expect(honey).toEqual({
      id: expect.any(String),
      food_id: null,
      name: 'Honey',
      grams: 21,
      portion: null,
      kcal: 64,
      protein_g: 0,
      carbs_g: 17.3,
      fat_g: 0,
      fiber_g: 0,
      sugar_g: 17.2,
    });
    for (const k of ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g']) {
      expect(meal.totals[k], k).toBeCloseTo(
        meal.items.reduce((s: number, i: any) => s + i[k], 0),
        6,
      );
    }
    expect(await listMeals(app, token)).toEqual([meal]);
  });

  it("answers 422 with the location of an unknown food id, a portion of another food, or another person's custom food", async () => {
    const { user } = await seedUser(app);
    const other = await seedUser(app);
    await seedFood(app, {
      id: `custom:${randomUUID()}`,
      description: "Ann's bread",
      nutrients: { 1008: 250 },
      ownerUserId: other.user.id,
    });
    const theirs = (await prisma.food.findFirst({ where: { ownerUserId: other.user.id } }))!.id;
    const mine = `custom:${randomUUID()}`;
    await seedFood(app, {
      id: mine,
      description: 'My bread',
      nutrients: { 1008: 260 },
      ownerUserId: user.id,
    });
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    const result = await callTool(client, 'nutrition_meal_log', {
      idempotency_key: 'unknown-food-1',
      items: [
        { food_id: RICE.id, grams: 10 },
        { food_id: '999999999', grams: 10 },
        { food_id: RICE.id, portion_id: `${BANANA.id}:1` },
        { food_id: theirs, grams: 10 },
      ],
    });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [
        { loc: ['items', 1, 'food_id'], type: 'value_error' },
        { loc: ['items', 2, 'portion_id'], type: 'value_error' },
        { loc: ['items', 3, 'food_id'], type: 'value_error' },
      ],
    });
    expect(await prisma.meal.count({ where: { userId: user.id } })).toBe(0);
    const ok = await logMeal(app, user.id, { items: [{ food_id: mine, grams: 50 }] });
    expect(ok.items[0]).toMatchObject({ name: 'My bread', kcal: 130 });
  });

  it('logs once per idempotency_key, and answers the stored meal to a retry', async () => {
    const { user, token } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    const args = {
      idempotency_key: 'lunch-2026-11-23',
      meal_name: 'Lunch',
      items: [{ food_id: RICE.id, grams: 80 }],
    };
    const first = await callTool(client, 'nutrition_meal_log', args);
    const again = await callTool(client, 'nutrition_meal_log', args);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await listMeals(app, token)).toHaveLength(1);
  });

  it.each([
    ['no items', { items: [] }, ['items']],
    [
      '101 items',
      { items: Array.from({ length: 101 }, () => ({ name: 'x', grams: 1 })) },
      ['items'],
    ],
    ['grams 0', { items: [{ name: 'x', grams: 0 }] }, ['items', 0, 'grams']],
    ['grams over 5000', { items: [{ name: 'x', grams: 5000.1 }] }, ['items', 0, 'grams']],
    [
      'portions over 5000 g',
      { items: [{ food_id: BANANA.id, portion_id: `${BANANA.id}:1`, servings: 44 }] },
      ['items', 0, 'servings'],
    ],
    [
      'servings over 100',
      { items: [{ food_id: BANANA.id, portion_id: `${BANANA.id}:1`, servings: 101 }] },
      ['items', 0, 'servings'],
    ],
    [
      'servings without a portion',
      { items: [{ food_id: BANANA.id, grams: 10, servings: 2 }] },
      ['items', 0, 'servings'],
    ],
    ['a food without grams or portion', { items: [{ food_id: BANANA.id }] }, ['items', 0, 'grams']],
    [
      'grams and a portion',
      { items: [{ food_id: BANANA.id, grams: 5, portion_id: `${BANANA.id}:1` }] },
      ['items', 0, 'portion_id'],
    ],
    [
      'nutrients with a food id',
      { items: [{ food_id: BANANA.id, grams: 5, kcal: 1 }] },
      ['items', 0, 'kcal'],
    ],
    ['a free-text item without a name', { items: [{ grams: 5 }] }, ['items', 0, 'name']],
    ['a free-text item without grams', { items: [{ name: 'x' }] }, ['items', 0, 'grams']],
    [
      'a nutrient over 10000',
      { items: [{ name: 'x', grams: 5, kcal: 10_001 }] },
      ['items', 0, 'kcal'],
    ],
    ['a negative nutrient', { items: [{ name: 'x', grams: 5, fat_g: -1 }] }, ['items', 0, 'fat_g']],
    [
      'an item name of 201 characters',
      { items: [{ name: 'n'.repeat(201), grams: 5 }] },
      ['items', 0, 'name'],
    ],
    [
      'a meal name of 201 characters',
      { meal_name: 'n'.repeat(201), items: [{ name: 'x', grams: 5 }] },
      ['meal_name'],
    ],
    ['a blank meal name', { meal_name: '   ', items: [{ name: 'x', grams: 5 }] }, ['meal_name']],
    [
      'a note of 2001 characters',
      { note: 'n'.repeat(2001), items: [{ name: 'x', grams: 5 }] },
      ['note'],
    ],
    [
      'eaten_at more than 24 h ahead',
      {
        eaten_at: new Date(clock.ms() + 25 * 3_600_000).toISOString(),
        items: [{ name: 'x', grams: 5 }],
      },
      ['eaten_at'],
    ],
    [
      'an unknown meal_type',
      { meal_type: 'brunch', items: [{ name: 'x', grams: 5 }] },
      ['meal_type'],
    ],
    ['eaten_at null', { eaten_at: null }, ['eaten_at']],
    [
      'a portion text of 101 characters',
      { items: [{ name: 'x', grams: 5, portion: 'p'.repeat(101) }] },
      ['items', 0, 'portion'],
    ],
  ])('refuses %s with 422 at the field (PATCH /api/meals/{id})', async (_name, body, loc) => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Toast', hoursAgo(1)));
    const res = await rest(app, 'PATCH', `/api/meals/${meal.id}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.detail.map((d: any) => d.loc)).toContainEqual(['body', ...loc]);
    expect(await listMeals(app, token)).toEqual([meal]);
  });

  it('accepts the bounds themselves: 100 items, 5000 g, names of 200 and notes of 2000 characters', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Toast', hoursAgo(1)));
    const body = {
      meal_name: 'n'.repeat(200),
      note: 'n'.repeat(2000),
      eaten_at: new Date(clock.ms() + 23 * 3_600_000).toISOString(),
      items: [
        { name: 'i'.repeat(200), grams: 5000, kcal: 10_000 },
        ...Array.from({ length: 99 }, () => ({ name: 'x', grams: 0.1 })),
      ],
    };
    const res = await rest(app, 'PATCH', `/api/meals/${meal.id}`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toHaveLength(100);
    expect(res.body.totals.kcal).toBe(10_000);
  });
});

describe('GET /api/meals', () => {
  async function seedMeals(
    userId: number,
    n: number,
    base = clock.ms() - 3_600_000,
  ): Promise<void> {
    await prisma.meal.createMany({
      data: Array.from({ length: n }, (_, i) => ({
        id: randomUUID(),
        userId,
        eatenAt: new Date(base - i * 60_000),
        mealName: `m${i}`,
      })),
    });
  }

  it('answers 100 meals by default, newest first, at most limit (1..1000)', async () => {
    const { user, token } = await seedUser(app);
    await seedMeals(user.id, 1001);
    const list = await listMeals(app, token);
    expect(list).toHaveLength(100);
    expect(list[0].meal_name).toBe('m0');
    expect(list.map((m) => m.eaten_at_ms)).toEqual(
      [...list.map((m) => m.eaten_at_ms)].sort((a, b) => b - a),
    );
    expect(await listMeals(app, token, '?limit=1000')).toHaveLength(1000);
    expect(await listMeals(app, token, '?limit=1')).toHaveLength(1);
  });

  it('reads any number of meals with their items in two queries (no query per meal)', async () => {
    const { user } = await seedUser(app);
    let queries = 0;
    const counted = prisma.$extends({
      query: {
        $allOperations: ({ args, query }) => {
          queries++;
          return query(args);
        },
      },
    }) as unknown as typeof prisma;
    const ctx: AuthedContext = {
      ...serviceContext(app),
      prisma: counted,
      principal: {
        kind: 'session',
        userId: user.id,
        sessionId: 'test',
        sessionKind: 'native',
        isAdmin: false,
        scopes: ALL_SCOPES,
      },
    };
    for (const n of [1, 60]) {
      await prisma.meal.deleteMany({ where: { userId: user.id } });
      const ids = Array.from({ length: n }, () => randomUUID());
      await prisma.meal.createMany({
        data: ids.map((id, i) => ({
          id,
          userId: user.id,
          eatenAt: new Date(clock.ms() - i * 60_000),
        })),
      });
      await prisma.mealItem.createMany({
        data: ids.flatMap((mealId) =>
          [1, 2].map((k) => ({
            id: randomUUID(),
            userId: user.id,
            mealId,
            name: `item ${k}`,
            grams: 10,
          })),
        ),
      });
      queries = 0;
      const meals = await listMealsOf(ctx, { limit: 100 });
      expect(meals.map((m) => m.items.length)).toEqual(new Array(n).fill(2));
      expect(queries, `${n} meals`).toBe(2);
    }
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['start_ms=-1', 'start_ms'],
    ['end_ms=1.5', 'end_ms'],
    ['start_ms=abc', 'start_ms'],
    ['start_ms=2000&end_ms=1000', 'end_ms'],
  ])('answers 422 for %s at the query parameter', async (query, param) => {
    const { token } = await seedUser(app);
    const res = await rest(app, 'GET', `/api/meals?${query}`, { token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', param]);
  });

  it('keeps meals eaten in [start_ms, end_ms)', async () => {
    const { user, token } = await seedUser(app);
    const base = Date.UTC(2026, 10, 20, 12);
    await seedMeals(user.id, 10, base); // m0 at base, m9 nine minutes earlier
    const window = await listMeals(app, token, `?start_ms=${base - 5 * 60_000}&end_ms=${base}`);
    expect(window.map((m) => m.meal_name)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect((await listMeals(app, token, `?start_ms=${base}`)).map((m) => m.meal_name)).toEqual([
      'm0',
    ]);
    expect(await listMeals(app, token, `?end_ms=${base - 9 * 60_000}`)).toEqual([]);
  });

  it("never shows another person's meals, nor deleted ones", async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    await logMeal(app, ann.user.id, plainMeal('Ann lunch', hoursAgo(1)));
    const bobs = await logMeal(app, bob.user.id, plainMeal('Bob lunch', hoursAgo(1)));
    await logMeal(app, bob.user.id, plainMeal('Bob snack', hoursAgo(2)));
    expect((await listMeals(app, bob.token)).map((m) => m.meal_name)).toEqual([
      'Bob lunch',
      'Bob snack',
    ]);
    await rest(app, 'DELETE', `/api/meals/${bobs.id}`, { token: bob.token });
    expect((await listMeals(app, bob.token)).map((m) => m.meal_name)).toEqual(['Bob snack']);
  });

  it("lets a grantee viewing as read the owner's meals but not change them", async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const meal = await logMeal(app, owner.user.id, plainMeal('Owner dinner', hoursAgo(3)));
    await switchViewAs(app, grantee.token, await seedActiveGrant(app, owner, grantee));
    expect(await listMeals(app, grantee.token)).toEqual([meal]);
    const write = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token: grantee.token,
      body: { note: 'x' },
    });
    expect(write.status).toBe(403);
    expect(write.body.detail.code).toBe('view_as_read_only');
    expect((await rest(app, 'DELETE', '/api/meals/all', { token: grantee.token })).status).toBe(
      403,
    );
  });
});

describe('PATCH /api/meals/{meal_id}', () => {
  it('sets the fields sent, clears those sent as null, and keeps the rest and the totals', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, {
      meal_name: 'Lunch',
      meal_type: 'lunch',
      note: 'n',
      items: [{ food_id: RICE.id, grams: 100 }],
    });
    const eatenAt = hoursAgo(5);
    const res = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token,
      body: { meal_name: '  Rice bowl  ', note: null, eaten_at: Date.parse(eatenAt) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...meal,
      meal_name: 'Rice bowl',
      note: null,
      eaten_at: eatenAt,
      eaten_at_ms: Date.parse(eatenAt),
    });
  });

  it('replaces every item when items are sent, recomputes the totals, and tombstones the old items', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, {
      items: [
        { food_id: RICE.id, grams: 100 },
        { name: 'Soy sauce', grams: 10, kcal: 5 },
      ],
    });
    const res = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token,
      body: { items: [{ food_id: BANANA.id, grams: 100 }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      expect.objectContaining({ food_id: BANANA.id, grams: 100, kcal: 97 }),
    ]);
    expect(res.body.totals).toEqual({
      kcal: 97,
      protein_g: 0.74,
      carbs_g: 23,
      fat_g: 0.29,
      fiber_g: 1.7,
      sugar_g: 0,
    });
    const old = await prisma.mealItem.findMany({
      where: { id: { in: meal.items.map((i: any) => i.id) } },
    });
    expect(old.map((i) => i.deletedAt)).toEqual([expect.any(Date), expect.any(Date)]);
    expect(await listMeals(app, token)).toEqual([res.body]);
  });

  it('changes nothing when one item of the new list is refused (one transaction)', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, { items: [{ food_id: RICE.id, grams: 100 }] });
    const res = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token,
      body: {
        meal_name: 'x',
        items: [
          { food_id: BANANA.id, grams: 100 },
          { food_id: 'nope', grams: 1 },
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'items', 1, 'food_id'], msg: 'Unknown food id nope', type: 'value_error' },
    ]);
    expect(await listMeals(app, token)).toEqual([meal]);
  });

  it("answers 422 for a malformed meal_id and 404 for another person's, an unknown or a deleted one", async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    const annMeal = await logMeal(app, ann.user.id, plainMeal('Ann', hoursAgo(1)));
    const bobMeal = await logMeal(app, bob.user.id, plainMeal('Bob', hoursAgo(1)));
    await rest(app, 'DELETE', `/api/meals/${bobMeal.id}`, { token: bob.token });
    const bad = await rest(app, 'PATCH', '/api/meals/not-a-uuid', {
      token: bob.token,
      body: { note: 'x' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'meal_id']);
    for (const id of [annMeal.id, randomUUID(), bobMeal.id]) {
      const res = await rest(app, 'PATCH', `/api/meals/${id}`, {
        token: bob.token,
        body: { note: 'x' },
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Meal not found' });
    }
    expect((await listMeals(app, ann.token))[0].note).toBe(null);
  });
});

describe('DELETE /api/meals/{meal_id} and /api/meals/all', () => {
  it('deletes one meal as a tombstone stamped from the sync clock, with its items and photo', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, { items: [{ food_id: RICE.id, grams: 100 }] });
    const photo = await uploadMealPhoto(app, `/api/meals/${meal.id}/photo`, token, PNG);
    const before = await prisma.syncState.findUniqueOrThrow({ where: { userId: user.id } });
    const res = await rest(app, 'DELETE', `/api/meals/${meal.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 1 });
    const row = await prisma.meal.findUniqueOrThrow({ where: { id: meal.id } });
    const state = await prisma.syncState.findUniqueOrThrow({ where: { userId: user.id } });
    expect(Number(state.clockMs)).toBeGreaterThan(Number(before.clockMs));
    expect(row.deletedAt?.getTime()).toBe(Number(state.clockMs));
    expect(row.serverUpdatedAt.getTime()).toBe(Number(state.clockMs));
    expect(row.photoKey).toBe(null);
    expect(
      (await prisma.mealItem.findFirstOrThrow({ where: { mealId: meal.id } })).deletedAt?.getTime(),
    ).toBe(Number(state.clockMs));
    expect(existsSync(fileOf(photo.body.photo_url))).toBe(false);
    expect((await rest(app, 'DELETE', `/api/meals/${meal.id}`, { token })).status).toBe(404);
  });

  it("answers 422 for a malformed meal_id and 404 for another person's meal, which stays", async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    const annMeal = await logMeal(app, ann.user.id, plainMeal('Ann', hoursAgo(1)));
    const bad = await rest(app, 'DELETE', '/api/meals/12345', { token: bob.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'meal_id']);
    expect(
      (await rest(app, 'DELETE', `/api/meals/${annMeal.id}`, { token: bob.token })).status,
    ).toBe(404);
    expect(await listMeals(app, ann.token)).toHaveLength(1);
  });

  it("deletes all of the caller's meals and photos, and no one else's", async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    await logMeal(app, ann.user.id, plainMeal('Ann', hoursAgo(1)));
    await logMeal(app, bob.user.id, plainMeal('Bob 1', hoursAgo(1)));
    const photo = await uploadMealPhoto(app, '/api/meals/photo', bob.token, JPEG, 'image/jpeg');
    const res = await rest(app, 'DELETE', '/api/meals/all', { token: bob.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: 2 });
    expect(await listMeals(app, bob.token)).toEqual([]);
    expect(existsSync(fileOf(photo.body.photo_url))).toBe(false);
    expect(await prisma.mealItem.count({ where: { userId: bob.user.id, deletedAt: null } })).toBe(
      0,
    );
    expect(await listMeals(app, ann.token)).toHaveLength(1);
    expect((await rest(app, 'DELETE', '/api/meals/all', { token: bob.token })).body).toEqual({
      deleted: 0,
    });
  });
});

describe('meal photos', () => {
  it('POST /api/meals/photo creates a meal (source photo, no items) whose photo is served at its URL', async () => {
    const { token } = await seedUser(app);
    const eatenAt = hoursAgo(1);
    const res = await uploadMealPhoto(app, '/api/meals/photo', token, PNG, 'image/png', {
      meal_name: 'Pasta',
      meal_type: 'dinner',
      eaten_at: eatenAt,
      note: 'at home',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      meal_name: 'Pasta',
      meal_type: 'dinner',
      eaten_at: eatenAt,
      note: 'at home',
      source: 'photo',
      items: [],
      totals: { kcal: 0, protein_g: 0, carbs_g: 0, fat_g: 0, fiber_g: 0, sugar_g: 0 },
      photo_url: expect.stringMatching(/^\/media\/meals\/[\w-]{22}\.png$/),
    });
    const served = await app.fetch(res.body.photo_url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);
    expect(await listMeals(app, token)).toEqual([res.body]);
  });

  it('POST /api/meals/{meal_id}/photo replaces the photo and removes the old file', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Soup', hoursAgo(1)));
    const first = await uploadMealPhoto(app, `/api/meals/${meal.id}/photo`, token, PNG);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      ...meal,
      photo_url: expect.stringMatching(/^\/media\/meals\/.+\.png$/),
    });
    const second = await uploadMealPhoto(
      app,
      `/api/meals/${meal.id}/photo`,
      token,
      JPEG,
      'image/jpeg',
    );
    expect(second.body.photo_url).toMatch(/\.jpg$/);
    expect(existsSync(fileOf(first.body.photo_url))).toBe(false);
    expect((await app.fetch(first.body.photo_url)).status).toBe(404);
    expect(existsSync(fileOf(second.body.photo_url))).toBe(true);
  });

  it('answers 422 for a type other than JPEG, PNG, WebP or HEIC by its bytes, and for no file', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Soup', hoursAgo(1)));
    for (const p of ['/api/meals/photo', `/api/meals/${meal.id}/photo`]) {
      const gif = await uploadMealPhoto(app, p, token, GIF, 'image/png');
      expect(gif.status, p).toBe(422);
      expect(gif.body.detail[0].loc).toEqual(['body', 'file']);
      const none = await uploadMealPhoto(app, p, token, null);
      expect(none.status, p).toBe(422);
      expect(none.body.detail[0].loc).toEqual(['body', 'file']);
    }
    expect(await listMeals(app, token)).toEqual([meal]);
  });

  it(`answers 413 for a photo over ${MEAL_PHOTO_MAX_BYTES} bytes and accepts one of exactly that size`, async () => {
    const { token } = await seedUser(app);
    const over = await uploadMealPhoto(
      app,
      '/api/meals/photo',
      token,
      jpegOfSize(MEAL_PHOTO_MAX_BYTES + 1),
      'image/jpeg',
    );
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ detail: `The photo is larger than ${MEAL_PHOTO_MAX_BYTES} bytes` });
    expect(await listMeals(app, token)).toEqual([]);
    const exact = await uploadMealPhoto(
      app,
      '/api/meals/photo',
      token,
      jpegOfSize(MEAL_PHOTO_MAX_BYTES),
      'image/jpeg',
    );
    expect(exact.status).toBe(200);
  });

  it('answers 413 once a photo passes 8 MB, before the rest of a far larger body is sent, on both photo routes (issue 45)', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Soup', hoursAgo(1)));
    // 8 MB and a little more of a declared 128 MB: the rest never comes, so only an answer given
    // while most of the body is unsent can arrive (a server reading on would wait for it)
    const form = multipartStart('file', Buffer.from(jpegOfSize(MEAL_PHOTO_MAX_BYTES + 1024)));
    for (const p of ['/api/meals/photo', `/api/meals/${meal.id}/photo`]) {
      const res = await rawRequest(app.baseUrl, {
        method: 'POST',
        path: p,
        headers: { authorization: `Bearer ${token}`, 'content-type': form.contentType },
        body: form.body,
        contentLength: 16 * MEAL_PHOTO_MAX_BYTES,
      });
      expect(res.status, `${p} ${res.error ?? ''}`).toBe(413);
      expect(JSON.parse(res.body)).toEqual({
        detail: `The photo is larger than ${MEAL_PHOTO_MAX_BYTES} bytes`,
      });
      expect(res.headers.connection).toBe('close');
    }
    expect(await listMeals(app, token)).toEqual([meal]);
  });

  it("answers 422 for a malformed meal_id and 404 for another person's meal, leaving no file behind", async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    const annMeal = await logMeal(app, ann.user.id, plainMeal('Ann', hoursAgo(1)));
    const bad = await uploadMealPhoto(app, '/api/meals/x/photo', bob.token, PNG);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'meal_id']);
    const dir = path.join(app.config.DATA_DIR, 'uploads', 'meals');
    const files = (): number => (existsSync(dir) ? readdirSync(dir).length : 0);
    const count = files();
    const res = await uploadMealPhoto(app, `/api/meals/${annMeal.id}/photo`, bob.token, PNG);
    expect(res.status).toBe(404);
    expect(files()).toBe(count);
    expect((await listMeals(app, ann.token))[0].photo_url).toBe(null);
  });

  it("account deletion removes the person's meal photo files", async () => {
    const { token } = await seedUser(app);
    const photo = await uploadMealPhoto(app, '/api/meals/photo', token, PNG);
    expect(existsSync(fileOf(photo.body.photo_url))).toBe(true);
    expect((await rest(app, 'DELETE', '/api/auth/me', { token })).status).toBe(200);
    expect(existsSync(fileOf(photo.body.photo_url))).toBe(false);
  });
});

describe('GET /api/meals/daily_nutrition', () => {
  it("sums meals per local day of the person's time zone, listing every day of the range", async () => {
    const { user, token } = await seedUser(app);
    await prisma.user.update({ where: { id: user.id }, data: { timezone: 'America/New_York' } });
    // 2026-11-20 03:00Z is 22:00 on the 19th in New York; 2026-11-20 15:00Z is 10:00 on the 20th
    await logMeal(app, user.id, {
      eaten_at: '2026-11-20T03:00:00Z',
      items: [{ food_id: BANANA.id, grams: 100 }],
    });
    await logMeal(app, user.id, {
      eaten_at: '2026-11-20T15:00:00Z',
      items: [{ food_id: RICE.id, grams: 100 }],
    });
    await logMeal(app, user.id, {
      eaten_at: '2026-11-20T16:00:00Z',
      items: [{ food_id: BANANA.id, grams: 100 }],
    });
    const start = Date.parse('2026-11-19T05:00:00Z'); // New York midnight of the 19th
    const end = Date.parse('2026-11-22T05:00:00Z');
    const res = await rest(
      app,
      'GET',
      `/api/meals/daily_nutrition?start_ms=${start}&end_ms=${end}`,
      { token },
    );
    expect(res.status).toBe(200);
    const banana = {
      kcal: 97,
      protein_g: 0.74,
      carbs_g: 23,
      fat_g: 0.29,
      fiber_g: 1.7,
      sugar_g: 0,
    };
    const zero = { kcal: 0, protein_g: 0, carbs_g: 0, fat_g: 0, fiber_g: 0, sugar_g: 0 };
    expect(res.body).toEqual({
      timezone: 'America/New_York',
      start_ms: start,
      end_ms: end,
      meal_count: 3,
      totals: {
        kcal: r2(97 * 2 + 369.637321),
        protein_g: r2(0.74 * 2 + 7.03885),
        carbs_g: r2(46 + 80.31315),
        fat_g: r2(0.58 + 1.033),
        fiber_g: r2(3.4 + 0.1488),
        sugar_g: 0,
      },
      days: [
        { date: '2026-11-19', meal_count: 1, totals: banana },
        {
          date: '2026-11-20',
          meal_count: 2,
          totals: {
            kcal: r2(97 + 369.637321),
            protein_g: r2(0.74 + 7.03885),
            carbs_g: r2(23 + 80.31315),
            fat_g: r2(0.29 + 1.033),
            fiber_g: r2(1.7 + 0.1488),
            sugar_g: 0,
          },
        },
        { date: '2026-11-21', meal_count: 0, totals: zero },
      ],
    });
  });

  it('counts days in UTC when the person has no time zone or an unknown one', async () => {
    const { user, token } = await seedUser(app);
    await logMeal(app, user.id, {
      eaten_at: '2026-11-20T03:00:00Z',
      items: [{ food_id: BANANA.id, grams: 100 }],
    });
    const q = `start_ms=${Date.parse('2026-11-19T00:00:00Z')}&end_ms=${Date.parse('2026-11-21T00:00:00Z')}`;
    for (const timezone of [null, 'Mars/Olympus_Mons']) {
      await prisma.user.update({ where: { id: user.id }, data: { timezone } });
      const res = await rest(app, 'GET', `/api/meals/daily_nutrition?${q}`, { token });
      expect(res.body.timezone).toBe('UTC');
      expect(res.body.days.map((d: any) => [d.date, d.meal_count])).toEqual([
        ['2026-11-19', 0],
        ['2026-11-20', 1],
      ]);
    }
  });

  it.each([
    ['end_ms=1', 'start_ms'],
    ['start_ms=1', 'end_ms'],
    ['start_ms=1000&end_ms=1000', 'end_ms'],
    ['start_ms=2000&end_ms=1000', 'end_ms'],
    [`start_ms=0&end_ms=${366 * 86_400_000 + 1}`, 'end_ms'],
    ['start_ms=x&end_ms=1', 'start_ms'],
  ])('answers 422 for %s at the query parameter', async (query, param) => {
    const { token } = await seedUser(app);
    const res = await rest(app, 'GET', `/api/meals/daily_nutrition?${query}`, { token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', param]);
  });

  it('accepts a range of exactly 366 days', async () => {
    const { token } = await seedUser(app);
    const res = await rest(
      app,
      'GET',
      `/api/meals/daily_nutrition?start_ms=0&end_ms=${366 * 86_400_000}`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(366);
  });
});

describe('MCP nutrition tools', () => {
  it('lists the tools by scope: get_nutrition_meals with health:nutrition:read (issue 11), nutrition_meal_read only with media:read', async () => {
    const { user } = await seedUser(app);
    const names = async (scopes: Parameters<typeof seedPersonalToken>[2]): Promise<string[]> =>
      (
        await (await mcpClient(app, await seedPersonalToken(app, user.id, scopes))).listTools()
      ).tools
        .map((t) => t.name)
        .filter((n) => /nutrition|meal/.test(n));
    expect(await names(['profile:read'])).toEqual([]);
    expect(await names(['health:nutrition:read'])).toEqual([
      'get_nutrition_meals',
      'meal_insight_read',
      'nutrition_daily_read',
      'nutrition_food_preview_score',
      'nutrition_meals_list',
      'nutrition_recent_meals_list',
      'nutrition_saved_meals_list',
      'nutrition_suggestion_read',
    ]);
    expect(await names(['health:nutrition:read', 'media:read'])).toContain('nutrition_meal_read');
    expect(await names(['health:nutrition:write'])).toEqual([
      'meal_detected_dismiss',
      'nutrition_meal_analyze',
      'nutrition_meal_delete',
      'nutrition_meal_log',
      'nutrition_meal_name_suggest',
      'nutrition_meal_update',
      'nutrition_saved_meal_create',
      'nutrition_saved_meal_delete',
      'nutrition_saved_meal_update',
    ]);
    // saved meals and favorites (issue 17): the tools the spec gives both nutrition scopes
    expect(
      (await names(['health:nutrition:read', 'health:nutrition:write'])).filter((n) =>
        /favorite|copy|saved_meal_log/.test(n),
      ),
    ).toEqual([
      'nutrition_favorite_add',
      'nutrition_favorite_remove',
      'nutrition_favorites_list',
      'nutrition_meal_copy',
      'nutrition_saved_meal_log',
    ]);
  });

  it('reads meals with health meta; get_nutrition_meals without the nutrition scope is refused', async () => {
    const { user } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Oats', hoursAgo(1)));
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:read', 'media:read']),
    );
    for (const tool of ['get_nutrition_meals', 'nutrition_meals_list']) {
      expect((await callTool(client, tool, { limit: 5 })).structuredContent, tool).toEqual({
        items: [meal],
        meta: { phone_last_sync_at: null },
      });
    }
    expect(
      (await callTool(client, 'nutrition_meal_read', { meal_id: meal.id })).structuredContent,
    ).toEqual({ ...meal, meta: { phone_last_sync_at: null } });
    const missing = await callTool(client, 'nutrition_meal_read', { meal_id: randomUUID() });
    expect((missing.structuredContent as any).error.code).toBe('NOT_FOUND');
    const day = await callTool(client, 'nutrition_daily_read', {
      start_ms: clock.ms() - 86_400_000,
      end_ms: clock.ms() + 1000,
    });
    expect((day.structuredContent as any).meal_count).toBe(1);
    const other = await mcpClient(app, await seedPersonalToken(app, user.id, ['profile:read']));
    const refused = await callTool(other, 'get_nutrition_meals');
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as any).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'health:nutrition:read' },
    });
  });

  it('lists recent meals: the latest of each distinct name of the last 90 days, newest first', async () => {
    const { user } = await seedUser(app);
    await logMeal(app, user.id, plainMeal('Porridge', hoursAgo(30)));
    const latest = await logMeal(app, user.id, plainMeal(' porridge ', hoursAgo(5)));
    const salad = await logMeal(app, user.id, plainMeal('Salad', hoursAgo(10)));
    await prisma.meal.create({
      data: {
        id: randomUUID(),
        userId: user.id,
        mealName: 'Old stew',
        eatenAt: new Date(clock.ms() - 91 * 86_400_000),
      },
    });
    await logMeal(app, user.id, { items: [{ name: 'x', grams: 1 }] }); // no name: not a meal to repeat
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:read']),
    );
    const res = await callTool(client, 'nutrition_recent_meals_list', {});
    expect((res.structuredContent as any).items).toEqual([latest, salad]);
    expect((await callTool(client, 'nutrition_recent_meals_list', { limit: 51 })).isError).toBe(
      true,
    );
  });

  it('updates a meal, and deletes one only with confirm: true', async () => {
    const { user, token } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Oats', hoursAgo(1)));
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    const updated = await callTool(client, 'nutrition_meal_update', {
      meal_id: meal.id,
      meal_type: 'snack',
    });
    expect(updated.structuredContent).toMatchObject({ id: meal.id, meal_type: 'snack' });
    const unconfirmed = await callTool(client, 'nutrition_meal_delete', {
      meal_id: meal.id,
      confirm: false,
    });
    expect((unconfirmed.structuredContent as any).error.code).toBe('CONFIRMATION_REQUIRED');
    expect(await listMeals(app, token)).toHaveLength(1);
    const deleted = await callTool(client, 'nutrition_meal_delete', {
      meal_id: meal.id,
      confirm: true,
    });
    expect(deleted.structuredContent).toMatchObject({ deleted: 1 });
    expect(await listMeals(app, token)).toEqual([]);
  });
});
