/**
 * Saved meals, favorite foods and copying a meal (issue 17), through MCP (the SDK client) and the
 * read API's REST routes: rules, limits, idempotency, scopes and ownership (another person's id is
 * 404 / NOT_FOUND).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { BANANA, listMeals, logMeal, RICE, seedFood } from '../factories/meals.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const RW: Scope[] = ['health:nutrition:read', 'health:nutrition:write'];

beforeAll(async () => {
  await seedFood(app, BANANA);
  await seedFood(app, RICE);
});

let n = 0;
const key = (): string => `key-${clock.ms()}-${n++}`;

async function person(scopes: Scope[] = RW): Promise<{
  id: number;
  token: string;
  pat: string;
  mcp: Client;
}> {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes);
  return { id: u.user.id, token: u.token, pat, mcp: await mcpClient(app, pat) };
}

/** Calls a tool that must succeed; answers its structured result without meta. */
async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await callTool(client, name, args);
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  const { meta: _meta, ...out } = r.structuredContent as Record<string, unknown>;
  return out;
}

/** Calls a tool that must fail; answers its error. */
async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; detail?: any; message: string }> {
  const r = await callTool(client, name, args);
  expect(r.isError, JSON.stringify(r.structuredContent)).toBe(true);
  return (r.structuredContent as any).error;
}

const porridge = {
  name: 'Banana rice bowl',
  meal_type: 'breakfast',
  note: 'my usual',
  items: [
    { food_id: BANANA.id, portion_id: `${BANANA.id}:1` },
    { food_id: RICE.id, grams: 50 },
    { name: 'Honey', grams: 10, kcal: 30, carbs_g: 8.2, sugar_g: 8.2 },
  ],
};

describe('favorite foods', () => {
  it('adds a catalogue food once, lists newest first, removes it and revives it', async () => {
    const me = await person();
    const rice = await ok(me.mcp, 'nutrition_favorite_add', {
      food_id: RICE.id,
      idempotency_key: key(),
    });
    expect(rice).toMatchObject({ food_id: RICE.id, name: RICE.description });
    const banana = await ok(me.mcp, 'nutrition_favorite_add', {
      food_id: BANANA.id,
      idempotency_key: key(),
    });
    // unique per person and food: adding again (another key) answers the same favorite
    const again = await ok(me.mcp, 'nutrition_favorite_add', {
      food_id: RICE.id,
      idempotency_key: key(),
    });
    expect(again.id).toBe(rice.id);
    const list = await ok(me.mcp, 'nutrition_favorites_list');
    expect(list.items.map((f: any) => f.food_id)).toEqual([BANANA.id, RICE.id]);
    const viaRest = await rest(app, 'GET', '/api/v1/nutrition/favorites?limit=1', {
      token: me.pat,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.map((f: any) => f.id)).toEqual([banana.id]);

    expect(
      await ok(me.mcp, 'nutrition_favorite_remove', { food_id: BANANA.id, confirm: true }),
    ).toEqual({ deleted: 1 });
    const second = await fails(me.mcp, 'nutrition_favorite_remove', {
      food_id: BANANA.id,
      confirm: true,
    });
    expect(second.code).toBe('NOT_FOUND');
    // a removed favorite comes back as the newest, with its id
    const revived = await ok(me.mcp, 'nutrition_favorite_add', {
      food_id: BANANA.id,
      idempotency_key: key(),
    });
    expect(revived.id).toBe(banana.id);
    const after = await rest(app, 'GET', '/api/v1/nutrition/favorites', { token: me.token });
    expect(after.body.map((f: any) => f.food_id)).toEqual([BANANA.id, RICE.id]);
  });

  it('refuses an unknown food, an overlong id and a limit out of bounds', async () => {
    const me = await person();
    const unknown = await fails(me.mcp, 'nutrition_favorite_add', {
      food_id: 'no-such-food',
      idempotency_key: key(),
    });
    expect(unknown.code).toBe('VALIDATION_FAILED');
    expect(unknown.detail[0].loc).toEqual(['food_id']);
    const long = await fails(me.mcp, 'nutrition_favorite_add', {
      food_id: 'x'.repeat(65),
      idempotency_key: key(),
    });
    expect(long.code).toBe('VALIDATION_FAILED');
    expect((await fails(me.mcp, 'nutrition_favorites_list', { limit: 501 })).code).toBe(
      'VALIDATION_FAILED',
    );
    for (const q of ['limit=0', 'limit=501', 'limit=abc']) {
      const res = await rest(app, 'GET', `/api/v1/nutrition/favorites?${q}`, { token: me.pat });
      expect(res.status, q).toBe(422);
    }
  });

  it("never shows or removes another person's favorites", async () => {
    const [me, other] = [await person(), await person()];
    await ok(other.mcp, 'nutrition_favorite_add', { food_id: RICE.id, idempotency_key: key() });
    expect((await ok(me.mcp, 'nutrition_favorites_list')).items).toEqual([]);
    const res = await fails(me.mcp, 'nutrition_favorite_remove', {
      food_id: RICE.id,
      confirm: true,
    });
    expect(res.code).toBe('NOT_FOUND');
    expect((await ok(other.mcp, 'nutrition_favorites_list')).items).toHaveLength(1);
  });

  it('refuses a phone push of a second favorite of the same food (409 duplicate_record)', async () => {
    const me = await person();
    await ok(me.mcp, 'nutrition_favorite_add', { food_id: RICE.id, idempotency_key: key() });
    const res = await rest(app, 'POST', '/api/sync/push', {
      token: me.token,
      body: {
        changes: {
          favorite_foods: {
            created: [{ id: crypto.randomUUID(), food_id: RICE.id, name: 'rice again' }],
            updated: [],
            deleted: [],
          },
        },
        last_pulled_at: clock.ms(),
      },
    });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({ code: 'duplicate_record', table: 'favorite_foods' });
    expect((await ok(me.mcp, 'nutrition_favorites_list')).items).toHaveLength(1);
  });

  it('needs both nutrition scopes for the tools, health:nutrition:read for the route', async () => {
    const reader = await person(['health:nutrition:read']);
    const err = await fails(reader.mcp, 'nutrition_favorites_list');
    expect(err.code).toBe('INSUFFICIENT_SCOPE');
    expect(err.detail.scope).toBe('health:nutrition:write');
    expect(
      (await rest(app, 'GET', '/api/v1/nutrition/favorites', { token: reader.pat })).status,
    ).toBe(200);
    const writer = await person(['health:nutrition:write']);
    expect(
      (
        await fails(writer.mcp, 'nutrition_favorite_add', {
          food_id: RICE.id,
          idempotency_key: key(),
        })
      ).code,
    ).toBe('INSUFFICIENT_SCOPE');
    const res = await rest(app, 'GET', '/api/v1/nutrition/favorites', { token: writer.pat });
    expect(res.status).toBe(403);
    expect((await rest(app, 'GET', '/api/v1/nutrition/favorites')).status).toBe(401);
  });
});

describe('saved meals', () => {
  it('saves a template with totals computed like a logged meal, lists it over MCP and REST', async () => {
    const me = await person();
    const saved = await ok(me.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      idempotency_key: key(),
    });
    // the same items logged as a meal give the same items and totals
    const meal = await logMeal(app, me.id, { meal_name: porridge.name, items: porridge.items });
    expect(saved.totals).toEqual(meal.totals);
    expect(saved.items.map(({ id: _i, ...rest }: any) => rest)).toEqual(
      meal.items.map(({ id: _i, ...rest }: any) => rest),
    );
    expect(saved).toMatchObject({ name: porridge.name, meal_type: 'breakfast', note: 'my usual' });
    expect(saved.items[0]).toMatchObject({ grams: 115, portion: '1 Banana, Peeled' });
    // totals are the sum of the items (two decimals)
    const kcal = saved.items.reduce((s: number, i: any) => s + i.kcal, 0);
    expect(saved.totals.kcal).toBeCloseTo(kcal, 2);

    const listed = await ok(me.mcp, 'nutrition_saved_meals_list');
    expect(listed.items).toEqual([saved]);
    const viaRest = await rest(app, 'GET', '/api/v1/nutrition/saved-meals', { token: me.pat });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual([saved]);
  });

  it('replays a create with the same idempotency_key, refuses the key with other arguments', async () => {
    const me = await person();
    const k = key();
    const first = await ok(me.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      idempotency_key: k,
    });
    const again = await ok(me.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      idempotency_key: k,
    });
    expect(again.id).toBe(first.id);
    const other = await fails(me.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      name: 'Another',
      idempotency_key: k,
    });
    expect(other.code).toBe('CONFLICT');
    expect((await ok(me.mcp, 'nutrition_saved_meals_list')).items).toHaveLength(1);
  });

  it('bounds the name, the note and the items (1..100), and refuses unknown foods', async () => {
    const me = await person();
    const bad: [Record<string, unknown>, string][] = [
      [{ ...porridge, name: '' }, 'name'],
      [{ ...porridge, name: '   ' }, 'name'],
      [{ ...porridge, name: 'x'.repeat(201) }, 'name'],
      [{ ...porridge, note: 'x'.repeat(2001) }, 'note'],
      [{ ...porridge, items: [] }, 'items'],
      [{ ...porridge, items: Array(101).fill({ name: 'x', grams: 1 }) }, 'items'],
      [{ ...porridge, items: [{ food_id: 'nope', grams: 10 }] }, 'items'],
      [{ ...porridge, items: [{ name: 'x', grams: 5001 }] }, 'items'],
      [{ ...porridge, meal_type: 'brunch' }, 'meal_type'],
    ];
    for (const [args, field] of bad) {
      const err = await fails(me.mcp, 'nutrition_saved_meal_create', {
        ...args,
        idempotency_key: key(),
      });
      expect(err.code, field).toBe('VALIDATION_FAILED');
    }
    expect((await ok(me.mcp, 'nutrition_saved_meals_list')).items).toEqual([]);
  });

  it('updates fields and replaces the items (totals recomputed); deletes with a tombstone', async () => {
    const me = await person();
    const saved = await ok(me.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      idempotency_key: key(),
    });
    const renamed = await ok(me.mcp, 'nutrition_saved_meal_update', {
      saved_meal_id: saved.id,
      input: { name: 'Rice only', note: null, items: [{ food_id: RICE.id, grams: 100 }] },
    });
    expect(renamed).toMatchObject({
      id: saved.id,
      name: 'Rice only',
      note: null,
      meal_type: 'breakfast',
    });
    expect(renamed.items).toHaveLength(1);
    expect(renamed.totals.kcal).toBe(renamed.items[0].kcal);
    const same = await ok(me.mcp, 'nutrition_saved_meal_update', {
      saved_meal_id: saved.id,
      input: { meal_type: 'lunch' },
    });
    expect(same).toMatchObject({ name: 'Rice only', meal_type: 'lunch', totals: renamed.totals });

    expect(
      (await fails(me.mcp, 'nutrition_saved_meal_delete', { saved_meal_id: saved.id })).code,
    ).toBe('CONFIRMATION_REQUIRED');
    expect(
      await ok(me.mcp, 'nutrition_saved_meal_delete', { saved_meal_id: saved.id, confirm: true }),
    ).toEqual({ deleted: 1 });
    expect((await ok(me.mcp, 'nutrition_saved_meals_list')).items).toEqual([]);
    const row = await app.db.prisma.savedMeal.findUniqueOrThrow({ where: { id: saved.id } });
    expect(row.deletedAt).not.toBeNull();
    const items = await app.db.prisma.savedMealItem.findMany({ where: { savedMealId: saved.id } });
    expect(items.every((i) => i.deletedAt)).toBe(true);
    for (const [tool, args] of [
      ['nutrition_saved_meal_delete', { confirm: true }],
      ['nutrition_saved_meal_update', { input: { name: 'x' } }],
      ['nutrition_saved_meal_log', { idempotency_key: key() }],
    ] as const) {
      const err = await fails(me.mcp, tool, { saved_meal_id: saved.id, ...args });
      expect(err.code, tool).toBe('NOT_FOUND');
    }
  });

  it("answers NOT_FOUND for another person's saved meal, and a malformed id is a validation error", async () => {
    const [me, other] = [await person(), await person()];
    const theirs = await ok(other.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      idempotency_key: key(),
    });
    expect((await ok(me.mcp, 'nutrition_saved_meals_list')).items).toEqual([]);
    for (const [tool, args] of [
      ['nutrition_saved_meal_update', { input: { name: 'mine now' } }],
      ['nutrition_saved_meal_delete', { confirm: true }],
      ['nutrition_saved_meal_log', { idempotency_key: key() }],
    ] as const) {
      const err = await fails(me.mcp, tool, { saved_meal_id: theirs.id, ...args });
      expect(err.code, tool).toBe('NOT_FOUND');
    }
    const malformed = await fails(me.mcp, 'nutrition_saved_meal_delete', {
      saved_meal_id: 'not-a-uuid',
      confirm: true,
    });
    expect(malformed.code).toBe('VALIDATION_FAILED');
    expect((await ok(other.mcp, 'nutrition_saved_meals_list')).items[0].name).toBe(porridge.name);
  });

  it('needs health:nutrition:write to save and health:nutrition:read to list', async () => {
    const reader = await person(['health:nutrition:read']);
    expect(
      (
        await fails(reader.mcp, 'nutrition_saved_meal_create', {
          ...porridge,
          idempotency_key: key(),
        })
      ).code,
    ).toBe('INSUFFICIENT_SCOPE');
    const writer = await person(['health:nutrition:write']);
    expect((await fails(writer.mcp, 'nutrition_saved_meals_list')).code).toBe('INSUFFICIENT_SCOPE');
    expect(
      (await rest(app, 'GET', '/api/v1/nutrition/saved-meals', { token: writer.pat })).status,
    ).toBe(403);
  });
});

describe('saved meals and favorites in the dashboard graph', () => {
  it('pages both lists newest first by keyset, every row once', async () => {
    const me = await person();
    const saved: string[] = [];
    for (const name of ['A', 'B', 'C']) {
      const s = await ok(me.mcp, 'nutrition_saved_meal_create', {
        ...porridge,
        name,
        idempotency_key: key(),
      });
      saved.unshift(s.id);
    }
    for (const food_id of [RICE.id, BANANA.id])
      await ok(me.mcp, 'nutrition_favorite_add', { food_id, idempotency_key: key() });
    const page = async (after: string | null) =>
      (
        await gql(
          app,
          `query ($after: String) { me {
            savedMeals(first: 2, after: $after) { nodes { id items { name } } pageInfo { hasNextPage endCursor } }
            favoriteFoods(first: 1) { nodes { foodId } pageInfo { hasNextPage } } } }`,
          { token: me.token, variables: { after } },
        )
      ).body.data.me;
    const first = await page(null);
    expect(first.savedMeals.nodes.map((m: any) => m.id)).toEqual(saved.slice(0, 2));
    expect(first.savedMeals.nodes[0].items).toHaveLength(3);
    expect(first.savedMeals.pageInfo.hasNextPage).toBe(true);
    expect(first.favoriteFoods).toEqual({
      nodes: [{ foodId: BANANA.id }],
      pageInfo: { hasNextPage: true },
    });
    const second = await page(first.savedMeals.pageInfo.endCursor);
    expect(second.savedMeals.nodes.map((m: any) => m.id)).toEqual(saved.slice(2));
    expect(second.savedMeals.pageInfo.hasNextPage).toBe(false);
  });
});

describe('logging a saved meal and copying a meal', () => {
  it('logs a saved meal as a new meal like logMeal, once per idempotency_key', async () => {
    const me = await person();
    const saved = await ok(me.mcp, 'nutrition_saved_meal_create', {
      ...porridge,
      idempotency_key: key(),
    });
    const k = key();
    const eatenAt = '2026-11-20T07:30:00.000Z';
    const meal = await ok(me.mcp, 'nutrition_saved_meal_log', {
      saved_meal_id: saved.id,
      eaten_at: eatenAt,
      idempotency_key: k,
    });
    expect(meal).toMatchObject({
      meal_name: porridge.name,
      meal_type: 'breakfast',
      note: 'my usual',
      eaten_at: eatenAt,
      source: 'mcp',
      totals: saved.totals,
    });
    expect(meal.id).not.toBe(saved.id);
    const retry = await ok(me.mcp, 'nutrition_saved_meal_log', {
      saved_meal_id: saved.id,
      eaten_at: eatenAt,
      idempotency_key: k,
    });
    expect(retry.id).toBe(meal.id);
    expect((await listMeals(app, me.token)).map((m) => m.id)).toEqual([meal.id]);
    // a second log (a new key) is a second meal, default now, with a meal_type of its own
    const before = clock.ms();
    const lunch = await ok(me.mcp, 'nutrition_saved_meal_log', {
      saved_meal_id: saved.id,
      meal_type: 'lunch',
      idempotency_key: key(),
    });
    expect(lunch.meal_type).toBe('lunch');
    expect(lunch.eaten_at_ms).toBeGreaterThanOrEqual(before - 1000);
    expect(await listMeals(app, me.token)).toHaveLength(2);
    // the key is required, and eaten_at is bounded like a meal's
    expect(
      (await fails(me.mcp, 'nutrition_saved_meal_log', { saved_meal_id: saved.id })).code,
    ).toBe('VALIDATION_FAILED');
    const future = await fails(me.mcp, 'nutrition_saved_meal_log', {
      saved_meal_id: saved.id,
      eaten_at: new Date(clock.ms() + 3 * 86_400_000).toISOString(),
      idempotency_key: key(),
    });
    expect(future.code).toBe('VALIDATION_FAILED');
  });

  it("copies a logged meal to a new time, once per idempotency_key; not another person's", async () => {
    const [me, other] = [await person(), await person()];
    const original = await logMeal(app, me.id, {
      meal_name: 'Rice and banana',
      meal_type: 'dinner',
      eaten_at: '2026-11-19T18:00:00.000Z',
      items: [
        { food_id: RICE.id, grams: 80 },
        { food_id: BANANA.id, portion_id: `${BANANA.id}:1`, servings: 2 },
      ],
    });
    const k = key();
    const copy = await ok(me.mcp, 'nutrition_meal_copy', {
      meal_id: original.id,
      eaten_at: '2026-11-21T18:00:00.000Z',
      idempotency_key: k,
    });
    expect(copy.id).not.toBe(original.id);
    expect(copy).toMatchObject({
      meal_name: 'Rice and banana',
      meal_type: 'dinner',
      eaten_at: '2026-11-21T18:00:00.000Z',
      totals: original.totals,
    });
    expect(copy.items.map(({ id: _i, ...i }: any) => i)).toEqual(
      original.items.map(({ id: _i, ...i }: any) => i),
    );
    const retry = await ok(me.mcp, 'nutrition_meal_copy', {
      meal_id: original.id,
      eaten_at: '2026-11-21T18:00:00.000Z',
      idempotency_key: k,
    });
    expect(retry.id).toBe(copy.id);
    expect(await listMeals(app, me.token)).toHaveLength(2);
    expect((await fails(me.mcp, 'nutrition_meal_copy', { meal_id: original.id })).code).toBe(
      'VALIDATION_FAILED',
    );
    const theirs = await fails(other.mcp, 'nutrition_meal_copy', {
      meal_id: original.id,
      idempotency_key: key(),
    });
    expect(theirs.code).toBe('NOT_FOUND');
    expect(await listMeals(app, other.token)).toEqual([]);
    const reader = await person(['health:nutrition:read']);
    expect(
      (
        await fails(reader.mcp, 'nutrition_meal_copy', {
          meal_id: original.id,
          idempotency_key: key(),
        })
      ).code,
    ).toBe('INSUFFICIENT_SCOPE');
  });

  it('refuses to copy a meal without items (a photo meal not yet itemised)', async () => {
    const me = await person();
    const empty = await app.db.prisma.meal.create({
      data: { id: crypto.randomUUID(), userId: me.id, eatenAt: clock.now(), source: 'photo' },
    });
    const err = await fails(me.mcp, 'nutrition_meal_copy', {
      meal_id: empty.id,
      idempotency_key: key(),
    });
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.detail[0].loc).toEqual(['meal_id']);
  });
});
