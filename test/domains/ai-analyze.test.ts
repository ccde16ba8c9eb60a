/**
 * Meal analyze (issue 14; REST "AI meal rules" 1) and the MCP media tools, through REST, GraphQL
 * and MCP against the suite's fake OpenAI server, on a database with the shipped food catalogue:
 * the input limits and their statuses, the order of the checks (limits, consent, cap, budget),
 * model failures (502, 504), the cache and the ledger, catalogue matching (catalogue nutrients when
 * a food matched, the model's estimate otherwise), the photos reaching the model, the cap and the
 * budget under 50 concurrent calls, and photo upload and read with ownership.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { namesMatch } from '../../src/domains/ai/ai.analyze.ts';
import { nextUtcMidnight } from '../../src/platform/rate-limit.ts';
import { GIF, JPEG, jpegOfSize, PNG } from '../fakes/images.ts';
import { startFakeOpenAI } from '../fakes/openai.ts';
import { logMeal, plainMeal } from '../factories/meals.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import type { JsonResponse } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { printLedgerAfterAll } from '../harness/ai-ledger.ts';
import { clock } from '../../src/base/clock.ts';

const fake = await startFakeOpenAI();
const ai = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url };
const app = await startTestApp({ ...ai, MEALS_ANALYZE_DAILY_CAP: '10' }, { catalogue: true });
printLedgerAfterAll(app, 'ai-analyze');
afterEach(() => fake.reset());

/** A model item with every field (the fake answers what it is told). */
const item = (name: string, grams: number, extra: Record<string, unknown> = {}) => ({
  name,
  grams,
  grams_low: grams * 0.8,
  grams_high: grams * 1.2,
  confidence: 0.9,
  barcode: null,
  kcal: 111,
  protein_g: 1,
  carbs_g: 20,
  fat_g: 2,
  fiber_g: 3,
  sugar_g: 4,
  ...extra,
});
const ANSWER = { meal_name: 'Fruit plate', items: [item('bananas', 120)] };

type Part = { field: string; data: Uint8Array<ArrayBuffer>; type?: string };

/** POST /api/meals/analyze as multipart: file parts and a description. */
async function analyze(
  target: TestApp,
  token: string | null,
  parts: Part[],
  description?: string,
): Promise<JsonResponse> {
  const form = new FormData();
  for (const p of parts)
    form.append(p.field, new Blob([p.data], { type: p.type ?? 'image/jpeg' }), 'meal.jpg');
  if (description !== undefined) form.append('description', description);
  const res = await target.fetch('/api/meals/analyze', {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const photos = (n: number, data: Uint8Array<ArrayBuffer> = JPEG): Part[] =>
  Array.from({ length: n }, () => ({ field: 'photos', data }));
/** Distinct small JPEGs (no two share a cache key). */
const distinct = (i: number): Uint8Array<ArrayBuffer> => jpegOfSize(64 + i);

const ledger = (target: TestApp, userId: number) =>
  target.db.prisma.aiUsage.findMany({ where: { userId }, orderBy: { id: 'asc' } });

describe('POST /api/meals/analyze: input limits first', () => {
  it('answers 401 without a token, even with a bad body', async () => {
    expect((await analyze(app, null, photos(9))).status).toBe(401);
    expect((await analyze(app, 'not-a-token', [])).status).toBe(401);
  });

  it('answers 422 for more than meals_analyze_max_images photos (4), counting every field name', async () => {
    const { user, token } = await seedUser(app);
    const five = [...photos(2), { field: 'photo', data: JPEG }, ...photos(2)];
    const res = await analyze(app, token, five);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'photos']);
    expect(res.body.detail[0].msg).toContain('At most 4 photos');
    expect(fake.requests).toHaveLength(0);
    expect(await ledger(app, user.id)).toHaveLength(0);
  });

  it('answers 413 for a photo over meals_analyze_max_image_bytes (5 MB)', async () => {
    const { token } = await seedUser(app);
    const res = await analyze(app, token, [
      { field: 'photos', data: jpegOfSize(5 * 1024 * 1024 + 1) },
    ]);
    expect(res.status).toBe(413);
    expect(fake.requests).toHaveLength(0);
  });

  it('accepts a photo of exactly 5 MB', async () => {
    const { token } = await seedUser(app);
    fake.reply(ANSWER);
    const res = await analyze(app, token, [{ field: 'photos', data: jpegOfSize(5 * 1024 * 1024) }]);
    expect(res.status).toBe(200);
  });

  it('answers 422 for a description over meals_analyze_max_description_chars (1000)', async () => {
    const { token } = await seedUser(app);
    const res = await analyze(app, token, [], 'x'.repeat(1001));
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'description']);
    fake.reply(ANSWER);
    expect((await analyze(app, token, [], `  ${'x'.repeat(1000)}  `)).status).toBe(200);
  });

  it('answers 422 with neither a photo nor a description (a blank description is none)', async () => {
    const { token } = await seedUser(app);
    for (const res of [await analyze(app, token, []), await analyze(app, token, [], '   ')]) {
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'photos'], type: 'missing' });
    }
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 422 for a file that is not an image (magic bytes, whatever its declared type)', async () => {
    const { token } = await seedUser(app);
    const text = new Uint8Array(Buffer.from('definitely not a photo'));
    const res = await analyze(app, token, [
      { field: 'photos', data: JPEG },
      { field: 'photos', data: text, type: 'image/jpeg' },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'photos', 1]);
    const gif = await analyze(app, token, [{ field: 'image', data: GIF, type: 'image/gif' }]);
    expect(gif.status).toBe(422);
    expect(gif.body.detail[0].loc).toEqual(['body', 'image', 0]);
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 422 for more file parts than the transport reads (20), 413 beyond its bytes', async () => {
    const { token } = await seedUser(app);
    const many = await analyze(app, token, photos(21));
    expect(many.status).toBe(422);
    expect(many.body.detail[0].loc).toEqual(['body']);
    // each part under UPLOAD_MAX_BYTES (10 MB), together over 4 x UPLOAD_MAX_BYTES
    const parts = photos(5, jpegOfSize(9 * 1024 * 1024));
    expect((await analyze(app, token, parts)).status).toBe(413);
    expect(fake.requests).toHaveLength(0);
  });

  it('checks the count before the size, and the size before the description', async () => {
    const { token } = await seedUser(app);
    const big = jpegOfSize(5 * 1024 * 1024 + 1);
    expect((await analyze(app, token, photos(5, big), 'x'.repeat(2000))).status).toBe(422);
    expect((await analyze(app, token, photos(1, big), 'x'.repeat(2000))).status).toBe(413);
  });
});

describe('POST /api/meals/analyze: the answer', () => {
  it('sends every photo (all accepted field names) and the description to the model', async () => {
    const { token } = await seedUser(app);
    fake.reply(ANSWER);
    const parts: Part[] = [
      { field: 'photos', data: PNG, type: 'image/png' },
      { field: 'file', data: JPEG, type: 'application/octet-stream' },
      { field: 'images', data: distinct(1) },
    ];
    const res = await analyze(app, token, parts, 'a banana');
    expect(res.status).toBe(200);
    const images = fake.imagesOf(fake.requests[0]);
    expect(images).toEqual([
      `data:image/png;base64,${Buffer.from(PNG).toString('base64')}`,
      `data:image/jpeg;base64,${Buffer.from(distinct(1)).toString('base64')}`,
      `data:image/jpeg;base64,${Buffer.from(JPEG).toString('base64')}`,
    ]);
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('a banana');
    expect(fake.requests[0].body!.model).toBe('gpt-4o-mini');
    expect(fake.requests[0].body!.response_format!.type).toBe('json_schema');
  });

  it('matches a catalogue food: food_id and the catalogue nutrients for the grams (source catalogue)', async () => {
    const { token } = await seedUser(app);
    const [banana] = (await rest(app, 'GET', '/api/foods/search?q=bananas&limit=1', { token }))
      .body;
    expect(banana.description).toMatch(/^Bananas/);
    fake.reply({
      meal_name: 'Fruit plate',
      items: [item('bananas', 150), item('zorblax stew', 200)],
    });
    const res = await analyze(app, token, photos(1));
    expect(res.status).toBe(200);
    const [matched, unknown] = res.body.items;
    expect(matched).toMatchObject({
      name: 'bananas',
      food_id: banana.fdc_id,
      barcode: null,
      grams: 150,
      grams_low: 120,
      grams_high: 180,
      confidence: 0.9,
      source: 'catalogue',
    });
    const scaled = (per100: number) => Math.round(per100 * 1.5 * 100) / 100;
    expect(matched.kcal).toBeCloseTo(scaled(banana.kcal), 1);
    expect(matched.carbs_g).toBeCloseTo(scaled(banana.carbs_g), 1);
    expect(matched.kcal).not.toBe(111); // not the model's estimate
    expect(unknown).toEqual({
      name: 'zorblax stew',
      food_id: null,
      barcode: null,
      grams: 200,
      grams_low: 160,
      grams_high: 240,
      confidence: 0.9,
      source: 'model',
      kcal: 111,
      protein_g: 1,
      carbs_g: 20,
      fat_g: 2,
      fiber_g: 3,
      sugar_g: 4,
    });
    expect(res.body.meal_name).toBe('Fruit plate');
    expect(res.body.totals.kcal).toBeCloseTo(matched.kcal + 111, 2);
    expect(res.body.totals.sugar_g).toBeCloseTo(matched.sugar_g + 4, 2);
  });

  it('matches a package by the barcode the model read', async () => {
    const { token } = await seedUser(app);
    // FDC Branded 1107191, gtin_upc 877448001674 (test/domains/foods.test.ts)
    fake.reply({
      meal_name: 'Sauce',
      items: [item('hot sauce', 30, { barcode: '877448001674' })],
    });
    const res = await analyze(app, token, [], 'a bottle of sauce');
    expect(res.body.items[0]).toMatchObject({
      food_id: '1107191',
      barcode: '877448001674',
      source: 'catalogue',
    });
  });

  it('keeps a word-loose search hit out: every word of the name must be in the food', async () => {
    const { token } = await seedUser(app);
    fake.reply({ meal_name: 'Stew', items: [item('banana zorblax', 100)] });
    const res = await analyze(app, token, [], 'stew');
    expect(res.body.items[0]).toMatchObject({ source: 'model', food_id: null });
  });

  it('answers the same photos and description from the cache, with a cached ledger row', async () => {
    const { user, token } = await seedUser(app);
    fake.reply(ANSWER);
    const first = await analyze(app, token, photos(1, distinct(7)), 'lunch');
    const again = await analyze(app, token, photos(1, distinct(7)), ' lunch ');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(fake.requests).toHaveLength(1);
    fake.reply(ANSWER);
    await analyze(app, token, photos(1, distinct(8)), 'lunch'); // other bytes: asked again
    await analyze(app, token, photos(1, distinct(7)), 'dinner'); // other description: default answer (not JSON of the shape) -> 502
    expect(fake.requests).toHaveLength(3);
    const rows = await ledger(app, user.id);
    expect(rows.map((r) => [r.feature, r.cached, r.outcome])).toEqual([
      ['meal_analyze', false, 'ok'],
      ['meal_analyze', true, 'ok'],
      ['meal_analyze', false, 'ok'],
      ['meal_analyze', false, 'failed'],
    ]);
    expect(rows[0].tokensIn).toBeGreaterThan(85); // an image counts 85 tokens at the fake
    expect(rows[0].tokensOut).toBeGreaterThan(0);
    const cost = (rows[0].tokensIn * 0.15 + rows[0].tokensOut * 0.6) / 1e6;
    // rounded up to the micro-dollar (ai.call.ts)
    expect(Number(rows[0].costUsd)).toBeGreaterThanOrEqual(cost);
    expect(Number(rows[0].costUsd)).toBeLessThan(cost + 1e-6);
    expect(Number(rows[1].costUsd)).toBe(0);
  });

  it('caches per account', async () => {
    const a = await seedUser(app);
    const b = await seedUser(app);
    fake.setDefault(ANSWER);
    await analyze(app, a.token, photos(1, distinct(9)));
    await analyze(app, b.token, photos(1, distinct(9)));
    expect(fake.requests).toHaveLength(2);
  });
});

describe('POST /api/meals/analyze: model failures', () => {
  it('answers 502 on a model error, a non-JSON answer and an answer off the schema', async () => {
    const { user, token } = await seedUser(app);
    fake.fail(500);
    expect((await analyze(app, token, [], 'soup')).status).toBe(502);
    fake.malformed();
    expect((await analyze(app, token, [], 'soup')).status).toBe(502);
    fake.reply({ meal_name: 'Soup', items: [{ name: 'soup' }] }); // no grams
    expect((await analyze(app, token, [], 'soup')).status).toBe(502);
    fake.reply({ meal_name: 'Soup', items: [item('soup', 100, { confidence: 7 })] });
    expect((await analyze(app, token, [], 'soup')).status).toBe(502);
    expect((await ledger(app, user.id)).map((r) => r.outcome)).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
  });

  it('answers 504 when the model does not answer within OPENAI_TIMEOUT_MS', async () => {
    const slow = await startTestApp({ ...ai, OPENAI_TIMEOUT_MS: '400' });
    const { user, token } = await seedUser(slow);
    fake.delay(1500);
    fake.reply(ANSWER);
    const res = await analyze(slow, token, [], 'soup');
    expect(res.status).toBe(504);
    expect(await ledger(slow, user.id)).toMatchObject([
      { feature: 'meal_analyze', outcome: 'timeout' },
    ]);
  });
});

describe('POST /api/meals/analyze: consent, cap, budget after the limits', () => {
  it('answers 403 needs_consent after the input limits (too many photos and no consent is 422)', async () => {
    const strict = await startTestApp({ ...ai, AI_CONSENT_ENFORCED: 'true' });
    const { token } = await seedUser(strict);
    expect((await analyze(strict, token, photos(5))).status).toBe(422);
    const refused = await analyze(strict, token, photos(1));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatchObject({ code: 'needs_consent', kind: 'meal_photo' });
    expect(fake.requests).toHaveLength(0);
    await rest(strict, 'POST', '/api/v1/consents/meal_photo', { token });
    fake.reply(ANSWER);
    expect((await analyze(strict, token, photos(1))).status).toBe(200);
  });

  it('answers 503 while MEAL_VISION_ENABLED is off, after the limits', async () => {
    const off = await startTestApp({ ...ai, MEAL_VISION_ENABLED: 'false' });
    const { token } = await seedUser(off);
    expect((await analyze(off, token, photos(5))).status).toBe(422);
    expect((await analyze(off, token, photos(1))).status).toBe(503);
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 429 rate_limited past meals_analyze_daily_cap; cached answers still come', async () => {
    const { token } = await seedUser(app);
    fake.setDefault(ANSWER);
    for (let i = 0; i < 10; i++)
      expect((await analyze(app, token, photos(1, distinct(100 + i)))).status).toBe(200);
    const refused = await analyze(app, token, photos(1, distinct(200)));
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatchObject({
      code: 'rate_limited',
      limit: 10,
      reset_at: nextUtcMidnight(clock.now()).toISOString(),
    });
    expect((await analyze(app, token, photos(1, distinct(100)))).status).toBe(200);
    expect(fake.requests).toHaveLength(10);
    // the limits still come first
    expect((await analyze(app, token, photos(5))).status).toBe(422);
  });

  it('holds the cap under 50 concurrent calls: exactly 10 model calls and 10 ledger rows', async () => {
    const { user, token } = await seedUser(app);
    fake.setDefault(ANSWER);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => analyze(app, token, photos(1, distinct(300 + i)))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(fake.requests).toHaveLength(10);
    expect(await ledger(app, user.id)).toHaveLength(10);
  });

  it('answers 429 ai_budget_exhausted with reset_at and never overspends under 50 concurrent calls', async () => {
    // one analyze of one photo reserves about 0.007 USD at worst: this budget fits two at a time
    const poor = await startTestApp({ ...ai, AI_DAILY_BUDGET_USD: '0.015' });
    const { user, token } = await seedUser(poor);
    fake.setDefault(ANSWER);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => analyze(poor, token, photos(1, distinct(400 + i)))),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.length + refused.length).toBe(50);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0].body.detail).toEqual({
      code: 'ai_budget_exhausted',
      message: expect.any(String),
      reset_at: nextUtcMidnight(clock.now()).toISOString(),
    });
    const rows = await ledger(poor, user.id);
    expect(rows).toHaveLength(ok.length);
    expect(fake.requests).toHaveLength(ok.length);
    expect(rows.reduce((n, r) => n + Number(r.costUsd), 0)).toBeLessThanOrEqual(0.015);
    const [day] = await poor.db.prisma.aiBudgetDay.findMany();
    expect(Number(day.reservedUsd)).toBe(0);
    expect(Number(day.spentUsd) + Number(day.reservedUsd)).toBeLessThanOrEqual(0.015);
  });
});

describe('GraphQL', () => {
  it('analyzes from base64 photos (analyzeMealFromData)', async () => {
    const { token } = await seedUser(app);
    fake.reply(ANSWER);
    const res = await gql(
      app,
      'mutation($p: [String!]) { analyzeMealFromData(input: { photos: $p }) { mealName items { source } } }',
      { token, variables: { p: [Buffer.from(distinct(500)).toString('base64')] } },
    );
    expect(res.body.data.analyzeMealFromData).toEqual({
      mealName: 'Fruit plate',
      items: [{ source: 'catalogue' }],
    });
  });
});

describe('MCP', () => {
  const base64 = (data: Uint8Array) => Buffer.from(data).toString('base64');

  it('nutrition_meal_analyze takes base64 photos (or data: URLs) with the same limits', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    fake.reply(ANSWER);
    const ok = await callTool(client, 'nutrition_meal_analyze', {
      photos: [`data:image/png;base64,${base64(PNG)}`, base64(distinct(600))],
      description: 'fruit',
    });
    expect(ok.isError).toBeFalsy();
    expect(ok.structuredContent).toMatchObject({
      meal_name: 'Fruit plate',
      items: [{ name: 'bananas', source: 'catalogue' }],
    });
    expect(fake.imagesOf(fake.requests[0])).toHaveLength(2);

    const error = (r: any) => r.structuredContent.error;
    const many = await callTool(client, 'nutrition_meal_analyze', {
      photos: Array.from({ length: 5 }, () => base64(JPEG)),
    });
    expect(error(many)).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(error(many).detail[0].loc).toEqual(['photos']);
    const large = await callTool(client, 'nutrition_meal_analyze', {
      photos: [base64(jpegOfSize(5 * 1024 * 1024 + 1))],
    });
    expect(error(large).code).toBe('PAYLOAD_TOO_LARGE');
    const notBase64 = await callTool(client, 'nutrition_meal_analyze', { photos: ['%%%'] });
    expect(error(notBase64).detail[0].loc).toEqual(['photos', 0]);
    const gif = await callTool(client, 'nutrition_meal_analyze', { photos: [base64(GIF)] });
    expect(error(gif).detail[0].loc).toEqual(['photos', 0]);
    const nothing = await callTool(client, 'nutrition_meal_analyze', {});
    expect(error(nothing).code).toBe('VALIDATION_FAILED');
    const long = await callTool(client, 'nutrition_meal_analyze', {
      description: 'x'.repeat(1001),
    });
    expect(error(long).detail[0].loc).toEqual(['description']);
    expect(fake.requests).toHaveLength(1);
  });

  it('uploads a photo to a meal and reads it back in parts; another person reads 404', async () => {
    const { user } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Lunch', clock.now().toISOString()));
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, [
        'health:nutrition:write',
        'media:write',
        'health:nutrition:read',
        'media:read',
      ]),
    );
    const photo = jpegOfSize(150_000);
    photo[1000] = 42; // not only zeros
    const uploaded = await callTool(client, 'nutrition_meal_photo_upload', {
      meal_id: meal.id,
      photo: base64(photo),
    });
    expect(uploaded.isError).toBeFalsy();
    const up = uploaded.structuredContent as any;
    expect(up).toMatchObject({ meal_id: meal.id, mime_type: 'image/jpeg', bytes: 150_000 });
    expect(up.key).toMatch(/^meals\/[\w-]+\.jpg$/);
    expect(up.url).toMatch(new RegExp(`/media/${up.key}$`));
    // the meal now serves that photo
    const served = await app.fetch(new URL(up.url, 'http://x').pathname);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(photo))).toBe(true);

    // read back by URL, in parts
    const chunks: Buffer[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const part = await callTool(client, 'media_file_read', { file: up.url, offset });
      expect(part.isError).toBeFalsy();
      const body = part.structuredContent as any;
      expect(body).toMatchObject({ key: up.key, mime_type: 'image/jpeg', bytes: 150_000, offset });
      expect(JSON.stringify(part.structuredContent).length).toBeLessThan(100_000);
      chunks.push(Buffer.from(body.data, 'base64'));
      offset = body.next_offset;
    }
    expect(chunks).toHaveLength(3);
    expect(Buffer.concat(chunks).equals(Buffer.from(photo))).toBe(true);
    // and by key
    const byKey = await callTool(client, 'media_file_read', { file: up.key });
    expect((byKey.structuredContent as any).next_offset).toBe(60_000);

    // another person: 404, by key or URL, and they cannot attach to this meal either
    const other = await seedUser(app);
    const stranger = await mcpClient(
      app,
      await seedPersonalToken(app, other.user.id, [
        'health:nutrition:read',
        'media:read',
        'health:nutrition:write',
        'media:write',
      ]),
    );
    for (const file of [
      up.key,
      up.url,
      'meals/../../etc/passwd',
      'profile/xxxxxxxxxxxxxxxxxxxxxx.jpg',
    ]) {
      const refused = await callTool(stranger, 'media_file_read', { file });
      expect((refused.structuredContent as any).error.code, file).toBe('NOT_FOUND');
    }
    const attach = await callTool(stranger, 'nutrition_meal_photo_upload', {
      meal_id: meal.id,
      photo: base64(PNG),
    });
    expect((attach.structuredContent as any).error.code).toBe('NOT_FOUND');
    // a replaced photo is no longer readable
    await callTool(client, 'nutrition_meal_photo_upload', { meal_id: meal.id, photo: base64(PNG) });
    const old = await callTool(client, 'media_file_read', { file: up.key });
    expect((old.structuredContent as any).error.code).toBe('NOT_FOUND');
  });

  it('refuses a file that is not an image at upload (422 at photo)', async () => {
    const { user } = await seedUser(app);
    const meal = await logMeal(app, user.id, plainMeal('Tea', clock.now().toISOString()));
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write', 'media:write']),
    );
    const res = await callTool(client, 'nutrition_meal_photo_upload', {
      meal_id: meal.id,
      photo: base64(GIF),
    });
    expect((res.structuredContent as any).error.detail[0].loc).toEqual(['photo']);
  });

  it('lists the tools only with all their scopes', async () => {
    const { user } = await seedUser(app);
    const names = async (scopes: Parameters<typeof seedPersonalToken>[2]) =>
      (
        await (await mcpClient(app, await seedPersonalToken(app, user.id, scopes))).listTools()
      ).tools.map((t) => t.name);
    const nutrition = await names(['health:nutrition:read', 'health:nutrition:write']);
    expect(nutrition).toContain('nutrition_meal_analyze');
    expect(nutrition).not.toContain('media_file_read');
    expect(nutrition).not.toContain('nutrition_meal_photo_upload');
    const media = await names(['health:nutrition:read', 'media:read']);
    expect(media).toContain('media_file_read');
    expect(media).not.toContain('nutrition_meal_analyze');
  });
});

describe('the sha256 cache key', () => {
  it('is the photo bytes, not the file name or declared type', async () => {
    const { token } = await seedUser(app);
    fake.reply(ANSWER);
    const data = distinct(700);
    await analyze(app, token, [{ field: 'photos', data, type: 'image/jpeg' }]);
    await analyze(app, token, [{ field: 'file', data, type: 'application/octet-stream' }]);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('namesMatch (catalogue matching)', () => {
  it.each([
    ['bananas', 'Bananas, ripe and slightly ripe, raw', true],
    ['banana', 'Bananas, overripe, raw', true],
    ['apples', 'Apples, fuji, with skin, raw', true],
    ['tomatoes', 'Tomato, roma', true],
    ['berries', 'Berry mix, frozen', true],
    ['chicken breast, grilled', 'Chicken, broiler or fryers, breast, skinless, grilled', true],
    ['Crème fraîche', 'Creme fraiche', true],
    ['banana bread', 'Bananas, ripe and slightly ripe, raw', false],
    ['rice', 'Rice crackers, plain', true],
    ['ab', 'Ab sauce', false],
  ])('%s ~ %s: %s', (name, description, expected) => {
    expect(namesMatch(name, description)).toBe(expected);
  });
});
