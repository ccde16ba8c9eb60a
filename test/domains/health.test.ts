import { describe, expect, it } from 'vitest';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const NOW = clock.ms();
const ago = (hours: number): string => new Date(NOW - hours * 3_600_000).toISOString();

function metrics(n: number, offsetHours = 0, source = 'Apple Watch'): object[] {
  return Array.from({ length: n }, (_, i) => ({
    metric_type: 'heart_rate',
    value: 60 + i,
    timestamp: ago(offsetHours + i),
    source,
  }));
}

describe('POST /api/health/platform/import (issue 4)', () => {
  it('stores metrics and answers {inserted, skipped}; importing again skips every sample', async () => {
    const { token } = await seedUser(app);
    const body = { samples: metrics(5) };
    const first = await rest(app, 'POST', '/api/health/platform/import', { token, body });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ inserted: 5, skipped: 0 });
    const again = await rest(app, 'POST', '/api/health/platform/import', { token, body });
    expect(again.body).toEqual({ inserted: 0, skipped: 5 });
  });

  it('skips a sample repeated within one request, and keeps the same time from another source', async () => {
    const { token } = await seedUser(app);
    const one = { metric_type: 'steps', value: 100, timestamp: ago(1), source: 'iPhone' };
    const res = await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: {
        samples: [
          one,
          one,
          { ...one, source: 'Apple Watch' },
          { ...one, metric_type: 'active_energy' },
        ],
      },
    });
    expect(res.body).toEqual({ inserted: 3, skipped: 1 });
  });

  it('never stores a sample twice when two overlapping imports run at once', async () => {
    const { token } = await seedUser(app);
    const a = metrics(200, 0);
    const b = metrics(200, 100); // samples 100..199 of a are samples 0..99 of b
    const [ra, rb] = await Promise.all([
      rest(app, 'POST', '/api/health/platform/import', { token, body: { samples: a } }),
      rest(app, 'POST', '/api/health/platform/import', { token, body: { samples: b } }),
    ]);
    expect(ra.status).toBe(200);
    expect(rb.status).toBe(200);
    expect(ra.body.inserted + rb.body.inserted).toBe(300);
    expect(ra.body.skipped + rb.body.skipped).toBe(100);
    const read = await rest(app, 'GET', '/api/health/metrics?metric_type=heart_rate&days=30', {
      token,
    });
    expect(read.body).toHaveLength(300);
  });

  it('stores each sample once when four identical imports race (on PostgreSQL: four connections)', async () => {
    const { token } = await seedUser(app);
    const samples = metrics(1000, 0, 'race');
    const results = await Promise.all(
      [1, 2, 3, 4].map(() =>
        rest(app, 'POST', '/api/health/platform/import', { token, body: { samples } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(results.reduce((n, r) => n + r.body.inserted, 0)).toBe(1000);
    expect(results.reduce((n, r) => n + r.body.skipped, 0)).toBe(3000);
  });

  it('answers 422 for an unknown metric type, a negative value, too many samples; 401 without a credential', async () => {
    const { token } = await seedUser(app);
    const unknown = await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: { samples: [{ metric_type: 'glucose', value: 1, timestamp: ago(1) }] },
    });
    expect(unknown.status).toBe(422);
    const negative = await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: { samples: [{ metric_type: 'steps', value: -1, timestamp: ago(1) }] },
    });
    expect(negative.status).toBe(422);
    const many = await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: { samples: metrics(10_001) },
    });
    expect(many.status).toBe(422);
    const anonymous = await rest(app, 'POST', '/api/health/platform/import', {
      body: { samples: metrics(1) },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/Bearer/);
  });

  it("refuses a personal token: imports come from the person's phone", async () => {
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['health:metrics:read']);
    const res = await rest(app, 'POST', '/api/health/platform/import', {
      token: pat,
      body: { samples: metrics(1) },
    });
    expect(res.status).toBe(403);
  });
});

describe('POST /api/health/platform/import/batch (issue 4)', () => {
  it('stores sleep and workout intervals; deduplicates by source id, else by (kind, start, end, source)', async () => {
    const { token } = await seedUser(app);
    const sleep = [
      { stage: 'deep', start_at: ago(10), end_at: ago(9), source: 'Watch', source_id: 'A' },
      { stage: 'rem', start_at: ago(9), end_at: ago(8), source: 'Watch' },
    ];
    const workouts = [
      {
        activity_type: 'running',
        start_at: ago(30),
        end_at: ago(29),
        energy_kcal: 300,
        distance_m: 5000,
        source: 'Watch',
      },
    ];
    const first = await rest(app, 'POST', '/api/health/platform/import/batch', {
      token,
      body: { sleep, workouts },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      sleep: { inserted: 2, skipped: 0 },
      workouts: { inserted: 1, skipped: 0 },
    });
    // the same source id with changed times is the same sample; the same interval again is skipped
    const again = await rest(app, 'POST', '/api/health/platform/import/batch', {
      token,
      body: { sleep: [{ ...sleep[0], start_at: ago(11) }, sleep[1]], workouts },
    });
    expect(again.body).toEqual({
      sleep: { inserted: 0, skipped: 2 },
      workouts: { inserted: 0, skipped: 1 },
    });
    const onlySleep = await rest(app, 'POST', '/api/health/platform/import/batch', {
      token,
      body: { sleep: [] },
    });
    expect(onlySleep.body).toEqual({
      sleep: { inserted: 0, skipped: 0 },
      workouts: { inserted: 0, skipped: 0 },
    });

    const read = await rest(app, 'GET', '/api/health/sleep', { token });
    expect(read.body.map((s: any) => [s.stage, s.duration_minutes])).toEqual([
      ['deep', 60],
      ['rem', 60],
    ]);
    const w = await rest(app, 'GET', '/api/health/workouts?days=2', { token });
    expect(w.body).toEqual([
      expect.objectContaining({
        activity_type: 'running',
        duration_minutes: 60,
        energy_kcal: 300,
        distance_m: 5000,
      }),
    ]);
  });

  it('answers 422 for an interval that ends before it starts, or an unknown stage', async () => {
    const { token } = await seedUser(app);
    const backwards = await rest(app, 'POST', '/api/health/platform/import/batch', {
      token,
      body: { sleep: [{ stage: 'deep', start_at: ago(1), end_at: ago(2) }] },
    });
    expect(backwards.status).toBe(422);
    const stage = await rest(app, 'POST', '/api/health/platform/import/batch', {
      token,
      body: { sleep: [{ stage: 'nap', start_at: ago(2), end_at: ago(1) }] },
    });
    expect(stage.status).toBe(422);
    const unauth = await rest(app, 'POST', '/api/health/platform/import/batch', {
      body: { sleep: [] },
    });
    expect(unauth.status).toBe(401);
  });
});

describe('GET /api/health/sleep, /workouts, /metrics (issue 4)', () => {
  it('applies the days windows: sleep and workouts default 7, metrics default 30', async () => {
    const { token } = await seedUser(app);
    const day = 24;
    await rest(app, 'POST', '/api/health/platform/import/batch', {
      token,
      body: {
        sleep: [
          { stage: 'core', start_at: ago(6 * day), end_at: ago(6 * day - 1) },
          { stage: 'core', start_at: ago(8 * day), end_at: ago(8 * day - 1) },
        ],
        workouts: [
          { activity_type: 'walking', start_at: ago(6 * day), end_at: ago(6 * day - 1) },
          { activity_type: 'walking', start_at: ago(8 * day), end_at: ago(8 * day - 1) },
        ],
      },
    });
    await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: {
        samples: [29, 31].map((d) => ({
          metric_type: 'body_weight',
          value: 70,
          timestamp: ago(d * day),
        })),
      },
    });
    expect((await rest(app, 'GET', '/api/health/sleep', { token })).body).toHaveLength(1);
    expect((await rest(app, 'GET', '/api/health/sleep?days=9', { token })).body).toHaveLength(2);
    expect((await rest(app, 'GET', '/api/health/workouts', { token })).body).toHaveLength(1);
    expect((await rest(app, 'GET', '/api/health/workouts?days=9', { token })).body).toHaveLength(2);
    const m = await rest(app, 'GET', '/api/health/metrics?metric_type=body_weight', { token });
    expect(m.body).toEqual([
      expect.objectContaining({ metric_type: 'body_weight', value: 70, unit: 'kg', source: '' }),
    ]);
    expect(
      (await rest(app, 'GET', '/api/health/metrics?metric_type=body_weight&days=32', { token }))
        .body,
    ).toHaveLength(2);
  });

  it('answers 422 for days outside 1..3650 and for a missing or unknown metric_type', async () => {
    const { token } = await seedUser(app);
    for (const path of [
      '/api/health/sleep?days=0',
      '/api/health/workouts?days=3651',
      '/api/health/metrics?metric_type=steps&days=-1',
    ]) {
      const res = await rest(app, 'GET', path, { token });
      expect(res.status, path).toBe(422);
      expect(res.body.detail[0].loc, path).toEqual(['query', 'days']);
    }
    expect((await rest(app, 'GET', '/api/health/sleep?days=3650', { token })).status).toBe(200);
    const missing = await rest(app, 'GET', '/api/health/metrics', { token });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['query', 'metric_type']);
    expect(
      (await rest(app, 'GET', '/api/health/metrics?metric_type=glucose', { token })).status,
    ).toBe(422);
  });

  it("reads only the caller's samples; 401 without a credential; a token needs the read scope", async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    await rest(app, 'POST', '/api/health/platform/import', {
      token: other.token,
      body: { samples: metrics(3) },
    });
    await rest(app, 'POST', '/api/health/platform/import', {
      token: me.token,
      body: { samples: metrics(3) },
    });
    const mine = await rest(app, 'GET', '/api/health/metrics?metric_type=heart_rate', {
      token: me.token,
    });
    expect(mine.body).toHaveLength(3);
    expect((await rest(app, 'GET', '/api/health/sleep')).status).toBe(401);
    expect((await rest(app, 'GET', '/api/health/workouts')).status).toBe(401);
    expect((await rest(app, 'GET', '/api/health/metrics?metric_type=steps')).status).toBe(401);
    const pat = await seedPersonalToken(app, me.user.id, ['health:sleep:read']);
    expect((await rest(app, 'GET', '/api/health/sleep', { token: pat })).status).toBe(200);
    expect(
      (await rest(app, 'GET', '/api/health/metrics?metric_type=heart_rate', { token: pat })).status,
    ).toBe(403);
  });

  it("reads the owner's samples while a grantee views as the owner; the grantee's imports stay the grantee's", async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    await rest(app, 'POST', '/api/health/platform/import', {
      token: owner.token,
      body: { samples: metrics(2, 0, 'owner') },
    });
    const grantId = await seedActiveGrant(app, owner, grantee);
    await switchViewAs(app, grantee.token, grantId);
    const viewed = await rest(app, 'GET', '/api/health/metrics?metric_type=heart_rate', {
      token: grantee.token,
    });
    expect(viewed.body.map((m: any) => m.source)).toEqual(['owner', 'owner']);
    const own = await rest(app, 'POST', '/api/health/platform/import', {
      token: grantee.token,
      body: { samples: metrics(1, 0, 'grantee') },
    });
    expect(own.body).toEqual({ inserted: 1, skipped: 0 });
    expect(await app.db.prisma.healthMetric.count({ where: { userId: grantee.user.id } })).toBe(1);
    expect(await app.db.prisma.healthMetric.count({ where: { userId: owner.user.id } })).toBe(2);
  });
});
