/**
 * Health exports (issue 16): jobs started through MCP and /api/v1/export, written in the background
 * by pg-boss, files downloaded by the bearer route and by the short-lived link; scopes, other
 * people's ids, bounds, per-person limits, restarts mid-job, expiry and account deletion.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { signExportLink } from '../../src/domains/export/export.link.ts';
import { sweepExpiredExports } from '../../src/domains/export/export.worker.ts';
import { createLogger } from '../../src/base/logger.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { openTestDatabase, startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { unzipText } from '../harness/unzip.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const EXPORT: Scope[] = ['health:export:read'];
const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1);
let seq = 0;
const key = (): string => `idem-export-${process.pid}-${++seq}`;

type Structured = Record<string, any>;
const sc = (result: { structuredContent?: unknown; isError?: boolean }): Structured => {
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return result.structuredContent as Structured;
};
const errorOf = (result: { structuredContent?: unknown; isError?: boolean }) => {
  expect(result.isError).toBe(true);
  return (result.structuredContent as Structured).error as { code: string; message: string };
};

/** `hours` hourly heart-rate samples (60 + i % 10) and steps (100 each) from START, by bulk SQL. */
async function seedMetrics(target: TestApp, userId: number, hours: number, source = 'Watch') {
  await target.db.prisma.$executeRaw`
    INSERT INTO health_metrics (id, user_id, metric_type, value, unit, timestamp, source)
    SELECT md5(${userId}::text || t.name || g::text), ${userId}, t.name,
           CASE WHEN t.name = 'heart_rate' THEN 60 + g % 10 ELSE 100 END, t.unit,
           to_timestamp(${START / 1000} + g * 3600), ${source}
    FROM generate_series(0, ${hours - 1}) g,
         (VALUES ('heart_rate', 'bpm'), ('steps', 'count')) AS t(name, unit)`;
}

async function person(scopes: Scope[] = EXPORT, target: TestApp = app) {
  const seeded = await seedUser(target);
  const pat = await seedPersonalToken(target, seeded.user.id, scopes);
  const client = await mcpClient(target, pat);
  return { ...seeded, pat, client };
}

/** Polls the job through REST until it leaves queued/running (a wait, not a timing). */
async function finished(target: TestApp, token: string, id: string): Promise<Structured> {
  for (let i = 0; i < 600; i++) {
    const res = await rest(target, 'GET', `/api/v1/export/jobs/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.status !== 'queued' && res.body.status !== 'running') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`export ${id} did not finish`);
}

/** GETs a download link: an absolute URL (PUBLIC_URL, else the configured host and port). */
const fetchLink = (url: string): Promise<Response> => {
  expect(url).toMatch(/^https?:\/\//);
  return app.fetch(new URL(url).pathname);
};

/** The metrics.csv of a CSV export's zip. */
const metricsCsv = async (res: Response): Promise<string> =>
  (await unzipText(Buffer.from(await res.arrayBuffer()))).get('metrics.csv') ?? '';

const range = (hours: number) => ({
  from: new Date(START).toISOString(),
  to: new Date(START + hours * HOUR).toISOString(),
});

describe('health_export_start -> status -> download (MCP)', () => {
  it('writes every raw sample as CSV in a zip, escaped, and serves it through the short-lived link', async () => {
    const p = await person();
    await seedMetrics(app, p.user.id, 48, 'My "Watch", v2');
    const job = sc(
      await callTool(p.client, 'health_export_start', {
        ...range(24),
        interval: 'raw',
        format: 'csv',
        idempotency_key: key(),
      }),
    );
    expect(job).toMatchObject({
      status: 'queued',
      format: 'csv',
      interval: 'raw',
      rows_written: 0,
    });
    await finished(app, p.pat, job.id);
    const status = sc(await callTool(p.client, 'health_export_status', { id: job.id }));
    expect(status).toMatchObject({ status: 'ready', rows_written: 48, attempts: 1 });
    expect(status.size_bytes).toBeGreaterThan(0);

    const link = sc(await callTool(p.client, 'health_export_download', { id: job.id }));
    // no PUBLIC_URL in this app: the configured host and port
    expect(link.url).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/export\/files\/[\w-]+\.[\w-]+\.[\w-]+$/,
    );
    const expires = new Date(link.expires_at).getTime() - clock.ms();
    expect(expires).toBeGreaterThan(0);
    expect(expires).toBeLessThanOrEqual(600_000);
    const file = await fetchLink(link.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/zip');
    expect(file.headers.get('content-disposition')).toContain('health-export-2026-01-01');
    const lines = (await metricsCsv(file)).trimEnd().split('\n');
    expect(lines[0]).toBe('timestamp,metric_type,value,unit,source');
    expect(lines).toHaveLength(49);
    expect(lines[1]).toBe('2026-01-01T00:00:00.000Z,heart_rate,60,bpm,"My ""Watch"", v2"');
    expect(lines[2]).toBe('2026-01-01T00:00:00.000Z,steps,100,count,"My ""Watch"", v2"');
    expect(lines.at(-1)).toBe('2026-01-01T23:00:00.000Z,steps,100,count,"My ""Watch"", v2"');
    expect(Number(file.headers.get('content-length'))).toBe(status.size_bytes);

    const list = sc(await callTool(p.client, 'export_jobs_list', {}));
    expect(list.items.map((j: Structured) => j.id)).toEqual([job.id]);
    expect(list.next_cursor ?? null).toBeNull();
  });

  it('a job not yet ready answers what to do; the same idempotency key starts one job', async () => {
    const p = await person();
    const args = { ...range(2), idempotency_key: key() };
    await app.db.prisma.exportJob.deleteMany({ where: { userId: p.user.id } });
    const first = sc(await callTool(p.client, 'health_export_start', args));
    const again = sc(await callTool(p.client, 'health_export_start', args));
    expect(again.id).toBe(first.id);
    expect(await app.db.prisma.exportJob.count({ where: { userId: p.user.id } })).toBe(1);
    // a job a worker is writing, and a failed one (rows by hand: the worker only claims queued jobs)
    const held = (status: string, error: string | null = null) =>
      app.db.prisma.exportJob.create({
        data: {
          id: crypto.randomUUID(),
          userId: p.user.id,
          status,
          error,
          format: 'csv',
          interval: 'raw',
          metricTypes: [],
          fromAt: new Date(START),
          toAt: new Date(START + HOUR),
          expiresAt: new Date(clock.ms() + 86_400_000),
        },
      });
    const running = await held('running');
    const broken = await held('failed', 'broken disk');
    const early = errorOf(await callTool(p.client, 'health_export_download', { id: running.id }));
    expect(early.code).toBe('CONFLICT');
    expect(early.message).toContain('health_export_status');
    const failed = errorOf(await callTool(p.client, 'health_export_download', { id: broken.id }));
    expect(failed.message).toContain('broken disk');
    expect(failed.message).toContain('health_export_start');
  });
});

describe('/api/v1/export (REST)', () => {
  it('aggregates day buckets in SQL as JSON and streams the file to the bearer', async () => {
    const p = await person();
    await seedMetrics(app, p.user.id, 72);
    const started = await rest(app, 'POST', '/api/v1/export/jobs', {
      token: p.pat,
      body: { ...range(48), interval: 'day', format: 'json', metric_types: ['heart_rate'] },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      status: 'queued',
      metric_types: ['heart_rate'],
      kinds: ['metrics'],
      time_zone: 'UTC',
    });
    const done = await finished(app, p.pat, started.body.id);
    expect(done).toMatchObject({ status: 'ready', rows_written: 2 });
    const file = await app.fetch(`/api/v1/export/jobs/${started.body.id}/file`, {
      headers: { authorization: `Bearer ${p.pat}` },
    });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = (await file.json()) as Structured;
    expect(doc).toMatchObject({ time_zone: 'UTC', interval: 'day', kinds: ['metrics'] });
    const rows = doc.metrics as Structured[];
    // 24 hourly samples a day, values 60 + h % 10: sum = 2*(60..69) + 4*60+... computed here
    const sumOf = (day: number) =>
      Array.from({ length: 24 }, (_, h) => 60 + ((day * 24 + h) % 10)).reduce((a, b) => a + b, 0);
    expect(rows).toEqual([
      {
        bucket_start: '2026-01-01T00:00:00.000Z',
        metric_type: 'heart_rate',
        unit: 'bpm',
        count: 24,
        min: 60,
        max: 69,
        avg: sumOf(0) / 24,
        sum: sumOf(0),
      },
      {
        bucket_start: '2026-01-02T00:00:00.000Z',
        metric_type: 'heart_rate',
        unit: 'bpm',
        count: 24,
        min: 60,
        max: 69,
        avg: sumOf(1) / 24,
        sum: sumOf(1),
      },
    ]);
    const link = await rest(app, 'GET', `/api/v1/export/jobs/${started.body.id}/link`, {
      token: p.pat,
    });
    expect(link.status).toBe(200);
    expect(link.body.file_name).toBe('health-export-2026-01-01-2026-01-03-day.json');
    const list = await rest(app, 'GET', '/api/v1/export/jobs?limit=1', { token: p.pat });
    expect(list.status).toBe(200);
    expect(list.body.items[0].id).toBe(started.body.id);
  });

  it('hour buckets: one row per metric and hour', async () => {
    const p = await person();
    await seedMetrics(app, p.user.id, 5);
    const started = await rest(app, 'POST', '/api/v1/export/jobs', {
      token: p.pat,
      body: { ...range(5), interval: 'hour', format: 'csv' },
    });
    const done = await finished(app, p.pat, started.body.id);
    expect(done.rows_written).toBe(10);
    const file = await app.fetch(`/api/v1/export/jobs/${started.body.id}/file`, {
      headers: { authorization: `Bearer ${p.pat}` },
    });
    const lines = (await metricsCsv(file)).trimEnd().split('\n');
    expect(lines[0]).toBe('bucket_start,time_zone,metric_type,unit,count,min,max,avg,sum');
    expect(lines[1]).toBe('2026-01-01T00:00:00.000Z,UTC,heart_rate,bpm,1,60,60,60,60');
    expect(lines).toHaveLength(11);
  });

  it('pages the list with a keyset cursor', async () => {
    const p = await person();
    for (let i = 0; i < 3; i++) {
      await app.db.prisma.exportJob.create({
        data: {
          id: crypto.randomUUID(),
          userId: p.user.id,
          status: 'ready',
          format: 'csv',
          interval: 'raw',
          metricTypes: [],
          fromAt: new Date(START),
          toAt: new Date(START + HOUR),
          createdAt: new Date(clock.ms() - i * 1000),
          expiresAt: new Date(clock.ms() + 86_400_000),
        },
      });
    }
    const first = await rest(app, 'GET', '/api/v1/export/jobs?limit=2', { token: p.pat });
    expect(first.body.items).toHaveLength(2);
    const second = await rest(
      app,
      'GET',
      `/api/v1/export/jobs?limit=2&cursor=${first.body.next_cursor}`,
      { token: p.pat },
    );
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const ids = [...first.body.items, ...second.body.items].map((j: Structured) => j.id);
    expect(new Set(ids).size).toBe(3);
  });
});

describe('who may export', () => {
  it('a token without health:export:read is refused on every tool and route', async () => {
    const p = await person(['health:metrics:read']);
    const listed = (await p.client.listTools()).tools.map((t) => t.name);
    expect(listed.filter((n) => n.includes('export'))).toEqual([]);
    expect((await callTool(p.client, 'export_jobs_list', {})).isError).toBe(true);
    const routes: [string, string][] = [
      ['GET', '/api/v1/export/jobs'],
      ['GET', `/api/v1/export/jobs/${crypto.randomUUID()}`],
      ['GET', `/api/v1/export/jobs/${crypto.randomUUID()}/link`],
      ['GET', `/api/v1/export/jobs/${crypto.randomUUID()}/file`],
    ];
    for (const [method, url] of routes) {
      expect((await rest(app, method, url, { token: p.pat })).status, url).toBe(403);
    }
    const start = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body: range(1) });
    expect(start.status).toBe(403);
    expect((await rest(app, 'GET', '/api/v1/export/jobs')).status).toBe(401);
  });

  it("another person's job id answers 404 everywhere", async () => {
    const owner = await person();
    await seedMetrics(app, owner.user.id, 2);
    const started = await rest(app, 'POST', '/api/v1/export/jobs', {
      token: owner.pat,
      body: range(2),
    });
    await finished(app, owner.pat, started.body.id);
    const other = await person();
    const id = started.body.id as string;
    for (const suffix of ['', '/link', '/file']) {
      const res = await rest(app, 'GET', `/api/v1/export/jobs/${id}${suffix}`, {
        token: other.pat,
      });
      expect(res.status, suffix).toBe(404);
    }
    for (const tool of ['health_export_status', 'health_export_download']) {
      expect(errorOf(await callTool(other.client, tool, { id })).code).toBe('NOT_FOUND');
    }
    const list = sc(await callTool(other.client, 'export_jobs_list', {}));
    expect(list.items).toEqual([]);
  });

  it('a link expired, forged, or for a job that is gone answers 404', async () => {
    const p = await person();
    await seedMetrics(app, p.user.id, 2);
    const started = await rest(app, 'POST', '/api/v1/export/jobs', {
      token: p.pat,
      body: range(2),
    });
    await finished(app, p.pat, started.body.id);
    const claims = { jobId: started.body.id, userId: p.user.id };
    const expired = await signExportLink(app.config.jwtSecret, claims, new Date(clock.ms() - 1000));
    expect((await rest(app, 'GET', `/api/v1/export/files/${expired}`)).status).toBe(404);
    const foreign = await signExportLink(
      new TextEncoder().encode('another-server-secret-0123456789abcdef'),
      claims,
      new Date(clock.ms() + 60_000),
    );
    expect((await rest(app, 'GET', `/api/v1/export/files/${foreign}`)).status).toBe(404);
    const otherOwner = await signExportLink(
      app.config.jwtSecret,
      { ...claims, userId: p.user.id + 1000 },
      new Date(clock.ms() + 60_000),
    );
    expect((await rest(app, 'GET', `/api/v1/export/files/${otherOwner}`)).status).toBe(404);
    const good = await rest(app, 'GET', `/api/v1/export/jobs/${started.body.id}/link`, {
      token: p.pat,
    });
    const res = await fetchLink(good.body.url);
    expect(res.status).toBe(200);
    expect((await metricsCsv(res)).split('\n')).toHaveLength(6);
    // the login token in the URL is no link: it never opens a file
    expect((await rest(app, 'GET', `/api/v1/export/files/${p.token}`)).status).toBe(404);
  });
});

describe('bounds', () => {
  it('refuses bad ranges, formats, ids, limits and hostile text with 422', async () => {
    const p = await person();
    const bad: Record<string, unknown>[] = [
      { from: '2020-01-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, // over 5 years
      { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, // to before from
      { from: '1999-12-31T00:00:00Z', to: '2000-01-02T00:00:00Z' }, // before 2000
      { from: '2026-01-01T00:00:00Z', to: '9999-01-01T00:00:00Z' }, // far future
      { ...range(1), format: 'xlsx' },
      { ...range(1), interval: 'minute' },
      { ...range(1), metric_types: ['heart\u0000rate'] },
      { ...range(1), metric_types: Array.from({ length: 21 }, (_, i) => `m${i}`) },
      { from: 'yesterday', to: '2026-01-01T00:00:00Z' },
    ];
    for (const body of bad) {
      const res = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const badReads = [
      '/api/v1/export/jobs/not-a-uuid',
      '/api/v1/export/jobs?limit=0',
      '/api/v1/export/jobs?limit=51',
      '/api/v1/export/jobs?cursor=garbage',
    ];
    for (const url of badReads) {
      expect((await rest(app, 'GET', url, { token: p.pat })).status, url).toBe(422);
    }
    const viaMcp = await callTool(p.client, 'health_export_start', {
      from: '2010-01-01T00:00:00Z',
      to: '2026-01-01T00:00:00Z',
      idempotency_key: key(),
    });
    expect(errorOf(viaMcp).code).toBe('VALIDATION_FAILED');
    expect(await app.db.prisma.exportJob.count({ where: { userId: p.user.id } })).toBe(0);
  });

  it('at most 3 exports queued or running (409), and 20 started a day (429)', async () => {
    const p = await person();
    const row = (status: string, createdAt = clock.now()) => ({
      id: crypto.randomUUID(),
      userId: p.user.id,
      status,
      format: 'csv',
      interval: 'raw',
      metricTypes: [],
      fromAt: new Date(START),
      toAt: new Date(START + HOUR),
      createdAt,
      expiresAt: new Date(clock.ms() + 86_400_000),
    });
    // running jobs no worker holds: the worker only claims queued ones
    await app.db.prisma.exportJob.createMany({ data: [1, 2, 3].map(() => row('running')) });
    const busy = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body: range(1) });
    expect(busy.status).toBe(409);
    expect(busy.body.detail).toContain('health_export_status');
    await app.db.prisma.exportJob.updateMany({
      where: { userId: p.user.id },
      data: { status: 'ready' },
    });
    await app.db.prisma.exportJob.createMany({
      data: Array.from({ length: 17 }, (_, i) => row('ready', new Date(clock.ms() - i * 60_000))),
    });
    const many = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body: range(1) });
    expect(many.status).toBe(429);
    expect(Number(many.headers.get('retry-after'))).toBeGreaterThan(0);
    // a day later the oldest no longer count
    await app.db.prisma.exportJob.updateMany({
      where: { userId: p.user.id },
      data: { createdAt: new Date(clock.ms() - 25 * HOUR) },
    });
    const ok = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body: range(1) });
    expect(ok.status).toBe(202);
  });
});

describe('restarts, expiry and deletion', () => {
  it('a job interrupted by a stop is written again, from the start, by the next app', async () => {
    const db = await openTestDatabase();
    const first = await startTestApp({ EXPORT_CHUNK_ROWS: '1' }, { database: db });
    const p = await person(EXPORT, first);
    await seedMetrics(first, p.user.id, 300);
    const started = await rest(first, 'POST', '/api/v1/export/jobs', {
      token: p.pat,
      body: range(300),
    });
    const id = started.body.id as string;
    for (let i = 0; i < 600; i++) {
      const job = await db.prisma.exportJob.findUniqueOrThrow({ where: { id } });
      if (job.rowsWritten > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.close();
    const stopped = await db.prisma.exportJob.findUniqueOrThrow({ where: { id } });
    expect(stopped.status).toBe('queued');
    expect(stopped.rowsWritten).toBe(0);
    const partial = path.join(first.config.DATA_DIR, 'exports', `exp_${id}.zip.partial`);
    expect(existsSync(partial)).toBe(false);

    const second = await startTestApp({}, { database: db });
    const done = await finished(second, p.pat, id);
    expect(done).toMatchObject({ status: 'ready', rows_written: 600, attempts: 2 });
    await second.close();
    await db.close();
  }, 120_000);

  it('a job a crashed process left running resumes, or fails with a reason after 3 starts', async () => {
    const db = await openTestDatabase();
    const boot = await startTestApp({}, { database: db });
    const p = await person(EXPORT, boot);
    await seedMetrics(boot, p.user.id, 3);
    await boot.close();
    const orphan = (attempts: number) => ({
      id: crypto.randomUUID(),
      userId: p.user.id,
      status: 'running',
      format: 'csv',
      interval: 'raw',
      metricTypes: [],
      fromAt: new Date(START),
      toAt: new Date(START + 3 * HOUR),
      attempts,
      heartbeatAt: new Date(clock.ms() - 10 * 60_000),
      expiresAt: new Date(clock.ms() + 86_400_000),
    });
    const resumed = orphan(1);
    const givenUp = orphan(3);
    await db.prisma.exportJob.createMany({ data: [resumed, givenUp] });

    const next = await startTestApp({}, { database: db });
    const done = await finished(next, p.pat, resumed.id);
    expect(done).toMatchObject({ status: 'ready', rows_written: 6, attempts: 2 });
    const failed = await finished(next, p.pat, givenUp.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('health_export_start');
    await next.close();
    await db.close();
  }, 120_000);

  it('expired jobs go with their files; account deletion takes the files too', async () => {
    const p = await person();
    await seedMetrics(app, p.user.id, 2);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await rest(app, 'POST', '/api/v1/export/jobs', { token: p.pat, body: range(2) });
      ids.push(res.body.id);
      await finished(app, p.pat, res.body.id);
    }
    const fileOf = (id: string) => path.join(app.config.DATA_DIR, 'exports', `exp_${id}.zip`);
    expect(ids.every((id) => existsSync(fileOf(id)))).toBe(true);
    await app.db.prisma.exportJob.update({
      where: { id: ids[0] },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    await sweepExpiredExports(
      { ...app.deps, log: createLogger('silent'), singleProcess: true },
      clock.now(),
    );
    expect(existsSync(fileOf(ids[0]))).toBe(false);
    expect(await app.db.prisma.exportJob.count({ where: { id: ids[0] } })).toBe(0);
    expect((await rest(app, 'GET', `/api/v1/export/jobs/${ids[0]}`, { token: p.pat })).status).toBe(
      404,
    );

    const deleted = await rest(app, 'DELETE', '/api/auth/me', { token: p.token });
    expect(deleted.status).toBeLessThan(300);
    expect(existsSync(fileOf(ids[1]))).toBe(false);
  });
});
