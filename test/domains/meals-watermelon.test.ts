/**
 * Meals with the real WatermelonDB client (issue 5): a phone's offline meal reaches GET /api/meals,
 * and meals logged over MCP, edited and deleted over REST reach the phone's local database through
 * synchronize(), deletions included.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { listMeals, logMeal, RICE, seedFood } from '../factories/meals.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { createLocal, localRows, Phone, watermelon } from './sync-watermelon.helpers.ts';

const app = await startTestApp();
const { Model, appSchema, tableSchema } = watermelon;

class MealRecord extends Model {
  static table = 'meals';
}
class MealItemRecord extends Model {
  static table = 'meal_items';
}

const amounts = ['kcal', 'protein_g', 'carbs_g', 'fat_g', 'fiber_g', 'sugar_g'].map((name) => ({
  name,
  type: 'number',
}));
const text = (name: string) => ({ name, type: 'string', isOptional: true });

/** The phone's schema of the two tables (sync schema version 4). */
const mealsPhone = {
  schema: appSchema({
    version: 4,
    tables: [
      tableSchema({
        name: 'meals',
        columns: [
          text('meal_name'),
          text('meal_type'),
          { name: 'eaten_at', type: 'number' },
          text('note'),
          { name: 'source', type: 'string' },
          ...amounts,
        ],
      }),
      tableSchema({
        name: 'meal_items',
        columns: [
          { name: 'meal_id', type: 'string', isIndexed: true },
          text('food_id'),
          { name: 'name', type: 'string' },
          { name: 'grams', type: 'number' },
          text('portion'),
          ...amounts,
        ],
      }),
    ],
  }),
  modelClasses: [MealRecord, MealItemRecord],
};

beforeAll(async () => {
  await seedFood(app, RICE);
});

describe('meals with the WatermelonDB client', () => {
  it('syncs a phone meal to the server, and server meals, edits and deletions to the phone', async () => {
    const u = await seedUser(app);
    const phone = new Phone(app, u.token, mealsPhone);
    const nutrients = { kcal: 250, protein_g: 5, carbs_g: 50, fat_g: 1, fiber_g: 1, sugar_g: 2 };
    const eatenAt = Date.UTC(2026, 10, 22, 8, 0, 0, 250);
    const mealId = await createLocal(phone, 'meals', {
      meal_name: 'Porridge',
      meal_type: 'breakfast',
      eaten_at: eatenAt,
      source: 'phone',
      ...nutrients,
    });
    await createLocal(phone, 'meal_items', {
      meal_id: mealId,
      name: 'Oats',
      grams: 60,
      ...nutrients,
    });
    await phone.sync();
    const [onServer] = await listMeals(app, u.token);
    expect(onServer).toMatchObject({
      id: mealId,
      meal_name: 'Porridge',
      eaten_at_ms: eatenAt,
      source: 'phone',
      totals: nutrients,
      items: [{ name: 'Oats', grams: 60 }],
    });

    const logged = await logMeal(app, u.user.id, {
      meal_name: 'Rice',
      items: [{ food_id: RICE.id, grams: 100 }],
    });
    expect(
      (
        await rest(app, 'PATCH', `/api/meals/${mealId}`, {
          token: u.token,
          body: { note: 'edited on the web' },
        })
      ).status,
    ).toBe(200);
    await phone.sync();
    const meals = await localRows(phone, 'meals');
    expect(meals.find((m) => m.id === mealId)).toMatchObject({
      note: 'edited on the web',
      meal_name: 'Porridge',
    });
    expect(meals.find((m) => m.id === logged.id)).toMatchObject({
      meal_name: 'Rice',
      source: 'mcp',
      kcal: logged.totals.kcal,
    });
    expect(
      (await localRows(phone, 'meal_items')).find((i) => i.meal_id === logged.id),
    ).toMatchObject({ food_id: RICE.id, grams: 100 });

    expect((await rest(app, 'DELETE', `/api/meals/${logged.id}`, { token: u.token })).status).toBe(
      200,
    );
    await phone.sync();
    expect((await localRows(phone, 'meals')).map((m) => m.id)).toEqual([mealId]);
    expect((await localRows(phone, 'meal_items')).map((i) => i.meal_id)).toEqual([mealId]);
    expect(phone.pushStatuses.every((s) => s === 200)).toBe(true);
  });
});
