/**
 * The entry of every file-job worker thread (src/platform/file-workers.ts): piscina loads this
 * module in a fresh thread and calls its default export once per job with `{ module, input }`.
 * It imports the job's module (a `*.job.ts` beside its domain, `dist/<name>.js` in the build) and
 * runs its default export on the input.
 *
 * Plain JavaScript because a worker started from the TypeScript sources (tests, `npm run dev`)
 * must register tsx before any `.ts` file is imported: Node 20 does not apply the parent's
 * `--import` hooks to a worker's own entry.
 *
 * It must never let an error object cross the thread boundary as such (a class does not survive
 * the structured clone): a job that throws answers `{ error: { name, code, message } }`.
 */
import { parentPort, workerData } from 'node:worker_threads';

if (workerData?.typescript) (await import('tsx/esm/api')).register();

/** Job modules by URL, imported once per thread. */
const modules = new Map();

/** Runs one job; tells the pool when it starts, so queueing does not count toward its budget. */
export default async function runJob({ id, module, input }) {
  parentPort?.postMessage({ fileJobStarted: id });
  let run = modules.get(module);
  if (!run) {
    run = (await import(module)).default;
    modules.set(module, run);
  }
  try {
    return { value: await run(input) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return { error: { name: e.name, code: e.code ?? null, message: e.message } };
  }
}
