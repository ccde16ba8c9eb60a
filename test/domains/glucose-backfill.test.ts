/**
 * Issue 4: a readings batch is stored in slices (one statement each, src/db/bulk.ts), so a backfill does not hold
 * up other accounts, and a batch stored only in part is completed by posting it again.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const readings = (n: number, sensorId: number, end = clock.ms()) =>
  Array.from({ length: n }, (_, i) => ({
    sensor_id: sensorId,
    timestamp: new Date(end - (n - i) * 300_000).toISOString(),
    value_mg_dl: 80 + (i % 100),
  }));

describe('glucose batches in chunks (issue 4)', () => {
  it('stores a batch of many chunks whole, and completes a batch stored in part when it is posted again', async () => {
    const { token } = await seedUser(app);
    const batch = readings(2_345, 1);
    // as if an earlier post had failed after storing some chunks
    expect(
      (
        await rest(app, 'POST', '/api/glucose/readings/batch', {
          token,
          body: batch.slice(0, 1_200),
        })
      ).body,
    ).toBe(1_200);
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: batch })).body,
    ).toBe(1_145);
    expect(
      (await rest(app, 'POST', '/api/glucose/readings/batch', { token, body: batch })).body,
    ).toBe(0);
    const stored = await rest(
      app,
      'GET',
      '/api/glucose/readings?limit=50000&since_hours=1000&sort=asc',
      { token },
    );
    expect(stored.body.map((r: { timestamp: string }) => r.timestamp)).toEqual(
      batch.map((r) => r.timestamp),
    );
  });

  it('stores a raw batch of many slices whole, and only the missing samples when it is posted again', async () => {
    const { token } = await seedUser(app);
    const end = clock.ms();
    const raw = Array.from({ length: 345 }, (_, i) => ({
      sensor_id: 4,
      timestamp: new Date(end - (345 - i) * 60_000).toISOString(),
      raw_value: 1000 + i,
    }));
    expect(
      (await rest(app, 'POST', '/api/glucose/raw/batch', { token, body: raw.slice(100, 250) }))
        .body,
    ).toBe(150);
    expect((await rest(app, 'POST', '/api/glucose/raw/batch', { token, body: raw })).body).toBe(
      195,
    );
    expect((await rest(app, 'POST', '/api/glucose/raw/batch', { token, body: raw })).body).toBe(0);
    // every sample is processed on a rebuild: all were stored
    const rebuilt = await rest(app, 'POST', '/api/glucose/sensor/rebuild-from-raw', {
      token,
      body: { sensor_id: 4 },
    });
    expect(rebuilt.body).toMatchObject({ inserted: 345 });
  });

  it("answers another account's small upload while a 50,000-reading backfill is being stored", async () => {
    const big = await seedUser(app);
    const small = await seedUser(app);
    const order: string[] = [];
    const backfill = rest(app, 'POST', '/api/glucose/readings/batch', {
      token: big.token,
      body: readings(50_000, 1),
    }).then((r) => {
      order.push('backfill');
      return r;
    });
    // wait until the backfill's first chunks are stored
    for (;;) {
      const seen = await rest(app, 'GET', '/api/glucose/readings?limit=1&since_hours=43800', {
        token: big.token,
      });
      if (seen.body.length > 0) break;
    }
    const upload = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: small.token,
      body: readings(10, 1),
    });
    order.push('small upload');
    expect(upload.body).toBe(10);
    expect((await backfill).body).toBe(50_000);
    expect(order).toEqual(['small upload', 'backfill']);
  }, 120_000);
});
