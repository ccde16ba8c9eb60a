/**
 * Workouts and sleep nights for agents (issue 16): workouts_list (keyset pages, filters),
 * workout_detail_read (heart rate during the workout), workout_comparison_read, sleep_nights_list and
 * sleep_stages_read, through MCP and their /api/v1 routes: behaviour, another person's id (404),
 * scopes and bounds.
 */
import { describe, expect, it } from 'vitest';
import { seedHealthPerson } from '../factories/health-summary.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();

async function person(scopes: Parameters<typeof seedPersonalToken>[2]) {
  const seeded = await seedHealthPerson(app);
  const token = await seedPersonalToken(app, seeded.user.id, scopes);
  return { ...seeded, pat: token, client: await mcpClient(app, token) };
}

/** The id of the person's workout that started at `startIso` (UTC). */
async function workoutId(userId: number, startIso: string): Promise<string> {
  const w = await app.db.prisma.workoutSample.findFirstOrThrow({
    where: { userId, startAt: new Date(startIso) },
  });
  return w.id;
}

describe('workouts_list (issue 16)', () => {
  it('pages the workouts newest first and filters by activity type and local dates', async () => {
    const me = await person(['health:workouts:read']);
    const first = (await callTool(me.client, 'workouts_list', { limit: 2 }))
      .structuredContent as any;
    expect(first.items.map((w: any) => [w.activity_type, w.start_at])).toEqual([
      ['running', '2025-03-10T18:00:00.000+01:00'],
      ['cycling', '2025-03-08T10:00:00.000+01:00'],
    ]);
    expect(first.items[0]).toMatchObject({
      duration_minutes: 30,
      energy_kcal: 300,
      distance_m: 5000,
    });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (
      await callTool(me.client, 'workouts_list', { limit: 2, cursor: first.next_cursor })
    ).structuredContent as any;
    expect(second.items.map((w: any) => w.start_at)).toEqual([
      '2025-03-05T07:00:00.000+01:00',
      '2025-03-01T07:00:00.000+01:00',
    ]);
    expect(second.next_cursor ?? null).toBeNull();
    expect(second.meta).toHaveProperty('phone_last_sync_at');

    const runs = await rest(app, 'GET', '/api/v1/health/workouts?activity_type=running', {
      token: me.pat,
    });
    expect(runs.status).toBe(200);
    expect(runs.body.items).toHaveLength(3);
    const window = await rest(app, 'GET', '/api/v1/health/workouts?from=2025-03-05&to=2025-03-08', {
      token: me.pat,
    });
    expect(window.body.items.map((w: any) => w.activity_type)).toEqual(['cycling', 'running']);
    // the REST page follows its own next_cursor
    const page1 = await rest(app, 'GET', '/api/v1/health/workouts?limit=3', { token: me.pat });
    const page2 = await rest(
      app,
      'GET',
      `/api/v1/health/workouts?limit=3&cursor=${page1.body.next_cursor}`,
      { token: me.pat },
    );
    expect(page2.body.items.map((w: any) => w.start_at)).toEqual(['2025-03-01T06:00:00.000Z']);
    expect(page2.body.next_cursor).toBeNull();
  });

  it('refuses bad bounds (422) and a token without health:workouts:read (403)', async () => {
    const me = await person(['health:workouts:read']);
    for (const query of [
      'limit=0',
      'limit=101',
      'cursor=not-a-cursor',
      'from=2025-03-10&to=2025-03-01',
      `activity_type=${'x'.repeat(101)}`,
      'from=2025-13-01',
    ]) {
      const res = await rest(app, 'GET', `/api/v1/health/workouts?${query}`, { token: me.pat });
      expect(res.status, query).toBe(422);
    }
    const bad = await callTool(me.client, 'workouts_list', { limit: 500 });
    expect(bad.isError).toBe(true);
    const other = await person(['health:sleep:read']);
    expect((await rest(app, 'GET', '/api/v1/health/workouts', { token: other.pat })).status).toBe(
      403,
    );
    expect((await callTool(other.client, 'workouts_list', {})).isError).toBe(true);
  });
});

describe('workout_detail_read (issue 16)', () => {
  it('answers the heart rate during the workout: aggregates and a series', async () => {
    const me = await person(['health:workouts:read']);
    const id = await workoutId(me.user.id, '2025-03-10T17:00:00Z');
    const res = await callTool(me.client, 'workout_detail_read', { id });
    const detail = res.structuredContent as any;
    expect(detail).toMatchObject({ id, activity_type: 'running', duration_minutes: 30 });
    expect(detail.heart_rate).toEqual({
      count: 3,
      avg: 140,
      min: 120,
      max: 160,
      series: [
        { at: '2025-03-10T18:05:00.000+01:00', avg: 120, max: 120 },
        { at: '2025-03-10T18:15:00.000+01:00', avg: 140, max: 140 },
        { at: '2025-03-10T18:25:00.000+01:00', avg: 160, max: 160 },
      ],
    });
    const http = await rest(app, 'GET', `/api/v1/health/workouts/${id}`, { token: me.pat });
    expect(http.status).toBe(200);
    expect(http.body.heart_rate.avg).toBe(140);
    const ride = await workoutId(me.user.id, '2025-03-08T09:00:00Z');
    const noHr = await rest(app, 'GET', `/api/v1/health/workouts/${ride}`, { token: me.pat });
    expect(noHr.body.heart_rate).toBeNull();
  });

  it("answers 404 for another person's workout and for an unknown id; 403 without the scope", async () => {
    const me = await person(['health:workouts:read']);
    const them = await seedHealthPerson(app);
    const theirs = await workoutId(them.user.id, '2025-03-10T17:00:00Z');
    const res = await rest(app, 'GET', `/api/v1/health/workouts/${theirs}`, { token: me.pat });
    expect(res.status).toBe(404);
    expect(res.body.detail).toContain('workouts_list');
    expect(
      (await rest(app, 'GET', '/api/v1/health/workouts/wo_nope', { token: me.pat })).status,
    ).toBe(404);
    const mcp = await callTool(me.client, 'workout_detail_read', { id: theirs });
    expect(mcp.isError).toBe(true);
    expect(JSON.stringify(mcp.content)).toContain('not found');
    const long = await rest(app, 'GET', `/api/v1/health/workouts/${'w'.repeat(101)}`, {
      token: me.pat,
    });
    expect(long.status).toBe(422);
    const other = await person(['health:metrics:read']);
    const refused = await rest(app, 'GET', `/api/v1/health/workouts/${theirs}`, {
      token: other.pat,
    });
    expect(refused.status).toBe(403);
  });
});

describe('workout_comparison_read (issue 16)', () => {
  it('compares with the previous workouts of the same type: baseline means and deltas', async () => {
    const me = await person(['health:workouts:read']);
    const id = await workoutId(me.user.id, '2025-03-10T17:00:00Z');
    const res = await callTool(me.client, 'workout_comparison_read', { id });
    const cmp = res.structuredContent as any;
    expect(cmp.workout).toMatchObject({ id, duration_minutes: 30, avg_heart_rate: 140 });
    expect(cmp.previous.map((p: any) => [p.start_at, p.avg_heart_rate])).toEqual([
      ['2025-03-05T07:00:00.000+01:00', 130],
      ['2025-03-01T07:00:00.000+01:00', null],
    ]);
    expect(cmp.baseline).toEqual({
      duration_minutes: 40,
      energy_kcal: 400,
      distance_m: 6000,
      avg_heart_rate: 130,
    });
    expect(cmp.deltas).toEqual({
      duration_minutes: -10,
      energy_kcal: -100,
      distance_m: -1000,
      avg_heart_rate: 10,
    });
    const one = await rest(app, 'GET', `/api/v1/health/workouts/${id}/comparison?previous=1`, {
      token: me.pat,
    });
    expect(one.body.previous).toHaveLength(1);
    const first = await workoutId(me.user.id, '2025-03-01T06:00:00Z');
    const none = await rest(app, 'GET', `/api/v1/health/workouts/${first}/comparison`, {
      token: me.pat,
    });
    expect(none.body).toMatchObject({
      previous: [],
      baseline: { duration_minutes: null },
      deltas: { duration_minutes: null },
    });
  });

  it("answers 404 for another person's workout and 422 for previous out of 1..50", async () => {
    const me = await person(['health:workouts:read']);
    const them = await seedHealthPerson(app);
    const theirs = await workoutId(them.user.id, '2025-03-10T17:00:00Z');
    const res = await rest(app, 'GET', `/api/v1/health/workouts/${theirs}/comparison`, {
      token: me.pat,
    });
    expect(res.status).toBe(404);
    expect((await callTool(me.client, 'workout_comparison_read', { id: theirs })).isError).toBe(
      true,
    );
    const mine = await workoutId(me.user.id, '2025-03-10T17:00:00Z');
    for (const previous of [0, 51]) {
      const bad = await rest(
        app,
        'GET',
        `/api/v1/health/workouts/${mine}/comparison?previous=${previous}`,
        { token: me.pat },
      );
      expect(bad.status).toBe(422);
    }
    const other = await person(['health:summary:read']);
    expect((await callTool(other.client, 'workout_comparison_read', { id: mine })).isError).toBe(
      true,
    );
  });
});

describe('sleep_nights_list (issue 16)', () => {
  it('answers nights newest first from the source with the most sleep, a page at a time', async () => {
    const me = await person(['health:sleep:read']);
    const res = await callTool(me.client, 'sleep_nights_list', {
      from: '2025-03-01',
      to: '2025-03-31',
      limit: 1,
    });
    const page = res.structuredContent as any;
    expect(page.items).toEqual([
      expect.objectContaining({
        date: '2025-03-10',
        source: 'Watch',
        sources: ['Phone', 'Watch'],
        asleep_minutes: 470,
        in_bed_minutes: 480,
        efficiency: 98,
      }),
    ]);
    const next = (
      await callTool(me.client, 'sleep_nights_list', {
        from: '2025-03-01',
        to: '2025-03-31',
        limit: 1,
        cursor: page.next_cursor,
      })
    ).structuredContent as any;
    expect(next.items).toEqual([
      expect.objectContaining({
        date: '2025-03-09',
        asleep_minutes: 480,
        in_bed_minutes: 480,
        efficiency: 100,
        stages: expect.objectContaining({ asleep_unspecified: 480 }),
      }),
    ]);
    expect(next.next_cursor ?? null).toBeNull();
    const http = await rest(
      app,
      'GET',
      '/api/v1/health/sleep/nights?from=2025-03-01&to=2025-03-31',
      {
        token: me.pat,
      },
    );
    expect(http.body.items.map((n: any) => n.date)).toEqual(['2025-03-10', '2025-03-09']);
    const older = await rest(app, 'GET', '/api/v1/health/sleep/nights?to=2025-03-09&limit=5', {
      token: me.pat,
    });
    expect(older.body.items.map((n: any) => n.date)).toEqual(['2025-03-09']);
  });

  it('refuses bad bounds (422), a token without health:sleep:read (403), shows no one else', async () => {
    const me = await person(['health:sleep:read']);
    for (const query of [
      'limit=0',
      'limit=101',
      'cursor=abc',
      'from=2025-03-10&to=2025-03-01',
      'from=1999-01-01&to=2025-01-01',
    ]) {
      const res = await rest(app, 'GET', `/api/v1/health/sleep/nights?${query}`, { token: me.pat });
      expect(res.status, query).toBe(422);
    }
    const other = await person(['health:workouts:read']);
    expect(
      (await rest(app, 'GET', '/api/v1/health/sleep/nights', { token: other.pat })).status,
    ).toBe(403);
    const stranger = await seedUser(app);
    const theirs = await rest(
      app,
      'GET',
      '/api/v1/health/sleep/nights?from=2025-03-01&to=2025-03-31',
      {
        token: await seedPersonalToken(app, stranger.user.id, ['health:sleep:read']),
      },
    );
    expect(theirs.body.items).toEqual([]);
  });
});

describe('sleep_stages_read (issue 16)', () => {
  it("answers the night's stage intervals of its main source, or of the source asked", async () => {
    const me = await person(['health:sleep:read']);
    const res = await callTool(me.client, 'sleep_stages_read', { date: '2025-03-10' });
    const night = res.structuredContent as any;
    expect(night.intervals.map((i: any) => [i.stage, i.minutes])).toEqual([
      ['core', 180],
      ['deep', 60],
      ['rem', 60],
      ['awake', 10],
      ['core', 170],
    ]);
    expect(night).toMatchObject({ source: 'Watch', truncated: false, asleep_minutes: 470 });
    const phone = await rest(app, 'GET', '/api/v1/health/sleep/nights/2025-03-10?source=Phone', {
      token: me.pat,
    });
    expect(phone.body.intervals.map((i: any) => i.stage)).toEqual(['in_bed', 'asleep']);
  });

  it('answers 404 for a night without sleep or an unknown source, 422 for a bad date, 403 without the scope', async () => {
    const me = await person(['health:sleep:read']);
    const none = await rest(app, 'GET', '/api/v1/health/sleep/nights/2025-03-20', {
      token: me.pat,
    });
    expect(none.status).toBe(404);
    expect(none.body.detail).toContain('sleep_nights_list');
    const unknown = await rest(app, 'GET', '/api/v1/health/sleep/nights/2025-03-10?source=Ring', {
      token: me.pat,
    });
    expect(unknown.status).toBe(404);
    expect(
      (await rest(app, 'GET', '/api/v1/health/sleep/nights/2025-02-30', { token: me.pat })).status,
    ).toBe(422);
    const mcp = await callTool(me.client, 'sleep_stages_read', { date: 'tonight' });
    expect(mcp.isError).toBe(true);
    const other = await person(['health:summary:read']);
    expect(
      (await rest(app, 'GET', '/api/v1/health/sleep/nights/2025-03-10', { token: other.pat }))
        .status,
    ).toBe(403);
  });
});
