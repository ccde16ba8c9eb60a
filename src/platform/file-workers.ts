/**
 * Untrusted files are read off the event loop (issue 45): a PDF, a genome, an archive is parsed by
 * a job module in a worker thread (piscina), never on the thread that answers requests, so the
 * heaviest file leaves `/healthz` answering within milliseconds.
 *
 * Each kind of job has its own pool, created on first use (nothing starts with the server), of at
 * most `FILE_WORKER_THREADS` threads (one fewer than the machine's cores, at least one, at most
 * four) and `FILE_WORKER_QUEUE` jobs waiting. A job has a wall-clock budget counted from the moment
 * its thread starts it (time in the queue is not its fault) and a V8 heap limit
 * (`resourceLimits`); a job over either has its thread terminated (its memory goes with it) and
 * the caller gets a `FileJobError` (`timeout`, `memory`); a full queue is `busy`. A thread ends as
 * soon as it is idle (piscina's idle timeout of 0), so no parser's memory is held between files.
 *
 * What a heap limit cannot see: ArrayBuffers live outside the V8 heap, so every job that inflates
 * (gzip, zip, a PDF's streams) bounds its own decompressed bytes.
 *
 * A job module is a `*.job.ts` file beside its domain whose default export takes the input (a
 * structured-clone value) and answers the output. From the sources it is loaded through tsx; the
 * build (scripts/build.mjs) makes each `*.job.ts` an entry of its own in `dist/`.
 *
 * It must never run a job on the calling thread, never let a job outlive its budget, and never
 * import a domain (domains name their job modules here).
 */
import { availableParallelism } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

/** A kind of job: the module that runs it and what one run may cost. */
export interface FileJobKind {
  /** the kind's name, in errors and logs (e.g. `labs-pdf`) */
  name: string;
  /** the job module's URL (`fileJobModule(import.meta.url, './labs.pdf.job')`) */
  module: string;
  /** wall-clock budget of one run from its start, ms */
  timeoutMs: number;
  /** the worker's V8 old-generation limit, MB */
  maxHeapMb: number;
}

/** Why a job gave no answer. */
export type FileJobErrorCode = 'timeout' | 'memory' | 'busy' | 'failed';

/** A job the pool ended or refused: over its time or memory, the queue full, the thread lost. */
export class FileJobError extends Error {
  readonly code: FileJobErrorCode;
  constructor(code: FileJobErrorCode, message: string) {
    super(message);
    this.name = 'FileJobError';
    this.code = code;
  }
}

/** An error the job itself threw, as it crossed the thread boundary (name, code, message). */
export class FileJobRefusal extends Error {
  /** the job's own error code (e.g. a `PdfReadError`'s `too_many_pages`), null without one */
  readonly code: string | null;
  /** the job's error class name (e.g. `GenomeFormatError`) */
  readonly kind: string;
  constructor(kind: string, code: string | null, message: string) {
    super(message);
    this.name = 'FileJobRefusal';
    this.kind = kind;
    this.code = code;
  }
}

/** Threads per kind: the machine's cores less one for the event loop, between 1 and 4. */
export const FILE_WORKER_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));
/** Jobs waiting per kind beyond the running ones; more are `busy`. */
export const FILE_WORKER_QUEUE = 8;

const fromSources = import.meta.url.endsWith('.ts');
const WORKER_ENTRY = fileURLToPath(
  new URL(fromSources ? './file-worker.mjs' : './file-worker.js', import.meta.url),
);

/**
 * The URL of a job module `relative` to `base` (the caller's `import.meta.url`): the `.ts` file
 * beside it when running from the sources, the build's `dist/<basename>.js` otherwise.
 */
export function fileJobModule(base: string, relative: string): string {
  if (base.endsWith('.ts')) return new URL(`${relative}.ts`, base).href;
  return new URL(`./${path.basename(relative)}.js`, base).href;
}

interface Answer<T> {
  value?: T;
  error?: { name: string; code: string | null; message: string };
}

const pools = new Map<string, Piscina>();
/** Jobs waiting for their start message: id -> the timer arming function. */
const starting = new Map<number, () => void>();
let nextId = 1;

function poolOf(kind: FileJobKind): Piscina {
  let pool = pools.get(kind.name);
  if (!pool) {
    pool = new Piscina({
      filename: WORKER_ENTRY,
      name: 'default',
      minThreads: 0,
      maxThreads: FILE_WORKER_THREADS,
      idleTimeout: 0,
      atomics: 'disabled',
      resourceLimits: {
        maxOldGenerationSizeMb: kind.maxHeapMb,
        maxYoungGenerationSizeMb: Math.min(32, Math.ceil(kind.maxHeapMb / 8)),
      },
      workerData: { typescript: fromSources },
    });
    pool.on('message', (m: unknown) => {
      const id = (m as { fileJobStarted?: number } | null)?.fileJobStarted;
      if (typeof id === 'number') starting.get(id)?.();
    });
    pools.set(kind.name, pool);
  }
  return pool;
}

/** Any failure of the pool as a `FileJobError` (the job's own errors come back as answers). */
function poolError(err: unknown, kind: FileJobKind, timedOut: boolean): FileJobError {
  if (timedOut) {
    return new FileJobError(
      'timeout',
      `The ${kind.name} job took longer than ${kind.timeoutMs} ms`,
    );
  }
  const e = err as { code?: string; message?: string };
  if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new FileJobError('memory', `The ${kind.name} job needed more than ${kind.maxHeapMb} MB`);
  }
  return new FileJobError(
    'failed',
    `The ${kind.name} job's thread ended: ${e?.message ?? String(err)}`,
  );
}

/**
 * Runs one job of `kind` on `input` in a worker thread and answers its output. Throws a
 * `FileJobRefusal` for an error the job threw, a `FileJobError` when the pool ended or refused it.
 * `transfer` lists buffers of the input moved to the thread (unusable here afterwards), and the
 * ports a job streams its output through (a long import answers batch by batch on a MessagePort).
 */
export async function runFileJob<I, O>(
  kind: FileJobKind,
  input: I,
  transfer: (ArrayBuffer | MessagePort)[] = [],
): Promise<O> {
  const pool = poolOf(kind);
  // NOTE: counted here rather than by piscina's maxQueue, which also admits a task per thread
  // still starting
  if (pool.queueSize >= FILE_WORKER_QUEUE) {
    throw new FileJobError('busy', `Too many ${kind.name} jobs are waiting`);
  }
  const id = nextId++;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  starting.set(id, () => {
    starting.delete(id);
    timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, kind.timeoutMs);
  });
  let answer: Answer<O>;
  try {
    answer = (await pool.run(
      { id, module: kind.module, input },
      { signal: abort.signal, transferList: transfer },
    )) as Answer<O>;
  } catch (err) {
    throw poolError(err, kind, timedOut);
  } finally {
    starting.delete(id);
    clearTimeout(timer);
  }
  if (answer.error) {
    throw new FileJobRefusal(answer.error.name, answer.error.code, answer.error.message);
  }
  return answer.value as O;
}

/** The pools' state, for tests and metrics: threads alive and jobs waiting, by kind. */
export function fileWorkerStats(): Record<string, { threads: number; queued: number }> {
  return Object.fromEntries(
    [...pools].map(([name, p]) => [name, { threads: p.threads.length, queued: p.queueSize }]),
  );
}

/** Ends every pool's threads (the server's stop); a later job starts a new pool. */
export async function closeFileWorkers(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.destroy().catch(() => undefined)));
}
