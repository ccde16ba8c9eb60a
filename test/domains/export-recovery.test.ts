/**
 * Export jobs orphaned while the app runs (issue 16): a job whose process died (its heartbeat older
 * than EXPORT_STALE_MS) is queued again by the running app's periodic check, or failed after
 * EXPORT_MAX_ATTEMPTS starts; a job with a recent heartbeat is left alone. And the queue's
 * periodic checks: they run, never overlap, and end with stop.
 */
import { describe, expect, it } from 'vitest';
import { EXPORT_STALE_CHECK_MS } from '../../src/domains/export/export.constants.ts';
import { checkStaleExports, registerExportWorker } from '../../src/domains/export/export.worker.ts';
import type { ExportWorkerDeps } from '../../src/domains/export/export.worker.ts';
import { createLogger } from '../../src/base/logger.ts';
import { createJobQueue } from '../../src/platform/jobs.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const START = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

const deps = (): ExportWorkerDeps => ({
  ...app.deps,
  log: createLogger('silent'),
  singleProcess: false,
});

describe('checkStaleExports', () => {
  it('queues again a job whose heartbeat is stale, fails one out of starts, leaves a live one', async () => {
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['health:export:read']);
    await app.db.prisma.healthMetric.create({
      data: {
        id: `stale-${user.id}`,
        userId: user.id,
        metricType: 'heart_rate',
        value: 61,
        unit: 'bpm',
        timestamp: new Date(START),
      },
    });
    const job = (attempts: number, minutesAgo: number) => ({
      id: crypto.randomUUID(),
      userId: user.id,
      status: 'running',
      format: 'csv',
      interval: 'raw',
      metricTypes: [],
      fromAt: new Date(START),
      toAt: new Date(START + HOUR),
      attempts,
      heartbeatAt: new Date(clock.ms() - minutesAgo * 60_000),
      expiresAt: new Date(clock.ms() + 86_400_000),
    });
    const orphan = job(1, 10);
    const givenUp = job(3, 10);
    const live = job(1, 0.5);
    await app.db.prisma.exportJob.createMany({ data: [orphan, givenUp, live] });

    expect(await checkStaleExports(deps(), clock.now())).toBe(1);
    for (let i = 0; i < 600; i++) {
      const row = await app.db.prisma.exportJob.findUniqueOrThrow({ where: { id: orphan.id } });
      if (row.status === 'ready') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const done = await rest(app, 'GET', `/api/v1/export/jobs/${orphan.id}`, { token: pat });
    expect(done.body).toMatchObject({ status: 'ready', rows_written: 1, attempts: 2 });
    const failed = await app.db.prisma.exportJob.findUniqueOrThrow({ where: { id: givenUp.id } });
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('health_export_start');
    const untouched = await app.db.prisma.exportJob.findUniqueOrThrow({ where: { id: live.id } });
    expect(untouched).toMatchObject({ status: 'running', attempts: 1 });
    // a second check finds nothing more to take back
    expect(await checkStaleExports(deps(), clock.now())).toBe(0);
  });

  it('the export worker registers the check on the queue, every EXPORT_STALE_CHECK_MS', async () => {
    const periodic: [number, () => Promise<void>][] = [];
    const sent: unknown[] = [];
    const jobs: JobQueue = {
      work: () => {},
      send: (_queue, data) => Promise.resolve(void sent.push(data)),
      start: () => Promise.resolve(),
      every: (ms, task) => void periodic.push([ms, task]),
      stop: () => Promise.resolve(),
    };
    const { user } = await seedUser(app);
    await app.db.prisma.exportJob.create({
      data: {
        id: crypto.randomUUID(),
        userId: user.id,
        status: 'running',
        format: 'json',
        interval: 'day',
        metricTypes: [],
        fromAt: new Date(START),
        toAt: new Date(START + HOUR),
        attempts: 1,
        heartbeatAt: new Date(clock.ms() - 3 * 60_000),
        expiresAt: new Date(clock.ms() + 86_400_000),
      },
    });
    registerExportWorker({ ...deps(), jobs });
    expect(periodic.map(([ms]) => ms)).toEqual([EXPORT_STALE_CHECK_MS]);
    await periodic[0][1]();
    expect(sent).toHaveLength(1);
  });
});

describe('JobQueue.every', () => {
  it('runs a task periodically, never two at once, and not after stop', async () => {
    const queue = createJobQueue(app.db.target, createLogger('silent'));
    let runs = 0;
    let active = 0;
    let overlapped = false;
    queue.every(10, async () => {
      runs++;
      overlapped ||= active > 0;
      active++;
      await new Promise((r) => setTimeout(r, 35));
      active--;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(overlapped).toBe(false);
    await queue.stop();
    const stoppedAt = runs;
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toBe(stoppedAt);
  });

  it('runs the first time after firstAfterMs, then at its period; a stop before that, never', async () => {
    const queue = createJobQueue(app.db.target, createLogger('silent'));
    let runs = 0;
    queue.every(60_000, () => Promise.resolve(void runs++), 20);
    await new Promise((r) => setTimeout(r, 150));
    expect(runs).toBe(1);
    await queue.stop();
    const never = createJobQueue(app.db.target, createLogger('silent'));
    let neverRuns = 0;
    never.every(60_000, () => Promise.resolve(void neverRuns++), 50);
    await never.stop();
    await new Promise((r) => setTimeout(r, 120));
    expect(neverRuns).toBe(0);
  });
});
