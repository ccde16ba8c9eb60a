/**
 * Exports hold everything a person expects, on their local clock (issue 30, items 3 and 4), through
 * the real stack: data logged through REST and MCP, `POST /api/v1/export/jobs` or
 * `health_export_start`, the job run by the worker, the file downloaded through the absolute link
 * and unzipped or parsed. Every kind (metrics, glucose, sleep, workouts, meals with items and
 * nutrients, blood pressure, logs) with the right rows and another person's absent; the kinds and
 * metric_types filters; local hour and day buckets of a Europe/Berlin person across both DST days.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { logMeal } from '../factories/meals.ts';
import { seedGlucose, seedIntervals, seedMetrics } from '../factories/insights.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { unzipText } from '../harness/unzip.ts';

const PUBLIC_URL = 'https://health.example.test';
const app = await startTestApp({ PUBLIC_URL });

const EXPORT: Scope[] = ['health:export:read'];
const HOUR = 3_600_000;
let seq = 0;
const key = (): string => `idem-export-kinds-${process.pid}-${++seq}`;

type Row = Record<string, string>;
type Structured = Record<string, any>;

async function person(zone: string | null = 'Europe/Berlin') {
  const seeded = await seedUser(app);
  if (zone)
    await app.db.prisma.user.update({ where: { id: seeded.user.id }, data: { timezone: zone } });
  const pat = await seedPersonalToken(app, seeded.user.id, EXPORT);
  return { ...seeded, pat };
}

/** One record of every kind, through the API; `tag` marks the person's text and numbers. */
async function seedEverything(p: { token: string; user: { id: number } }, tag: string, n: number) {
  await seedMetrics(app, p.token, [
    { metric_type: 'heart_rate', value: 60 + n, timestamp: '2026-03-10T08:00:00Z', source: tag },
    { metric_type: 'steps', value: 1000 + n, timestamp: '2026-03-10T09:00:00Z', source: tag },
  ]);
  await seedGlucose(app, p.token, [
    { timestamp: new Date('2026-03-10T06:00:00Z'), valueMgDl: 90 + n },
    { timestamp: new Date('2026-03-10T06:05:00Z'), valueMgDl: 95 + n },
  ]);
  await seedIntervals(app, p.token, {
    sleep: [
      {
        stage: 'core',
        start_at: '2026-03-09T21:30:00Z',
        end_at: '2026-03-10T04:00:00Z',
        source: tag,
      },
    ],
    workouts: [
      {
        activity_type: 'running',
        start_at: '2026-03-10T16:00:00Z',
        end_at: '2026-03-10T16:45:00Z',
        energy_kcal: 400 + n,
      },
    ],
  });
  const meal = await logMeal(app, p.user.id, {
    meal_name: `${tag} porridge`,
    meal_type: 'breakfast',
    eaten_at: '2026-03-10T07:30:00+01:00',
    items: [
      { name: 'Oats, rolled', grams: 60, kcal: 230, protein_g: 8, carbs_g: 40, fat_g: 4 },
      { name: `Milk "${tag}"`, grams: 200, portion: '1 cup', kcal: 130, sugar_g: 10 },
    ],
  });
  const bp = await rest(app, 'POST', '/api/v1/health/blood-pressure', {
    token: p.token,
    body: {
      systolic: 120 + n,
      diastolic: 80,
      pulse: 64,
      measured_at: '2026-03-10T19:00:00Z',
      note: `after "coffee", ${tag}`,
    },
  });
  expect(bp.status, JSON.stringify(bp.body)).toBe(201);
  for (const [path, body] of [
    ['hydration', { ml: 250 + n, logged_at: '2026-03-10T10:00:00Z' }],
    [
      'medications',
      { name: `Ibuprofen ${tag}`, dose: '200 mg', logged_at: '2026-03-10T12:00:00Z' },
    ],
  ] as const) {
    const res = await rest(app, 'POST', `/api/v1/health/logs/${path}`, { token: p.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  return { mealId: meal.id as string };
}

/** Waits for the job through REST until it leaves queued/running (a wait, not a timing). */
async function finished(token: string, id: string): Promise<Structured> {
  for (let i = 0; i < 600; i++) {
    const res = await rest(app, 'GET', `/api/v1/export/jobs/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.status !== 'queued' && res.body.status !== 'running') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`export ${id} did not finish`);
}

/** Starts an export through REST, waits for it, and downloads it through its absolute link. */
async function exportThroughRest(token: string, body: Record<string, unknown>) {
  const started = await rest(app, 'POST', '/api/v1/export/jobs', { token, body });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const job = await finished(token, started.body.id);
  expect(job.status, job.error).toBe('ready');
  return { job, ...(await download(job.download.url)) };
}

/** GETs an absolute download link (PUBLIC_URL names this app), without a credential. */
async function download(url: string) {
  expect(url.startsWith(`${PUBLIC_URL}/api/v1/export/files/`), url).toBe(true);
  const res = await app.fetch(new URL(url).pathname);
  expect(res.status).toBe(200);
  return {
    contentType: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

const csv = (text: string | undefined): Row[] => parse(text ?? '', { columns: true });

describe('an export holds every kind of the person’s data (issue 30)', () => {
  it('CSV: a zip with one file per kind, the right rows, times in the person’s zone, nobody else’s', async () => {
    const p = await person();
    const { mealId } = await seedEverything(p, 'Mine', 1);
    const other = await person();
    await seedEverything(other, 'Theirs', 50);

    const { job, contentType, disposition, bytes } = await exportThroughRest(p.pat, {
      from: '2026-03-01T00:00:00+01:00',
      to: '2026-04-01T00:00:00+02:00',
    });
    expect(job).toMatchObject({
      format: 'csv',
      interval: 'raw',
      kinds: ['metrics', 'glucose', 'sleep', 'workouts', 'meals', 'blood_pressure', 'logs'],
      metric_types: [],
      time_zone: 'Europe/Berlin',
      rows_written: 10, // 2 samples, 2 readings, 1 sleep, 1 workout, 1 meal, 1 reading, 2 logs
    });
    expect(contentType).toBe('application/zip');
    expect(disposition).toContain('health-export-2026-03-01-2026-04-01-raw.zip');
    expect(bytes.length).toBe(job.size_bytes);
    const files = await unzipText(bytes);
    expect([...files.keys()]).toEqual([
      'metrics.csv',
      'glucose.csv',
      'sleep.csv',
      'workouts.csv',
      'meals.csv',
      'meal_items.csv',
      'blood_pressure.csv',
      'logs.csv',
    ]);
    expect(csv(files.get('metrics.csv'))).toEqual([
      {
        timestamp: '2026-03-10T09:00:00.000+01:00',
        metric_type: 'heart_rate',
        value: '61',
        unit: 'bpm',
        source: 'Mine',
      },
      {
        timestamp: '2026-03-10T10:00:00.000+01:00',
        metric_type: 'steps',
        value: '1001',
        unit: 'count',
        source: 'Mine',
      },
    ]);
    expect(csv(files.get('glucose.csv'))).toEqual([
      {
        timestamp: '2026-03-10T07:00:00.000+01:00',
        value_mg_dl: '91',
        sensor_id: '1',
        source: 'cgm',
      },
      {
        timestamp: '2026-03-10T07:05:00.000+01:00',
        value_mg_dl: '96',
        sensor_id: '1',
        source: 'cgm',
      },
    ]);
    expect(csv(files.get('sleep.csv'))).toEqual([
      {
        start_at: '2026-03-09T22:30:00.000+01:00',
        end_at: '2026-03-10T05:00:00.000+01:00',
        stage: 'core',
        duration_minutes: '390',
        source: 'Mine',
      },
    ]);
    expect(csv(files.get('workouts.csv'))).toEqual([
      {
        start_at: '2026-03-10T17:00:00.000+01:00',
        end_at: '2026-03-10T17:45:00.000+01:00',
        activity_type: 'running',
        duration_minutes: '45',
        energy_kcal: '401',
        distance_m: '',
        source: '',
      },
    ]);
    expect(csv(files.get('meals.csv'))).toEqual([
      {
        id: mealId,
        eaten_at: '2026-03-10T07:30:00.000+01:00',
        meal_type: 'breakfast',
        meal_name: 'Mine porridge',
        kcal: '360',
        protein_g: '8',
        carbs_g: '40',
        fat_g: '4',
        fiber_g: '0',
        sugar_g: '10',
        note: '',
        source: 'mcp',
      },
    ]);
    expect(csv(files.get('meal_items.csv'))).toEqual([
      {
        meal_id: mealId,
        eaten_at: '2026-03-10T07:30:00.000+01:00',
        food_id: '',
        name: 'Oats, rolled',
        grams: '60',
        portion: '',
        kcal: '230',
        protein_g: '8',
        carbs_g: '40',
        fat_g: '4',
        fiber_g: '0',
        sugar_g: '0',
      },
      {
        meal_id: mealId,
        eaten_at: '2026-03-10T07:30:00.000+01:00',
        food_id: '',
        name: 'Milk "Mine"',
        grams: '200',
        portion: '1 cup',
        kcal: '130',
        protein_g: '0',
        carbs_g: '0',
        fat_g: '0',
        fiber_g: '0',
        sugar_g: '10',
      },
    ]);
    expect(csv(files.get('blood_pressure.csv'))).toEqual([
      {
        measured_at: '2026-03-10T20:00:00.000+01:00',
        systolic: '121',
        diastolic: '80',
        pulse: '64',
        note: 'after "coffee", Mine',
        source: 'manual',
      },
    ]);
    expect(csv(files.get('logs.csv'))).toEqual([
      {
        logged_at: '2026-03-10T11:00:00.000+01:00',
        kind: 'hydration',
        name: '',
        value: '251',
        unit: 'ml',
        dose: '',
        duration_minutes: '',
        note: '',
        source: 'manual',
      },
      {
        logged_at: '2026-03-10T13:00:00.000+01:00',
        kind: 'medication',
        name: 'Ibuprofen Mine',
        value: '',
        unit: '',
        dose: '200 mg',
        duration_minutes: '',
        note: '',
        source: 'manual',
      },
    ]);
    // the other person's rows are in no file
    for (const [name, text] of files) expect(text, name).not.toMatch(/Theirs|\b(140|145|450)\b/);
  });

  it('JSON through MCP: one document, one key per kind, meals with their items; the link is absolute', async () => {
    const p = await person();
    const { mealId } = await seedEverything(p, 'Mine', 2);
    const other = await person();
    await seedEverything(other, 'Theirs', 60);
    const client = await mcpClient(app, p.pat);
    const started = await callTool(client, 'health_export_start', {
      from: '2026-03-01T00:00:00+01:00',
      to: '2026-04-01T00:00:00+02:00',
      format: 'json',
      idempotency_key: key(),
    });
    expect(started.isError, JSON.stringify(started.structuredContent)).toBeFalsy();
    const id = (started.structuredContent as Structured).id as string;
    await finished(p.pat, id);
    const status = (await callTool(client, 'health_export_status', { id }))
      .structuredContent as Structured;
    expect(status).toMatchObject({ status: 'ready', rows_written: 10, time_zone: 'Europe/Berlin' });
    const link = (await callTool(client, 'health_export_download', { id }))
      .structuredContent as Structured;
    const list = (await callTool(client, 'export_jobs_list', {})).structuredContent as Structured;
    expect(list.items[0].download.url.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    const file = await download(link.url);
    expect(file.contentType).toBe('application/json; charset=utf-8');
    const doc = JSON.parse(file.bytes.toString('utf8'));
    expect(Object.keys(doc)).toEqual([
      'time_zone',
      'interval',
      'from',
      'to',
      'kinds',
      'metrics',
      'glucose',
      'sleep',
      'workouts',
      'meals',
      'blood_pressure',
      'logs',
    ]);
    expect(doc).toMatchObject({
      time_zone: 'Europe/Berlin',
      interval: 'raw',
      from: '2026-03-01T00:00:00.000+01:00',
      to: '2026-04-01T00:00:00.000+02:00',
    });
    expect(doc.metrics.map((m: Structured) => [m.metric_type, m.value])).toEqual([
      ['heart_rate', 62],
      ['steps', 1002],
    ]);
    expect(doc.glucose.map((g: Structured) => g.value_mg_dl)).toEqual([92, 97]);
    expect(doc.sleep).toHaveLength(1);
    expect(doc.workouts[0]).toMatchObject({ energy_kcal: 402, distance_m: null });
    expect(doc.meals).toEqual([
      {
        id: mealId,
        eaten_at: '2026-03-10T07:30:00.000+01:00',
        meal_type: 'breakfast',
        meal_name: 'Mine porridge',
        kcal: 360,
        protein_g: 8,
        carbs_g: 40,
        fat_g: 4,
        fiber_g: 0,
        sugar_g: 10,
        note: null,
        source: 'mcp',
        items: [
          {
            food_id: null,
            name: 'Oats, rolled',
            grams: 60,
            portion: null,
            kcal: 230,
            protein_g: 8,
            carbs_g: 40,
            fat_g: 4,
            fiber_g: 0,
            sugar_g: 0,
          },
          {
            food_id: null,
            name: 'Milk "Mine"',
            grams: 200,
            portion: '1 cup',
            kcal: 130,
            protein_g: 0,
            carbs_g: 0,
            fat_g: 0,
            fiber_g: 0,
            sugar_g: 10,
          },
        ],
      },
    ]);
    expect(doc.blood_pressure).toEqual([
      {
        measured_at: '2026-03-10T20:00:00.000+01:00',
        systolic: 122,
        diastolic: 80,
        pulse: 64,
        note: 'after "coffee", Mine',
        source: 'manual',
      },
    ]);
    expect(doc.logs.map((l: Structured) => l.kind)).toEqual(['hydration', 'medication']);
    expect(JSON.stringify(doc)).not.toMatch(/Theirs/);
  });

  it('kinds chooses the files; metric_types alone exports those metrics; both contradicting is 422', async () => {
    const p = await person('UTC');
    await seedEverything(p, 'Mine', 3);
    const range = { from: '2026-03-01T00:00:00Z', to: '2026-04-01T00:00:00Z' };

    const some = await exportThroughRest(p.pat, { ...range, kinds: ['meals', 'sleep', 'sleep'] });
    expect(some.job.kinds).toEqual(['sleep', 'meals']);
    expect([...(await unzipText(some.bytes)).keys()]).toEqual([
      'sleep.csv',
      'meals.csv',
      'meal_items.csv',
    ]);

    const steps = await exportThroughRest(p.pat, { ...range, metric_types: ['steps'] });
    expect(steps.job.kinds).toEqual(['metrics']);
    const files = await unzipText(steps.bytes);
    expect([...files.keys()]).toEqual(['metrics.csv']);
    // a UTC person's times end in Z, as toISOString writes them
    expect(csv(files.get('metrics.csv'))).toEqual([
      {
        timestamp: '2026-03-10T09:00:00.000Z',
        metric_type: 'steps',
        value: '1003',
        unit: 'count',
        source: 'Mine',
      },
    ]);

    const json = await exportThroughRest(p.pat, { ...range, format: 'json', kinds: ['logs'] });
    expect(Object.keys(JSON.parse(json.bytes.toString('utf8')))).toEqual([
      'time_zone',
      'interval',
      'from',
      'to',
      'kinds',
      'logs',
    ]);

    for (const body of [
      { ...range, kinds: ['glucose'], metric_types: ['steps'] },
      { ...range, kinds: [] },
      { ...range, kinds: ['photos'] },
    ]) {
      const res = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe('hour and day buckets are the person’s local hours and days (issue 30)', () => {
  /** A steps sample (1 each) and a glucose reading (100 mg/dL) every hour of [from, to). */
  async function hourly(p: { token: string }, from: string, to: string): Promise<void> {
    const hours = (Date.parse(to) - Date.parse(from)) / HOUR;
    const times = Array.from({ length: hours }, (_, i) => new Date(Date.parse(from) + i * HOUR));
    await seedMetrics(
      app,
      p.token,
      times.map((t) => ({ metric_type: 'steps', value: 1, timestamp: t.toISOString() })),
    );
    await seedGlucose(
      app,
      p.token,
      times.map((t) => ({ timestamp: t, valueMgDl: 100 })),
    );
  }

  it('Europe/Berlin: days of 24, 23 and 24 hours around the spring change; 25 hours on the autumn one', async () => {
    const p = await person();
    await hourly(p, '2026-03-27T23:00:00Z', '2026-03-30T22:00:00Z'); // 28, 29, 30 March, local
    await hourly(p, '2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z'); // 25 October, local

    const days = await exportThroughRest(p.pat, {
      from: '2026-03-28T00:00:00+01:00',
      to: '2026-03-31T00:00:00+02:00',
      interval: 'day',
      kinds: ['metrics', 'glucose'],
    });
    const files = await unzipText(days.bytes);
    expect(csv(files.get('metrics.csv'))).toEqual(
      [
        ['2026-03-28T00:00:00.000+01:00', '24'],
        ['2026-03-29T00:00:00.000+01:00', '23'],
        ['2026-03-30T00:00:00.000+02:00', '24'],
      ].map(([start, n]) => ({
        bucket_start: start,
        time_zone: 'Europe/Berlin',
        metric_type: 'steps',
        unit: 'count',
        count: n,
        min: '1',
        max: '1',
        avg: '1',
        sum: n,
      })),
    );
    expect(
      csv(files.get('glucose.csv')).map((r) => [r.bucket_start, r.time_zone, r.count, r.avg_mg_dl]),
    ).toEqual([
      ['2026-03-28T00:00:00.000+01:00', 'Europe/Berlin', '24', '100'],
      ['2026-03-29T00:00:00.000+01:00', 'Europe/Berlin', '23', '100'],
      ['2026-03-30T00:00:00.000+02:00', 'Europe/Berlin', '24', '100'],
    ]);

    const hours = await exportThroughRest(p.pat, {
      from: '2026-10-25T00:00:00+02:00',
      to: '2026-10-26T00:00:00+01:00',
      interval: 'hour',
      format: 'json',
      kinds: ['metrics'],
    });
    const doc = JSON.parse(hours.bytes.toString('utf8'));
    expect(doc.time_zone).toBe('Europe/Berlin');
    const starts = doc.metrics.map((b: Structured) => b.bucket_start);
    expect(starts).toHaveLength(25);
    expect(starts.slice(0, 5)).toEqual([
      '2026-10-25T00:00:00.000+02:00',
      '2026-10-25T01:00:00.000+02:00',
      '2026-10-25T02:00:00.000+02:00',
      '2026-10-25T02:00:00.000+01:00',
      '2026-10-25T03:00:00.000+01:00',
    ]);
    expect(starts.at(-1)).toBe('2026-10-25T23:00:00.000+01:00');
    expect(doc.metrics.every((b: Structured) => b.count === 1 && !('time_zone' in b))).toBe(true);

    // the same instants for a person in UTC: UTC days
    const zoned = await rest(app, 'PATCH', '/api/auth/me', {
      token: p.token,
      body: { timezone: 'UTC' },
    });
    expect(zoned.status).toBe(200);
    const utc = await exportThroughRest(p.pat, {
      from: '2026-03-28T00:00:00Z',
      to: '2026-03-30T00:00:00Z',
      interval: 'day',
      kinds: ['metrics'],
    });
    expect(utc.job.time_zone).toBe('UTC');
    expect(
      csv((await unzipText(utc.bytes)).get('metrics.csv')).map((r) => [r.bucket_start, r.count]),
    ).toEqual([
      ['2026-03-28T00:00:00.000Z', '24'],
      ['2026-03-29T00:00:00.000Z', '24'],
    ]);
  });
});
