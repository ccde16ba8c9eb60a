/**
 * The AI meal texts (issue 14; REST "AI meal rules" 2-4, and workout insight): suggest_name,
 * insight, emojis and workout insight through REST, GraphQL and MCP against the suite's fake
 * OpenAI server: input bounds, the checks in their documented order (503, consent, daily cap,
 * budget), model failures (502, 504), the caches and the ledger.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { nextUtcMidnight } from '../../src/platform/rate-limit.ts';
import { startFakeOpenAI } from '../fakes/openai.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { printLedgerAfterAll } from '../harness/ai-ledger.ts';
import { clock } from '../../src/base/clock.ts';

const fake = await startFakeOpenAI();
const ai = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url };
const app = await startTestApp({
  ...ai,
  OPENAI_TIMEOUT_MS: '400',
  MEALS_SUGGEST_NAME_DAILY_CAP: '10',
  MEALS_INSIGHT_DAILY_CAP: '3',
});
printLedgerAfterAll(app, 'ai-meals');
afterEach(() => fake.reset());

const INSIGHT = {
  headline: 'A balanced lunch',
  analysis: 'Rice with chicken gave a moderate rise that came back within two hours.',
  suggestion: 'Add a side of vegetables to slow the rise further.',
  tags: [
    { label: 'Protein', tone: 'positive' },
    { label: 'Carbs', tone: 'caution' },
  ],
  emoji: '🍛',
};
const MEAL = {
  items: [{ name: 'rice', grams: 150 }, { name: 'chicken' }],
  hour: 13,
  totals: { carbs_g: 52, kcal: 610 },
  glucose: { peak: 162, baseline: 98 },
};

const post = (path: string, token: string, body: unknown) =>
  rest(app, 'POST', path, { token, body });
const ledger = (userId: number) =>
  app.db.prisma.aiUsage.findMany({ where: { userId }, orderBy: { id: 'asc' } });
const price = { input: 0.15, output: 0.6 };

describe('POST /api/meals/suggest_name', () => {
  it('answers {name} from the model, sends it the foods and the hour, and writes one ledger row', async () => {
    const { user, token } = await seedUser(app);
    fake.reply({ name: 'Rice and chicken' });
    const res = await post('/api/meals/suggest_name', token, {
      items: [{ name: '  rice  ', grams: 150 }, { name: 'chicken' }],
      hour: 13,
      unknown_field: 'ignored',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'Rice and chicken' });
    const sent = JSON.stringify(fake.requests[0].body!.messages);
    expect(sent).toContain('- rice (150 g)\\n- chicken');
    expect(sent).toContain('Local hour of the day: 13');
    expect(fake.requests[0].body!.response_format!.type).toBe('json_schema');
    const [row] = await ledger(user.id);
    expect(row).toMatchObject({
      feature: 'meal_suggest_name',
      model: 'gpt-4o-mini',
      outcome: 'ok',
    });
    expect(row.tokensIn).toBeGreaterThan(0);
    expect(row.tokensOut).toBeGreaterThan(0);
    const cost = (row.tokensIn * price.input + row.tokensOut * price.output) / 1e6;
    expect(Number(row.costUsd)).toBeCloseTo(cost, 6);
    expect(row.cached).toBe(false);
  });

  it.each([
    ['no items', { items: [] }, ['body', 'items']],
    [
      '31 items',
      { items: Array.from({ length: 31 }, (_, i) => ({ name: `food ${i}` })) },
      ['body', 'items'],
    ],
    ['a 121-character name', { items: [{ name: 'x'.repeat(121) }] }, ['body', 'items', 0, 'name']],
    ['a blank name', { items: [{ name: '   ' }] }, ['body', 'items', 0, 'name']],
    ['hour 24', { items: [{ name: 'rice' }], hour: 24 }, ['body', 'hour']],
    ['hour -1', { items: [{ name: 'rice' }], hour: -1 }, ['body', 'hour']],
    ['zero grams', { items: [{ name: 'rice', grams: 0 }] }, ['body', 'items', 0, 'grams']],
  ])('answers 422 for %s, before any model call', async (_case, body, loc) => {
    const { user, token } = await seedUser(app);
    const res = await post('/api/meals/suggest_name', token, body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
    expect(fake.requests).toHaveLength(0);
    expect(await ledger(user.id)).toHaveLength(0);
  });

  it('accepts a name of 120 characters once trimmed, and an hour sent as a numeric string', async () => {
    const { token } = await seedUser(app);
    fake.reply({ name: 'Long meal' });
    const res = await post('/api/meals/suggest_name', token, {
      items: [{ name: `  ${'x'.repeat(120)}  ` }],
      hour: '7',
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('Local hour of the day: 7');
  });

  it('checks the credential before the body (401 for a bad body without a token)', async () => {
    const res = await rest(app, 'POST', '/api/meals/suggest_name', { body: { items: 'x' } });
    expect(res.status).toBe(401);
  });

  it('answers 405 for GET', async () => {
    const { token } = await seedUser(app);
    expect((await rest(app, 'GET', '/api/meals/suggest_name', { token })).status).toBe(405);
  });
});

describe('model failures', () => {
  const call = (token: string) =>
    post('/api/meals/suggest_name', token, { items: [{ name: 'rice' }] });

  it('answers 502 on a model error and records the failed call', async () => {
    const { user, token } = await seedUser(app);
    fake.fail(500);
    const res = await call(token);
    expect(res.status).toBe(502);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await ledger(user.id)).toMatchObject([{ outcome: 'failed', tokensIn: 0 }]);
  });

  it('answers 502 on an answer that is not JSON, or not the documented shape (never an invented result)', async () => {
    const { user, token } = await seedUser(app);
    fake.malformed();
    expect((await call(token)).status).toBe(502);
    fake.reply({ title: 'not a name' });
    expect((await call(token)).status).toBe(502);
    fake.reply({ name: '' });
    expect((await call(token)).status).toBe(502);
    const rows = await ledger(user.id);
    expect(rows.map((r) => r.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect(rows.every((r) => r.tokensIn > 0)).toBe(true); // what the model used is still counted
  });

  it('answers 504 when the model does not answer within OPENAI_TIMEOUT_MS', async () => {
    const { user, token } = await seedUser(app);
    fake.delay(1500);
    fake.reply({ name: 'Too late' });
    const res = await call(token);
    expect(res.status).toBe(504);
    expect(await ledger(user.id)).toMatchObject([{ outcome: 'timeout' }]);
  });

  it('settles every reservation: nothing stays reserved after calls that failed or succeeded', async () => {
    const day = await app.db.prisma.aiBudgetDay.findMany();
    expect(day).toHaveLength(1);
    expect(Number(day[0].reservedUsd)).toBe(0);
    const spent = await app.db.prisma.aiUsage.aggregate({ _sum: { costUsd: true } });
    expect(Number(day[0].spentUsd)).toBeCloseTo(Number(spent._sum.costUsd), 6);
  });
});

describe('POST /api/meals/insight', () => {
  it('answers headline, analysis, suggestion, tags and emoji', async () => {
    const { token } = await seedUser(app);
    fake.reply(INSIGHT);
    const res = await post('/api/meals/insight', token, { ...MEAL, meal_id: 'phone-meal-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(INSIGHT);
    const sent = JSON.stringify(fake.requests[0].body!.messages);
    expect(sent).toContain('carbs_g: 52');
    expect(sent).toContain('peak: 162');
    expect(sent).toContain('in English');
  });

  it('answers a repeat from another device from the cache: no model call, no ledger row', async () => {
    const { user, token } = await seedUser(app);
    const tablet = await seedPersonalToken(app, user.id, ['health:nutrition:read']);
    fake.reply(INSIGHT);
    expect((await post('/api/meals/insight', token, MEAL)).status).toBe(200);
    // the same inputs in another key order, another meal id, another device and door
    const again = await post('/api/meals/insight', tablet, {
      glucose: { baseline: 98, peak: 162 },
      totals: { kcal: 610, carbs_g: 52 },
      hour: 13,
      items: MEAL.items,
      meal_id: 'another-phone-id',
    });
    expect(again.body).toEqual(INSIGHT);
    expect(fake.requests).toHaveLength(1);
    expect(await ledger(user.id)).toHaveLength(1);
  });

  it('asks again when anything it depends on differs (glucose, lang), and per account', async () => {
    const a = await seedUser(app);
    const b = await seedUser(app);
    fake.setDefault(INSIGHT);
    await post('/api/meals/insight', a.token, MEAL);
    await post('/api/meals/insight', a.token, { ...MEAL, glucose: { peak: 190, baseline: 98 } });
    await post('/api/meals/insight', a.token, { ...MEAL, lang: 'ar' });
    await post('/api/meals/insight', b.token, MEAL);
    expect(fake.requests).toHaveLength(4);
  });

  it('writes in Arabic for lang ar', async () => {
    const { token } = await seedUser(app);
    const arabic = {
      ...INSIGHT,
      headline: 'غداء متوازن',
      analysis: 'ارتفع السكر باعتدال ثم عاد خلال ساعتين.',
      suggestion: 'أضف طبقاً من الخضار.',
      tags: [{ label: 'بروتين', tone: 'positive' }],
    };
    fake.reply(arabic);
    const res = await post('/api/meals/insight', token, { ...MEAL, lang: 'ar' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(arabic);
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('in Arabic');
  });

  it.each([
    ['lang fr', { ...MEAL, lang: 'fr' }, ['body', 'lang']],
    ['no items', { ...MEAL, items: [] }, ['body', 'items']],
    [
      'a glucose value that is not a number',
      { ...MEAL, glucose: { peak: 'high' } },
      ['body', 'glucose', 'peak'],
    ],
    ['totals that are not an object', { ...MEAL, totals: [1, 2] }, ['body', 'totals']],
    [
      '31 labels of totals',
      { ...MEAL, totals: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`n${i}`, i])) },
      ['body', 'totals'],
    ],
    ['hour 24', { ...MEAL, hour: 24 }, ['body', 'hour']],
  ])('answers 422 for %s', async (_case, body, loc) => {
    const { token } = await seedUser(app);
    const res = await post('/api/meals/insight', token, body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
    expect(fake.requests).toHaveLength(0);
  });

  it('coerces numeric strings in totals and glucose', async () => {
    const { token } = await seedUser(app);
    fake.reply(INSIGHT);
    const res = await post('/api/meals/insight', token, { ...MEAL, totals: { kcal: '610.5' } });
    expect(res.status).toBe(200);
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('kcal: 610.5');
  });
});

describe('POST /api/meals/emojis', () => {
  it('asks once, in one batch, for the names this account has not seen; keys are the names as sent', async () => {
    const { user, token } = await seedUser(app);
    fake.reply({
      emojis: [
        { name: 'rice', emoji: '🍚' },
        { name: 'pizza', emoji: '🍕' },
      ],
    });
    const first = await post('/api/meals/emojis', token, { names: ['Rice', 'pizza', 'rice '] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ emojis: { Rice: '🍚', pizza: '🍕', 'rice ': '🍚' } });
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('[\\"rice\\",\\"pizza\\"]');

    fake.reply({ emojis: [{ name: 'soup', emoji: '🍲' }] });
    const second = await post('/api/meals/emojis', token, { names: ['PIZZA', 'soup'] });
    expect(second.body).toEqual({ emojis: { PIZZA: '🍕', soup: '🍲' } });
    expect(JSON.stringify(fake.requests[1].body!.messages)).toContain('[\\"soup\\"]');

    const third = await post('/api/meals/emojis', token, { names: ['soup', 'rice'] });
    expect(third.body).toEqual({ emojis: { soup: '🍲', rice: '🍚' } });
    expect(fake.requests).toHaveLength(2);
    expect((await ledger(user.id)).map((r) => r.feature)).toEqual(['meal_emojis', 'meal_emojis']);
  });

  it('leaves out a name the model did not place (asked again next time) and refuses non-emoji answers', async () => {
    const { token } = await seedUser(app);
    fake.reply({ emojis: [{ name: 'tea', emoji: '🍵' }] });
    const res = await post('/api/meals/emojis', token, { names: ['tea', '__proto__'] });
    expect(res.body).toEqual({ emojis: { tea: '🍵' } });
    fake.reply({ emojis: [{ name: '__proto__', emoji: '🥣' }] });
    const again = await post('/api/meals/emojis', token, { names: ['__proto__'] });
    expect(again.body).toEqual({ emojis: { ['__proto__']: '🥣' } });
    expect(Object.keys(again.body.emojis)).toEqual(['__proto__']);
    fake.reply({ emojis: [{ name: 'x', emoji: 'abc' }] });
    expect((await post('/api/meals/emojis', token, { names: ['x'] })).status).toBe(502);
  });

  it.each([
    ['no names', { names: [] }],
    ['41 names', { names: Array.from({ length: 41 }, (_, i) => `dish ${i}`) }],
    ['a blank name', { names: [' '] }],
  ])('answers 422 for %s', async (_case, body) => {
    const { token } = await seedUser(app);
    expect((await post('/api/meals/emojis', token, body)).status).toBe(422);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('POST /api/health/workouts/insight', () => {
  it('answers an insight recorded as workout_insight, cached like a meal insight', async () => {
    const { user, token } = await seedUser(app);
    fake.reply(INSIGHT);
    const body = {
      activity: 'running',
      workout_id: 'w-1',
      hour: 7,
      stats: { distance_km: 5.2, pace: '5:30 /km' },
      history: { pace_vs_avg: '-0:12' },
      glucose: { before: 110, after: 92 },
      lang: 'en',
    };
    const res = await post('/api/health/workouts/insight', token, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(INSIGHT);
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('pace: 5:30 /km');
    expect((await post('/api/health/workouts/insight', token, body)).body).toEqual(INSIGHT);
    expect(fake.requests).toHaveLength(1);
    expect(await ledger(user.id)).toMatchObject([{ feature: 'workout_insight' }]);
  });

  it('answers 422 without an activity', async () => {
    const { token } = await seedUser(app);
    const res = await post('/api/health/workouts/insight', token, { hour: 7 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'activity']);
  });
});

describe('daily caps', () => {
  it('meal and workout insight share meals_insight_daily_cap; cached answers do not count', async () => {
    const { token } = await seedUser(app);
    fake.setDefault(INSIGHT);
    for (const peak of [150, 160]) {
      const res = await post('/api/meals/insight', token, { ...MEAL, glucose: { peak } });
      expect(res.status).toBe(200);
    }
    expect(
      (await post('/api/meals/insight', token, { ...MEAL, glucose: { peak: 150 } })).status,
    ).toBe(200); // cached
    expect((await post('/api/health/workouts/insight', token, { activity: 'yoga' })).status).toBe(
      200,
    );
    const refused = await post('/api/meals/insight', token, { ...MEAL, glucose: { peak: 170 } });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatchObject({
      code: 'rate_limited',
      limit: 3,
      reset_at: nextUtcMidnight(clock.now()).toISOString(),
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(3);
  });

  it('holds under 50 concurrent calls: exactly the cap reaches the model', async () => {
    const { user, token } = await seedUser(app);
    fake.setDefault({ name: 'Lunch' });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        post('/api/meals/suggest_name', token, { items: [{ name: `food ${i}` }] }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(fake.requests).toHaveLength(10);
    expect(await ledger(user.id)).toHaveLength(10);
  });

  it('emojis count against meals_suggest_name_daily_cap', async () => {
    const { token } = await seedUser(app);
    fake.setDefault({ name: 'Lunch' });
    for (let i = 0; i < 9; i++)
      await post('/api/meals/suggest_name', token, { items: [{ name: `food ${i}` }] });
    fake.setDefault({ emojis: [{ name: 'tea', emoji: '🍵' }] });
    expect((await post('/api/meals/emojis', token, { names: ['tea'] })).status).toBe(200);
    const refused = await post('/api/meals/emojis', token, { names: ['coffee'] });
    expect(refused.status).toBe(429);
    expect(refused.body.detail.code).toBe('rate_limited');
    // names already seen answer from the cache, past the cap
    expect((await post('/api/meals/emojis', token, { names: ['tea'] })).status).toBe(200);
  });
});

describe('the USD budget (AI_DAILY_BUDGET_USD)', () => {
  let poor: TestApp;
  it('refuses with 429 ai_budget_exhausted and reset_at, gives the cap back, and never overspends under 50 concurrent calls', async () => {
    // one suggest_name reserves about 0.0001 USD at worst: this budget fits a handful of calls
    poor = await startTestApp({ ...ai, AI_DAILY_BUDGET_USD: '0.0005' });
    const { user, token } = await seedUser(poor);
    fake.setDefault({ name: 'Lunch' });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        rest(poor, 'POST', '/api/meals/suggest_name', {
          token,
          body: { items: [{ name: `food ${i}` }] },
        }),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length + refused.length).toBe(50);
    expect(refused[0].body.detail).toEqual({
      code: 'ai_budget_exhausted',
      message: expect.any(String),
      reset_at: nextUtcMidnight(clock.now()).toISOString(),
    });
    const rows = await poor.db.prisma.aiUsage.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(ok.length);
    const spent = rows.reduce((n, r) => n + Number(r.costUsd), 0);
    expect(spent).toBeLessThanOrEqual(0.0005);
    const [day] = await poor.db.prisma.aiBudgetDay.findMany();
    expect(Number(day.reservedUsd)).toBe(0);
    // refusals by the budget gave their cap back: the daily counter holds only the calls made
    const cap = await poor.limits.peek(
      {
        name: 'ai:meals_suggest_name',
        points: poor.config.MEALS_SUGGEST_NAME_DAILY_CAP,
        seconds: 'utc-day',
      },
      String(user.id),
    );
    expect(cap.remaining).toBe(poor.config.MEALS_SUGGEST_NAME_DAILY_CAP - ok.length);
  });
});

describe('AI consent and switches', () => {
  it('answers 403 needs_consent while AI_CONSENT_ENFORCED and no consent, after the input limits', async () => {
    const strict = await startTestApp({ ...ai, AI_CONSENT_ENFORCED: 'true' });
    const { token } = await seedUser(strict);
    const invalid = await rest(strict, 'POST', '/api/meals/suggest_name', {
      token,
      body: { items: [] },
    });
    expect(invalid.status).toBe(422);
    const refused = await rest(strict, 'POST', '/api/meals/insight', { token, body: MEAL });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatchObject({ code: 'needs_consent', kind: 'meal_photo' });
    expect(fake.requests).toHaveLength(0);
    await rest(strict, 'POST', '/api/v1/consents/meal_photo', { token });
    fake.reply(INSIGHT);
    expect((await rest(strict, 'POST', '/api/meals/insight', { token, body: MEAL })).status).toBe(
      200,
    );
  });

  it('answers 503 while MEAL_VISION_ENABLED is off, and without a model key; the rest of the platform runs', async () => {
    for (const overrides of [{ ...ai, MEAL_VISION_ENABLED: 'false' }, {}]) {
      const off = await startTestApp(overrides);
      const { token } = await seedUser(off);
      for (const [path, body] of [
        ['/api/meals/suggest_name', { items: [{ name: 'rice' }] }],
        ['/api/meals/insight', MEAL],
        ['/api/meals/emojis', { names: ['rice'] }],
        ['/api/health/workouts/insight', { activity: 'yoga' }],
      ] as const) {
        const res = await rest(off, 'POST', path, { token, body });
        expect(res.status, path).toBe(503);
        expect(res.headers.get('retry-after')).toBeTruthy();
      }
      expect((await rest(off, 'GET', '/api/auth/me', { token })).status).toBe(200);
    }
    expect(fake.requests).toHaveLength(0);
  });
});

describe('GraphQL and MCP', () => {
  it('serves the same answers on GraphQL', async () => {
    const { token } = await seedUser(app);
    fake.reply({ name: 'Porridge' });
    const res = await gql(
      app,
      'mutation { suggestMealName(input: { items: [{ name: "oats", grams: 60 }] }) { name } }',
      { token },
    );
    expect(res.body.data.suggestMealName).toEqual({ name: 'Porridge' });
  });

  it('offers nutrition_meal_name_suggest, meal_insight_read and workout_insight_read with their scopes', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, [
        'health:nutrition:write',
        'health:nutrition:read',
        'health:workouts:read',
      ]),
    );
    fake.reply({ name: 'Porridge' });
    const named = await callTool(client, 'nutrition_meal_name_suggest', {
      items: [{ name: 'oats' }],
    });
    expect(named.structuredContent).toMatchObject({ name: 'Porridge' });
    fake.setDefault(INSIGHT);
    const meal = await callTool(client, 'meal_insight_read', MEAL);
    expect(meal.structuredContent).toMatchObject(INSIGHT);
    const workout = await callTool(client, 'workout_insight_read', { activity: 'swim' });
    expect(workout.structuredContent).toMatchObject(INSIGHT);

    const readOnly = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:read']),
    );
    const names = (await readOnly.listTools()).tools.map((t) => t.name);
    expect(names).toContain('meal_insight_read');
    expect(names).not.toContain('nutrition_meal_name_suggest');
    expect(names).not.toContain('workout_insight_read');
  });
});
