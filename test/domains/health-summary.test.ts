/**
 * Health summaries and reads (issue 16): the day, range and catalogue summaries and the activity
 * trend, through MCP and their /api/v1 routes, on one seeded person in Europe/Berlin (so local days
 * differ from UTC days): figures, units, sources, local-day bucketing, bounds, scopes and meta.
 */
import { describe, expect, it } from 'vitest';
import { at, seedHealthPerson } from '../factories/health-summary.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();

const seededPerson = () => seedHealthPerson(app);

const tokenFor = (userId: number, scopes: Parameters<typeof seedPersonalToken>[2]) =>
  seedPersonalToken(app, userId, scopes);

describe('health_summary_read and get_health_summary (issue 16)', () => {
  it("answers the day's metrics in the person's zone, the night ending that day and the workouts", async () => {
    const person = await seededPerson();
    const client = await mcpClient(app, await tokenFor(person.user.id, ['health:summary:read']));
    const res = await callTool(client, 'health_summary_read', { date: '2025-03-10' });
    expect(res.isError).toBeFalsy();
    const day = res.structuredContent as any;
    expect(day.date).toBe('2025-03-10');
    expect(day.timezone).toBe('Europe/Berlin');
    const byType = Object.fromEntries(day.metrics.map((m: any) => [m.metric_type, m]));
    // 00:30 local counts (the 9th in UTC); 00:15 on the 11th does not (the 10th in UTC)
    expect(byType.steps).toMatchObject({
      aggregation: 'sum',
      value: 3500,
      count: 3,
      unit: 'count',
    });
    expect(byType.steps.sources).toEqual(['Watch', 'Phone']);
    expect(byType.heart_rate).toMatchObject({
      aggregation: 'avg',
      value: 110,
      min: 60,
      max: 160,
      count: 6,
      unit: 'bpm',
    });
    expect(byType.body_weight).toMatchObject({ aggregation: 'last', value: 79.5, unit: 'kg' });
    expect(byType.active_energy).toMatchObject({ value: 250.5, unit: 'kcal' });
    expect(day.sleep).toMatchObject({
      date: '2025-03-10',
      source: 'Watch',
      sources: ['Phone', 'Watch'],
      asleep_minutes: 470,
      in_bed_minutes: 480,
      awake_minutes: 10,
      efficiency: 98,
      stages: { core: 350, deep: 60, rem: 60, asleep_unspecified: 0, awake: 10, in_bed: 0 },
    });
    expect(day.workouts).toEqual({
      count: 1,
      minutes: 30,
      energy_kcal: 300,
      distance_m: 5000,
      activity_types: ['running'],
    });
    expect(day.meta).toEqual({ phone_last_sync_at: null });
  });

  it('get_health_summary answers the same day with the health meta, listed only with health:summary:read', async () => {
    const person = await seededPerson();
    await app.db.prisma.user.update({
      where: { id: person.user.id },
      data: { phoneLastSyncAt: new Date('2025-03-11T06:00:00Z') },
    });
    const client = await mcpClient(app, await tokenFor(person.user.id, ['health:summary:read']));
    const res = await callTool(client, 'get_health_summary', { date: '2025-03-10' });
    const day = res.structuredContent as any;
    expect(day.meta).toEqual({ phone_last_sync_at: '2025-03-11T06:00:00.000Z' });
    const read = (await callTool(client, 'health_summary_read', { date: '2025-03-10' }))
      .structuredContent as any;
    expect({ ...day, meta: undefined }).toEqual({ ...read, meta: undefined });

    const other = await mcpClient(app, await tokenFor(person.user.id, ['health:metrics:read']));
    const names = (await other.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('get_health_summary');
    expect(names).toContain('activity_body_composition_read');
    const refused = await callTool(other, 'get_health_summary', { date: '2025-03-10' });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('health:summary:read');
  });

  it('GET /api/v1/health/summary answers the same day; an empty day answers empty lists', async () => {
    const person = await seededPerson();
    const token = await tokenFor(person.user.id, ['health:summary:read']);
    const res = await rest(app, 'GET', '/api/v1/health/summary?date=2025-03-10', { token });
    expect(res.status).toBe(200);
    expect(res.body.metrics.find((m: any) => m.metric_type === 'steps').value).toBe(3500);
    const empty = await rest(app, 'GET', '/api/v1/health/summary?date=2024-01-01', { token });
    expect(empty.body).toMatchObject({
      metrics: [],
      sleep: null,
      workouts: { count: 0, minutes: 0, energy_kcal: null, activity_types: [] },
    });
    const today = await rest(app, 'GET', '/api/v1/health/summary', { token });
    expect(today.status).toBe(200);
    expect(today.body.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("never answers another person's samples", async () => {
    const person = await seededPerson();
    const stranger = await seedUser(app);
    const token = await tokenFor(stranger.user.id, ['health:summary:read']);
    const res = await rest(app, 'GET', '/api/v1/health/summary?date=2025-03-10', { token });
    expect(res.body.metrics).toEqual([]);
    expect(res.body.sleep).toBeNull();
    expect(person.user.id).not.toBe(stranger.user.id);
  });

  it('refuses a token without health:summary:read (403) and bad dates (422)', async () => {
    const person = await seededPerson();
    const token = await tokenFor(person.user.id, ['health:sleep:read']);
    const refused = await rest(app, 'GET', '/api/v1/health/summary?date=2025-03-10', { token });
    expect(refused.status).toBe(403);
    const good = await tokenFor(person.user.id, ['health:summary:read']);
    for (const date of [
      '2025-02-30',
      'yesterday',
      '1969-12-31',
      '2025-03-10\u0000',
      'x'.repeat(5000),
    ]) {
      const res = await rest(
        app,
        'GET',
        `/api/v1/health/summary?date=${encodeURIComponent(date)}`,
        {
          token: good,
        },
      );
      expect(res.status, date.slice(0, 20)).toBe(422);
    }
  });
});

describe('health_summary_range (issue 16)', () => {
  it('answers one row per local day and metric, clipped buckets for weeks', async () => {
    const person = await seededPerson();
    const client = await mcpClient(app, await tokenFor(person.user.id, ['health:summary:read']));
    const res = await callTool(client, 'health_summary_range', {
      from: '2025-03-09',
      to: '2025-03-11',
      interval: 'day',
      metric_types: ['steps', 'body_weight'],
    });
    const range = res.structuredContent as any;
    expect(range.rows.map((r: any) => [r.start, r.metric_type, r.value, r.count])).toEqual([
      ['2025-03-10', 'body_weight', 79.5, 2],
      ['2025-03-10', 'steps', 3500, 3],
      ['2025-03-11', 'steps', 700, 1],
    ]);
    const weeks = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-03-01&to=2025-03-12&interval=week&metric_types=steps',
      { token: await tokenFor(person.user.id, ['health:summary:read']) },
    );
    expect(weeks.status).toBe(200);
    // 2025-03-01 is a Saturday: its week (from Monday 24 Feb) is clipped to the range
    expect(weeks.body.rows.map((r: any) => [r.start, r.end, r.value])).toEqual([
      ['2025-03-03', '2025-03-09', 4000],
      ['2025-03-10', '2025-03-12', 4200],
    ]);
    const months = await callTool(client, 'health_summary_range', {
      from: '2025-01-15',
      to: '2025-03-31',
      interval: 'month',
      metric_types: ['heart_rate'],
    });
    expect((months.structuredContent as any).rows).toMatchObject([
      { start: '2025-03-01', end: '2025-03-31', value: 112.86, min: 60, max: 160, count: 7 },
    ]);
  });

  it('refuses more than 400 rows, saying what to ask instead, and a reversed range', async () => {
    const person = await seededPerson();
    const token = await tokenFor(person.user.id, ['health:summary:read']);
    // 58 days x 7 metric types = 406 rows
    const tooMany = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-01-01&to=2025-02-27&interval=day',
      { token },
    );
    expect(tooMany.status).toBe(422);
    expect(JSON.stringify(tooMany.body)).toContain('week or month');
    // 57 days x 7 = 399 rows: answered
    const fits = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-01-01&to=2025-02-26&interval=day',
      { token },
    );
    expect(fits.status).toBe(200);
    const client = await mcpClient(app, token);
    const res = await callTool(client, 'health_summary_range', {
      from: '2024-01-01',
      to: '2024-12-31',
      interval: 'day',
    });
    expect(res.isError).toBe(true);
    expect(JSON.stringify(res.content)).toContain('fewer metric_types');
    const year = await callTool(client, 'health_summary_range', {
      from: '2024-03-12',
      to: '2025-03-11',
      interval: 'week',
    });
    expect(year.isError).toBeFalsy();
    const reversed = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-03-11&to=2025-03-01',
      { token },
    );
    expect(reversed.status).toBe(422);
    const decade = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=1990-01-01&to=2025-01-01&interval=month&metric_types=steps',
      { token },
    );
    expect(decade.status).toBe(422);
    const badInterval = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-03-01&to=2025-03-02&interval=hour',
      { token },
    );
    expect(badInterval.status).toBe(422);
  });

  it('refuses a token without health:summary:read', async () => {
    const person = await seededPerson();
    const client = await mcpClient(app, await tokenFor(person.user.id, ['health:metrics:read']));
    const res = await callTool(client, 'health_summary_range', {
      from: '2025-03-01',
      to: '2025-03-02',
    });
    expect(res.isError).toBe(true);
    const token = await tokenFor(person.user.id, ['health:metrics:read']);
    const http = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-03-01&to=2025-03-02',
      {
        token,
      },
    );
    expect(http.status).toBe(403);
  });
});

describe('health_catalog_read (issue 16)', () => {
  it('lists each metric with unit, count, first and last time and sources; sleep stages; workout types', async () => {
    const person = await seededPerson();
    const client = await mcpClient(app, await tokenFor(person.user.id, ['health:summary:read']));
    const catalog = (await callTool(client, 'health_catalog_read')).structuredContent as any;
    const steps = catalog.metrics.find((m: any) => m.metric_type === 'steps');
    expect(steps).toEqual({
      metric_type: 'steps',
      unit: 'count',
      aggregation: 'sum',
      count: 5,
      first_at: '2025-03-03T10:00:00.000+01:00', // MCP answers carry the person's offset (issue 30)
      last_at: '2025-03-11T00:15:00.000+01:00',
      sources: ['Watch', 'Phone'],
    });
    expect(catalog.metrics.map((m: any) => m.metric_type)).toEqual([
      'active_energy',
      'body_weight',
      'heart_rate',
      'steps',
    ]);
    expect(catalog.sleep_stages.map((s: any) => [s.type, s.count])).toEqual([
      ['asleep', 2],
      ['awake', 1],
      ['core', 2],
      ['deep', 1],
      ['in_bed', 1],
      ['rem', 1],
    ]);
    expect(catalog.workout_types.map((w: any) => [w.type, w.count])).toEqual([
      ['running', 3],
      ['cycling', 1],
    ]);
    expect(catalog.meta.phone_last_sync_at).toBeNull();

    const token = await tokenFor(person.user.id, ['health:summary:read']);
    const http = await rest(app, 'GET', '/api/v1/health/catalog', { token });
    expect(http.status).toBe(200);
    // the same instants; REST answers them in UTC, MCP with the person's offset (issue 30)
    const inUtc = (at: string | null) => at && new Date(at).toISOString();
    expect(http.body.metrics).toEqual(
      catalog.metrics.map((m: any) => ({
        ...m,
        first_at: inUtc(m.first_at),
        last_at: inUtc(m.last_at),
      })),
    );
    const stranger = await seedUser(app);
    const theirs = await rest(app, 'GET', '/api/v1/health/catalog', {
      token: await tokenFor(stranger.user.id, ['health:summary:read']),
    });
    expect(theirs.body).toMatchObject({ metrics: [], sleep_stages: [], workout_types: [] });
    const refused = await rest(app, 'GET', '/api/v1/health/catalog', {
      token: await tokenFor(person.user.id, ['health:workouts:read']),
    });
    expect(refused.status).toBe(403);
  });
});

describe('activity_body_composition_read (issue 16)', () => {
  const imported = (kg: number) => ({ body_weight_kg: kg, body_weight_source: 'imported' });
  it('answers daily steps, energy and weight and the weight trend over a range', async () => {
    const person = await seededPerson();
    const client = await mcpClient(app, await tokenFor(person.user.id, ['health:metrics:read']));
    const res = await callTool(client, 'activity_body_composition_read', {
      from: '2025-03-01',
      to: '2025-03-11',
    });
    const trend = res.structuredContent as any;
    expect(trend.days).toEqual([
      { date: '2025-03-03', steps: 4000, active_energy_kcal: null, ...imported(81) },
      { date: '2025-03-10', steps: 3500, active_energy_kcal: 250.5, ...imported(79.5) },
      {
        date: '2025-03-11',
        steps: 700,
        active_energy_kcal: null,
        body_weight_kg: null,
        body_weight_source: null,
      },
    ]);
    expect(trend.mean_steps).toBeCloseTo(2733.33, 2);
    expect(trend.body_weight).toEqual({
      count: 3,
      logged: 0,
      first: 81,
      last: 79.5,
      change: -1.5,
      min: 79.5,
      max: 81,
    });
    expect(trend.meta).toHaveProperty('phone_last_sync_at');

    const token = await tokenFor(person.user.id, ['health:metrics:read']);
    const http = await rest(app, 'GET', '/api/v1/health/activity?from=2025-03-01&to=2025-03-11', {
      token,
    });
    expect(http.body.days).toEqual(trend.days);
    const tooLong = await rest(
      app,
      'GET',
      '/api/v1/health/activity?from=2024-01-01&to=2025-03-11',
      {
        token,
      },
    );
    expect(tooLong.status).toBe(422);
    const refused = await rest(
      app,
      'GET',
      '/api/v1/health/activity?from=2025-03-01&to=2025-03-11',
      {
        token: await tokenFor(person.user.id, ['health:summary:read']),
      },
    );
    expect(refused.status).toBe(403);
  });
});

describe('activity_body_composition_read with logged weights', () => {
  it('puts weights logged through the logs domain next to the imported ones, marked by source', async () => {
    const person = await seededPerson();
    const token = await tokenFor(person.user.id, ['health:metrics:read', 'health:logs:write']);
    const client = await mcpClient(app, token);
    const weigh = async (kg: number, local: string) => {
      const res = await rest(app, 'POST', '/api/v1/health/logs/weight', {
        token,
        body: { kg, logged_at: at(local).toISOString() },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    // the 10th: logged at 21:00 after the imported 79.5 at 20:00, so the day's weight is logged
    const viaMcp = await callTool(client, 'logs_weight_add', {
      kg: 79,
      logged_at: at('2025-03-10T21:00:00').toISOString(),
      idempotency_key: `weigh-${person.user.id}-10`,
    });
    expect(viaMcp.isError).toBeFalsy();
    await weigh(80.2, '2025-03-05T07:00:00'); // a day with nothing imported
    await weigh(82, '2025-03-03T07:00:00'); // before the imported 81 at 08:00: 81 stays
    // 00:30 on the 5th in Berlin is still the 4th in UTC: it counts on the 5th, before 07:00
    await weigh(80.4, '2025-03-05T00:30:00');
    const gone = await weigh(60, '2025-03-04T07:00:00');
    expect((await rest(app, 'DELETE', `/api/v1/health/logs/${gone}`, { token })).status).toBe(200);
    const stranger = await seedUser(app);
    await rest(app, 'POST', '/api/v1/health/logs/weight', {
      token: stranger.token,
      body: { kg: 150, logged_at: at('2025-03-06T07:00:00').toISOString() },
    });

    const res = await callTool(client, 'activity_body_composition_read', {
      from: '2025-03-01',
      to: '2025-03-11',
    });
    const trend = res.structuredContent as any;
    expect(trend.days).toEqual([
      {
        date: '2025-03-03',
        steps: 4000,
        active_energy_kcal: null,
        body_weight_kg: 81,
        body_weight_source: 'imported',
      },
      {
        date: '2025-03-05',
        steps: null,
        active_energy_kcal: null,
        body_weight_kg: 80.2,
        body_weight_source: 'logged',
      },
      {
        date: '2025-03-10',
        steps: 3500,
        active_energy_kcal: 250.5,
        body_weight_kg: 79,
        body_weight_source: 'logged',
      },
      {
        date: '2025-03-11',
        steps: 700,
        active_energy_kcal: null,
        body_weight_kg: null,
        body_weight_source: null,
      },
    ]);
    expect(trend.mean_steps).toBeCloseTo(2733.33, 2);
    expect(trend.body_weight).toEqual({
      count: 7,
      logged: 4,
      first: 81,
      last: 79,
      change: -2,
      min: 79,
      max: 82,
    });
    const http = await rest(app, 'GET', '/api/v1/health/activity?from=2025-03-01&to=2025-03-11', {
      token,
    });
    expect(http.body.days).toEqual(trend.days);
  });
});
