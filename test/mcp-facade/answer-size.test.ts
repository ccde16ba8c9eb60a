/**
 * Issue 11 item 10: no tool answers more than 100,000 characters (about 25,000 tokens), with the
 * data volume of a real person: 90 days of CGM readings every 5 minutes, four meals a day with their
 * items, heart rate every 15 minutes, steps, sleep and workouts. Every tool of tools/list is called
 * with the arguments that ask for the most; list tools answer pages with next_cursor, and reading
 * every page gives every item once.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ANSWER_MAX_CHARS, capAnswer, PAGE_CHARS } from '../../mcp-facade/answer-size.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { BANANA, RICE, seedFood } from '../factories/meals.ts';
import { seedIntervals, seedMetrics } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

// every tool, then every page of 90 days: more calls than the per-token limits allow a minute
const app = await startTestApp({ MCP_CALLS_PER_MINUTE: '10000', MCP_CALLS_PER_DAY: '100000' });
const DAY = 86_400_000;
const DAYS = 90;
const now = clock.ms();
const start = now - DAYS * DAY;

const person = await seedUser(app, { name: 'Ann Volume' });
const userId = person.user.id;

// 90 days of CGM readings every 5 minutes: 25,920, in one batch as the phone uploads them
const readings = Array.from({ length: (DAYS * DAY) / 300_000 }, (_, i) => ({
  sensor_id: 1,
  timestamp: new Date(start + i * 300_000 + 1000).toISOString(),
  value_mg_dl: Math.round(110 + 40 * Math.sin(i / 20) + (i % 7)),
}));
const stored = await rest(app, 'POST', '/api/glucose/readings/batch', {
  token: person.token,
  body: readings,
});
expect(stored.status, JSON.stringify(stored.body)).toBe(200);
await rest(app, 'POST', '/api/glucose/process-sensor', {
  token: person.token,
  body: {
    sensor_id: 2,
    serial_number: 'LIBRE-0001',
    samples: [{ timestamp: new Date(now - 60_000).toISOString(), raw_value: 140 }],
  },
});

// heart rate every 15 minutes, steps every hour, HRV and resting heart rate daily
const iso = (ms: number): string => new Date(ms).toISOString();
const heartRate = Array.from({ length: DAYS * 96 }, (_, i) => ({
  metric_type: 'heart_rate',
  value: 60 + (i % 40),
  timestamp: iso(start + i * 900_000),
  source: 'Apple Watch',
}));
await seedMetrics(app, person.token, heartRate);
await seedMetrics(app, person.token, [
  ...Array.from({ length: DAYS * 24 }, (_, i) => ({
    metric_type: 'steps',
    value: 300 + (i % 500),
    timestamp: iso(start + i * 3_600_000),
    source: 'iPhone',
  })),
  ...Array.from({ length: DAYS }, (_, d) => ({
    metric_type: 'hrv',
    value: 40 + (d % 20),
    timestamp: iso(start + d * DAY + 6 * 3_600_000),
  })),
  ...Array.from({ length: DAYS }, (_, d) => ({
    metric_type: 'resting_heart_rate',
    value: 55 + (d % 8),
    timestamp: iso(start + d * DAY + 6 * 3_600_000),
  })),
]);
await seedIntervals(app, person.token, {
  sleep: Array.from({ length: DAYS }, (_, d) => [
    { stage: 'core', start_at: iso(start + d * DAY), end_at: iso(start + d * DAY + 3 * 3_600_000) },
    {
      stage: 'deep',
      start_at: iso(start + d * DAY + 3 * 3_600_000),
      end_at: iso(start + d * DAY + 4 * 3_600_000),
    },
    {
      stage: 'rem',
      start_at: iso(start + d * DAY + 4 * 3_600_000),
      end_at: iso(start + d * DAY + 6 * 3_600_000),
    },
    {
      stage: 'awake',
      start_at: iso(start + d * DAY + 6 * 3_600_000),
      end_at: iso(start + d * DAY + 6.2 * 3_600_000),
    },
  ]).flat(),
  workouts: Array.from({ length: DAYS }, (_, d) => ({
    activity_type: 'running',
    start_at: iso(start + d * DAY + 17 * 3_600_000),
    end_at: iso(start + d * DAY + 17.75 * 3_600_000),
    energy_kcal: 450,
  })),
});

// four meals a day, four items each (as the phone syncs them)
await seedFood(app, BANANA);
await seedFood(app, RICE);
const meals = Array.from({ length: DAYS * 4 }, (_, i) => ({
  id: randomUUID(),
  userId,
  mealName: [
    'Porridge with banana',
    'Chicken, rice and salad',
    'Apple and yoghurt',
    'Salmon with potatoes',
  ][i % 4],
  mealType: ['breakfast', 'lunch', 'snack', 'dinner'][i % 4],
  eatenAt: new Date(start + Math.floor(i / 4) * DAY + (7 + 4 * (i % 4)) * 3_600_000),
  note: i % 3 === 0 ? 'ate at home, felt full afterwards' : null,
  source: 'phone',
  kcal: 620,
  proteinG: 31.5,
  carbsG: 72.25,
  fatG: 18.75,
  fiberG: 9.5,
  sugarG: 14.25,
}));
await app.db.prisma.meal.createMany({ data: meals });
await app.db.prisma.mealItem.createMany({
  data: meals.flatMap((m) =>
    [BANANA, RICE, null, null].map((food, k) => ({
      id: randomUUID(),
      userId,
      mealId: m.id,
      foodId: food?.id ?? null,
      name: food?.description ?? ['Mixed green salad', 'Greek yoghurt, plain'][k - 2],
      grams: 120 + k * 10,
      portion: food ? '1 serving' : null,
      kcal: 155,
      proteinG: 7.875,
      carbsG: 18.0625,
      fatG: 4.6875,
      fiberG: 2.375,
      sugarG: 3.5625,
      createdAt: m.eatenAt,
    })),
  ),
});

const token = await seedPersonalToken(app, userId, [...SCOPES]);
const client = await mcpClient(app, token);
const mealId = meals.at(-1)!.id;

/** The arguments that ask each tool for the most (a tool not named here is called with none). */
const LARGEST: Record<string, Record<string, unknown>> = {
  get_glucose_readings: { since_hours: DAYS * 24, limit: 500 },
  glucose_readings_read: { since_hours: DAYS * 24, limit: 500 },
  get_nutrition_meals: { limit: 1000 },
  nutrition_meals_list: { limit: 1000 },
  nutrition_meal_read: { meal_id: mealId },
  nutrition_daily_read: { start_ms: now - 366 * DAY + 1, end_ms: now },
  nutrition_recent_meals_list: { limit: 50 },
  nutrition_meal_log: {
    idempotency_key: 'size-test-largest-meal',
    meal_name: 'Buffet',
    note: 'n'.repeat(2000),
    items: Array.from({ length: 100 }, (_, i) => ({
      name: `Dish number ${i} with a long descriptive name`,
      grams: 50,
      kcal: 80,
    })),
  },
  nutrition_meal_update: { meal_id: mealId, note: 'updated' },
  food_catalogue_search: { q: 'banana', limit: 100 },
  food_catalogue_recommendations: { limit: 100 },
  food_history_list: { limit: 100 },
  food_catalogue_detail: { fdc_id: BANANA.id },
  food_catalogue_full_match: { fdc_id: BANANA.id },
  food_barcode_lookup: { code: '0877448001674' },
  get_scores_days: { days: 90 },
  activity_score_read: { days: 90 },
  sleep_score_read: { days: 90 },
  glucose_score_read: { days: 90 },
  recovery_score_read: { days: 90 },
  daily_nutrition_score_read: { days: 90 },
  list_records: { table: 'glucose_readings', limit: 500 },
  synced_records_read: { table: 'glucose_readings', limit: 500 },
  update_profile: { name: 'Ann Volume' },
  update_profile_onboarding: { onboarding_step: 2 },
};

const lengthOf = (result: { content: unknown }): number =>
  ((result.content as { type: string; text: string }[])[0]?.text ?? '').length;

describe('tool answers with a realistic data volume (issue 11)', () => {
  it(
    'keeps every answer of every listed tool under 100,000 characters',
    { timeout: 120_000 },
    async () => {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(40);
      const sizes: [string, number][] = [];
      for (const tool of tools) {
        const result = await callTool(client, tool.name, LARGEST[tool.name] ?? {});
        const length = lengthOf(result);
        expect(JSON.parse((result.content as { text: string }[])[0].text), tool.name).toEqual(
          result.structuredContent,
        );
        sizes.push([tool.name, length]);
      }
      sizes.sort((a, b) => b[1] - a[1]);
      console.log(
        `largest MCP tool answer: ${sizes[0][1]} characters (${sizes[0][0]}); next: ${sizes
          .slice(1, 4)
          .map(([n, l]) => `${n} ${l}`)
          .join(', ')}`,
      );
      for (const [name, length] of sizes) expect(length, name).toBeLessThan(ANSWER_MAX_CHARS);
    },
  );

  it(
    'answers 90 days of readings in pages: each under the page size, every reading once, in order',
    { timeout: 120_000 },
    async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const result = await callTool(client, 'get_glucose_readings', {
          since_hours: DAYS * 24 + 1,
          ...(cursor ? { cursor } : {}),
        });
        const body = result.structuredContent as {
          items: { id: string; timestamp: string }[];
          next_cursor?: string;
          meta: any;
        };
        expect(result.isError, JSON.stringify(body)).toBeFalsy();
        expect(lengthOf(result)).toBeLessThan(PAGE_CHARS + 2_000);
        seen.push(...body.items.map((r) => r.timestamp));
        cursor = body.next_cursor;
        if (cursor)
          expect(body.meta.truncated.note).toMatch(
            /call get_glucose_readings again with the same arguments and cursor/,
          );
        else expect(body.meta).not.toHaveProperty('truncated');
        pages++;
      } while (cursor && pages < 200);
      // the batch, and the sensor payload's reading
      const total = await app.db.prisma.glucoseReading.count({
        where: { userId, deletedAt: null },
      });
      expect(total).toBe(readings.length + 1);
      expect(seen).toHaveLength(total);
      expect(new Set(seen).size).toBe(total);
      expect(seen).toEqual([...seen].sort().reverse());
    },
  );

  it('pages a list answer the operation gives whole (meals), and refuses a cursor with other arguments', async () => {
    // the seeded meals, and the one nutrition_meal_log stored above
    const total = await app.db.prisma.meal.count({ where: { userId, deletedAt: null } });
    const first = (await callTool(client, 'get_nutrition_meals', { limit: 1000 }))
      .structuredContent as any;
    expect(first.items.length).toBeLessThan(total);
    expect(first.meta.truncated).toMatchObject({
      returned: first.items.length,
      remaining: total - first.items.length,
    });
    const ids = first.items.map((m: any) => m.id);
    let cursor: string | undefined = first.next_cursor;
    while (cursor) {
      const page = (await callTool(client, 'get_nutrition_meals', { limit: 1000, cursor }))
        .structuredContent as any;
      ids.push(...page.items.map((m: any) => m.id));
      cursor = page.next_cursor;
    }
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);

    const other = await callTool(client, 'get_nutrition_meals', {
      limit: 999,
      cursor: first.next_cursor,
    });
    expect((other.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['cursor'] }],
    });
    const forged = await callTool(client, 'get_nutrition_meals', {
      limit: 1000,
      cursor: 'not-a-cursor',
    });
    expect((forged.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['cursor'] }],
    });
  });

  it('says nothing was cut when everything fits, with no next_cursor', async () => {
    const small = (await callTool(client, 'get_nutrition_meals', { limit: 3 }))
      .structuredContent as any;
    expect(small.items).toHaveLength(3);
    expect(small).not.toHaveProperty('next_cursor');
    expect(small.meta).toEqual({ phone_last_sync_at: expect.any(String) });
  });
});

describe('capAnswer', () => {
  it('cuts the largest lists of an answer that is too large, keeping their first items, and names the cuts', () => {
    const answer: Record<string, unknown> = {
      timezone: 'UTC',
      days: Array.from({ length: 400 }, (_, i) => ({ date: `day ${i}`, text: 'x'.repeat(200) })),
      totals: [1, 2, 3],
    };
    const cuts = capAnswer(answer, { max: 20_000 });
    expect(JSON.stringify(answer).length).toBeLessThanOrEqual(20_000);
    expect(cuts).toEqual([
      { path: ['days'], returned: (answer.days as unknown[]).length, total: 400 },
    ]);
    expect((answer.days as { date: string }[])[0].date).toBe('day 0');
    expect(answer.totals).toEqual([1, 2, 3]);
  });

  it('leaves an answer that fits alone, and gives up on one it cannot cut', () => {
    const fits: Record<string, unknown> = { items: [1, 2, 3] };
    expect(capAnswer(fits)).toEqual([]);
    expect(fits).toEqual({ items: [1, 2, 3] });
    expect(capAnswer({ text: 'x'.repeat(200_000) })).toBeNull();
    // a page's own items are never cut (their cursor counts them): the rest is
    const page: Record<string, unknown> = {
      items: ['a'.repeat(30_000)],
      other: Array.from({ length: 10 }, () => 'b'.repeat(10_000)),
    };
    expect(capAnswer(page, { keep: ['items'], max: 60_000 })).toEqual([
      { path: ['other'], returned: 2, total: 10 },
    ]);
    expect(page.items).toHaveLength(1);
  });
});
