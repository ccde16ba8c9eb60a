/**
 * The admin API (issue 15): every route's auth (401/403/200), list bounds (422), filters, 404 for an
 * unknown person, the audit entries, and the raw sensor data stream equal to the GraphQL chunks.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const prisma = app.db.prisma;
const admin = await seedUser(app, { isAdmin: true, name: 'The Admin' });
const person = await seedUser(app, { name: 'Zebedee Quux' });
const other = await seedUser(app);
const UNKNOWN = 2_000_000_000;

const get = (path: string, who: SeededUser = admin) => rest(app, 'GET', path, { token: who.token });
const auditOf = (action: string, targetUserId: number | null) =>
  prisma.adminAuditEntry.findMany({
    where: { action, targetUserId, adminUserId: admin.user.id },
    orderBy: { id: 'desc' },
  });

/** Raw samples: `count` per sensor, one minute apart from `from`. */
async function seedRaw(userId: number, sensorIds: number[], count: number, from: Date) {
  const data = sensorIds.flatMap((sensorId) =>
    Array.from({ length: count }, (_, i) => ({
      id: `r:${userId}:${sensorId}:${i}`,
      userId,
      sensorId,
      timestamp: new Date(from.getTime() + i * 60_000),
      rawValue: 1000 + i,
      temperatureC: i % 2 ? 31.5 : null,
    })),
  );
  await prisma.rawSensorData.createMany({ data });
}

const DAY0 = new Date('2026-01-01T00:00:00Z');
await seedRaw(person.user.id, [1, 2], 6_000, DAY0);
await seedRaw(other.user.id, [7], 500, DAY0);
await prisma.glucoseReading.createMany({
  data: [60, 100, 150, 200].map((v, i) => ({
    id: `g:${person.user.id}:${i}`,
    userId: person.user.id,
    sensorId: 1,
    timestamp: new Date(clock.ms() - (i + 1) * 3600_000),
    valueMgDl: v,
  })),
});
await prisma.sensorSession.createMany({
  data: [
    { id: `s1:${person.user.id}`, userId: person.user.id, serialNumber: 'SN-A', startedAt: DAY0 },
    {
      id: `s2:${person.user.id}`,
      userId: person.user.id,
      serialNumber: 'SN-B',
      startedAt: DAY0,
      status: 'unbound',
      unboundAt: DAY0,
    },
  ],
});
await prisma.food.createMany({
  data: [
    {
      id: 'adm-1',
      source: 'usda_foundation',
      description: 'Kohlrabi, raw',
      searchText: 'kohlrabi, raw',
    },
    {
      id: 'adm-2',
      source: 'open_food_facts',
      description: 'Kohlrabi crisps',
      searchText: 'kohlrabi crisps',
    },
    {
      id: 'custom:adm-3',
      source: 'custom',
      description: 'My kohlrabi',
      searchText: 'my kohlrabi',
      ownerUserId: person.user.id,
    },
  ],
});

const ROUTES: [string, string][] = [
  ['GET', '/api/admin/dashboard/stats'],
  ['GET', '/api/admin/users'],
  ['GET', `/api/admin/users/${person.user.id}`],
  ['GET', '/api/admin/glucose/aggregate'],
  ['GET', '/api/admin/sensors'],
  ['GET', `/api/admin/raw-sensor-data?user_id=${other.user.id}`],
  ['GET', '/api/admin/insights'],
  ['POST', `/api/admin/insights/trigger/${person.user.id}`],
  ['GET', '/api/admin/food'],
  ['GET', '/api/admin/events'],
  ['GET', '/api/admin/system/status'],
];

describe('admin routes: who may call them', () => {
  it.each(ROUTES)(
    '%s %s answers 401 without a token, 403 to a non-admin, 200 to an admin',
    async (method, path) => {
      const anonymous = await rest(app, method, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect((await rest(app, method, path, { token: person.token })).status).toBe(403);
      expect((await rest(app, method, path, { token: admin.token })).status).toBe(200);
    },
  );

  it('checks the credential before the parameters (401, not 422, for a bad limit)', async () => {
    expect((await rest(app, 'GET', '/api/admin/users?limit=0')).status).toBe(401);
    expect((await get('/api/admin/users?limit=0')).status).toBe(422);
  });

  it('refuses every admin field over GraphQL to a non-admin (403 FORBIDDEN)', async () => {
    const r = await gql(app, '{ adminAuditLog { total } }', { token: person.token });
    expect(r.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('GET /api/admin/users', () => {
  it('pages newest first with page >= 1 (default 1) and limit 1..100 (default 10)', async () => {
    const r = await get('/api/admin/users');
    expect(r.body).toMatchObject({ page: 1, limit: 10 });
    expect(r.body.total).toBeGreaterThanOrEqual(3);
    const ids = r.body.items.map((u: { id: number }) => u.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const second = await get('/api/admin/users?limit=1&page=2');
    expect(second.body.items).toEqual([r.body.items[1]]);
    expect((await get('/api/admin/users?limit=100')).status).toBe(200);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['limit=abc', 'limit'],
  ])('answers 422 for %s', async (query, name) => {
    const r = await get(`/api/admin/users?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['query', name]);
  });

  it('searches the address or the name, case-insensitively, and audits the list', async () => {
    const r = await get('/api/admin/users?search=zEbEdEe');
    expect(r.body.items.map((u: { id: number }) => u.id)).toEqual([person.user.id]);
    expect(r.body.items[0]).toMatchObject({ email: person.user.email, is_admin: false });
    const byMail = await get(`/api/admin/users?search=${encodeURIComponent(other.user.email)}`);
    expect(byMail.body.items.map((u: { id: number }) => u.id)).toEqual([other.user.id]);
    const [entry] = await auditOf('adminUsers', null);
    expect(entry.detail).toMatchObject({ search: other.user.email, page: 1, limit: 10 });
  });
});

describe('GET /api/admin/users/{user_id}', () => {
  it("answers the person's account and data counts and writes an audit entry", async () => {
    const before = (await auditOf('adminUser', person.user.id)).length;
    const r = await get(`/api/admin/users/${person.user.id}`);
    expect(r.body).toMatchObject({
      id: person.user.id,
      email: person.user.email,
      active_sessions: 1,
      glucose: { readings: 4, raw_samples: 12_000 },
    });
    expect(r.body.password_hash).toBeUndefined();
    expect(await auditOf('adminUser', person.user.id)).toHaveLength(before + 1);
  });

  it('answers 404 for an unknown id and 422 for one that is not a number', async () => {
    const r = await get(`/api/admin/users/${UNKNOWN}`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: 'User not found' });
    expect((await get('/api/admin/users/abc')).status).toBe(422);
  });
});

describe('GET /api/admin/dashboard/stats and /glucose/aggregate', () => {
  it('count accounts, glucose and sensors over everyone', async () => {
    const agg = await get('/api/admin/glucose/aggregate');
    expect(agg.body).toMatchObject({
      readings: 4,
      people: 1,
      mean_mg_dl: 127.5,
      min_mg_dl: 60,
      max_mg_dl: 200,
      in_range_pct: 50,
      readings_last24h: 4,
      raw_samples: 12_500,
    });
    const stats = await get('/api/admin/dashboard/stats');
    expect(stats.body.glucose).toEqual({ ...agg.body });
    expect(stats.body.accounts.admins).toBeGreaterThanOrEqual(1);
    expect(stats.body.accounts.users).toBeGreaterThanOrEqual(3);
    expect(stats.body.sensors).toEqual({ active: 1, unbound: 1 });
  });
});

describe('GET /api/admin/sensors', () => {
  it('filters by status and refuses an unknown one (422)', async () => {
    const all = await get('/api/admin/sensors');
    expect(all.body.total).toBe(2);
    const active = await get('/api/admin/sensors?status=active');
    expect(active.body.items.map((s: { serial_number: string }) => s.serial_number)).toEqual([
      'SN-A',
    ]);
    expect(active.body.items[0].user_id).toBe(person.user.id);
    const unbound = await get('/api/admin/sensors?status=unbound');
    expect(unbound.body.items.map((s: { serial_number: string }) => s.serial_number)).toEqual([
      'SN-B',
    ]);
    expect((await get('/api/admin/sensors?status=lost')).status).toBe(422);
    expect((await get('/api/admin/sensors?limit=101')).status).toBe(422);
  });
});

const RAW_QUERY = `query($userId: Int, $sensorId: Int, $startDate: String, $endDate: String, $page: Int, $limit: Int, $after: String, $first: Int) {
  adminRawSensorData(userId: $userId, sensorId: $sensorId, startDate: $startDate, endDate: $endDate, page: $page, limit: $limit, after: $after, first: $first) {
    page limit nextCursor rows { id userId sensorId timestamp rawValue temperatureC }
  }
}`;

/** Every chunk of a window through GraphQL, following nextCursor. */
async function rawChunks(variables: Record<string, unknown>) {
  const chunks: { rows: Record<string, unknown>[]; nextCursor: string | null }[] = [];
  let after: string | null = null;
  do {
    const r = await gql(app, RAW_QUERY, { token: admin.token, variables: { ...variables, after } });
    expect(r.body.errors).toBeUndefined();
    chunks.push(r.body.data.adminRawSensorData);
    after = chunks.at(-1)!.nextCursor;
  } while (after);
  return chunks;
}

const snake = (row: Record<string, unknown>) => ({
  id: row.id,
  user_id: row.userId,
  sensor_id: row.sensorId,
  timestamp: row.timestamp,
  raw_value: row.rawValue,
  temperature_c: row.temperatureC,
});

describe('GET /api/admin/raw-sensor-data (streamed)', () => {
  it('streams one JSON array equal to the GraphQL chunks, in person, sensor, time order', async () => {
    const chunks = await rawChunks({ userId: person.user.id });
    expect(chunks.map((c) => c.rows.length)).toEqual([5000, 5000, 2000]);
    const res = await app.fetch(`/api/admin/raw-sensor-data?user_id=${person.user.id}`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const body = (await res.json()) as Record<string, unknown>[];
    expect(body).toEqual(chunks.flatMap((c) => c.rows.map(snake)));
    expect(body[0]).toMatchObject({ sensor_id: 1, raw_value: 1000, temperature_c: null });
    expect(body[6000]).toMatchObject({ sensor_id: 2, raw_value: 1000 });
  });

  it('windows by page and limit, and filters by sensor and dates', async () => {
    const window2 = await get(
      `/api/admin/raw-sensor-data?user_id=${person.user.id}&limit=7000&page=2`,
    );
    expect(window2.body).toHaveLength(5000);
    expect(window2.body[0]).toMatchObject({ sensor_id: 2, raw_value: 2000 });
    const chunks = await rawChunks({ userId: person.user.id, limit: 7000, page: 2, first: 3000 });
    expect(chunks.flatMap((c) => c.rows.map(snake))).toEqual(window2.body);

    const sensor = await get(
      `/api/admin/raw-sensor-data?user_id=${person.user.id}&sensor_id=2&limit=10`,
    );
    expect(sensor.body.map((r: { sensor_id: number }) => r.sensor_id)).toEqual(Array(10).fill(2));
    const firstHour = await get(
      `/api/admin/raw-sensor-data?sensor_id=7&start_date=2026-01-01T00:00:00Z&end_date=2026-01-01T01:00:00Z`,
    );
    expect(firstHour.body).toHaveLength(60);
    expect(firstHour.body.every((r: { user_id: number }) => r.user_id === other.user.id)).toBe(
      true,
    );
    const wholeDay = await get('/api/admin/raw-sensor-data?sensor_id=7&end_date=2026-01-01');
    expect(wholeDay.body).toHaveLength(500);
    const nextDay = await get('/api/admin/raw-sensor-data?sensor_id=7&start_date=2026-01-02');
    expect(nextDay.body).toEqual([]);
  });

  it('audits the export once (its first chunk) with its filters', async () => {
    const before = (await auditOf('adminRawSensorData', other.user.id)).length;
    await rawChunks({ userId: other.user.id, first: 100 });
    const entries = await auditOf('adminRawSensorData', other.user.id);
    expect(entries).toHaveLength(before + 1);
    expect(entries[0].detail).toMatchObject({ page: 1, limit: 50_000, sensorId: null });
  });

  it('answers 404 for an unknown person and 422 for bad bounds, dates and cursors', async () => {
    expect((await get(`/api/admin/raw-sensor-data?user_id=${UNKNOWN}`)).status).toBe(404);
    for (const query of [
      'page=0',
      'limit=0',
      'start_date=yesterday',
      'start_date=2026-02-01&end_date=2026-01-01',
      'start_date=%2B275760-09-13T00%3A00%3A00.000Z',
      'end_date=1899-12-31',
    ]) {
      const r = await get(`/api/admin/raw-sensor-data?${query}`);
      expect(r.status, query).toBe(422);
    }
    const bad = await gql(app, RAW_QUERY, { token: admin.token, variables: { after: 'xyz' } });
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const big = await gql(app, RAW_QUERY, { token: admin.token, variables: { first: 5001 } });
    expect(big.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe('insights', () => {
  it("POST /trigger/{user_id} computes the person's insights, audited; GET lists the run", async () => {
    const r = await rest(app, 'POST', `/api/admin/insights/trigger/${person.user.id}`, {
      token: admin.token,
    });
    expect(r.status).toBe(200);
    expect(r.body.user_id).toBe(person.user.id);
    expect(Array.isArray(r.body.cards)).toBe(true);
    expect(r.body.suggestions).toHaveProperty('timezone');
    const [entry] = await auditOf('triggerAdminInsights', person.user.id);
    expect(entry).toBeDefined();
    const overview = await get('/api/admin/insights');
    expect(overview.body.recent_runs[0]).toMatchObject({
      id: entry.id,
      target_user_id: person.user.id,
    });
    expect(overview.body.thresholds).toEqual({
      low_mg_dl: 70,
      high_mg_dl: 180,
      prediction_horizon_minutes: 30,
    });
    expect(overview.body.people_with_glucose).toBe(1);
  });

  it('answers 404 for an unknown person and writes no audit entry', async () => {
    const r = await rest(app, 'POST', `/api/admin/insights/trigger/${UNKNOWN}`, {
      token: admin.token,
    });
    expect(r.status).toBe(404);
    expect(await auditOf('triggerAdminInsights', UNKNOWN)).toEqual([]);
  });
});

describe('GET /api/admin/food', () => {
  it('searches the catalogue by text and source, never listing custom foods', async () => {
    const all = await get('/api/admin/food?search=KOHLRABI');
    expect(all.body.items.map((f: { id: string }) => f.id)).toEqual(['adm-1', 'adm-2']);
    const off = await get('/api/admin/food?search=kohlrabi&source=open_food_facts');
    expect(off.body.items.map((f: { id: string }) => f.id)).toEqual(['adm-2']);
    expect((await get('/api/admin/food?source=custom')).body.total).toBe(0);
    expect((await get('/api/admin/food?limit=0')).status).toBe(422);
  });
});

describe('GET /api/admin/events', () => {
  it('lists sign-ups, sign-ins and admin actions newest first, by type and person', async () => {
    const mine = await get(`/api/admin/events?user_id=${other.user.id}`);
    const types = mine.body.items.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['signup', 'sign_in', 'admin_action']));
    expect(mine.body.items.every((e: { user_id: number }) => e.user_id === other.user.id)).toBe(
      true,
    );
    const ats = mine.body.items.map((e: { at: string }) => Date.parse(e.at));
    expect(ats).toEqual([...ats].sort((a, b) => b - a));
    const signIns = await get(`/api/admin/events?type=sign_in&user_id=${other.user.id}`);
    expect(signIns.body.items).toEqual([
      expect.objectContaining({ type: 'sign_in', detail: { kind: 'native' } }),
    ]);
    const [entry] = await auditOf('adminEvents', other.user.id);
    expect(entry.detail).toMatchObject({ type: 'sign_in' });
  });

  it('answers 404 for an unknown person and 422 for an unknown type or page 0', async () => {
    expect((await get(`/api/admin/events?user_id=${UNKNOWN}`)).status).toBe(404);
    expect((await get('/api/admin/events?type=party')).status).toBe(422);
    expect((await get('/api/admin/events?page=0')).status).toBe(422);
  });
});

describe('GET /api/admin/system/status', () => {
  it('reports database, migrations, limits store, version, uptime and counts, nothing secret', async () => {
    const r = await get('/api/admin/system/status');
    expect(r.body).toMatchObject({
      status: 'ok',
      version: '0.1.0',
      database: { kind: process.env.TEST_DATABASE_URL ? 'postgresql' : 'pglite', reachable: true },
      migrations: { up_to_date: true, pending: [] },
      limits_store: { kind: process.env.TEST_REDIS_URL ? 'redis' : 'memory' },
      counts: { raw_samples: 12_500, glucose_readings: 4 },
    });
    expect(r.body.uptime_seconds).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(r.body);
    for (const secret of [app.config.jwtSecret, app.config.DATA_DIR].filter(Boolean)) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('adminAuditLog (GraphQL)', () => {
  it('pages the audit log newest first, by person and action', async () => {
    await get(`/api/admin/users/${other.user.id}`);
    const r = await gql(
      app,
      `query($t: Int) { adminAuditLog(targetUserId: $t, action: "adminUser", limit: 1) {
         total page limit items { adminUserId targetUserId action createdAt } } }`,
      { token: admin.token, variables: { t: other.user.id } },
    );
    expect(r.body.data.adminAuditLog).toMatchObject({
      total: 1,
      page: 1,
      limit: 1,
      items: [{ adminUserId: admin.user.id, targetUserId: other.user.id, action: 'adminUser' }],
    });
    const bad = await gql(app, '{ adminAuditLog(limit: 101) { total } }', { token: admin.token });
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});
