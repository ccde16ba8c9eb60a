import { describe, expect, it } from 'vitest';
import { seedFoodLog } from '../factories/foods.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

// The shipped catalogue (data/catalogue), imported once per run into a template (global-setup.ts).
const app = await startTestApp({}, { catalogue: true });
/** an app whose database never imported the catalogue (started here so that it is closed after the file) */
const empty = await startTestApp();

/** Real products of the shipped data. */
const MANGO_CHUNKS = '692144'; // FDC Branded, label nutrients only
const SPRING_WATER = '579568'; // FDC Branded, label nutrients only, no generic counterpart
const MILK_2PCT = '321359'; // FDC Foundation, full nutrients and portions
const MAHCO_SAUCE = '1107191'; // FDC Branded, gtin_upc 877448001674 (UPC-A)
const SKYR = 'off:00000000000026772226'; // Open Food Facts, EAN-8 26772226 written with 20 digits

const ids = (rows: { fdc_id: string }[]) => rows.map((r) => r.fdc_id);
const daysAgo = (d: number) => new Date(clock.ms() - d * 86_400_000);

describe('GET /api/foods/search', () => {
  it.each([
    ['q=a', 'q'],
    ['q=%20b%20', 'q'],
    ['', 'q'],
    ['q=milk&page=0', 'page'],
    ['q=milk&limit=0', 'limit'],
    ['q=milk&limit=101', 'limit'],
    ['q=milk&limit=ten', 'limit'],
  ])('answers 422 for "%s" at the query parameter', async (query, param) => {
    const res = await rest(app, 'GET', `/api/foods/search?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', param]);
  });

  it('accepts the bounds and answers 20 results by default', async () => {
    for (const q of ['q=ab', 'q=cheese&limit=1', 'q=cheese&limit=100', 'q=cheese&page=1']) {
      expect((await rest(app, 'GET', `/api/foods/search?${q}`)).status, q).toBe(200);
    }
    expect((await rest(app, 'GET', '/api/foods/search?q=cheese')).body).toHaveLength(20);
    expect((await rest(app, 'GET', '/api/foods/search?q=cheese&limit=100')).body).toHaveLength(100);
  });

  it('finds bananas through a typo, generic foods first', async () => {
    const res = await rest(app, 'GET', '/api/foods/search?q=bananna&limit=5');
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ source: 'usda_foundation', has_full_nutrients: true });
    expect(res.body[0].description).toMatch(/^Bananas, /);
    expect(res.body[0].kcal).toBeGreaterThan(0);
  });

  it('pages through one ranking: page 2 continues page 1', async () => {
    const ten = await rest(app, 'GET', '/api/foods/search?q=cheese&limit=10');
    const first = await rest(app, 'GET', '/api/foods/search?q=cheese&limit=5&page=1');
    const second = await rest(app, 'GET', '/api/foods/search?q=cheese&limit=5&page=2');
    expect([...ids(first.body), ...ids(second.body)]).toEqual(ids(ten.body));
    expect((await rest(app, 'GET', '/api/foods/search?q=cheese&page=100000')).body).toEqual([]);
  });

  it("ranks the products of the person's country higher", async () => {
    const fr = await seedUser(app);
    await app.db.prisma.user.update({ where: { id: fr.user.id }, data: { country: 'FR' } });
    const anonymous = await rest(app, 'GET', '/api/foods/search?q=chocolat&limit=100');
    const personal = await rest(app, 'GET', '/api/foods/search?q=chocolat&limit=100', {
      token: fr.token,
    });
    const score = (rows: any[], id: string) => rows.find((r) => r.fdc_id === id)?.score;
    const french = anonymous.body.find(
      (r: any) => r.countries.includes('FR') && !r.countries.includes('US'),
    );
    const american = anonymous.body.find((r: any) => !r.countries.includes('FR'));
    expect(score(personal.body, french.fdc_id)).toBeCloseTo(french.score + 0.2, 3);
    expect(score(personal.body, american.fdc_id)).toBeCloseTo(american.score, 3);
  });

  it('ranks the foods the person logged first, recently logged above long ago', async () => {
    const { user, token } = await seedUser(app);
    const anonymous = (await rest(app, 'GET', '/api/foods/search?q=cheese&limit=100')).body;
    const [recent, old] = [anonymous[60], anonymous[80]];
    await seedFoodLog(app, user.id, recent.fdc_id, { eatenAt: daysAgo(1) });
    await seedFoodLog(app, user.id, old.fdc_id, { eatenAt: daysAgo(90) });
    const personal = (await rest(app, 'GET', '/api/foods/search?q=cheese&limit=100', { token }))
      .body;
    expect(ids(personal).slice(0, 2)).toEqual([recent.fdc_id, old.fdc_id]);
    const boost = (food: any) =>
      personal.find((r: any) => r.fdc_id === food.fdc_id).score - food.score;
    expect(boost(recent)).toBeGreaterThan(boost(old));
    expect(boost(old)).toBeGreaterThan(0.5);
  });

  it('treats an invalid bearer token as anonymous (the route is public)', async () => {
    const anonymous = await rest(app, 'GET', '/api/foods/search?q=milk');
    const invalid = await rest(app, 'GET', '/api/foods/search?q=milk', { token: 'not-a-token' });
    expect(invalid.status).toBe(200);
    expect(invalid.body).toEqual(anonymous.body);
  });
});

describe('GET /api/foods/stats', () => {
  it('counts the catalogue per source; custom foods are private and not counted', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    await callTool(client, 'food_custom_create', {
      description: 'My granola',
      kcal: 450,
      idempotency_key: 'stats-granola-1',
    });
    const res = await rest(app, 'GET', '/api/foods/stats');
    expect(res.body).toEqual({
      total: 387 + 14281 + 946,
      sources: [
        { source: 'open_food_facts', count: 946 },
        { source: 'usda_branded', count: 14281 },
        { source: 'usda_foundation', count: 387 },
      ],
    });
  });
});

describe('GET /api/foods/barcode/{code}', () => {
  it.each(['877448001674', '0877448001674', '00877448001674', '0-877448-00167-4'])(
    'finds the FDC Branded product from its UPC-A in the form %s',
    async (code) => {
      const res = await rest(app, 'GET', `/api/foods/barcode/${code}`);
      expect(res.status).toBe(200);
      expect(ids(res.body)).toEqual([MAHCO_SAUCE]);
      expect(res.body[0]).toMatchObject({ gtin: '00877448001674', source: 'usda_branded' });
    },
  );

  it.each(['26772226', '0000026772226', '00000026772226'])(
    'finds the Open Food Facts product from its EAN-8 as %s',
    async (code) => {
      const res = await rest(app, 'GET', `/api/foods/barcode/${code}`);
      expect(ids(res.body)).toEqual([SKYR]);
      expect(res.body[0].description).toBe('Skyr');
    },
  );

  it('answers 422 for a wrong check digit or a length that is no GTIN, and [] for an unknown GTIN', async () => {
    for (const code of ['877448001675', '77448001674', '123', 'abcdefgh']) {
      const res = await rest(app, 'GET', `/api/foods/barcode/${code}`);
      expect(res.status, code).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['path', 'code']);
    }
    const unknown = await rest(app, 'GET', '/api/foods/barcode/4006381333931');
    expect(unknown).toMatchObject({ status: 200, body: [] });
  });
});

describe('GET /api/foods/core-bundle', () => {
  it('answers the Foundation Foods with nutrients and portions, gzipped, with a strong ETag', async () => {
    const res = await app.fetch('/api/foods/core-bundle', {
      headers: { 'accept-encoding': 'gzip' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(res.headers.get('etag')).toMatch(/^"[\w-]{43}"$/);
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    const bundle = await res.json();
    expect(bundle.foods).toHaveLength(387);
    const milk = bundle.foods.find((f: any) => f.fdc_id === MILK_2PCT);
    expect(milk.nutrients['1003']).toBeGreaterThan(3);
    expect(milk.portions).toContainEqual({
      amount: 1,
      unit: 'cup',
      description: null,
      modifier: null,
      gram_weight: 227,
    });
    expect(bundle.nutrients).toContainEqual({ id: 1003, name: 'Protein', unit: 'G' });
  });

  it('answers 304 to If-None-Match with the current ETag, and plain JSON without gzip', async () => {
    const first = await app.fetch('/api/foods/core-bundle');
    const etag = first.headers.get('etag')!;
    const again = await app.fetch('/api/foods/core-bundle', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    const stale = await app.fetch('/api/foods/core-bundle', {
      headers: { 'if-none-match': '"other"', 'accept-encoding': 'identity' },
    });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('content-encoding')).toBeNull();
    expect(Number(stale.headers.get('content-length'))).toBeGreaterThan(100_000);
  });

  it('answers 503 with Retry-After while no catalogue import has finished', async () => {
    const res = await rest(empty, 'GET', '/api/foods/core-bundle');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('10');
    expect(res.body.detail).toMatch(/being built/);
  });
});

describe('GET /api/foods/{fdc_id}/full-match', () => {
  it('matches a label-only product to the generic food with full data', async () => {
    const res = await rest(app, 'GET', `/api/foods/${MANGO_CHUNKS}/full-match`);
    expect(res.status).toBe(200);
    expect(res.body.match).toMatchObject({ source: 'usda_foundation', has_full_nutrients: true });
    expect(res.body.match.description).toMatch(/^Mango, /);
    expect(res.body.score).toBeGreaterThan(0.6);
  });

  it('answers match null when nothing matches well or the product already has full data', async () => {
    expect((await rest(app, 'GET', `/api/foods/${SPRING_WATER}/full-match`)).body).toEqual({
      match: null,
      score: null,
    });
    expect((await rest(app, 'GET', `/api/foods/${MILK_2PCT}/full-match`)).body).toEqual({
      match: null,
      score: null,
    });
    expect((await rest(app, 'GET', '/api/foods/999999999/full-match')).status).toBe(404);
  });
});

describe('GET /api/foods/{fdc_id}', () => {
  it('answers every nutrient per 100 g with its name and unit, and the portions', async () => {
    const res = await rest(app, 'GET', `/api/foods/${MILK_2PCT}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      fdc_id: MILK_2PCT,
      source: 'usda_foundation',
      has_full_nutrients: true,
      countries: ['US'],
    });
    expect(res.body.nutrients.length).toBeGreaterThan(100);
    expect(res.body.nutrients).toContainEqual(
      expect.objectContaining({ nutrient_id: 1087, name: 'Calcium, Ca', unit: 'MG' }),
    );
    expect(res.body.portions[0]).toEqual({
      seq: 1,
      amount: 1,
      unit: 'cup',
      description: null,
      modifier: null,
      gram_weight: 227,
    });
  });

  it('serves Open Food Facts products by their off: id, nutrients mapped to USDA ids', async () => {
    const res = await rest(app, 'GET', `/api/foods/${SKYR}`);
    expect(res.body).toMatchObject({ source: 'open_food_facts', countries: ['FR'] });
    expect(res.body.nutrients.map((n: any) => n.nutrient_id)).toEqual(
      expect.arrayContaining([1008, 1003, 1004, 1005]),
    );
  });

  it('answers 404 for an unknown id', async () => {
    expect((await rest(app, 'GET', '/api/foods/999999999')).status).toBe(404);
  });
});

describe('GET /api/foods/recommendations', () => {
  it('needs a bearer token and limit 1..100', async () => {
    expect((await rest(app, 'GET', '/api/foods/recommendations')).status).toBe(401);
    const { token } = await seedUser(app);
    for (const [q, status] of [
      ['limit=0', 422],
      ['limit=101', 422],
      ['limit=1', 200],
      ['limit=100', 200],
    ] as const) {
      expect((await rest(app, 'GET', `/api/foods/recommendations?${q}`, { token })).status, q).toBe(
        status,
      );
    }
  });

  it('ranks by how often the person logs a food and whether they eat it at this hour', async () => {
    const { user, token } = await seedUser(app);
    // one person each, so popularity is equal; `often` and `nowHour` are eaten at this hour of day
    const [often, nowHour, otherHour] = ['1105073', '1921003', '1765739'];
    for (let i = 1; i <= 3; i++) await seedFoodLog(app, user.id, often, { eatenAt: daysAgo(i) });
    await seedFoodLog(app, user.id, nowHour, { eatenAt: daysAgo(2) });
    await seedFoodLog(app, user.id, otherHour, { eatenAt: daysAgo(2.5) });
    const res = await rest(app, 'GET', '/api/foods/recommendations?limit=100', { token });
    const order = ids(res.body);
    expect(order.indexOf(often)).toBeLessThan(order.indexOf(nowHour));
    expect(order.indexOf(nowHour)).toBeLessThan(order.indexOf(otherHour));
  });

  it('recommends what many people log to a person without history, 50 by default', async () => {
    const people = await Promise.all([1, 2, 3].map(() => seedUser(app)));
    const foods = (await rest(app, 'GET', '/api/foods/search?q=cheese&limit=60')).body.map(
      (f: any) => f.fdc_id,
    );
    for (const p of people) await seedFoodLog(app, p.user.id, foods[59]);
    for (const id of foods.slice(0, 59)) await seedFoodLog(app, people[0].user.id, id);
    const newcomer = await seedUser(app);
    const res = await rest(app, 'GET', '/api/foods/recommendations', { token: newcomer.token });
    expect(res.body).toHaveLength(50);
    expect(res.body[0].fdc_id).toBe(foods[59]);
  });
});

describe('MCP foods tools', () => {
  it('creates a custom food once per idempotency key, visible only to its owner', async () => {
    const owner = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, owner.user.id, [
        'health:nutrition:read',
        'health:nutrition:write',
      ]),
    );
    const args = {
      description: "Grandma's lentil soup",
      kcal: 95,
      protein_g: 6.1,
      carbs_g: 14,
      fat_g: 1.5,
      gtin: '4006381333931',
      portions: [{ unit: 'bowl', gram_weight: 350 }],
      idempotency_key: 'lentil-soup-0001',
    };
    const created = await callTool(client, 'food_custom_create', args);
    expect(created.isError).toBeFalsy();
    const food = created.structuredContent as any;
    expect(food).toMatchObject({
      source: 'custom',
      kcal: 95,
      protein_g: 6.1,
      gtin: '04006381333931',
    });
    expect(food.fdc_id).toMatch(/^custom:/);
    expect(food.portions).toEqual([
      { seq: 1, amount: 1, unit: 'bowl', description: null, modifier: null, gram_weight: 350 },
    ]);
    const replay = await callTool(client, 'food_custom_create', args);
    expect((replay.structuredContent as any).fdc_id).toBe(food.fdc_id);

    const found = await callTool(client, 'food_catalogue_search', { q: 'lentil soup' });
    expect(ids((found.structuredContent as any).items)).toContain(food.fdc_id);
    expect(
      (await rest(app, 'GET', `/api/foods/${food.fdc_id}`, { token: owner.token })).status,
    ).toBe(200);
    expect(
      ids(
        (await rest(app, 'GET', '/api/foods/barcode/4006381333931', { token: owner.token })).body,
      ),
    ).toEqual([food.fdc_id]);

    const stranger = await seedUser(app);
    expect(
      (await rest(app, 'GET', `/api/foods/${food.fdc_id}`, { token: stranger.token })).status,
    ).toBe(404);
    expect((await rest(app, 'GET', `/api/foods/${food.fdc_id}`)).status).toBe(404);
    expect(
      (await rest(app, 'GET', `/api/foods/${food.fdc_id}/full-match`, { token: stranger.token }))
        .status,
    ).toBe(404);
    const theirs = await rest(app, 'GET', '/api/foods/search?q=lentil%20soup', {
      token: stranger.token,
    });
    expect(ids(theirs.body)).not.toContain(food.fdc_id);
    expect((await rest(app, 'GET', '/api/foods/barcode/4006381333931')).body).toEqual([]);
  });

  it('refuses a custom food outside the bounds', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    for (const bad of [
      { description: 'x', kcal: 901 },
      { description: '', kcal: 10 },
      { description: 'x', kcal: 10, fat_g: 101 },
      { description: 'x', kcal: 10, gtin: '123' },
    ]) {
      const res = await callTool(client, 'food_custom_create', {
        ...bad,
        idempotency_key: `bad-${JSON.stringify(bad).length}-${Math.random()}`,
      });
      expect(res.isError, JSON.stringify(bad)).toBe(true);
      expect((res.structuredContent as any).error.code).toBe('VALIDATION_FAILED');
    }
  });

  it("reads the catalogue, recommendations and the person's food history", async () => {
    const { user } = await seedUser(app);
    await seedFoodLog(app, user.id, MILK_2PCT, { eatenAt: daysAgo(3) });
    await seedFoodLog(app, user.id, MILK_2PCT, { eatenAt: daysAgo(2) });
    await seedFoodLog(app, user.id, MANGO_CHUNKS, { eatenAt: daysAgo(1) });
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:read']),
    );
    const names = (await client.listTools()).tools
      .map((t) => t.name)
      .filter((n) => n.startsWith('food_'));
    expect(names).toEqual([
      'food_barcode_lookup',
      'food_catalogue_detail',
      'food_catalogue_full_match',
      'food_catalogue_recommendations',
      'food_catalogue_search',
      'food_history_list',
    ]);
    const history = (await callTool(client, 'food_history_list')).structuredContent as any;
    expect(history.items.map((h: any) => [h.food.fdc_id, h.times_logged])).toEqual([
      [MANGO_CHUNKS, 1],
      [MILK_2PCT, 2],
    ]);
    const barcode = (await callTool(client, 'food_barcode_lookup', { code: '0877448001674' }))
      .structuredContent as any;
    expect(ids(barcode.items)).toEqual([MAHCO_SAUCE]);
    const detail = (await callTool(client, 'food_catalogue_detail', { fdc_id: MILK_2PCT }))
      .structuredContent as any;
    expect(detail.nutrients.length).toBeGreaterThan(100);
    const match = (await callTool(client, 'food_catalogue_full_match', { fdc_id: MANGO_CHUNKS }))
      .structuredContent as any;
    expect(match.match.source).toBe('usda_foundation');
    const recommended = (await callTool(client, 'food_catalogue_recommendations', { limit: 5 }))
      .structuredContent as any;
    expect(ids(recommended.items)).toEqual(expect.arrayContaining([MILK_2PCT, MANGO_CHUNKS]));
    const unknown = await callTool(client, 'food_catalogue_detail', { fdc_id: 'nope' });
    expect((unknown.structuredContent as any).error.code).toBe('NOT_FOUND');
  });
});
