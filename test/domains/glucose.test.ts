import { describe, expect, it } from 'vitest';
import { seedActiveGrant } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const minutesAgo = (m: number): string => new Date(clock.ms() - m * 60_000).toISOString();
/** n readings 5 minutes apart ending now, sensor 1 */
const readings = (n: number, value = (i: number) => 100 + (i % 50)) =>
  Array.from({ length: n }, (_, i) => ({
    sensor_id: 1,
    timestamp: minutesAgo(5 * i),
    value_mg_dl: value(i),
  }));

describe('GET /api/glucose/readings limits', () => {
  it.each([
    ['since_hours=0', 'since_hours'],
    ['since_hours=43801', 'since_hours'],
    ['limit=0', 'limit'],
    ['limit=50001', 'limit'],
    ['sort=up', 'sort'],
    ['sort=ASC', 'sort'],
    ['limit=ten', 'limit'],
  ])('answers 422 for %s at the query parameter', async (query, param) => {
    const { token } = await seedUser(app);
    const res = await rest(app, 'GET', `/api/glucose/readings?${query}`, { token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', param]);
  });

  it('accepts the bounds themselves', async () => {
    const { token } = await seedUser(app);
    for (const q of [
      'since_hours=1',
      'since_hours=43800',
      'limit=1',
      'limit=50000',
      'sort=asc',
      'sort=desc',
    ]) {
      expect((await rest(app, 'GET', `/api/glucose/readings?${q}`, { token })).status, q).toBe(200);
    }
  });

  it('answers 401 without a credential, on every route', async () => {
    for (const [method, path] of [
      ['GET', '/api/glucose/readings'],
      ['POST', '/api/glucose/readings'],
      ['DELETE', '/api/glucose/readings'],
      ['POST', '/api/glucose/readings/batch'],
      ['POST', '/api/glucose/raw/batch'],
      ['GET', '/api/glucose/trends'],
      ['POST', '/api/glucose/process-sensor'],
      ['POST', '/api/glucose/sensor/rebuild-from-raw'],
    ]) {
      const bodies: Record<string, unknown> = {
        '/api/glucose/readings': { timestamp: minutesAgo(1), value_mg_dl: 100 },
        '/api/glucose/process-sensor': {
          sensor_id: 1,
          samples: [{ timestamp: minutesAgo(1), raw_value: 1 }],
        },
        '/api/glucose/sensor/rebuild-from-raw': { sensor_id: 1 },
      };
      const body = method === 'POST' ? (path.endsWith('batch') ? [] : bodies[path]) : undefined;
      const res = await rest(app, method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    }
  });
});

describe('glucose readings', () => {
  it('stores one reading and answers it in mg/dL; posting it again answers the same row', async () => {
    const { user, token } = await seedUser(app);
    const ts = minutesAgo(10);
    const created = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: ts, value_mg_dl: 123.4 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: `g:${user.id}:0:${Date.parse(ts)}`,
      sensor_id: 0,
      timestamp: ts,
      value_mg_dl: 123.4,
      source: 'manual',
      processing_version: null,
    });
    const again = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: ts, value_mg_dl: 999 },
    });
    expect(again.body).toEqual(created.body);
  });

  it('refuses a value outside 10..1000 mg/dL with 422 at the body field', async () => {
    const { token } = await seedUser(app);
    const res = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: minutesAgo(1), value_mg_dl: 5 },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'value_mg_dl']);
  });

  it('stores a batch idempotently: the same batch again inserts 0', async () => {
    const { token } = await seedUser(app);
    const batch = readings(300);
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: batch })).body,
    ).toBe(300);
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: batch })).body,
    ).toBe(0);
    const overlap = [
      ...batch.slice(0, 10),
      { sensor_id: 2, timestamp: batch[0].timestamp, value_mg_dl: 90 },
    ];
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: overlap })).body,
    ).toBe(1);
  });

  it('reads with since_hours, limit, sensor_id and sort', async () => {
    const { token } = await seedUser(app);
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: [
        ...readings(24 * 12 + 24),
        { sensor_id: 7, timestamp: minutesAgo(3), value_mg_dl: 77 },
      ],
    });
    const day = await rest(app, 'GET', '/api/glucose/readings?limit=50000', { token });
    expect(day.body).toHaveLength(24 * 12 + 1); // readings 0..287 are within 24 h, plus sensor 7
    const desc = day.body.map((r: any) => Date.parse(r.timestamp));
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    const asc = await rest(app, 'GET', '/api/glucose/readings?since_hours=1&sort=asc', { token });
    expect(asc.body[0].timestamp < asc.body.at(-1).timestamp).toBe(true);
    expect((await rest(app, 'GET', '/api/glucose/readings', { token })).body).toHaveLength(289);
    expect((await rest(app, 'GET', '/api/glucose/readings?limit=5', { token })).body).toHaveLength(
      5,
    );
    const seven = await rest(app, 'GET', '/api/glucose/readings?sensor_id=7', { token });
    expect(seven.body).toEqual([
      expect.objectContaining({ sensor_id: 7, value_mg_dl: 77, source: 'cgm' }),
    ]);
  });

  it('accepts a 50,000-reading batch (over the global 1 MB body limit) and refuses 50,001 with 422', async () => {
    const { token } = await seedUser(app);
    const base = clock.ms() - 50_000 * 300_000;
    const big = Array.from({ length: 50_000 }, (_, i) => ({
      sensor_id: 3,
      timestamp: new Date(base + i * 300_000).toISOString(),
      value_mg_dl: 100,
    }));
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: big })).body,
    ).toBe(50_000);
    const over = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: [...big, big[0]],
    });
    expect(over.status).toBe(422);
    expect(over.body.detail[0].loc[0]).toBe('body');
    // other routes keep the 1 MB limit
    const huge = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: minutesAgo(1), value_mg_dl: 100, pad: 'x'.repeat(1_100_000) },
    });
    expect(huge.status).toBe(413);
  }, 60_000);

  it("never shows another user's readings, and DELETE removes only the caller's", async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    await rest(app, 'POST', '/api/glucose/readings/batch', { token: ann.token, body: readings(5) });
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: bob.token,
      body: readings(3, () => 222),
    });
    const bobs = await rest(app, 'GET', '/api/glucose/readings', { token: bob.token });
    expect(bobs.body.map((r: any) => r.value_mg_dl)).toEqual([222, 222, 222]);
    const deleted = await rest(app, 'DELETE', '/api/glucose/readings', { token: bob.token });
    expect(deleted.body).toEqual({ deleted: 3 });
    expect((await rest(app, 'GET', '/api/glucose/readings', { token: bob.token })).body).toEqual(
      [],
    );
    expect(
      (await rest(app, 'GET', '/api/glucose/readings', { token: ann.token })).body,
    ).toHaveLength(5);
    // deleted readings can be uploaded again (hard delete)
    expect(
      (
        await rest(app, 'POST', '/api/glucose/readings/batch', {
          token: bob.token,
          body: readings(3),
        })
      ).body,
    ).toBe(3);
  });

  it("lets a grantee viewing as read the owner's readings but not write", async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: owner.token,
      body: readings(4, () => 150),
    });
    const grantId = await seedActiveGrant(app, owner, grantee);
    expect(
      (
        await rest(app, 'POST', '/api/v1/view-as', {
          token: grantee.token,
          body: { grant_id: grantId },
        })
      ).status,
    ).toBe(200);
    const viewed = await rest(app, 'GET', '/api/glucose/readings', { token: grantee.token });
    expect(viewed.body.map((r: any) => r.value_mg_dl)).toEqual([150, 150, 150, 150]);
    const write = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: grantee.token,
      body: readings(1),
    });
    expect(write.status).toBe(403);
    expect(
      (await rest(app, 'DELETE', '/api/glucose/readings', { token: grantee.token })).status,
    ).toBe(403);
  });
});

describe('raw sensor data and processing', () => {
  const samples = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      timestamp: minutesAgo(5 * (n - i)),
      raw_value: 800 + 10 * i,
      temperature_c: 33 + (i % 3),
    }));

  it('processes a sensor payload into readings, stores the raw data, and rebuilds identical readings from it', async () => {
    const { token } = await seedUser(app);
    const payload = {
      sensor_id: 4,
      serial_number: 'SN-4',
      calibration_slope: 0.125,
      calibration_intercept: 5,
      samples: samples(12),
    };
    const out = await rest(app, 'POST', '/api/glucose/process-sensor', { token, body: payload });
    expect(out.status).toBe(200);
    expect(out.body).toHaveLength(12);
    expect(out.body[0]).toMatchObject({
      sensor_id: 4,
      value_mg_dl: 105,
      source: 'sensor',
      processing_version: 1,
    });
    // the same payload again changes nothing
    expect(
      (await rest(app, 'POST', '/api/glucose/process-sensor', { token, body: payload })).body,
    ).toEqual(out.body);

    const before = (await rest(app, 'GET', '/api/glucose/readings?sensor_id=4&sort=asc', { token }))
      .body;
    expect(before).toEqual(out.body);
    const rebuilt = await rest(app, 'POST', '/api/glucose/sensor/rebuild-from-raw', {
      token,
      body: { sensor_id: 4 },
    });
    expect(rebuilt.body).toEqual({ deleted: 12, inserted: 12, processing_version: 1 });
    const after = (await rest(app, 'GET', '/api/glucose/readings?sensor_id=4&sort=asc', { token }))
      .body;
    expect(after).toEqual(before);

    const status = await rest(app, 'GET', '/api/glucose/readings?sensor_id=4&limit=1', { token });
    expect(status.body[0].timestamp).toBe(payload.samples.at(-1)!.timestamp);
  });

  it('stores raw batches idempotently and rebuilds a sensor from raw data alone', async () => {
    const { token } = await seedUser(app);
    const raw = samples(6).map((s) => ({ ...s, sensor_id: 9 }));
    expect((await rest(app, 'POST', '/api/glucose/raw/batch', { token, body: raw })).body).toBe(6);
    expect((await rest(app, 'POST', '/api/glucose/raw/batch', { token, body: raw })).body).toBe(0);
    const rebuilt = await rest(app, 'POST', '/api/glucose/sensor/rebuild-from-raw', {
      token,
      body: { sensor_id: 9 },
    });
    expect(rebuilt.body).toEqual({ deleted: 0, inserted: 6, processing_version: 1 });
    // another user's rebuild of the same sensor number touches nothing of this user
    const other = await seedUser(app);
    expect(
      (
        await rest(app, 'POST', '/api/glucose/sensor/rebuild-from-raw', {
          token: other.token,
          body: { sensor_id: 9 },
        })
      ).body,
    ).toEqual({ deleted: 0, inserted: 0, processing_version: 1 });
    expect(
      (await rest(app, 'GET', '/api/glucose/readings?sensor_id=9', { token })).body,
    ).toHaveLength(6);
  });

  it('refuses an empty payload and a sensor_id of 0 with 422', async () => {
    const { token } = await seedUser(app);
    const empty = await rest(app, 'POST', '/api/glucose/process-sensor', {
      token,
      body: { sensor_id: 1, samples: [] },
    });
    expect(empty.status).toBe(422);
    const zero = await rest(app, 'POST', '/api/glucose/sensor/rebuild-from-raw', {
      token,
      body: { sensor_id: 0 },
    });
    expect(zero.status).toBe(422);
    // raw/batch follows the other raw routes: sensor 0 (manual readings) has no raw data
    const sample = { timestamp: clock.now().toISOString(), raw_value: 1200 };
    const rawZero = await rest(app, 'POST', '/api/glucose/raw/batch', {
      token,
      body: [
        { ...sample, sensor_id: 1 },
        { ...sample, sensor_id: 0 },
      ],
    });
    expect(rawZero.status).toBe(422);
    expect(rawZero.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 1, 'sensor_id'], type: 'greater_than_equal' }),
    ]);
    expect(
      await app.db.prisma.rawSensorData.count({
        where: { userId: (await rest(app, 'GET', '/api/auth/me', { token })).body.id },
      }),
    ).toBe(0);
  });
});

describe('GET /api/glucose/trends', () => {
  it('answers 422 at since_hours 0 and 43801 and for an unparseable date', async () => {
    const { token } = await seedUser(app);
    for (const q of ['since_hours=0', 'since_hours=43801', 'start_date=yesterday']) {
      const res = await rest(app, 'GET', `/api/glucose/trends?${q}`, { token });
      expect(res.status, q).toBe(422);
      expect(res.body.detail[0].loc, q).toEqual(['query', q.split('=')[0]]);
    }
  });

  it('answers the statistics of the last 6 hours by default', async () => {
    const { token } = await seedUser(app);
    // 72 readings in 6 h: half at 50, half at 200
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: readings(72, (i) => (i % 2 ? 50 : 200)).map((r, i) => ({
        ...r,
        timestamp: minutesAgo(5 * i + 1),
      })),
    });
    const res = await rest(app, 'GET', '/api/glucose/trends', { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      count: 72,
      coverage_pct: 100,
      mean: 125,
      time_very_low_pct: 50,
      time_high_pct: 50,
      // six hours are not a GMI (issue 47: at least 14 days with 70 % coverage)
      gmi: null,
      gmi_note: 'GMI needs at least 14 days of CGM data; this window is 0.3 days.',
    });
    expect(res.body.hourly).toHaveLength(24);
    const window = await rest(
      app,
      'GET',
      `/api/glucose/trends?start_date=${minutesAgo(60)}&end_date=${minutesAgo(0)}`,
      { token },
    );
    expect(window.body.count).toBe(12);
  });

  it("answers the AGP by the person's local hour, names the zone, and reads a date as local (issue 47)", async () => {
    const { user, token } = await seedUser(app);
    await app.db.prisma.user.update({
      where: { id: user.id },
      data: { timezone: 'America/Los_Angeles' },
    });
    // 07:00-07:55 in Los Angeles on 2026-01-14 (PST, UTC-8): 15:00-15:55Z
    const base = Date.parse('2026-01-14T15:00:00Z');
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: readings(12, () => 150).map((r, i) => ({
        ...r,
        timestamp: new Date(base + i * 300_000).toISOString(),
      })),
    });
    // the local day 2026-01-14 is 08:00Z on the 14th to 08:00Z on the 15th
    const res = await rest(
      app,
      'GET',
      '/api/glucose/trends?start_date=2026-01-14&end_date=2026-01-15',
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.timezone).toBe('America/Los_Angeles');
    expect(res.body.start).toBe('2026-01-14T08:00:00.000Z');
    expect(res.body.count).toBe(12);
    expect(res.body.hourly[7]).toMatchObject({ hour: 7, count: 12, p50: 150 });
    expect(res.body.hourly[15].count).toBe(0);
  });

  it('counts CGM readings alone in time in range and the AGP; fingersticks are beside them (issue 47)', async () => {
    const { token } = await seedUser(app);
    // an hour of CGM readings at 150 mg/dL (a batch is source cgm) ...
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: readings(12, () => 150).map((r, i) => ({ ...r, timestamp: minutesAgo(5 * i + 1) })),
    });
    // ... and two fingersticks typed by hand (one reading is source manual)
    for (const [value, ago] of [
      [40, 7],
      [300, 33],
    ]) {
      const res = await rest(app, 'POST', '/api/glucose/readings', {
        token,
        body: { timestamp: minutesAgo(ago), value_mg_dl: value },
      });
      expect(res.status).toBe(200);
    }
    const res = await rest(app, 'GET', '/api/glucose/trends?since_hours=2', { token });
    expect(res.body).toMatchObject({
      count: 12,
      mean: 150,
      min: 150,
      max: 150,
      time_in_range_pct: 100,
      time_very_low_pct: 0,
      time_very_high_pct: 0,
      fingersticks: { count: 2, mean: 170, min: 40, max: 300 },
    });
    const hourly = res.body.hourly as { count: number }[];
    expect(hourly.reduce((n, h) => n + h.count, 0)).toBe(12);
  });

  it('answers GMI over 14 days with 70 % coverage, and not below (issue 47)', async () => {
    const { token } = await seedUser(app);
    // 14 days of 5-minute readings at 154 mg/dL (GMI 6.99 %), but one day in four missing at first
    const end = Date.parse('2026-02-15T00:00:00Z');
    const start = end - 14 * 86_400_000;
    const all = Array.from({ length: 14 * 288 }, (_, i) => start + i * 300_000);
    const post = (times: number[]) =>
      rest(app, 'POST', '/api/glucose/readings/batch', {
        token,
        body: times.map((t) => ({ timestamp: new Date(t).toISOString(), value_mg_dl: 154 })),
      });
    const sparse = all.filter((t) => Math.floor((t - start) / 86_400_000) % 2 === 0);
    await post(sparse);
    const q = `start_date=${new Date(start).toISOString()}&end_date=${new Date(end).toISOString()}`;
    const half = await rest(app, 'GET', `/api/glucose/trends?${q}`, { token });
    expect(half.body).toMatchObject({ gmi: null, coverage_pct: 50 });
    expect(half.body.gmi_note).toMatch(/at least 70 % sensor coverage; this window has 50 %/);
    await post(all.filter((t) => !sparse.includes(t)));
    const full = await rest(app, 'GET', `/api/glucose/trends?${q}`, { token });
    expect(full.body).toMatchObject({ gmi: 6.99, gmi_note: null, coverage_pct: 100 });
  });
});

describe('MCP glucose tools', () => {
  it('reads readings in mg/dL with health meta, and sensor status; a token without the scope is refused', async () => {
    const { user, token } = await seedUser(app);
    await rest(app, 'POST', '/api/glucose/process-sensor', {
      token,
      body: {
        sensor_id: 2,
        serial_number: 'ABC',
        samples: [{ timestamp: minutesAgo(5), raw_value: 140 }],
      },
    });
    const pat = await seedPersonalToken(app, user.id, ['health:glucose:read']);
    const client = await mcpClient(app, pat);
    const names = (await client.listTools()).tools.map((t) => t.name);
    // issue 11: the spec's no-scope tools are listed only with their fields' scopes
    expect(names).toEqual([
      'get_glucose_readings',
      'glucose_readings_read',
      'meal_detected_list',
      'meal_glucose_response_read',
      'sensors_cgm_status_read',
    ]);
    for (const tool of ['get_glucose_readings', 'glucose_readings_read']) {
      const result = await callTool(client, tool, { since_hours: 1 });
      expect(result.structuredContent, tool).toMatchObject({
        items: [{ sensor_id: 2, value_mg_dl: 140 }],
        // the sensor payload is an ingest of the phone: it marks the phone synced (issue 11)
        meta: { phone_last_sync_at: expect.any(String) },
      });
    }
    const sensors = await callTool(client, 'sensors_cgm_status_read');
    expect(sensors.structuredContent).toMatchObject({
      items: [{ sensor_id: 2, serial_number: 'ABC', reading_count: 1, last_value_mg_dl: 140 }],
    });

    const other = await mcpClient(app, await seedPersonalToken(app, user.id, ['profile:read']));
    expect((await other.listTools()).tools.map((t) => t.name)).not.toContain(
      'get_glucose_readings',
    );
    const refused = await callTool(other, 'get_glucose_readings');
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as any).error).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });
});
