/**
 * Scopes per synced table (issue 10, security 1): sync is not a way around the read and write
 * routes' scopes. A personal token pulls and lists only the tables whose read scope it holds (the
 * pull names the others in omitted_tables) and pushes only to tables whose write scope it holds
 * (403 otherwise, nothing written); login sessions hold every scope and sync everything.
 */
import { describe, expect, it } from 'vitest';
import { SYNCED_TABLES } from '../../src/domains/sync/sync.tables.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const T0 = Date.parse('2026-11-20T08:00:00Z');
let n = 0;
const newId = (): string =>
  `sc${String(++n).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;

/** One valid new record per synced table (meals before meal_items: an item names its meal). */
function oneOfEach(): Record<string, Record<string, unknown>> {
  const mealId = newId();
  const savedMealId = newId();
  const labReportId = newId();
  return {
    journal_entries: { id: newId(), body: 'slept well', happened_at: T0, mood: 4 },
    glucose_readings: { id: newId(), sensor_id: 1, timestamp: T0, value_mg_dl: 120 },
    raw_sensor_data: { id: newId(), sensor_id: 1, timestamp: T0, raw_value: 1200 },
    glucose_sensors: { id: newId(), sensor_id: 1 },
    sensor_sessions: { id: newId(), serial_number: 'SN-1', started_at: T0 },
    health_metrics: {
      id: newId(),
      metric_type: 'steps',
      value: 420,
      unit: 'count',
      timestamp: T0,
      source: 'iPhone',
    },
    sleep_samples: {
      id: newId(),
      stage: 'deep',
      start_at: T0,
      end_at: T0 + 1_800_000,
      source: 'Watch',
    },
    workout_samples: {
      id: newId(),
      activity_type: 'running',
      start_at: T0,
      end_at: T0 + 1_800_000,
      duration_minutes: 30,
      source: 'Watch',
    },
    meals: { id: mealId, meal_name: 'Oats', eaten_at: T0 },
    meal_items: { id: newId(), meal_id: mealId, name: 'Oats', grams: 50 },
    saved_meals: { id: savedMealId, name: 'Porridge' },
    saved_meal_items: { id: newId(), saved_meal_id: savedMealId, name: 'Oats', grams: 50 },
    favorite_foods: { id: newId(), food_id: '173944', name: 'Bananas, raw' },
    blood_pressure_readings: { id: newId(), systolic: 120, diastolic: 80, measured_at: T0 },
    log_entries: { id: newId(), kind: 'hydration', value: 250, unit: 'ml', logged_at: T0 },
    goals: { id: newId(), metric: 'steps', target: 8000 },
    snore_nights: { id: newId(), started_at: T0, ended_at: T0 + 25_200_000, snoring_minutes: 30 },
    lab_reports: { id: labReportId, drawn_on: '2026-03-14' },
    lab_results: {
      id: newId(),
      report_id: labReportId,
      marker_id: 'glucose',
      loinc: '2345-7',
      value: 98,
      unit: 'mg/dL',
    },
  };
}

const ALL_TABLES = SYNCED_TABLES.map((t) => t.table);
const GLUCOSE_TABLES = [
  'glucose_readings',
  'raw_sensor_data',
  'glucose_sensors',
  'sensor_sessions',
];
const created = (records: Record<string, Record<string, unknown>>) =>
  Object.fromEntries(
    Object.entries(records).map(([table, r]) => [
      table,
      { created: [r], updated: [], deleted: [] },
    ]),
  );

/** A user whose phone (a login session) pushed one record to every synced table. */
async function userWithEveryTable(): Promise<SeededUser> {
  const u = await seedUser(app);
  const res = await rest(app, 'POST', '/api/sync/push', {
    token: u.token,
    body: { changes: created(oneOfEach()), last_pulled_at: null },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.accepted).toBe(ALL_TABLES.length);
  return u;
}

const pull = (token: string, query = '') => rest(app, 'GET', `/api/sync/pull${query}`, { token });
const push = (token: string, changes: unknown) =>
  rest(app, 'POST', '/api/sync/push', { token, body: { changes, last_pulled_at: null } });
/** table -> number of live records the pull answered */
const counts = (changes: Record<string, { created: unknown[] }>) =>
  Object.fromEntries(Object.entries(changes).map(([t, c]) => [t, c.created.length]));
const only = (tables: string[]) => Object.fromEntries(tables.map((t) => [t, 1]));
const others = (tables: string[]) => ALL_TABLES.filter((t) => !tables.includes(t));

describe('sync scopes: the registry', () => {
  it('gives every synced table a read and a write scope, and the test a record of it', () => {
    expect(Object.keys(oneOfEach())).toEqual(ALL_TABLES);
    expect(
      Object.fromEntries(SYNCED_TABLES.map((t) => [t.table, [t.readScope, t.writeScope]])),
    ).toEqual({
      journal_entries: ['health:summary:read', 'health:logs:write'],
      glucose_readings: ['health:glucose:read', 'health:logs:write'],
      raw_sensor_data: ['health:glucose:read', 'health:logs:write'],
      glucose_sensors: ['health:glucose:read', 'health:logs:write'],
      sensor_sessions: ['health:glucose:read', 'health:logs:write'],
      health_metrics: ['health:metrics:read', 'health:logs:write'],
      sleep_samples: ['health:sleep:read', 'health:logs:write'],
      workout_samples: ['health:workouts:read', 'health:logs:write'],
      meals: ['health:nutrition:read', 'health:nutrition:write'],
      meal_items: ['health:nutrition:read', 'health:nutrition:write'],
      saved_meals: ['health:nutrition:read', 'health:nutrition:write'],
      saved_meal_items: ['health:nutrition:read', 'health:nutrition:write'],
      favorite_foods: ['health:nutrition:read', 'health:nutrition:write'],
      blood_pressure_readings: ['health:metrics:read', 'health:logs:write'],
      log_entries: ['health:metrics:read', 'health:logs:write'],
      goals: ['goals:read', 'goals:write'],
      snore_nights: ['health:sleep:read', 'health:logs:write'],
      lab_reports: ['health:labs:read', 'health:labs:write'],
      lab_results: ['health:labs:read', 'health:labs:write'],
    });
  });
});

describe('GET /api/sync/pull with a personal token (issue 10)', () => {
  it('gives a health:summary:read token no glucose, raw, metric or meal rows, and names them in omitted_tables', async () => {
    const u = await userWithEveryTable();
    const token = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
    const res = await pull(token);
    expect(res.status).toBe(200);
    expect(counts(res.body.changes)).toEqual(only(['journal_entries']));
    expect(res.body.omitted_tables).toEqual(others(['journal_entries']));
  });

  it('gives a token with health:glucose:read the glucose tables and nothing else', async () => {
    const u = await userWithEveryTable();
    const token = await seedPersonalToken(app, u.user.id, [
      'health:summary:read',
      'health:glucose:read',
    ]);
    const res = await pull(token);
    expect(counts(res.body.changes)).toEqual(only(['journal_entries', ...GLUCOSE_TABLES]));
    expect(res.body.omitted_tables).toEqual(others(['journal_entries', ...GLUCOSE_TABLES]));
    const later = await pull(token, `?last_pulled_at=${res.body.timestamp}`);
    expect(Object.keys(later.body.changes)).toEqual(['journal_entries', ...GLUCOSE_TABLES]);
  });

  it('checks the scopes on every page: a cursor pointing at a table the token may not read skips it', async () => {
    const u = await userWithEveryTable();
    const token = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
    // a hand-made cursor (opaque, but only base64url JSON) that continues at glucose_readings
    const cursor = {
      s: clock.ms() + 60_000,
      t: null,
      v: null,
      iv: 1,
      x: [],
      i: ALL_TABLES.indexOf('glucose_readings'),
      a: null,
    };
    const res = await pull(
      token,
      `?cursor=${Buffer.from(JSON.stringify(cursor)).toString('base64url')}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.changes).toEqual({});
    expect(res.body.omitted_tables).toEqual(others(['journal_entries']));
  });

  it('leaves a login session unchanged: every table, none omitted', async () => {
    const u = await userWithEveryTable();
    const res = await pull(u.token);
    expect(counts(res.body.changes)).toEqual(only(ALL_TABLES));
    expect(res.body.omitted_tables).toEqual([]);
  });

  it("lets a grantee's token viewing as the owner pull only the owner's tables its scopes cover", async () => {
    const [owner, grantee] = [await userWithEveryTable(), await seedUser(app)];
    const grantId = await seedActiveGrant(app, owner, grantee);
    const token = await seedPersonalToken(app, grantee.user.id, [
      'sharing:read',
      'health:summary:read',
      'health:nutrition:read',
    ]);
    await switchViewAs(app, token, grantId);
    const res = await pull(token);
    const nutrition = ['meals', 'meal_items', 'saved_meals', 'saved_meal_items', 'favorite_foods'];
    expect(counts(res.body.changes)).toEqual(only(['journal_entries', ...nutrition]));
    expect(res.body.omitted_tables).toEqual(others(['journal_entries', ...nutrition]));
    // the grantee's login session viewing as still pulls all of the owner's tables, and pushes nothing
    await switchViewAs(app, grantee.token, grantId);
    const session = await pull(grantee.token);
    expect(counts(session.body.changes)).toEqual(only(ALL_TABLES));
    expect(
      (await push(grantee.token, created({ journal_entries: oneOfEach().journal_entries }))).status,
    ).toBe(403);
  });
});

describe('POST /api/sync/push with a personal token (issue 10)', () => {
  it('refuses records of a table whose write scope the token lacks with 403, writing nothing; takes those it holds', async () => {
    const u = await seedUser(app);
    const token = await seedPersonalToken(app, u.user.id, ['health:logs:write']);
    const { journal_entries, meals, meal_items } = oneOfEach();
    const res = await push(token, created({ journal_entries, meals }));
    expect(res.status).toBe(403);
    expect(res.body.detail).toEqual({
      code: 'insufficient_scope',
      scope: 'health:nutrition:write',
      table: 'meals',
    });
    expect(await app.db.prisma.journalEntry.count({ where: { userId: u.user.id } })).toBe(0);
    expect(await app.db.prisma.meal.count({ where: { userId: u.user.id } })).toBe(0);
    // a deletion is a write too
    const deletion = await push(token, {
      meals: { created: [], updated: [], deleted: [meals.id] },
    });
    expect(deletion.status).toBe(403);

    // an empty entry of such a table is no write (WatermelonDB sends every table it knows)
    const empty = { created: [], updated: [], deleted: [] };
    const withEmpty = await push(token, {
      ...created({ journal_entries }),
      meals: empty,
      meal_items: empty,
    });
    expect(withEmpty.status, JSON.stringify(withEmpty.body)).toBe(200);
    expect(withEmpty.body.accepted).toBe(1);
    // the push field's own scope (health:logs:write) stays the way in; meals need health:nutrition:write too
    const nutrition = await seedPersonalToken(app, u.user.id, [
      'health:logs:write',
      'health:nutrition:write',
    ]);
    const ok = await push(nutrition, created({ meals, meal_items }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(await app.db.prisma.meal.count({ where: { userId: u.user.id } })).toBe(1);
  });
});

describe('syncedRecords with a personal token (issue 10)', () => {
  const LIST = 'query ($table: String!) { syncedRecords(table: $table) { records nextCursor } }';
  const list = (token: string, table: string) => gql(app, LIST, { token, variables: { table } });

  it('refuses the rows of a table whose read scope the token lacks with INSUFFICIENT_SCOPE', async () => {
    const u = await userWithEveryTable();
    const token = await seedPersonalToken(app, u.user.id, ['health:metrics:read']);
    const ok = await list(token, 'health_metrics');
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.syncedRecords.records).toHaveLength(1);
    for (const table of ['glucose_readings', 'raw_sensor_data', 'meals']) {
      const res = await list(token, table);
      expect(res.body.data).toBeNull();
      expect(res.body.errors[0].extensions, table).toMatchObject({
        code: 'INSUFFICIENT_SCOPE',
        detail: {
          code: 'insufficient_scope',
          scope: SYNCED_TABLES.find((t) => t.table === table)!.readScope,
        },
      });
    }
    // a login session is unchanged: the rows of every table
    for (const table of ALL_TABLES) {
      const res = await list(u.token, table);
      expect(res.body.data.syncedRecords.records, table).toHaveLength(1);
    }
  });
});
