/**
 * Issue 30, item 6: the nutrition tools' friction an agent met. Meal glucose responses say the
 * meal's type and its local time (with the offset and the zone) and filter by meal type, so "after
 * breakfast over the last two weeks" is one call; nutrition_meal_update takes its fields flat like
 * nutrition_meal_log while REST PATCH /api/meals/{meal_id} keeps its documented MealLogUpdate body;
 * nutrition_food_preview_score's schema states its exactly-one-of rule. Through MCP and REST.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedGlucose } from '../factories/insights.ts';
import { logMeal, plainMeal } from '../factories/meals.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const prisma = app.db.prisma;
const MIN = 60_000;
const DAY = 86_400_000;
/** Today at 00:00 UTC: meal times are built from it, on the minute. */
const TODAY = Math.floor(clock.ms() / DAY) * DAY;

async function person(scopes: Scope[], timezone?: string) {
  const u = await seedUser(app);
  if (timezone) await prisma.user.update({ where: { id: u.user.id }, data: { timezone } });
  const pat = await seedPersonalToken(app, u.user.id, scopes);
  return { ...u, pat, client: await mcpClient(app, pat) };
}

/** A meal stored as the phone would have logged it; answers its id. */
async function seedMeal(
  userId: number,
  eatenAt: number,
  mealType: string | null,
  mealName = 'Meal',
): Promise<string> {
  const id = randomUUID();
  await prisma.meal.create({
    data: { id, userId, eatenAt: new Date(eatenAt), mealType, mealName },
  });
  return id;
}

/** 5-minute readings from 60 minutes before `at` to 3 hours after: flat 100, +60 peak at 45 min. */
const curve = (at: number) =>
  Array.from({ length: 49 }, (_, i) => {
    const m = -60 + i * 5;
    const v =
      m <= 0 ? 100 : m <= 45 ? 100 + (60 * m) / 45 : m <= 90 ? 160 - (60 * (m - 45)) / 45 : 100;
    return { timestamp: new Date(at + m * MIN), valueMgDl: v };
  });

const content = (res: { structuredContent?: unknown }): any => res.structuredContent;

describe('meal_glucose_response_read: meal type and local time (issue 30)', () => {
  it("answers each meal's type, its local time with the offset then, and the zone", async () => {
    const p = await person(['health:glucose:read'], 'Europe/Berlin');
    // 08:00 in Berlin in winter (+01:00) and 08:30 in summer (+02:00)
    const winter = await seedMeal(p.user.id, Date.UTC(2026, 0, 15, 7, 0), 'breakfast', 'Oats');
    const summer = await seedMeal(p.user.id, Date.UTC(2026, 6, 15, 6, 30), null, 'Toast');
    const res = await callTool(p.client, 'meal_glucose_response_read', {
      from: '2026-01-01T00:00:00Z',
      to: '2026-08-01T00:00:00Z',
    });
    expect(res.isError, JSON.stringify(content(res))).toBeFalsy();
    const items = content(res).items.map((i: any) => ({
      meal_id: i.meal_id,
      meal_name: i.meal_name,
      meal_type: i.meal_type,
      eaten_at_local: i.eaten_at_local,
      time_zone: i.time_zone,
    }));
    expect(items).toEqual([
      {
        meal_id: summer,
        meal_name: 'Toast',
        meal_type: null,
        eaten_at_local: '2026-07-15T08:30:00.000+02:00',
        time_zone: 'Europe/Berlin',
      },
      {
        meal_id: winter,
        meal_name: 'Oats',
        meal_type: 'breakfast',
        eaten_at_local: '2026-01-15T08:00:00.000+01:00',
        time_zone: 'Europe/Berlin',
      },
    ]);
    // one meal, through the tool and GET /api/v1/nutrition/meals/{meal_id}/glucose-response
    const one = await callTool(p.client, 'meal_glucose_response_read', { meal_id: winter });
    expect(content(one).items[0]).toMatchObject({
      meal_type: 'breakfast',
      eaten_at_local: '2026-01-15T08:00:00.000+01:00',
      time_zone: 'Europe/Berlin',
    });
    const viaRest = await rest(app, 'GET', `/api/v1/nutrition/meals/${winter}/glucose-response`, {
      token: p.pat,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({
      meal_id: winter,
      meal_type: 'breakfast',
      eaten_at: '2026-01-15T07:00:00.000Z',
      eaten_at_local: '2026-01-15T08:00:00.000+01:00',
      time_zone: 'Europe/Berlin',
    });
  });

  it('reads local times in UTC for a person without a time zone', async () => {
    const p = await person(['health:glucose:read']);
    const id = await seedMeal(p.user.id, Date.UTC(2026, 6, 15, 6, 30), 'lunch');
    const res = await callTool(p.client, 'meal_glucose_response_read', { meal_id: id });
    expect(content(res).items[0]).toMatchObject({
      eaten_at_local: '2026-07-15T06:30:00.000Z',
      time_zone: 'UTC',
    });
  });

  it('answers "after breakfast over the last two weeks" in one call, with the responses', async () => {
    const p = await person(['health:glucose:read'], 'Asia/Kolkata');
    const breakfasts: string[] = [];
    // a breakfast, a lunch and an untyped meal on each of 4 days in the last two weeks, one
    // breakfast three weeks ago (outside the range)
    for (const daysAgo of [2, 5, 9, 13]) {
      const breakfast = TODAY - daysAgo * DAY + 2 * 3_600_000; // 07:30 in Kolkata (+05:30)
      breakfasts.push(await seedMeal(p.user.id, breakfast, 'breakfast'));
      await seedMeal(p.user.id, breakfast + 5 * 3_600_000, 'lunch');
      await seedMeal(p.user.id, breakfast + 30 * MIN, null);
      await seedGlucose(app, p.token, curve(breakfast));
    }
    await seedMeal(p.user.id, TODAY - 21 * DAY + 2 * 3_600_000, 'breakfast');
    const from = new Date(TODAY - 14 * DAY).toISOString();
    const res = await callTool(p.client, 'meal_glucose_response_read', {
      meal_type: 'breakfast',
      from,
    });
    expect(res.isError, JSON.stringify(content(res))).toBeFalsy();
    const items = content(res).items;
    expect(items.map((i: any) => i.meal_id)).toEqual(breakfasts);
    for (const item of items) {
      expect(item.meal_type).toBe('breakfast');
      expect(item.eaten_at_local).toMatch(/T07:30:00\.000\+05:30$/);
      expect(item.time_zone).toBe('Asia/Kolkata');
      expect(item.response).toMatchObject({ rise_mg_dl: 60, iauc_mg_dl_min: 2700 });
    }
    // pages keep the filter
    const first = await callTool(p.client, 'meal_glucose_response_read', {
      meal_type: 'breakfast',
      from,
      limit: 3,
    });
    const next = content(first).next_cursor;
    expect(content(first).items).toHaveLength(3);
    const second = await callTool(p.client, 'meal_glucose_response_read', {
      meal_type: 'breakfast',
      from,
      limit: 3,
      cursor: next,
    });
    expect(content(second).items.map((i: any) => i.meal_id)).toEqual([breakfasts[3]]);
    // REST: the same filter as a query parameter
    const viaRest = await rest(
      app,
      'GET',
      `/api/v1/nutrition/glucose-responses?meal_type=breakfast&from=${encodeURIComponent(from)}`,
      { token: p.pat },
    );
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.items.map((i: any) => i.meal_id)).toEqual(breakfasts);
  });

  it('lists meal_type as an enum of the tool, and refuses another value with a 4xx', async () => {
    const p = await person(['health:glucose:read']);
    const { tools } = await p.client.listTools();
    const tool = tools.find((t) => t.name === 'meal_glucose_response_read')!;
    const schema = tool.inputSchema.properties!.meal_type as any;
    expect(schema.enum).toEqual(expect.arrayContaining(['breakfast', 'lunch', 'dinner', 'snack']));
    expect(schema.description).toMatch(/only meals logged with this type/);
    const bad = await callTool(p.client, 'meal_glucose_response_read', { meal_type: 'brunch' });
    expect(bad.isError).toBe(true);
    expect(content(bad).error.code).toBe('VALIDATION_FAILED');
    const viaRest = await rest(app, 'GET', '/api/v1/nutrition/glucose-responses?meal_type=brunch', {
      token: p.pat,
    });
    expect(viaRest.status).toBe(422);
    expect(viaRest.body.detail[0].loc).toEqual(['query', 'meal_type']);
  });
});

describe('nutrition_meal_update takes its fields flat, like nutrition_meal_log (issue 30)', () => {
  const write: Scope[] = ['health:nutrition:write'];

  it('lists the meal id and the fields as top-level arguments, as nutrition_meal_log does', async () => {
    const p = await person(write);
    const { tools } = await p.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const update = byName.get('nutrition_meal_update')!.inputSchema;
    const log = byName.get('nutrition_meal_log')!.inputSchema;
    expect(Object.keys(update.properties!).sort()).toEqual(
      ['eaten_at', 'items', 'meal_id', 'meal_name', 'meal_type', 'note'].sort(),
    );
    expect(update.required).toEqual(['meal_id']);
    // the same fields by the same names (null clearing one is shown by the call below)
    for (const field of ['meal_name', 'meal_type', 'eaten_at', 'note', 'items']) {
      expect(Object.keys(log.properties!)).toContain(field);
    }
    expect(Object.keys((update.properties!.items as any).items.properties).sort()).toEqual(
      Object.keys((log.properties!.items as any).items.properties).sort(),
    );
    expect((update.properties!.meal_type as any).enum).toEqual(
      expect.arrayContaining(['breakfast', 'lunch', 'dinner', 'snack']),
    );
    expect((update.properties!.items as any).description).toMatch(/replaces every item/);
  });

  it('sets the fields sent, clears those sent as null, keeps the others, and replaces items', async () => {
    const p = await person(write);
    const meal = await logMeal(app, p.user.id, {
      ...plainMeal('Oats', new Date(clock.ms() - 2 * 3_600_000).toISOString(), 300),
      meal_type: 'breakfast',
      note: 'before the run',
    });
    const res = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      meal_type: 'snack',
      note: null,
      items: [{ name: 'Oats', grams: 50, kcal: 180 }],
    });
    expect(res.isError, JSON.stringify(content(res))).toBeFalsy();
    expect(content(res)).toMatchObject({
      id: meal.id,
      meal_name: 'Oats',
      meal_type: 'snack',
      note: null,
      eaten_at: meal.eaten_at,
      totals: { kcal: 180 },
    });
    expect(content(res).items).toHaveLength(1);
    // a field left out stays
    const renamed = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      meal_name: 'Porridge',
    });
    expect(content(renamed)).toMatchObject({ meal_name: 'Porridge', meal_type: 'snack' });
  });

  it("refuses the old nested input, a bad field and another person's meal with a 4xx", async () => {
    const p = await person(write);
    const meal = await logMeal(app, p.user.id, plainMeal('Oats', clock.now().toISOString()));
    const nested = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      input: { meal_type: 'snack' },
    });
    expect(nested.isError).toBe(true);
    expect(content(nested).error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(content(nested).error.detail[0]).toMatchObject({
      loc: ['input'],
      type: 'extra_forbidden',
    });

    const blank = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      meal_name: '   ',
    });
    expect(content(blank).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['meal_name'], msg: 'Must not be blank' }],
    });
    const future = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      eaten_at: new Date(clock.ms() + 3 * DAY).toISOString(),
    });
    expect(content(future).error.detail[0].loc).toEqual(['eaten_at']);
    const badItem = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      items: [{ name: 'Oats' }],
    });
    expect(content(badItem).error.detail[0].loc).toEqual(['items', 0, 'grams']);
    const unknownFood = await callTool(p.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      items: [{ food_id: '999999999', grams: 100 }],
    });
    expect(content(unknownFood).error.detail[0].loc).toEqual(['items', 0, 'food_id']);

    const other = await person(write);
    const theirs = await callTool(other.client, 'nutrition_meal_update', {
      meal_id: meal.id,
      note: 'mine now',
    });
    expect(content(theirs).error.code).toBe('NOT_FOUND');
  });

  it('keeps PATCH /api/meals/{meal_id} on its documented MealLogUpdate body', async () => {
    const p = await person(write);
    const meal = await logMeal(app, p.user.id, plainMeal('Oats', clock.now().toISOString()));
    const res = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token: p.token,
      body: { meal_type: 'dinner', note: 'late' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: meal.id,
      meal_name: 'Oats',
      meal_type: 'dinner',
      note: 'late',
    });
    const bad = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token: p.token,
      body: { meal_name: '   ' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({
      loc: ['body', 'meal_name'],
      msg: 'Must not be blank',
    });
    const unknownFood = await rest(app, 'PATCH', `/api/meals/${meal.id}`, {
      token: p.token,
      body: { items: [{ food_id: '999999999', grams: 100 }] },
    });
    expect(unknownFood.status).toBe(422);
    expect(unknownFood.body.detail[0].loc).toEqual(['body', 'items', 0, 'food_id']);
    const openapi = await rest(app, 'GET', '/api/openapi.json');
    const body = openapi.body.paths['/api/meals/{meal_id}'].patch.requestBody;
    expect(JSON.stringify(body)).toMatch(/MealLogUpdate/);
  });
});

describe('nutrition_food_preview_score states its exactly-one-of rule (issue 30)', () => {
  const RULE = 'Give exactly one of food_id, items and saved_meal_id';

  it('says the rule in the listed schema, on each of the three arguments', async () => {
    const p = await person(['health:nutrition:read']);
    const { tools } = await p.client.listTools();
    const schema = tools.find((t) => t.name === 'nutrition_food_preview_score')!.inputSchema;
    for (const arg of ['food_id', 'items', 'saved_meal_id']) {
      expect((schema.properties![arg] as any).description, arg).toContain(RULE);
    }
  });

  it('answers a validation error naming the rule for two of them or none', async () => {
    const p = await person(['health:nutrition:read']);
    const item = { name: 'Apple', grams: 100, carbs_g: 14 };
    for (const args of [
      {},
      { food_id: '1105314', grams: 100, items: [item] },
      { items: [item], saved_meal_id: randomUUID() },
    ]) {
      const res = await callTool(p.client, 'nutrition_food_preview_score', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(content(res).error.code).toBe('VALIDATION_FAILED');
      expect(content(res).error.message).toContain(RULE);
      const viaRest = await rest(app, 'POST', '/api/v1/nutrition/preview-score', {
        token: p.pat,
        body: args,
      });
      expect(viaRest.status).toBe(422);
      expect(viaRest.body.detail.map((d: any) => d.msg)).toContain(RULE);
    }
  });
});
