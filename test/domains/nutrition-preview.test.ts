/**
 * Preview score and suggestion (issue 17): nutrition_food_preview_score and
 * nutrition_suggestion_read through MCP, POST /api/v1/nutrition/preview-score and
 * GET /api/v1/nutrition/suggestion through REST.
 *
 * The personal basis is tested on a real CGM trace (Hall 2018 subject 1636-69-001, CC BY 4.0,
 * test/fixtures/cgm): its three full days 2015-03-30..04-01 shifted to end at midnight UTC today,
 * with banana meals logged at 08:00 (and other meals at 13:00) and a CONSTRUCTED response curve
 * added after each meal (a triangle, +peak at 45 minutes, back at 105 minutes).
 */
import { describe, expect, it } from 'vitest';
import { nutrientScore, personalScore } from '../../src/domains/nutrition/nutrition.preview.ts';
import { glucoseResponse } from '../../src/domains/nutrition/nutrition.response.ts';
import { hallTrace, seedGlucose } from '../factories/insights.ts';
import { BANANA, logMeal, RICE, seedFood } from '../factories/meals.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
await seedFood(app, BANANA);
await seedFood(app, RICE);
const MIN = 60_000;
const DAY = 86_400_000;
const TODAY = Math.floor(clock.ms() / DAY) * DAY;
const FROM = TODAY - 3 * DAY;
const BLOCK_FROM = Date.UTC(2015, 2, 30);

async function person(scopes: string[] = ['health:nutrition:read']) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { ...u, pat, client: await mcpClient(app, pat) };
}
const out = (r: any): any => r.structuredContent;

const triangle = (minutes: number, peak: number): number =>
  minutes <= 0 || minutes >= 105
    ? 0
    : minutes <= 45
      ? (peak * minutes) / 45
      : peak - (peak * (minutes - 45)) / 60;

interface Planted {
  at: number;
  peak: number;
  items: Record<string, unknown>[];
  name: string;
}

/** Stores the shifted real trace with the planted curves and logs the meals (MCP). */
async function plant(
  userId: number,
  token: string,
  meals: Planted[],
): Promise<{ t: number; v: number }[]> {
  const trace = hallTrace()
    .filter(
      (p) => p.timestamp.getTime() >= BLOCK_FROM && p.timestamp.getTime() < BLOCK_FROM + 3 * DAY,
    )
    .map((p) => {
      const t = p.timestamp.getTime() - BLOCK_FROM + FROM;
      let v = p.valueMgDl;
      for (const m of meals) v += triangle((t - m.at) / MIN, m.peak);
      return { t, v: Math.round(v) };
    });
  await seedGlucose(
    app,
    token,
    trace.map((s) => ({ timestamp: new Date(s.t), valueMgDl: s.v })),
  );
  for (const m of meals) {
    await logMeal(app, userId, {
      meal_name: m.name,
      eaten_at: new Date(m.at).toISOString(),
      items: m.items,
    });
  }
  return trace;
}

const banana = (d: number, peak = 50): Planted => ({
  at: FROM + d * DAY + 8 * 60 * MIN,
  peak,
  name: 'Banana breakfast',
  items: [{ food_id: BANANA.id, portion_id: `${BANANA.id}:1` }],
});
const rice = (d: number, peak: number): Planted => ({
  at: FROM + d * DAY + 13 * 60 * MIN,
  peak,
  name: `Rice lunch ${d}`,
  items: [{ food_id: RICE.id, grams: 150 }],
});

describe('nutrientScore and personalScore (pure)', () => {
  it('scores by the estimated glycemic load, by hand', () => {
    // available 50 - 10 = 40; sugarShare 20/40 = 0.5; slowShare 20/60; eGI 55 + 10 - 5 = 60;
    // eGL 40 x 0.6 = 24; score 100 - 2.5 x 24 = 40
    expect(
      nutrientScore({ kcal: 0, carbsG: 50, fiberG: 10, sugarG: 20, proteinG: 10, fatG: 10 }),
    ).toEqual({
      availableCarbsG: 40,
      estimatedGlycemicIndex: 60,
      estimatedGlycemicLoad: 24,
      score: 40,
    });
    expect(
      nutrientScore({ kcal: 0, carbsG: 0, fiberG: 0, sugarG: 0, proteinG: 30, fatG: 5 }).score,
    ).toBe(100);
    expect(
      nutrientScore({ kcal: 0, carbsG: 300, fiberG: 0, sugarG: 300, proteinG: 0, fatG: 0 }).score,
    ).toBe(0);
    expect([0, 3000, 6000, 9000].map(personalScore)).toEqual([100, 50, 0, 0]);
  });
});

describe('nutrition_food_preview_score', () => {
  it('scores a free-text item list from the nutrients, through MCP and REST alike', async () => {
    const p = await person();
    const items = [
      {
        name: 'pasta',
        grams: 200,
        carbs_g: 50,
        fiber_g: 10,
        sugar_g: 20,
        protein_g: 10,
        fat_g: 10,
      },
    ];
    const viaMcp = await callTool(p.client, 'nutrition_food_preview_score', { items });
    expect(viaMcp.isError, JSON.stringify(out(viaMcp))).toBeFalsy();
    expect(out(viaMcp)).toMatchObject({
      score: 40,
      basis: 'nutrients',
      nutrient_score: 40,
      personal_score: null,
      estimated_glycemic_load: 24,
      similar_food_id: null,
      past_meals_used: 0,
    });
    const viaRest = await rest(app, 'POST', '/api/v1/nutrition/preview-score', {
      token: p.pat,
      body: { items },
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.score).toBe(40);
  });

  it("scores one of the person's saved meals by its items; another person's is NOT_FOUND", async () => {
    const p = await person(['health:nutrition:read', 'health:nutrition:write']);
    const items = [
      {
        name: 'pasta',
        grams: 200,
        carbs_g: 50,
        fiber_g: 10,
        sugar_g: 20,
        protein_g: 10,
        fat_g: 10,
      },
    ];
    const saved = out(
      await callTool(p.client, 'nutrition_saved_meal_create', {
        name: 'Pasta lunch',
        items,
        idempotency_key: `saved-${p.user.id}-pasta`,
      }),
    );
    const byId = out(
      await callTool(p.client, 'nutrition_food_preview_score', { saved_meal_id: saved.id }),
    );
    const byItems = out(await callTool(p.client, 'nutrition_food_preview_score', { items }));
    expect(byId.score).toBe(40);
    expect(byId).toEqual(byItems);
    const other = await person();
    const theirs = out(
      await callTool(other.client, 'nutrition_food_preview_score', { saved_meal_id: saved.id }),
    );
    expect(theirs.error.code).toBe('NOT_FOUND');
    const both = out(
      await callTool(p.client, 'nutrition_food_preview_score', { saved_meal_id: saved.id, items }),
    );
    expect(both.error.code).toBe('VALIDATION_FAILED');
  });

  it('says nutrients with fewer than 3 past meals of the food with a response, personal with 3', async () => {
    const p = await person(['health:nutrition:read', 'health:glucose:write']);
    const meals = [banana(0, 40), banana(1, 50), banana(2, 60), rice(0, 90)];
    const trace = await plant(p.user.id, p.token, meals);
    const expected = meals
      .filter((m) => m.name === 'Banana breakfast')
      .map((m) => glucoseResponse(trace, m.at).response!);
    expect(expected.every(Boolean)).toBe(true);
    const meanIauc = expected.reduce((a, r) => a + r.iaucMgDlMin, 0) / 3;
    const r = out(
      await callTool(p.client, 'nutrition_food_preview_score', { food_id: BANANA.id, grams: 115 }),
    );
    expect(r).toMatchObject({
      basis: 'personal',
      similar_food_id: BANANA.id,
      similar_meals: 3,
      past_meals_used: 3,
      mean_iauc_mg_dl_min: Math.round(meanIauc),
      personal_score: personalScore(meanIauc),
      score: personalScore(meanIauc),
    });
    const t = r.totals;
    const fromTotals = nutrientScore({
      kcal: t.kcal,
      carbsG: t.carbs_g,
      fiberG: t.fiber_g,
      sugarG: t.sugar_g,
      proteinG: t.protein_g,
      fatG: t.fat_g,
    });
    expect(r.nutrient_score).toBe(fromTotals.score);
    expect(r.nutrient_score).not.toBe(r.score);
    // rice was eaten once: nutrients, and the answer says how many past meals it found
    const riceScore = out(
      await callTool(p.client, 'nutrition_food_preview_score', { food_id: RICE.id, grams: 150 }),
    );
    expect(riceScore).toMatchObject({ basis: 'nutrients', similar_meals: 1, past_meals_used: 1 });
    expect(riceScore.explanation).toMatch(/1 of the 3/);
    // a list whose most carb-heavy item is rice matches on rice
    const mixed = out(
      await callTool(p.client, 'nutrition_food_preview_score', {
        items: [
          { food_id: BANANA.id, grams: 50 },
          { food_id: RICE.id, grams: 100 },
        ],
      }),
    );
    expect(mixed.similar_food_id).toBe(RICE.id);
  });

  it('refuses bad input with 422 / VALIDATION_FAILED, never a 5xx', async () => {
    const p = await person();
    const bad: Record<string, unknown>[] = [
      {},
      { food_id: BANANA.id },
      { food_id: BANANA.id, grams: 6000 },
      { food_id: BANANA.id, grams: 100, portion_id: `${BANANA.id}:1` },
      { food_id: 'no-such-food', grams: 100 },
      { food_id: BANANA.id, portion_id: 'nope' },
      { food_id: BANANA.id, grams: 100, items: [{ name: 'x', grams: 1 }] },
      { items: [] },
      { items: Array.from({ length: 21 }, () => ({ name: 'x', grams: 1 })) },
      { items: [{ name: 'x', grams: 10, carbs_g: 1e9 }] },
      { items: [{ grams: 10 }] },
      { food_id: 'f'.repeat(65), grams: 10 },
    ];
    for (const body of bad) {
      const res = await rest(app, 'POST', '/api/v1/nutrition/preview-score', {
        token: p.pat,
        body,
      });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const viaMcp = await callTool(p.client, 'nutrition_food_preview_score', {
      food_id: 'no-such-food',
      grams: 100,
    });
    expect(out(viaMcp).error.code).toBe('VALIDATION_FAILED');
  });

  it("does not score another person's custom food, and needs health:nutrition:read", async () => {
    const owner = await person();
    const custom = `custom:${crypto.randomUUID()}`;
    await seedFood(app, { ...BANANA, id: custom, ownerUserId: owner.user.id, portions: [] });
    const other = await person();
    const mine = await rest(app, 'POST', '/api/v1/nutrition/preview-score', {
      token: owner.pat,
      body: { food_id: custom, grams: 100 },
    });
    expect(mine.status).toBe(200);
    const theirs = await rest(app, 'POST', '/api/v1/nutrition/preview-score', {
      token: other.pat,
      body: { food_id: custom, grams: 100 },
    });
    expect(theirs.status).toBe(422);
    const nobody = await person(['insights:read']);
    const refused = await rest(app, 'POST', '/api/v1/nutrition/preview-score', {
      token: nobody.pat,
      body: { food_id: BANANA.id, grams: 100 },
    });
    expect(refused.status).toBe(403);
    expect(
      out(
        await callTool(nobody.client, 'nutrition_food_preview_score', {
          food_id: BANANA.id,
          grams: 1,
        }),
      ).error.code,
    ).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('nutrition_suggestion_read', () => {
  it('advises logging meals with a sensor when there is not enough data', async () => {
    const p = await person();
    await logMeal(app, p.user.id, {
      meal_name: 'Rice',
      eaten_at: new Date(TODAY - DAY).toISOString(),
      items: [{ food_id: RICE.id, grams: 150 }],
    });
    const r = out(await callTool(p.client, 'nutrition_suggestion_read'));
    expect(r.basis).toBe('not_enough_data');
    expect(r.meals_considered).toBe(1);
    expect(r.meals_with_response).toBe(0);
    expect(r.items[0]).toMatchObject({
      source: 'advice',
      title: 'Log more meals while wearing a sensor',
    });
    expect(r.items[1]).toMatchObject({ source: 'food_nutrient_score', food_id: RICE.id });
    expect(r.items).toHaveLength(2);
  });

  it('suggests the past meals with the lowest responses first, each with its source', async () => {
    const p = await person(['health:nutrition:read', 'health:glucose:write']);
    const meals = [banana(0, 40), rice(0, 90), rice(1, 20), rice(2, 60), banana(1, 45)];
    const trace = await plant(p.user.id, p.token, meals);
    const byIauc = meals
      .map((m) => ({ name: m.name, iauc: glucoseResponse(trace, m.at).response!.iaucMgDlMin }))
      .sort((a, b) => a.iauc - b.iauc);
    const distinct = byIauc.filter((m, i) => byIauc.findIndex((x) => x.name === m.name) === i);
    const r = out(await callTool(p.client, 'nutrition_suggestion_read'));
    expect(r.basis).toBe('personal');
    expect(r.meals_considered).toBe(5);
    expect(r.meals_with_response).toBe(5);
    const past = r.items.filter((i: any) => i.source === 'past_meal_response');
    expect(past.map((i: any) => i.title)).toEqual(distinct.slice(0, 3).map((m) => m.name));
    expect(past.map((i: any) => i.iauc_mg_dl_min)).toEqual(distinct.slice(0, 3).map((m) => m.iauc));
    const foods = r.items.filter((i: any) => i.source === 'food_nutrient_score');
    expect(foods.map((i: any) => i.food_id).sort()).toEqual([BANANA.id, RICE.id].sort());
    const viaRest = await rest(app, 'GET', '/api/v1/nutrition/suggestion', { token: p.pat });
    expect(viaRest.status).toBe(200);
    const { meta: _meta, ...answer } = r;
    expect(viaRest.body).toEqual(answer);
  });
});
