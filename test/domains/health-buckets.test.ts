/**
 * The 15-minute buckets of steps and active energy (health_metric_buckets, issue 32) follow
 * health_metrics through its triggers, whoever writes: the import route, a duplicate import, a
 * phone's sync push (created, updated, deleted as a tombstone), the Apple Health importer (COPY),
 * a raw delete and an account's cascade. After each step the buckets equal a fresh aggregate of
 * the live samples. (The daily figures read from them are tested by goals, home, community and
 * challenges.)
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importAppleHealthFile } from '../../src/domains/health/health.apple-import.ts';
import { kolkataYesterdayStart, pushTable, seedMetrics } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const db = app.db;

type Bucket = {
  metric_type: string;
  minutes: number;
  source: string;
  bucket: string;
  total: number;
  n: number;
};

/** The buckets as stored, and as a fresh aggregate of the live samples would make them. */
async function bucketsOf(userId: number): Promise<{ stored: Bucket[]; fresh: Bucket[] }> {
  const stored = await db.prisma.$queryRaw<Bucket[]>`
    SELECT metric_type, minutes, source, to_char(bucket, 'YYYY-MM-DD"T"HH24:MI') AS bucket,
           round(total::numeric, 6)::float8 AS total, samples AS n
      FROM health_metric_buckets WHERE user_id = ${userId}::int
     ORDER BY 1, 2, 3, 4`;
  const fresh = await db.prisma.$queryRaw<Bucket[]>`
    SELECT metric_type, w.minutes, source,
           to_char(date_bin(make_interval(mins => w.minutes), "timestamp", TIMESTAMP '2000-01-01'),
                   'YYYY-MM-DD"T"HH24:MI') AS bucket,
           round(sum(value)::numeric, 6)::float8 AS total, count(*)::int AS n
      FROM health_metrics CROSS JOIN (VALUES (15), (60)) AS w(minutes)
     WHERE user_id = ${userId}::int AND deleted_at IS NULL
       AND metric_type IN ('steps', 'active_energy')
     GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`;
  return { stored, fresh };
}

async function expectInStep(userId: number): Promise<Bucket[]> {
  const { stored, fresh } = await bucketsOf(userId);
  expect(stored).toEqual(fresh);
  return stored;
}

const T0 = Date.parse('2026-11-20T08:00:00Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString();

const push = (u: SeededUser, changes: Parameters<typeof pushTable>[3]) =>
  pushTable(app, u.token, 'health_metrics', changes);

describe('the steps and energy buckets', () => {
  it('follow imports, upserts, sync pushes, tombstones and raw deletes', async () => {
    const u = await seedUser(app);
    const id = u.user.id;
    await seedMetrics(app, u.token, [
      { metric_type: 'steps', value: 100, timestamp: at(0), source: 'Watch' },
      { metric_type: 'steps', value: 50, timestamp: at(7), source: 'Watch' },
      { metric_type: 'steps', value: 80, timestamp: at(16), source: 'Watch' },
      { metric_type: 'steps', value: 300, timestamp: at(1), source: 'Phone' },
      { metric_type: 'active_energy', value: 12.5, timestamp: at(2), source: 'Watch' },
      { metric_type: 'heart_rate', value: 61, timestamp: at(2), source: 'Watch' },
    ]);
    const first = await expectInStep(id);
    expect(
      first
        .filter((b) => b.minutes === 15)
        .map((b) => [b.metric_type, b.source, b.bucket, b.total, b.n]),
    ).toEqual([
      ['active_energy', 'Watch', '2026-11-20T08:00', 12.5, 1],
      ['steps', 'Phone', '2026-11-20T08:00', 300, 1],
      ['steps', 'Watch', '2026-11-20T08:00', 150, 2],
      ['steps', 'Watch', '2026-11-20T08:15', 80, 1],
    ]);
    expect(
      first.filter((b) => b.minutes === 60).map((b) => [b.metric_type, b.source, b.total, b.n]),
    ).toEqual([
      ['active_energy', 'Watch', 12.5, 1],
      ['steps', 'Phone', 300, 1],
      ['steps', 'Watch', 230, 3],
    ]);

    // the same sample again with another value: the import keeps the first (no double count)
    await seedMetrics(app, u.token, [
      { metric_type: 'steps', value: 70, timestamp: at(7), source: 'Watch' },
    ]);
    expect(
      (await expectInStep(id)).find((b) => b.source === 'Watch' && b.n === 2 && b.minutes === 15)
        ?.total,
    ).toBe(150);

    // a phone's push: a new sample, then a changed value, then a tombstone
    const phoneId = `hb${clock.ms()}`;
    const row = { id: phoneId, metric_type: 'steps', value: 40, unit: 'count', source: 'Ring' };
    await push(u, { created: [{ ...row, timestamp: T0 + 20 * 60_000 }], updated: [], deleted: [] });
    await expectInStep(id);
    await push(u, {
      created: [],
      updated: [{ ...row, value: 45, timestamp: T0 + 20 * 60_000 }],
      deleted: [],
    });
    expect((await expectInStep(id)).filter((b) => b.source === 'Ring').map((b) => b.total)).toEqual(
      [45, 45],
    );
    await push(u, { created: [], updated: [], deleted: [phoneId] });
    expect((await expectInStep(id)).some((b) => b.source === 'Ring')).toBe(false);

    // a raw delete of a whole source leaves no empty bucket behind
    await db.prisma.healthMetric.deleteMany({ where: { userId: id, source: 'Phone' } });
    expect((await expectInStep(id)).some((b) => b.source === 'Phone')).toBe(false);
  });

  it('follow the Apple Health importer (COPY) and an account deletion', async () => {
    const u = await seedUser(app);
    await importAppleHealthFile(db, {
      userId: u.user.id,
      file: path.resolve('test/fixtures/apple_health', 'export6s3sample.xml'),
    });
    const stored = await expectInStep(u.user.id);
    expect(stored.filter((b) => b.minutes === 15).reduce((s, b) => s + b.n, 0)).toBe(10); // the export's 10 StepCount records
    await db.prisma.user.delete({ where: { id: u.user.id } });
    expect((await bucketsOf(u.user.id)).stored).toEqual([]);
  });
});

describe('a day that starts on a half hour', () => {
  it('is summed from the 15-minute buckets: two samples of one UTC hour fall on two Kolkata days', async () => {
    const u = await seedUser(app);
    const pat = await seedPersonalToken(app, u.user.id, ['goals:read', 'goals:write']);
    const zoned = await rest(app, 'PATCH', '/api/auth/me', {
      token: u.token,
      body: { timezone: 'Asia/Kolkata' },
    });
    expect(zoned.status).toBe(200);
    expect(
      (await rest(app, 'PUT', '/api/v1/goals/steps', { token: pat, body: { target: 1000 } }))
        .status,
    ).toBe(200);
    // Kolkata is UTC+05:30 all year: its midnight is at hh:30 UTC
    const yesterdayMidnight = kolkataYesterdayStart();
    await seedMetrics(app, u.token, [
      // 23:50 the day before yesterday and 00:10 yesterday: one UTC hour, two local days
      {
        metric_type: 'steps',
        value: 500,
        timestamp: new Date(yesterdayMidnight - 10 * 60_000).toISOString(),
        source: 'Watch',
      },
      {
        metric_type: 'steps',
        value: 700,
        timestamp: new Date(yesterdayMidnight + 10 * 60_000).toISOString(),
        source: 'Watch',
      },
    ]);
    const res = await rest(app, 'GET', '/api/v1/goals/progress?periods=3', { token: pat });
    expect(res.status).toBe(200);
    const periods = res.body.goals[0].periods;
    expect(periods.map((p: { value: number | null }) => p.value)).toEqual([null, 700, 500]);
  });
});
