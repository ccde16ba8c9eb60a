/**
 * Meals and meal items as synced tables (issue 5): what a phone pushes shows in GET /api/meals, and
 * what is logged, edited or deleted over MCP and REST arrives on the phone's next pull, deletions as
 * tombstones, all stamped from the account's sync clock.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SYNC_SCHEMA_VERSION, syncedTable } from '../../src/domains/sync/sync.tables.ts';
import { PNG } from '../fakes/images.ts';
import { BANANA, listMeals, logMeal, RICE, seedFood, uploadMealPhoto } from '../factories/meals.ts';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

beforeAll(async () => {
  for (const food of [BANANA, RICE]) await seedFood(app, food);
});

async function pull(u: SeededUser, query = ''): Promise<any> {
  const res = await rest(app, 'GET', `/api/sync/pull${query ? `?${query}` : ''}`, {
    token: u.token,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function push(u: SeededUser, changes: unknown, lastPulledAt: number | null) {
  return rest(app, 'POST', '/api/sync/push', {
    token: u.token,
    body: { changes, last_pulled_at: lastPulledAt },
  });
}

const none = { created: [], updated: [], deleted: [] };
const eatenAt = Date.UTC(2026, 10, 22, 12, 30, 15, 123);

/** A meal and its two items as the phone's WatermelonDB sends them (the phone computed the nutrients). */
function phoneMeal() {
  const id = randomUUID();
  const meal = {
    id,
    meal_name: 'Rice and banana',
    meal_type: 'lunch',
    eaten_at: eatenAt,
    note: null,
    source: 'phone',
    kcal: 651.01,
    protein_g: 11.4,
    carbs_g: 143.5,
    fat_g: 1.9,
    fiber_g: 2.2,
    sugar_g: 14,
  };
  const items = [
    {
      id: randomUUID(),
      meal_id: id,
      food_id: RICE.id,
      name: 'Rice',
      grams: 150,
      portion: null,
      kcal: 554.46,
      protein_g: 10.56,
      carbs_g: 120.47,
      fat_g: 1.55,
      fiber_g: 0.22,
      sugar_g: 0,
    },
    {
      id: randomUUID(),
      meal_id: id,
      food_id: null,
      name: 'Banana (label)',
      grams: 100,
      portion: '1 medium',
      kcal: 96.55,
      protein_g: 0.84,
      carbs_g: 23.03,
      fat_g: 0.35,
      fiber_g: 1.98,
      sugar_g: 14,
    },
  ];
  return { meal, items };
}

describe('meals and meal_items in sync', () => {
  it('are registered at schema version 4', () => {
    expect(SYNC_SCHEMA_VERSION).toBeGreaterThanOrEqual(4);
    expect(['meals', 'meal_items'].map((t) => syncedTable(t)?.since)).toEqual([4, 4]);
  });

  it("shows a meal the phone pushed in GET /api/meals with the phone's nutrients (not recomputed)", async () => {
    const u = await seedUser(app);
    const { meal, items } = phoneMeal();
    const res = await push(
      u,
      { meals: { ...none, created: [meal] }, meal_items: { ...none, created: items } },
      null,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.accepted).toBe(3);
    const [listed] = await listMeals(app, u.token);
    expect(listed).toEqual({
      id: meal.id,
      meal_name: 'Rice and banana',
      meal_type: 'lunch',
      eaten_at: new Date(eatenAt).toISOString(),
      eaten_at_ms: eatenAt,
      note: null,
      photo_url: null,
      source: 'phone',
      totals: {
        kcal: 651.01,
        protein_g: 11.4,
        carbs_g: 143.5,
        fat_g: 1.9,
        fiber_g: 2.2,
        sugar_g: 14,
      },
      // items the phone pushed in one go come back in id order
      items: items.map(({ meal_id: _m, ...item }) => item).sort((a, b) => (a.id < b.id ? -1 : 1)),
    });
    // and back on a first pull, to the millisecond
    const first = await pull(u);
    expect(first.changes.meals.created).toEqual([meal]);
    expect(first.changes.meal_items.created).toEqual(expect.arrayContaining(items));
  });

  it('sends meals logged over MCP and edited or deleted over REST to the phone on its next pull', async () => {
    const u = await seedUser(app);
    const t0 = (await pull(u)).timestamp as number;

    const logged = await logMeal(app, u.user.id, {
      meal_name: 'Lunch',
      eaten_at: eatenAt,
      items: [{ food_id: RICE.id, grams: 100 }],
    });
    const p1 = await pull(u, `last_pulled_at=${t0}`);
    expect(p1.changes.meals).toEqual({
      ...none,
      updated: [
        {
          id: logged.id,
          meal_name: 'Lunch',
          meal_type: null,
          eaten_at: eatenAt,
          note: null,
          source: 'mcp',
          ...logged.totals,
        },
      ],
    });
    expect(p1.changes.meal_items).toEqual({
      ...none,
      updated: [{ ...logged.items[0], meal_id: logged.id }],
    });

    const patched = await rest(app, 'PATCH', `/api/meals/${logged.id}`, {
      token: u.token,
      body: { note: 'with soy', items: [{ food_id: BANANA.id, grams: 100 }] },
    });
    expect(patched.status).toBe(200);
    const p2 = await pull(u, `last_pulled_at=${p1.timestamp}`);
    expect(p2.changes.meals.updated).toEqual([
      expect.objectContaining({ id: logged.id, note: 'with soy', kcal: 97 }),
    ]);
    expect(p2.changes.meal_items).toEqual({
      created: [],
      updated: [{ ...patched.body.items[0], meal_id: logged.id }],
      deleted: [logged.items[0].id],
    });

    expect((await rest(app, 'DELETE', `/api/meals/${logged.id}`, { token: u.token })).status).toBe(
      200,
    );
    const p3 = await pull(u, `last_pulled_at=${p2.timestamp}`);
    expect(p3.changes.meals).toEqual({ ...none, deleted: [logged.id] });
    expect(p3.changes.meal_items).toEqual({ ...none, deleted: [patched.body.items[0].id] });
    expect(p3.timestamp).toBeGreaterThan(p2.timestamp);
  });

  it("makes a phone's stale push of a meal edited on the server a 409, so the phone pulls first", async () => {
    const u = await seedUser(app);
    const { meal, items } = phoneMeal();
    await push(
      u,
      { meals: { ...none, created: [meal] }, meal_items: { ...none, created: items } },
      null,
    );
    const t1 = (await pull(u)).timestamp as number;
    expect(
      (
        await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
          token: u.token,
          body: { meal_name: 'Edited on the web' },
        })
      ).status,
    ).toBe(200);
    const stale = await push(
      u,
      { meals: { ...none, updated: [{ ...meal, note: 'from the phone' }] } },
      t1,
    );
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatchObject({
      code: 'sync_conflict',
      table: 'meals',
      ids: [meal.id],
    });
  });

  it('stops showing a meal the phone deleted, and its items', async () => {
    const u = await seedUser(app);
    const { meal, items } = phoneMeal();
    await push(
      u,
      { meals: { ...none, created: [meal] }, meal_items: { ...none, created: items } },
      null,
    );
    const t1 = (await pull(u)).timestamp as number;
    const res = await push(
      u,
      {
        meals: { ...none, deleted: [meal.id] },
        meal_items: { ...none, deleted: items.map((i) => i.id) },
      },
      t1,
    );
    expect(res.status).toBe(200);
    expect(await listMeals(app, u.token)).toEqual([]);
    expect(
      (await rest(app, 'PATCH', `/api/meals/${meal.id}`, { token: u.token, body: { note: 'x' } }))
        .status,
    ).toBe(404);
  });

  it('answers 422 for a new meal without eaten_at (required) or with a null nutrient', async () => {
    const u = await seedUser(app);
    const { meal, items } = phoneMeal();
    const { eaten_at: _e, ...noTime } = meal;
    const { grams: _g, ...noGrams } = items[0];
    const res = await push(
      u,
      { meals: { ...none, created: [noTime] }, meal_items: { ...none, created: [noGrams] } },
      null,
    );
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'changes', 'meals', 'created', 0, 'eaten_at'],
        msg: 'Field required',
        type: 'missing',
      },
    ]);
    const nullKcal = await push(
      u,
      { meals: { ...none, created: [{ ...meal, kcal: null }] } },
      null,
    );
    expect(nullKcal.status).toBe(422);
    expect(nullKcal.body.detail[0].loc).toEqual(['body', 'changes', 'meals', 'created', 0, 'kcal']);
    expect(await listMeals(app, u.token)).toEqual([]);
  });
});

describe('a meal deleted through sync', () => {
  it('loses its photo as the push commits (row, file and URL); live meals and other people keep theirs', async () => {
    const [u, other] = [await seedUser(app), await seedUser(app)];
    const [gone, kept, othersMeal] = [phoneMeal(), phoneMeal(), phoneMeal()];
    expect(
      (await push(u, { meals: { ...none, created: [gone.meal, kept.meal] } }, null)).status,
    ).toBe(200);
    expect(
      (await push(other, { meals: { ...none, created: [othersMeal.meal] } }, null)).status,
    ).toBe(200);
    const photoOf = async (token: string, id: string): Promise<string> => {
      const res = await uploadMealPhoto(app, `/api/meals/${id}/photo`, token, PNG);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return new URL(res.body.photo_url as string, app.baseUrl).pathname;
    };
    const [goneUrl, keptUrl, othersUrl] = [
      await photoOf(u.token, gone.meal.id),
      await photoOf(u.token, kept.meal.id),
      await photoOf(other.token, othersMeal.meal.id),
    ];
    expect((await app.fetch(goneUrl)).status).toBe(200);
    expect(
      (await push(u, { meals: { ...none, deleted: [gone.meal.id] } }, clock.ms())).status,
    ).toBe(200);
    expect((await app.fetch(goneUrl)).status).toBe(404);
    for (const url of [keptUrl, othersUrl]) expect((await app.fetch(url)).status).toBe(200);
    const rows = await app.db.prisma.meal.findMany({
      where: { id: { in: [gone.meal.id, kept.meal.id, othersMeal.meal.id] } },
      select: { id: true, photoKey: true },
    });
    expect(rows.filter((r) => r.photoKey === null).map((r) => r.id)).toEqual([gone.meal.id]);
  });
});
