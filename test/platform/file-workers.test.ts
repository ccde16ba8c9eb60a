/**
 * Issue 45, the pool that reads untrusted files off the event loop (src/platform/file-workers.ts):
 * a job runs in another thread; one that spins past its budget or grows past its heap limit is
 * terminated and answered with the reason while the event loop stays free; a job's own error comes
 * back with its name and code; a full queue is `busy`; time waiting in the queue does not count
 * toward a job's budget; threads end once idle.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { threadId as mainThread } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import {
  closeFileWorkers,
  FILE_WORKER_QUEUE,
  FILE_WORKER_THREADS,
  FileJobError,
  FileJobRefusal,
  fileJobModule,
  fileWorkerStats,
  runFileJob,
} from '../../src/platform/file-workers.ts';
import type { FileJobKind } from '../../src/platform/file-workers.ts';
import type { TestJobInput } from '../fixtures/file-jobs.job.ts';

const module = fileJobModule(new URL('../fixtures/x.ts', import.meta.url).href, './file-jobs.job');
const kind = (name: string, timeoutMs = 2_000, maxHeapMb = 64): FileJobKind => ({
  name,
  module,
  timeoutMs,
  maxHeapMb,
});

const run = (k: FileJobKind, input: TestJobInput): Promise<any> => runFileJob(k, input);

/** The job's rejection, for its type and code. */
async function refusal(p: Promise<unknown>): Promise<any> {
  return p.then(
    () => expect.fail('the job was answered'),
    (err: unknown) => err,
  );
}

afterAll(() => closeFileWorkers());

describe('file workers', () => {
  it('runs a job in another thread and answers its output', async () => {
    const out = await run(kind('echo'), { act: 'echo', value: { a: [1, 2] } });
    expect(out.value).toEqual({ a: [1, 2] });
    expect(out.threadId).not.toBe(mainThread);
  });

  it("answers a job's own error with its name, code and message", async () => {
    const err = await refusal(run(kind('throw'), { act: 'throw' }));
    expect(err).toBeInstanceOf(FileJobRefusal);
    expect(err).toMatchObject({
      kind: 'TestRefusal',
      code: 'bad_file',
      message: 'refused by the job',
    });
  });

  it('terminates a job past its budget while the event loop stays free', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const err = await refusal(run(kind('spin', 1_500), { act: 'spin' }));
    delay.disable();
    expect(err).toBeInstanceOf(FileJobError);
    expect(err.code).toBe('timeout');
    expect(delay.max / 1e6).toBeLessThan(200);
    // the thread was replaced: the next job runs
    expect((await run(kind('spin', 1_500), { act: 'echo', value: 1 })).value).toBe(1);
  });

  it('terminates a job past its heap limit', async () => {
    const err = await refusal(run(kind('grow', 20_000, 48), { act: 'grow' }));
    expect(err).toBeInstanceOf(FileJobError);
    expect(err.code).toBe('memory');
    expect(err.message).toContain('48 MB');
  });

  it('answers busy when every thread runs and the queue is full; queued time is not budget', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const long = kind('queue', 15_000);
    // the waiting jobs' budget is shorter than their wait in the queue
    const short = kind('queue', 1_000);
    const running = Array.from({ length: FILE_WORKER_THREADS }, () =>
      run(long, { act: 'wait', flag }),
    );
    await expect.poll(() => fileWorkerStats().queue?.threads).toBe(FILE_WORKER_THREADS);
    const queued = Array.from({ length: FILE_WORKER_QUEUE }, () =>
      run(short, { act: 'echo', value: 'queued' }),
    );
    const over = await refusal(run(short, { act: 'echo' }));
    expect(over).toBeInstanceOf(FileJobError);
    expect(over.code).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    expect((await Promise.all(running)).map((r) => r.value)).toEqual(running.map(() => 'released'));
    expect((await Promise.all(queued)).map((r) => r.value)).toEqual(queued.map(() => 'queued'));
  });

  it('ends threads once they are idle', async () => {
    await run(kind('idle'), { act: 'echo' });
    await expect.poll(() => fileWorkerStats().idle?.threads, { timeout: 5_000 }).toBe(0);
  });
});
