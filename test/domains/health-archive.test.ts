/**
 * The health archive (issue 16): the Apple Health importer stores the whole export (every record
 * type, workouts with statistics, events and GPX routes, ECG recordings), idempotently, and the
 * seven archive tools read it through MCP and /api/v1/health/archive. Real exports
 * (test/fixtures/apple_health) and a constructed one (test/fixtures/apple_health/constructed,
 * README.md there says how it was written).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importAppleHealthFile } from '../../src/domains/health/health.apple-import.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const db = app.db;
const fixture = (name: string): string => path.resolve('test/fixtures/apple_health', name);
const CONSTRUCTED = fixture('constructed/export.xml');
const HR = 'HKQuantityTypeIdentifierHeartRate';
const READ = ['health:metrics:read', 'health:workouts:read'] as const;

/** Row counts of a person's archive tables. */
async function counts(userId: number) {
  const p = app.db.prisma;
  return {
    records: await p.healthArchiveRecord.count({ where: { userId } }),
    workouts: await p.healthArchiveWorkout.count({ where: { userId } }),
    points: await p.healthArchiveRoutePoint.count({ where: { userId } }),
    ecg: await p.healthArchiveEcg.count({ where: { userId } }),
  };
}

/** A person with the constructed export imported, an MCP client and a token with both read scopes. */
async function imported() {
  const person = await seedUser(app);
  const summary = await importAppleHealthFile(db, { userId: person.user.id, file: CONSTRUCTED });
  const token = await seedPersonalToken(app, person.user.id, [...READ]);
  const client = await mcpClient(app, token);
  return { ...person, summary, pat: token, client };
}

const sc = (res: { structuredContent?: unknown }) => res.structuredContent as any;

describe('importing into the archive', () => {
  it('stores every element of the constructed export, and nothing twice on a second import', async () => {
    const { user } = await seedUser(app);
    const progress: number[] = [];
    const first = await importAppleHealthFile(db, {
      userId: user.id,
      file: CONSTRUCTED,
      progressEvery: 10,
      onProgressCounts: (p) => progress.push(p.seen),
    });
    // 41 heart rate + 2 category + 2 blood pressure + 1 correlation + 3 workout events + 1 activity
    // summary; the 31 February record is skipped, the correlation's nested records are the top-level ones
    expect(first.archive).toEqual({
      records: 50,
      workouts: 2,
      routePoints: 1200,
      missingRouteFiles: 1,
      ecg: 2,
      unreadableEcgFiles: 0,
    });
    expect(progress).toEqual([10, 20, 30, 40, 50, 50]);
    const before = await counts(user.id);
    expect(before).toEqual({ records: 50, workouts: 2, points: 1200, ecg: 2 });
    const again = await importAppleHealthFile(db, { userId: user.id, file: CONSTRUCTED });
    expect(again.archive).toMatchObject({ records: 0, workouts: 0, routePoints: 0, ecg: 0 });
    expect(await counts(user.id)).toEqual(before);
  });

  it('keeps value, unit, source, device and metadata of a record', async () => {
    const { user } = await imported();
    const r = await app.db.prisma.healthArchiveRecord.findFirstOrThrow({
      where: { userId: user.id, type: HR, startAt: new Date('2020-03-14T08:00:00Z') },
    });
    expect(r).toMatchObject({
      kind: 'quantity',
      value: 100,
      valueText: '100',
      unit: 'count/min',
      sourceName: 'Apple Watch',
      sourceVersion: '7.0',
      metadata: { HKMetadataKeyHeartRateMotionContext: '2' },
    });
    expect(r.device).toContain('hardware:Watch5,4');
    const summary = await app.db.prisma.healthArchiveRecord.findFirstOrThrow({
      where: { userId: user.id, kind: 'activity_summary' },
    });
    expect(summary.metadata).toMatchObject({ appleExerciseTime: '35', appleStandHours: '11' });
  });

  it('reads the real healthkit-to-sqlite zip: its GPX route beside export.xml, and its plain XML with inline locations', async () => {
    const { user } = await seedUser(app);
    const zipped = await importAppleHealthFile(db, {
      userId: user.id,
      file: fixture('healthkit_to_sqlite_export.zip'),
    });
    expect(zipped.archive).toMatchObject({ workouts: 1, routePoints: 3, missingRouteFiles: 0 });
    const points = await app.db.prisma.healthArchiveRoutePoint.findMany({
      where: { userId: user.id },
      orderBy: { seq: 'asc' },
    });
    expect(points[0]).toMatchObject({
      at: new Date('2019-06-11T22:00:42Z'),
      lat: 37.781672,
      lon: -122.396397,
      elevation: 4.076904,
      speed: 0.180883,
      course: 206.252884,
    });
    const other = await seedUser(app);
    const plain = await importAppleHealthFile(db, {
      userId: other.user.id,
      file: fixture('healthkit_to_sqlite_export.xml'),
    });
    // two inline <Location>s, a BodyMassIndex and a HeartRate record, two activity summaries
    expect(plain.archive).toMatchObject({ records: 4, workouts: 1, routePoints: 2 });
  });

  it('archives every record of the real export6s3sample export (types not imported as metrics too)', async () => {
    const { user } = await seedUser(app);
    const res = await importAppleHealthFile(db, {
      userId: user.id,
      file: fixture('export6s3sample.xml'),
    });
    expect(res).toMatchObject({ seen: 16, mapped: 11, ignored: 5 });
    const types = await app.db.prisma.healthArchiveRecord.groupBy({
      by: ['type'],
      where: { userId: user.id },
      _count: true,
      orderBy: { type: 'asc' },
    });
    expect(types.map((t) => [t.type, t._count])).toEqual([
      ['ActivitySummary', 2],
      ['HKQuantityTypeIdentifierDistanceWalkingRunning', 5],
      ['HKQuantityTypeIdentifierStepCount', 10],
    ]);
  });
});

describe('get_health_archive_coverage', () => {
  it('answers per type the range, count, units and sources, through MCP and /api/v1', async () => {
    const { client, pat } = await imported();
    const res = await callTool(client, 'get_health_archive_coverage', {});
    expect(res.isError).toBeFalsy();
    const cov = sc(res);
    const hr = cov.types.find((t: any) => t.type === HR);
    expect(hr).toEqual({
      type: HR,
      kind: 'quantity',
      count: 41,
      first: '2020-03-14T07:55:00.000Z',
      last: '2020-03-14T08:35:00.000Z',
      units: ['count/min'],
      sources: ['Apple Watch'],
    });
    expect(cov.workouts).toEqual({
      count: 2,
      first: '2020-03-14T08:00:00.000Z',
      last: '2020-03-16T18:20:00.000Z',
    });
    expect(cov.ecg.count).toBe(2);
    expect(cov.route_points).toBe(1200);
    const http = await rest(app, 'GET', '/api/v1/health/archive/coverage', { token: pat });
    expect(http.status).toBe(200);
    expect(http.body.types).toEqual(cov.types);
  });

  it('refuses a token without health:metrics:read', async () => {
    const { user } = await imported();
    const pat = await seedPersonalToken(app, user.id, ['health:workouts:read']);
    const refused = await callTool(await mcpClient(app, pat), 'get_health_archive_coverage', {});
    expect(sc(refused).error.code).toBe('INSUFFICIENT_SCOPE');
    const http = await rest(app, 'GET', '/api/v1/health/archive/coverage', { token: pat });
    expect(http.status).toBe(403);
  });
});

describe('health_archive_samples', () => {
  const range = { type: HR, start: '2020-03-14T00:00:00Z', end: '2020-03-15T00:00:00Z' };

  it('pages the samples of a type oldest first with a keyset cursor', async () => {
    const { client } = await imported();
    const first = sc(await callTool(client, 'health_archive_samples', { ...range, limit: 30 }));
    expect(first.items).toHaveLength(30);
    expect(first.items[0]).toMatchObject({
      start_at: '2020-03-14T07:55:00.000Z',
      value: 95,
      value_text: '95',
      unit: 'count/min',
      source_name: 'Apple Watch',
    });
    const second = sc(
      await callTool(client, 'health_archive_samples', {
        ...range,
        limit: 30,
        cursor: first.next_cursor,
      }),
    );
    expect(second.items).toHaveLength(11);
    expect(second.next_cursor ?? null).toBeNull(); // MCP leaves null fields out
    expect(second.items[0].start_at).toBe('2020-03-14T08:25:00.000Z');
  });

  it('aggregates to interval buckets in SQL', async () => {
    const { pat } = await imported();
    const res = await rest(
      app,
      'GET',
      `/api/v1/health/archive/samples?type=${HR}&start=2020-03-14T00:00:00Z&end=2020-03-15T00:00:00Z&interval=hour`,
      { token: pat },
    );
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
    // 07:55..07:59 (95..99) and 08:00..08:35 (100..135)
    expect(res.body.buckets).toEqual([
      { start: '2020-03-14T07:00:00.000Z', count: 5, min: 95, max: 99, avg: 97, sum: 485 },
      { start: '2020-03-14T08:00:00.000Z', count: 36, min: 100, max: 135, avg: 117.5, sum: 4230 },
    ]);
  });

  it('refuses out-of-bounds arguments with 422 / VALIDATION_FAILED', async () => {
    const { client, pat } = await imported();
    for (const args of [
      { ...range, limit: 301 },
      { ...range, limit: 0 },
      { ...range, end: range.start },
      { ...range, start: '2020-13-40' },
      { ...range, type: 'x'.repeat(101) },
      { ...range, type: 'bad type!' },
      { ...range, cursor: 'bogus' },
      { ...range, cursor: Buffer.from('[1,"abc"]').toString('base64url') },
      { ...range, cursor: Buffer.from('[9e20,"1"]').toString('base64url') },
      { ...range, interval: 'fortnight' },
    ]) {
      const res = await callTool(client, 'health_archive_samples', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect(sc(res).error.code, JSON.stringify(args)).toBe('VALIDATION_FAILED');
    }
    const http = await rest(
      app,
      'GET',
      `/api/v1/health/archive/samples?type=${HR}&start=2020-03-14T00:00:00Z&end=2020-03-15T00:00:00Z&limit=1000`,
      { token: pat },
    );
    expect(http.status).toBe(422);
    expect(http.body.detail[0].loc).toEqual(['query', 'limit']);
  });

  it("never answers another person's samples", async () => {
    await imported();
    const stranger = await seedUser(app);
    const pat = await seedPersonalToken(app, stranger.user.id, ['health:metrics:read']);
    const res = sc(await callTool(await mcpClient(app, pat), 'health_archive_samples', range));
    expect(res.items).toEqual([]);
  });
});

describe('health_archive_events', () => {
  it('answers category records and workout events with metadata, oldest first', async () => {
    const { client, pat } = await imported();
    const args = { start: '2020-03-14T00:00:00Z', end: '2020-03-15T00:00:00Z' };
    const res = sc(await callTool(client, 'health_archive_events', args));
    expect(res.items.map((e: any) => [e.kind, e.type, e.start_at, e.end_at])).toEqual([
      [
        'workout_event',
        'HKWorkoutEventTypeSegment',
        '2020-03-14T08:00:00.000Z',
        '2020-03-14T08:05:30.000Z',
      ],
      [
        'workout_event',
        'HKWorkoutEventTypePause',
        '2020-03-14T08:10:00.000Z',
        '2020-03-14T08:10:00.000Z',
      ],
      [
        'workout_event',
        'HKWorkoutEventTypeResume',
        '2020-03-14T08:12:00.000Z',
        '2020-03-14T08:12:00.000Z',
      ],
      [
        'category',
        'HKCategoryTypeIdentifierMindfulSession',
        '2020-03-14T12:00:00.000Z',
        '2020-03-14T12:01:00.000Z',
      ],
      [
        'category',
        'HKCategoryTypeIdentifierHighHeartRateEvent',
        '2020-03-14T21:50:00.000Z',
        '2020-03-14T22:10:00.000Z',
      ],
    ]);
    expect(res.items[0].workout_id).toMatch(/^haw_/);
    expect(res.items[4].metadata).toEqual([
      { key: 'HKHeartRateEventThreshold', value: '120 count/min' },
    ]);
    const page = await rest(
      app,
      'GET',
      '/api/v1/health/archive/events?start=2020-03-14T00:00:00Z&end=2020-03-15T00:00:00Z&type=HKCategoryTypeIdentifierMindfulSession',
      { token: pat },
    );
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(1);
    const paged = sc(await callTool(client, 'health_archive_events', { ...args, limit: 2 }));
    const next = sc(
      await callTool(client, 'health_archive_events', {
        ...args,
        limit: 2,
        cursor: paged.next_cursor,
      }),
    );
    expect(next.items[0].type).toBe('HKWorkoutEventTypeResume');
  });

  it('refuses a token without the scope and a limit over 200', async () => {
    const { user, client } = await imported();
    const args = { start: '2020-03-14T00:00:00Z', end: '2020-03-15T00:00:00Z' };
    const pat = await seedPersonalToken(app, user.id, ['health:workouts:read']);
    const refused = await callTool(await mcpClient(app, pat), 'health_archive_events', args);
    expect(sc(refused).error.code).toBe('INSUFFICIENT_SCOPE');
    const big = await callTool(client, 'health_archive_events', { ...args, limit: 201 });
    expect(sc(big).error.code).toBe('VALIDATION_FAILED');
  });
});

describe('health_archive_workouts', () => {
  const args = { start: '2020-03-01T00:00:00Z', end: '2020-04-01T00:00:00Z' };

  it('answers workouts newest first with statistics, metadata, route and event counts', async () => {
    const { client, pat } = await imported();
    const res = sc(await callTool(client, 'health_archive_workouts', args));
    expect(res.items.map((w: any) => w.activity_type)).toEqual([
      'HKWorkoutActivityTypeWalking',
      'HKWorkoutActivityTypeRunning',
    ]);
    const run = res.items[1];
    expect(run).toMatchObject({
      start_at: '2020-03-14T08:00:00.000Z',
      end_at: '2020-03-14T08:30:00.000Z',
      duration_minutes: 30,
      distance_m: 5200,
      energy_kcal: 310,
      route_points: 1200,
      events: 3,
    });
    expect(run.metadata).toEqual([
      { key: 'HKIndoorWorkout', value: '0' },
      { key: 'HKWeatherTemperature', value: '48 degF' },
    ]);
    expect(run.statistics[0]).toEqual({
      type: HR,
      start_at: '2020-03-14T08:00:00.000Z',
      end_at: '2020-03-14T08:30:00.000Z',
      average: 115,
      minimum: 100,
      maximum: 130,
      sum: null,
      unit: 'count/min',
    });
    const running = await rest(
      app,
      'GET',
      '/api/v1/health/archive/workouts?start=2020-03-01T00:00:00Z&end=2020-04-01T00:00:00Z&activity_type=running&limit=1',
      { token: pat },
    );
    expect(running.status).toBe(200);
    expect(running.body.items.map((w: any) => w.id)).toEqual([run.id]);
    expect(running.body.next_cursor).toBeNull();
    const paged = sc(await callTool(client, 'health_archive_workouts', { ...args, limit: 1 }));
    const next = sc(
      await callTool(client, 'health_archive_workouts', {
        ...args,
        limit: 1,
        cursor: paged.next_cursor,
      }),
    );
    expect(next.items.map((w: any) => w.id)).toEqual([run.id]);
  });

  it('needs health:workouts:read (health:metrics:read is not enough)', async () => {
    const { user } = await imported();
    const pat = await seedPersonalToken(app, user.id, ['health:metrics:read']);
    const refused = await callTool(await mcpClient(app, pat), 'health_archive_workouts', args);
    expect(sc(refused).error.code).toBe('INSUFFICIENT_SCOPE');
    const http = await rest(
      app,
      'GET',
      '/api/v1/health/archive/workouts?start=2020-03-01T00:00:00Z&end=2020-04-01T00:00:00Z',
      { token: pat },
    );
    expect(http.status).toBe(403);
  });
});

async function runningWorkoutId(client: Awaited<ReturnType<typeof imported>>['client']) {
  const res = sc(
    await callTool(client, 'health_archive_workouts', {
      start: '2020-03-14T00:00:00Z',
      end: '2020-03-15T00:00:00Z',
    }),
  );
  return res.items[0].id as string;
}

describe('health_archive_workout_series', () => {
  it("answers the heart rate during the workout's span, paged or in buckets", async () => {
    const { client, pat } = await imported();
    const id = await runningWorkoutId(client);
    const res = sc(await callTool(client, 'health_archive_workout_series', { workout_id: id }));
    // 08:00..08:30 inclusive: 31 samples of the 41
    expect(res.workout.id).toBe(id);
    expect(res.items).toHaveLength(31);
    expect(res.items[0].value).toBe(100);
    expect(res.items[30].value).toBe(130);
    const buckets = await rest(
      app,
      'GET',
      `/api/v1/health/archive/workouts/${id}/series?interval=hour`,
      { token: pat },
    );
    expect(buckets.status).toBe(200);
    expect(buckets.body.buckets).toEqual([
      { start: '2020-03-14T08:00:00.000Z', count: 31, min: 100, max: 130, avg: 115, sum: 3565 },
    ]);
  });

  it("answers 404 for another person's workout and refuses a token without the scope", async () => {
    const { client } = await imported();
    const id = await runningWorkoutId(client);
    const stranger = await seedUser(app);
    const pat = await seedPersonalToken(app, stranger.user.id, [...READ]);
    const theirs = await callTool(await mcpClient(app, pat), 'health_archive_workout_series', {
      workout_id: id,
    });
    expect(sc(theirs).error.code).toBe('NOT_FOUND');
    const http = await rest(app, 'GET', `/api/v1/health/archive/workouts/${id}/series`, {
      token: pat,
    });
    expect(http.status).toBe(404);
    const noScope = await seedPersonalToken(app, stranger.user.id, ['health:workouts:read']);
    const refused = await callTool(await mcpClient(app, noScope), 'health_archive_workout_series', {
      workout_id: id,
    });
    expect(sc(refused).error.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('health_archive_routes', () => {
  it('pages the track in time order, or downsamples it to max_points', async () => {
    const { client, pat } = await imported();
    const id = await runningWorkoutId(client);
    const page = sc(
      await callTool(client, 'health_archive_routes', { workout_id: id, limit: 500 }),
    );
    expect(page.total_points).toBe(1200);
    expect(page.points).toHaveLength(500);
    expect(page.points[0]).toEqual({
      at: '2020-03-14T08:00:00.000Z',
      lat: 51.5,
      lon: -0.12,
      elevation: 10,
      speed: 2.5,
      course: 0,
    });
    const next = sc(
      await callTool(client, 'health_archive_routes', {
        workout_id: id,
        limit: 500,
        cursor: page.next_cursor,
      }),
    );
    expect(next.points[0].at).toBe('2020-03-14T08:08:20.000Z');
    const down = await rest(
      app,
      'GET',
      `/api/v1/health/archive/workouts/${id}/route?max_points=100`,
      { token: pat },
    );
    expect(down.status).toBe(200);
    expect(down.body.step).toBe(12);
    expect(down.body.points).toHaveLength(100);
    expect(down.body.next_cursor).toBeNull();
    // every answer stays far below 25,000 tokens (about 4 characters a token)
    expect(JSON.stringify(page).length).toBeLessThan(100_000);
  });

  it("answers 404 for another person's workout; 422 beyond the bounds", async () => {
    const { client } = await imported();
    const id = await runningWorkoutId(client);
    const stranger = await seedUser(app);
    const pat = await seedPersonalToken(app, stranger.user.id, ['health:metrics:read']);
    const http = await rest(app, 'GET', `/api/v1/health/archive/workouts/${id}/route`, {
      token: pat,
    });
    expect(http.status).toBe(404);
    expect(http.body.detail).toMatch(/not found/);
    for (const args of [{ limit: 501 }, { max_points: 1 }, { max_points: 501 }]) {
      const res = await callTool(client, 'health_archive_routes', { workout_id: id, ...args });
      expect(sc(res).error.code, JSON.stringify(args)).toBe('VALIDATION_FAILED');
    }
  });
});

describe('health_archive_ecg', () => {
  it('lists recordings newest first and reads one recording a window of samples at a time', async () => {
    const { client, pat } = await imported();
    const list = sc(await callTool(client, 'health_archive_ecg', {}));
    expect(
      list.recordings.map((r: any) => [r.recorded_at, r.classification, r.sample_count]),
    ).toEqual([
      ['2020-04-01T05:00:00.000Z', 'Atrial Fibrillation', 1024],
      ['2020-03-15T09:20:30.000Z', 'Sinus Rhythm', 3000],
    ]);
    const sinus = list.recordings[1];
    expect(sinus).toMatchObject({
      sample_rate_hz: 512,
      lead: 'Lead I',
      unit: 'µV',
      device: 'Apple Inc. Watch5,4 7.0',
      symptoms: null,
    });
    expect(sinus.duration_seconds).toBeCloseTo(3000 / 512, 6);
    const first = await rest(app, 'GET', `/api/v1/health/archive/ecg/${sinus.id}`, { token: pat });
    expect(first.status).toBe(200);
    expect(first.body.recording.samples).toHaveLength(2000);
    expect(first.body.recording.samples[0]).toBe(0);
    expect(first.body.recording.next_sample_offset).toBe(2000);
    const rest2 = sc(
      await callTool(client, 'health_archive_ecg', { ecg_id: sinus.id, sample_offset: 2000 }),
    );
    expect(rest2.recording.samples).toHaveLength(1000);
    expect(rest2.recording.next_sample_offset).toBeNull();
    const stored = await app.db.prisma.healthArchiveEcg.findUniqueOrThrow({
      where: { id: sinus.id },
    });
    expect(rest2.recording.samples[999]).toBeCloseTo(stored.samples[2999], 3);
    expect(stored.header).toMatchObject({ 'Date of Birth': 'Jan 1, 1980' });
  });

  it("answers 404 for another person's recording; refuses a missing scope and bounds", async () => {
    const { client } = await imported();
    const list = sc(await callTool(client, 'health_archive_ecg', {}));
    const stranger = await seedUser(app);
    const pat = await seedPersonalToken(app, stranger.user.id, ['health:metrics:read']);
    const theirs = await rest(app, 'GET', `/api/v1/health/archive/ecg/${list.recordings[0].id}`, {
      token: pat,
    });
    expect(theirs.status).toBe(404);
    const strangerList = sc(await callTool(await mcpClient(app, pat), 'health_archive_ecg', {}));
    expect(strangerList.recordings).toEqual([]);
    const noScope = await seedPersonalToken(app, stranger.user.id, ['health:workouts:read']);
    const refused = await callTool(await mcpClient(app, noScope), 'health_archive_ecg', {});
    expect(sc(refused).error.code).toBe('INSUFFICIENT_SCOPE');
    for (const args of [{ sample_count: 5001 }, { sample_offset: -1 }, { limit: 51 }]) {
      const res = await callTool(client, 'health_archive_ecg', args);
      expect(sc(res).error.code, JSON.stringify(args)).toBe('VALIDATION_FAILED');
    }
  });
});
