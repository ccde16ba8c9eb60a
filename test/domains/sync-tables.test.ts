/**
 * The health tables in sync (issue 4): what server routes write (glucose batches, sensor payloads,
 * health imports, sensor sessions) arrives on the phone's pull, what a phone pushes shows in the
 * routes, each table's own identity and bounds hold on push, and deleted readings are tombstones.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();

const T0 = Date.parse('2026-11-20T08:00:00Z');
const at = (minutes: number): number => T0 + minutes * 60_000;
let n = 0;
const newId = (): string =>
  `ph${String(++n).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;

const pull = async (u: SeededUser, since: number | null) =>
  (
    await rest(app, 'GET', `/api/sync/pull${since === null ? '' : `?last_pulled_at=${since}`}`, {
      token: u.token,
    })
  ).body;
const push = (u: SeededUser, changes: unknown, lastPulledAt: number | null) =>
  rest(app, 'POST', '/api/sync/push', {
    token: u.token,
    body: { changes, last_pulled_at: lastPulledAt },
  });
const created = (table: string, records: unknown[]) => ({
  [table]: { created: records, updated: [], deleted: [] },
});
const readingsBody = (count: number, sensorId = 3) =>
  Array.from({ length: count }, (_, i) => ({
    sensor_id: sensorId,
    timestamp: new Date(at(5 * i)).toISOString(),
    value_mg_dl: 100 + i,
  }));
const liveReadings = async (u: SeededUser) =>
  (
    await rest(app, 'GET', '/api/glucose/readings?since_hours=43800&limit=1000&sort=asc', {
      token: u.token,
    })
  ).body as { id: string; value_mg_dl: number }[];

describe('server writes arrive on the pull', () => {
  it('a glucose batch, a health import, sleep, workouts and a sensor session, stamped after the last pull', async () => {
    const u = await seedUser(app);
    const first = await pull(u, null);
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: u.token,
      body: readingsBody(3),
    });
    await rest(app, 'POST', '/api/health/platform/import', {
      token: u.token,
      body: {
        samples: [
          {
            metric_type: 'steps',
            value: 420,
            timestamp: new Date(at(1)).toISOString(),
            source: 'iPhone',
          },
        ],
      },
    });
    await rest(app, 'POST', '/api/health/platform/import/batch', {
      token: u.token,
      body: {
        sleep: [
          {
            stage: 'deep',
            start_at: new Date(at(0)).toISOString(),
            end_at: new Date(at(30)).toISOString(),
            source: 'Watch',
          },
        ],
        workouts: [
          {
            activity_type: 'running',
            start_at: new Date(at(60)).toISOString(),
            end_at: new Date(at(90)).toISOString(),
            source: 'Watch',
          },
        ],
      },
    });
    await rest(app, 'POST', '/api/devices/sensor', {
      token: u.token,
      body: { serial_number: 'SN-42', sensor_type: 'libre3' },
    });

    const next = await pull(u, first.timestamp);
    const g = next.changes.glucose_readings.updated;
    expect(
      g.map((r: { timestamp: number; value_mg_dl: number; sensor_id: number; source: string }) => [
        r.timestamp,
        r.value_mg_dl,
        r.sensor_id,
        r.source,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [at(0), 100, 3, 'cgm'],
        [at(5), 101, 3, 'cgm'],
        [at(10), 102, 3, 'cgm'],
      ]),
    );
    expect(g).toHaveLength(3);
    expect(next.changes.health_metrics.updated).toEqual([
      expect.objectContaining({
        metric_type: 'steps',
        value: 420,
        unit: 'count',
        timestamp: at(1),
        source: 'iPhone',
      }),
    ]);
    expect(next.changes.sleep_samples.updated).toEqual([
      expect.objectContaining({ stage: 'deep', start_at: at(0), end_at: at(30) }),
    ]);
    expect(next.changes.workout_samples.updated).toEqual([
      expect.objectContaining({ activity_type: 'running', duration_minutes: 30 }),
    ]);
    expect(next.changes.sensor_sessions.updated).toEqual([
      expect.objectContaining({ serial_number: 'SN-42', status: 'active' }),
    ]);
    expect(next.changes.glucose_sensors.updated).toEqual([]);

    // nothing is sent twice
    const again = await pull(u, next.timestamp);
    expect(again.changes.glucose_readings).toEqual({ created: [], updated: [], deleted: [] });
    await rest(app, 'POST', '/api/devices/sensor/unbind?serial_number=SN-42', { token: u.token });
    const unbound = await pull(u, next.timestamp);
    expect(unbound.changes.sensor_sessions.updated).toEqual([
      expect.objectContaining({ serial_number: 'SN-42', status: 'unbound' }),
    ]);
  });

  it('a processed sensor payload brings its sensor, raw samples and readings', async () => {
    const u = await seedUser(app);
    const payload = {
      sensor_id: 8,
      serial_number: 'L3-8',
      calibration_slope: 1,
      calibration_intercept: 0,
      samples: [0, 5, 10].map((m, i) => ({
        timestamp: new Date(at(m)).toISOString(),
        raw_value: 110 + i,
      })),
    };
    expect(
      (await rest(app, 'POST', '/api/glucose/process-sensor', { token: u.token, body: payload }))
        .status,
    ).toBe(200);
    const all = await pull(u, null);
    expect(all.changes.glucose_sensors.created).toEqual([
      expect.objectContaining({ sensor_id: 8, serial_number: 'L3-8' }),
    ]);
    expect(all.changes.raw_sensor_data.created).toHaveLength(3);
    expect(all.changes.glucose_readings.created.map((r: { source: string }) => r.source)).toEqual([
      'sensor',
      'sensor',
      'sensor',
    ]);
  });
});

describe('phone pushes to the health tables', () => {
  it('stores pushed readings for the routes, with defaults for columns a record leaves out', async () => {
    const u = await seedUser(app);
    const id = newId();
    const res = await push(
      u,
      created('glucose_readings', [{ id, timestamp: at(0), value_mg_dl: 142 }]),
      null,
    );
    expect(res.status).toBe(200);
    expect(await liveReadings(u)).toEqual([
      expect.objectContaining({ id, value_mg_dl: 142, sensor_id: 0, source: 'manual' }),
    ]);
  });

  it('refuses a second reading for the same sensor and time with 409 duplicate_record, writing nothing', async () => {
    const u = await seedUser(app);
    await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: u.token,
      body: readingsBody(1),
    });
    const base = await pull(u, null);
    const res = await push(
      u,
      {
        glucose_readings: {
          created: [{ id: newId(), sensor_id: 3, timestamp: at(0), value_mg_dl: 99 }],
          updated: [],
          deleted: [],
        },
        journal_entries: { created: [{ id: newId(), body: 'x' }], updated: [], deleted: [] },
      },
      base.timestamp,
    );
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({ code: 'duplicate_record', table: 'glucose_readings' });
    expect((await liveReadings(u)).map((r) => r.value_mg_dl)).toEqual([100]);
    expect((await pull(u, null)).changes.journal_entries.created).toEqual([]);
  });

  it("refuses an update that moves a reading onto another reading's time with 409", async () => {
    const u = await seedUser(app);
    const [a, b] = [newId(), newId()];
    const first = await push(
      u,
      created('glucose_readings', [
        { id: a, sensor_id: 1, timestamp: at(0), value_mg_dl: 100 },
        { id: b, sensor_id: 1, timestamp: at(5), value_mg_dl: 110 },
      ]),
      null,
    );
    expect(first.status).toBe(200);
    const base = await pull(u, null);
    const res = await push(
      u,
      { glucose_readings: { created: [], updated: [{ id: b, timestamp: at(0) }], deleted: [] } },
      base.timestamp,
    );
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({ code: 'duplicate_record', ids: [b] });
  });

  it('answers 422 at the record for a missing required column, a value out of bounds and an unknown kind', async () => {
    const u = await seedUser(app);
    const cases: [string, Record<string, unknown>, string][] = [
      ['glucose_readings', { timestamp: at(0) }, 'value_mg_dl'],
      ['glucose_readings', { timestamp: at(0), value_mg_dl: 5 }, 'value_mg_dl'],
      ['health_metrics', { metric_type: 'mood', value: 1, timestamp: at(0) }, 'metric_type'],
      ['sleep_samples', { stage: 'deep', start_at: at(0) }, 'end_at'],
    ];
    for (const [table, record, field] of cases) {
      const res = await push(u, created(table, [{ id: newId(), ...record }]), null);
      expect(res.status, `${table} ${field}`).toBe(422);
      expect(res.body.detail[0].loc.slice(-4), `${table} ${field}`).toEqual([
        table,
        'created',
        0,
        field,
      ]);
    }
  });
});

describe('deleting readings keeps tombstones', () => {
  it('DELETE /api/glucose/readings tells other phones, and posting the readings again brings them back', async () => {
    const u = await seedUser(app);
    const body = readingsBody(4);
    await rest(app, 'POST', '/api/glucose/readings/batch', { token: u.token, body });
    const before = await pull(u, null);
    const ids = before.changes.glucose_readings.created.map((r: { id: string }) => r.id).sort();

    expect((await rest(app, 'DELETE', '/api/glucose/readings', { token: u.token })).body).toEqual({
      deleted: 4,
    });
    expect(await liveReadings(u)).toEqual([]);
    const afterDelete = await pull(u, before.timestamp);
    expect([...afterDelete.changes.glucose_readings.deleted].sort()).toEqual(ids);

    // a phone's stale update of a deleted reading does not bring it back
    const stale = await push(
      u,
      {
        glucose_readings: { created: [], updated: [{ id: ids[0], value_mg_dl: 250 }], deleted: [] },
      },
      afterDelete.timestamp,
    );
    expect(stale.status).toBe(200);
    expect(await liveReadings(u)).toEqual([]);

    // the same batch posted again is new data: the rows come back under their ids, as updates
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token: u.token, body })).body,
    ).toBe(4);
    expect((await liveReadings(u)).map((r) => r.value_mg_dl)).toEqual([100, 101, 102, 103]);
    const revived = await pull(u, afterDelete.timestamp);
    expect(
      revived.changes.glucose_readings.updated.map((r: { id: string }) => r.id).sort(),
    ).toEqual(ids);
    expect(revived.changes.glucose_readings.deleted).toEqual([]);
  });

  it('rebuild-from-raw sends the replayed readings as updates, not deletions', async () => {
    const u = await seedUser(app);
    const payload = {
      sensor_id: 5,
      samples: [0, 5].map((m, i) => ({
        timestamp: new Date(at(m)).toISOString(),
        raw_value: 120 + i,
      })),
    };
    await rest(app, 'POST', '/api/glucose/process-sensor', { token: u.token, body: payload });
    const base = await pull(u, null);
    const rebuilt = await rest(app, 'POST', '/api/glucose/sensor/rebuild-from-raw', {
      token: u.token,
      body: { sensor_id: 5 },
    });
    expect(rebuilt.body).toMatchObject({ deleted: 2, inserted: 2 });
    const next = await pull(u, base.timestamp);
    expect(next.changes.glucose_readings.deleted).toEqual([]);
    expect(next.changes.glucose_readings.updated).toHaveLength(2);
  });
});
