/**
 * The glucose buckets (glucose_buckets, issue 32: readings, in range 70..180 mg/dL, typed by hand,
 * per 15 minutes and per hour) follow glucose_readings through its triggers, whoever writes: a
 * batch, a typed reading, deleting every reading (tombstones), a batch that revives tombstones, a
 * phone's sync push (created, updated, deleted) and an account's cascade. After each step the
 * buckets equal a fresh count of the live readings, with the domain's own range constants.
 */
import { describe, expect, it } from 'vitest';
import { TIME_IN_RANGE_MG_DL } from '../../src/domains/glucose/index.ts';
import { kolkataYesterdayStart, pushTable } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const db = app.db;

type Bucket = { minutes: number; bucket: string; n: number; in_range: number; manual: number };

async function bucketsOf(userId: number): Promise<{ stored: Bucket[]; fresh: Bucket[] }> {
  const stored = await db.prisma.$queryRaw<Bucket[]>`
    SELECT minutes, to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS bucket,
           readings AS n, in_range, manual
      FROM glucose_buckets WHERE user_id = ${userId}::int ORDER BY 1, 2`;
  const fresh = await db.prisma.$queryRaw<Bucket[]>`
    SELECT w.minutes,
           to_char(date_bin(make_interval(mins => w.minutes), "timestamp", TIMESTAMPTZ '2000-01-01 00:00:00+00')
                     AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI') AS bucket,
           count(*)::int AS n,
           (count(*) FILTER (WHERE value_mg_dl BETWEEN ${TIME_IN_RANGE_MG_DL.low}::float8
                                               AND ${TIME_IN_RANGE_MG_DL.high}::float8))::int AS in_range,
           (count(*) FILTER (WHERE source = 'manual'))::int AS manual
      FROM glucose_readings CROSS JOIN (VALUES (15), (60)) AS w(minutes)
     WHERE user_id = ${userId}::int AND deleted_at IS NULL
     GROUP BY 1, 2 ORDER BY 1, 2`;
  return { stored, fresh };
}

async function expectInStep(userId: number): Promise<Bucket[]> {
  const { stored, fresh } = await bucketsOf(userId);
  expect(stored).toEqual(fresh);
  return stored;
}

const T0 = Date.parse('2026-11-20T08:00:00Z');
const at = (minutes: number): Date => new Date(T0 + minutes * 60_000);

const batch = async (u: SeededUser, values: number[]) => {
  const res = await rest(app, 'POST', '/api/glucose/readings/batch', {
    token: u.token,
    body: values.map((v, i) => ({
      sensor_id: 1,
      timestamp: at(5 * i).toISOString(),
      value_mg_dl: v,
    })),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

const push = (u: SeededUser, changes: Parameters<typeof pushTable>[3]) =>
  pushTable(app, u.token, 'glucose_readings', changes);

describe('the glucose buckets', () => {
  it('follow batches, typed readings, tombstones, revivals, sync pushes and an account deletion', async () => {
    const u = await seedUser(app);
    const id = u.user.id;
    // 08:00 .. 08:25 every 5 minutes: 65 (low), 70 and 180 (the edges count), 181 (high), 120, 250
    await batch(u, [65, 70, 180, 181, 120, 250]);
    const first = await expectInStep(id);
    expect(first.map((b) => [b.minutes, b.bucket, b.n, b.in_range])).toEqual([
      [15, '2026-11-20T08:00', 3, 2],
      [15, '2026-11-20T08:15', 3, 1],
      [60, '2026-11-20T08:00', 6, 3],
    ]);

    const typed = await rest(app, 'POST', '/api/glucose/readings', {
      token: u.token,
      body: { timestamp: at(50).toISOString(), value_mg_dl: 100, source: 'manual' },
    });
    expect(typed.status, JSON.stringify(typed.body)).toBeLessThan(300);
    await expectInStep(id);

    expect((await rest(app, 'DELETE', '/api/glucose/readings', { token: u.token })).status).toBe(
      200,
    );
    expect(await expectInStep(id)).toEqual([]);

    // the same batch again revives the tombstones with the new values
    await batch(u, [100, 100, 100]);
    expect((await expectInStep(id)).map((b) => [b.minutes, b.n, b.in_range])).toEqual([
      [15, 3, 3],
      [60, 3, 3],
    ]);

    const phoneId = `gb${clock.ms()}`;
    const row = { id: phoneId, sensor_id: 2, timestamp: at(70).getTime(), source: 'cgm' };
    await push(u, { created: [{ ...row, value_mg_dl: 300 }], updated: [], deleted: [] });
    await expectInStep(id);
    await push(u, { created: [], updated: [{ ...row, value_mg_dl: 110 }], deleted: [] });
    const updated = await expectInStep(id);
    expect(updated.find((b) => b.minutes === 15 && b.bucket === '2026-11-20T09:00')).toMatchObject({
      n: 1,
      in_range: 1,
    });
    await push(u, { created: [], updated: [], deleted: [phoneId] });
    expect((await expectInStep(id)).some((b) => b.bucket === '2026-11-20T09:00')).toBe(false);

    await db.prisma.user.delete({ where: { id } });
    expect((await bucketsOf(id)).stored).toEqual([]);
  });
});

describe('time in range on a day that starts on a half hour', () => {
  it('counts from the 15-minute buckets: readings of one UTC hour fall on two Kolkata days', async () => {
    const u = await seedUser(app);
    const pat = await seedPersonalToken(app, u.user.id, ['goals:read', 'goals:write']);
    const zoned = await rest(app, 'PATCH', '/api/auth/me', {
      token: u.token,
      body: { timezone: 'Asia/Kolkata' },
    });
    expect(zoned.status).toBe(200);
    const goal = await rest(app, 'PUT', '/api/v1/goals/glucose_time_in_range', {
      token: pat,
      body: { target: 70 },
    });
    expect(goal.status).toBe(200);
    // Kolkata is UTC+05:30 all year: its midnight is at hh:30 UTC
    const edge = kolkataYesterdayStart();
    // the day before yesterday ends with two high readings; yesterday starts with two in range
    const res = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token: u.token,
      body: [-20, -10, 5, 15].map((m, i) => ({
        sensor_id: 1,
        timestamp: new Date(edge + m * 60_000).toISOString(),
        value_mg_dl: i < 2 ? 250 : 100,
      })),
    });
    expect(res.status).toBe(200);
    const progress = await rest(app, 'GET', '/api/v1/goals/progress?periods=3', { token: pat });
    expect(progress.status).toBe(200);
    expect(progress.body.goals[0].periods.map((p: { value: number | null }) => p.value)).toEqual([
      null,
      100,
      0,
    ]);
  });
});
