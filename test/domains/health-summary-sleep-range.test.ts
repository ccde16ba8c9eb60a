/**
 * Issue 30 item 6 (first clause): health_summary_range answers sleep and workouts, so an agent
 * compares two weeks of sleep in at most three calls instead of fourteen. A person in Europe/Berlin
 * with fourteen nights (the last one across the change to summer time) and a workout a day, through
 * the MCP SDK client and the REST route.
 */
import { describe, expect, it } from 'vitest';
import { seedIntervals } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const MIN = 60_000;
const FIRST = Date.parse('2025-03-17T00:00:00Z'); // a Monday
const dateOf = (d: number): string => new Date(FIRST + d * 86_400_000).toISOString().slice(0, 10);
/** Berlin wall time on day d (local HH:MM); summer time starts on 2025-03-30 at 02:00. */
const berlin = (d: number, hhmm: string): number =>
  Date.parse(`${dateOf(d)}T${hhmm}:00${dateOf(d) >= '2025-03-30' ? '+02:00' : '+01:00'}`);

/** Minutes per stage of the nights ending in the first week, and in the second. */
const WEEK_1 = { core: 300, deep: 90, rem: 90, awake: 10 };
const WEEK_2 = { core: 240, deep: 60, rem: 60, awake: 20 };

/**
 * A Berlin person with the nights ending on 2025-03-17..30 (from 23:00 the evening before: core,
 * deep, rem, then awake), a phone's shorter record of one night, and a run at 18:00 each day and a
 * ride on the 20th.
 */
async function seedSleeper(): Promise<SeededUser> {
  const person = await seedUser(app);
  await app.db.prisma.user.update({
    where: { id: person.user.id },
    data: { timezone: 'Europe/Berlin' },
  });
  const sleep: { stage: string; start_at: string; end_at: string; source: string }[] = [];
  for (let d = 0; d < 14; d++) {
    const stages = d < 7 ? WEEK_1 : WEEK_2;
    let at = berlin(d - 1, '23:00');
    for (const [stage, minutes] of Object.entries(stages)) {
      sleep.push({
        stage,
        start_at: new Date(at).toISOString(),
        end_at: new Date(at + minutes * MIN).toISOString(),
        source: 'Watch',
      });
      at += minutes * MIN;
    }
  }
  sleep.push({
    stage: 'asleep',
    start_at: new Date(berlin(2, '00:00')).toISOString(),
    end_at: new Date(berlin(2, '05:00')).toISOString(),
    source: 'Phone',
  });
  const workouts = Array.from({ length: 14 }, (_, d) => ({
    activity_type: 'running',
    start_at: new Date(berlin(d, '18:00')).toISOString(),
    end_at: new Date(berlin(d, '18:30')).toISOString(),
    energy_kcal: 300,
  }));
  workouts.push({
    activity_type: 'cycling',
    start_at: new Date(berlin(3, '10:00')).toISOString(),
    end_at: new Date(berlin(3, '11:00')).toISOString(),
    energy_kcal: 500,
  });
  await seedIntervals(app, person.token, { sleep, workouts });
  return person;
}

const person = await seedSleeper();
const token = await seedPersonalToken(app, person.user.id, [
  'health:summary:read',
  'health:sleep:read',
]);

/** What one night of each week answers (stages of the watch; in bed from first start to last end). */
const nightOf = (w: typeof WEEK_1) => {
  const asleep = w.core + w.deep + w.rem;
  return {
    asleep_minutes: asleep,
    in_bed_minutes: asleep + w.awake,
    awake_minutes: w.awake,
    efficiency: Math.round((asleep / (asleep + w.awake)) * 100),
    stages: { ...w, asleep_unspecified: 0, in_bed: 0 },
  };
};

describe('health_summary_range with sleep (issue 30 item 6)', () => {
  it('compares two weeks of sleep in at most three calls, each night in the answer', async () => {
    const client = await mcpClient(app, token);
    let calls = 0;
    const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
      calls++;
      const res = await callTool(client, name, args);
      expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
      return res.structuredContent;
    };
    const span = { from: '2025-03-17', to: '2025-03-30', metric_types: ['sleep'] };

    // 1: night by night
    const days = await call('health_summary_range', { ...span, interval: 'day' });
    expect(days).toMatchObject({ timezone: 'Europe/Berlin', rows: [], workouts: [] });
    expect(days.sleep.map((n: any) => n.start)).toEqual(
      Array.from({ length: 14 }, (_, d) => dateOf(d)),
    );
    days.sleep.forEach((n: any, d: number) => {
      const night = nightOf(d < 7 ? WEEK_1 : WEEK_2);
      expect(n).toEqual({
        start: dateOf(d),
        end: dateOf(d),
        nights: 1,
        ...night,
        min_asleep_minutes: night.asleep_minutes,
        max_asleep_minutes: night.asleep_minutes,
      });
    });

    // 2: the two weeks side by side (ISO weeks: Monday the 17th and Monday the 24th)
    const weeks = await call('health_summary_range', { ...span, interval: 'week' });
    expect(weeks.sleep).toEqual([
      {
        start: '2025-03-17',
        end: '2025-03-23',
        nights: 7,
        ...nightOf(WEEK_1),
        min_asleep_minutes: 480,
        max_asleep_minutes: 480,
      },
      {
        start: '2025-03-24',
        end: '2025-03-30',
        nights: 7,
        ...nightOf(WEEK_2),
        min_asleep_minutes: 360,
        max_asleep_minutes: 360,
      },
    ]);

    // 3: the same nights as sleep_nights_list answers them (same rule, same chosen source)
    const list = await call('sleep_nights_list', { from: '2025-03-17', to: '2025-03-30' });
    expect(list.items).toHaveLength(14);
    for (const n of list.items) {
      const day = days.sleep.find((s: any) => s.start === n.date);
      expect(day, n.date).toMatchObject({
        asleep_minutes: n.asleep_minutes,
        in_bed_minutes: n.in_bed_minutes,
        efficiency: n.efficiency,
        stages: n.stages,
      });
    }
    expect(calls).toBeLessThanOrEqual(3);
  });

  it('answers the workouts of each bucket, and sleep, workouts and metrics together', async () => {
    const client = await mcpClient(app, token);
    const res = await callTool(client, 'health_summary_range', {
      from: '2025-03-17',
      to: '2025-03-30',
      interval: 'week',
      metric_types: ['workouts', 'sleep', 'steps'],
    });
    const body = res.structuredContent as any;
    expect(body.workouts).toEqual([
      {
        start: '2025-03-17',
        end: '2025-03-23',
        count: 8,
        minutes: 270,
        energy_kcal: 2600,
        distance_m: null,
        activity_types: ['running', 'cycling'],
      },
      {
        start: '2025-03-24',
        end: '2025-03-30',
        count: 7,
        minutes: 210,
        energy_kcal: 2100,
        distance_m: null,
        activity_types: ['running'],
      },
    ]);
    expect(body.sleep.map((s: any) => s.nights)).toEqual([7, 7]);
    expect(body.rows).toEqual([]); // no steps recorded
    const day = await callTool(client, 'health_summary_range', {
      from: '2025-03-20',
      to: '2025-03-20',
      metric_types: ['workouts'],
    });
    expect((day.structuredContent as any).workouts).toEqual([
      {
        start: '2025-03-20',
        end: '2025-03-20',
        count: 2,
        minutes: 90,
        energy_kcal: 800,
        distance_m: null,
        activity_types: ['cycling', 'running'],
      },
    ]);
  });

  it('leaves sleep and workouts out unless asked, and clips a bucket to the range', async () => {
    const res = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-03-20&to=2025-03-25&interval=week&metric_types=sleep',
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body.sleep.map((s: any) => [s.start, s.end, s.nights, s.asleep_minutes])).toEqual([
      ['2025-03-20', '2025-03-23', 4, 480],
      ['2025-03-24', '2025-03-25', 2, 360],
    ]);
    const plain = await rest(
      app,
      'GET',
      '/api/v1/health/summary/range?from=2025-03-17&to=2025-03-30',
      { token },
    );
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ sleep: [], workouts: [] });
  });

  it(
    'counts a bucket of sleep or workouts as two rows: the largest answers stay under 100,000 characters',
    { timeout: 60_000 },
    async () => {
      // 200 nights of four stages, and ten kinds of workout a day on the last 100 days
      const heavy = await seedUser(app);
      const sleep = Array.from({ length: 200 }, (_, d) => {
        const night = FIRST - (199 - d) * 86_400_000 - 2 * 3_600_000;
        return ['core', 'deep', 'rem', 'awake'].map((stage, k) => ({
          stage,
          start_at: new Date(night + k * 90 * MIN).toISOString(),
          end_at: new Date(night + (k + 1) * 90 * MIN).toISOString(),
        }));
      }).flat();
      const workouts = Array.from({ length: 100 }, (_, d) =>
        Array.from({ length: 10 }, (_, k) => ({
          activity_type: `activity_number_${k}`,
          start_at: new Date(FIRST - (99 - d) * 86_400_000 + (8 + k) * 3_600_000).toISOString(),
          end_at: new Date(FIRST - (99 - d) * 86_400_000 + (8.5 + k) * 3_600_000).toISOString(),
          energy_kcal: 123.4,
        })),
      ).flat();
      await seedIntervals(app, heavy.token, { sleep, workouts });
      const client = await mcpClient(
        app,
        await seedPersonalToken(app, heavy.user.id, ['health:summary:read']),
      );
      const to = dateOf(0);
      const sizes: number[] = [];
      for (const [from, types, buckets] of [
        ['2024-08-30', ['sleep'], 200],
        ['2024-12-08', ['sleep', 'workouts'], 100],
      ] as const) {
        const res = await callTool(client, 'health_summary_range', {
          from,
          to,
          metric_types: types,
        });
        const body = res.structuredContent as any;
        expect(res.isError, JSON.stringify(body).slice(0, 300)).toBeFalsy();
        expect(body.sleep).toHaveLength(buckets);
        expect(body.meta.truncated).toBeUndefined(); // nothing cut
        sizes.push((res.content as { text: string }[])[0].text.length);
      }
      console.log(
        `health_summary_range: 200 nights ${sizes[0]} characters, 100 days of sleep and workouts ${sizes[1]}`,
      );
      for (const size of sizes) expect(size).toBeLessThan(100_000);

      // one day more is over 400 rows, refused with what to ask instead
      const tooMany = await callTool(client, 'health_summary_range', {
        from: '2024-08-29',
        to,
        metric_types: ['sleep'],
      });
      expect(tooMany.isError).toBe(true);
      const error = (tooMany.structuredContent as any).error;
      expect(error).toMatchObject({ code: 'VALIDATION_FAILED', detail: [{ loc: ['interval'] }] });
      expect(error.message).toMatch(/402 rows .*week or month/);
      const unknown = await callTool(client, 'health_summary_range', {
        from: '2025-03-17',
        to: '2025-03-30',
        metric_types: ['naps'],
      });
      expect((unknown.structuredContent as any).error.code).toBe('VALIDATION_FAILED');
    },
  );

  it('answers another person nothing of this one (the token reads its own person)', async () => {
    const other = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, other.user.id, ['health:summary:read']),
    );
    const res = await callTool(client, 'health_summary_range', {
      from: '2025-03-17',
      to: '2025-03-30',
      metric_types: ['sleep', 'workouts'],
    });
    expect(res.structuredContent).toMatchObject({ timezone: 'UTC', sleep: [], workouts: [] });
  });
});
