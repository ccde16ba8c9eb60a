/**
 * Saved meals and favorite foods with the real WatermelonDB client (issue 17): what an agent saves
 * over MCP reaches the phone's local database through synchronize(), edits and deletions included,
 * and what the phone saves offline shows through the tools (and can be logged as a meal).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { syncedTable } from '../../src/domains/sync/sync.tables.ts';
import { BANANA, RICE, seedFood } from '../factories/meals.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { createLocal, localRows, Phone, watermelon } from './sync-watermelon.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const { Model, appSchema, tableSchema } = watermelon;

class SavedMealRecord extends Model {
  static table = 'saved_meals';
}
class SavedMealItemRecord extends Model {
  static table = 'saved_meal_items';
}
class FavoriteFoodRecord extends Model {
  static table = 'favorite_foods';
}

const amounts = ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g'].map((name) => ({
  name,
  type: 'number',
}));
const text = (name: string) => ({ name, type: 'string', isOptional: true });

/** The phone's schema of the three tables (sync schema version 6). */
const savedPhone = {
  schema: appSchema({
    version: 6,
    tables: [
      tableSchema({
        name: 'saved_meals',
        columns: [{ name: 'name', type: 'string' }, text('meal_type'), text('note'), ...amounts],
      }),
      tableSchema({
        name: 'saved_meal_items',
        columns: [
          { name: 'saved_meal_id', type: 'string', isIndexed: true },
          text('food_id'),
          { name: 'name', type: 'string' },
          { name: 'grams', type: 'number' },
          text('portion'),
          ...amounts,
        ],
      }),
      tableSchema({
        name: 'favorite_foods',
        columns: [
          { name: 'food_id', type: 'string', isIndexed: true },
          { name: 'name', type: 'string' },
        ],
      }),
    ],
  }),
  modelClasses: [SavedMealRecord, SavedMealItemRecord, FavoriteFoodRecord],
};

beforeAll(async () => {
  await seedFood(app, BANANA);
  await seedFood(app, RICE);
});

let n = 0;
const key = (): string => `wm-${clock.ms()}-${n++}`;

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await callTool(client, name, args);
  expect(r.isError, JSON.stringify(r.structuredContent)).toBeFalsy();
  const { meta: _meta, ...out } = r.structuredContent as Record<string, unknown>;
  return out;
}

describe('saved meals and favorites with the WatermelonDB client', () => {
  it('are synced tables of schema version 6, read and written with the nutrition scopes', () => {
    for (const t of ['saved_meals', 'saved_meal_items', 'favorite_foods']) {
      expect(syncedTable(t)).toMatchObject({
        since: 6,
        readScope: 'health:nutrition:read',
        writeScope: 'health:nutrition:write',
      });
    }
  });

  it("brings an agent's saved meals and favorites to the phone, edits and deletions included", async () => {
    const u = await seedUser(app);
    const agent = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, ['health:nutrition:read', 'health:nutrition:write']),
    );
    const phone = new Phone(app, u.token, savedPhone);
    const saved = await ok(agent, 'nutrition_saved_meal_create', {
      name: 'Rice bowl',
      meal_type: 'lunch',
      items: [
        { food_id: RICE.id, grams: 100 },
        { name: 'Soy sauce', grams: 15, kcal: 8 },
      ],
      idempotency_key: key(),
    });
    const fav = await ok(agent, 'nutrition_favorite_add', {
      food_id: BANANA.id,
      idempotency_key: key(),
    });
    await phone.sync();
    expect(await localRows(phone, 'saved_meals')).toEqual([
      expect.objectContaining({
        id: saved.id,
        name: 'Rice bowl',
        meal_type: 'lunch',
        kcal: saved.totals.kcal,
      }),
    ]);
    const items = await localRows(phone, 'saved_meal_items');
    expect(items.map((i) => [i.saved_meal_id, i.food_id, i.name, i.grams]).sort()).toEqual(
      [
        [saved.id, RICE.id, RICE.description, 100],
        [saved.id, null, 'Soy sauce', 15],
      ].sort(),
    );
    expect(await localRows(phone, 'favorite_foods')).toEqual([
      expect.objectContaining({ id: fav.id, food_id: BANANA.id, name: BANANA.description }),
    ]);

    await ok(agent, 'nutrition_saved_meal_update', {
      saved_meal_id: saved.id,
      input: { items: [{ food_id: BANANA.id, grams: 120 }] },
    });
    await ok(agent, 'nutrition_favorite_remove', { food_id: BANANA.id, confirm: true });
    await phone.sync();
    expect((await localRows(phone, 'saved_meal_items')).map((i) => i.food_id)).toEqual([BANANA.id]);
    expect(await localRows(phone, 'favorite_foods')).toEqual([]);

    await ok(agent, 'nutrition_saved_meal_delete', { saved_meal_id: saved.id, confirm: true });
    await phone.sync();
    expect(await localRows(phone, 'saved_meals')).toEqual([]);
    expect(await localRows(phone, 'saved_meal_items')).toEqual([]);
    expect(phone.pushStatuses.every((s) => s === 200)).toBe(true);
  });

  it("shows the phone's saved meals and favorites through the tools, and logs the saved meal", async () => {
    const u = await seedUser(app);
    const agent = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, ['health:nutrition:read', 'health:nutrition:write']),
    );
    const phone = new Phone(app, u.token, savedPhone);
    const nutrients = { kcal: 180, protein_g: 6, carbs_g: 30, fat_g: 3, fiber_g: 4, sugar_g: 1 };
    const savedId = await createLocal(phone, 'saved_meals', {
      name: 'Phone porridge',
      meal_type: 'breakfast',
      ...nutrients,
    });
    await createLocal(phone, 'saved_meal_items', {
      saved_meal_id: savedId,
      name: 'Oats',
      grams: 50,
      ...nutrients,
    });
    const favId = await createLocal(phone, 'favorite_foods', {
      food_id: RICE.id,
      name: RICE.description,
    });
    await phone.sync();
    expect(phone.pushStatuses.every((s) => s === 200)).toBe(true);

    const listed = await ok(agent, 'nutrition_saved_meals_list');
    expect(listed.items).toEqual([
      expect.objectContaining({
        id: savedId,
        name: 'Phone porridge',
        totals: nutrients,
        items: [expect.objectContaining({ name: 'Oats', grams: 50, food_id: null })],
      }),
    ]);
    expect((await ok(agent, 'nutrition_favorites_list')).items).toEqual([
      expect.objectContaining({ id: favId, food_id: RICE.id }),
    ]);
    // the favorite the phone made is the same favorite for the agent (one per person and food)
    expect(
      (await ok(agent, 'nutrition_favorite_add', { food_id: RICE.id, idempotency_key: key() })).id,
    ).toBe(favId);

    const meal = await ok(agent, 'nutrition_saved_meal_log', {
      saved_meal_id: savedId,
      idempotency_key: key(),
    });
    expect(meal).toMatchObject({ meal_name: 'Phone porridge', totals: nutrients });
  });
});
