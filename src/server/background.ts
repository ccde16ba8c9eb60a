/**
 * The registry of background work: each domain that runs workers or periodic checks exports a
 * BackgroundWork (src/platform/jobs.ts) from its index, listed here once; the app starts them all.
 * A new domain with background work adds its entry to BACKGROUND_WORK.
 */
import type { ContextDeps } from '../graphql/context.ts';
import type { Logger } from '../base/logger.ts';
import type { DbTarget } from '../db/target.ts';
import type { BackgroundWork } from '../platform/jobs.ts';
import { EXPORT_WORK } from '../domains/export/index.ts';
import { ARCHIVE_IMPORT_WORK } from '../domains/health/index.ts';

/** What every piece of background work is given: the request context's parts, and more. */
export type WorkDeps = ContextDeps & {
  log: Logger;
  /** PGlite: one process holds the database, so no other process can hold a job */
  singleProcess: boolean;
  db: { prisma: ContextDeps['prisma']; target: DbTarget };
};

const BACKGROUND_WORK: readonly BackgroundWork<WorkDeps>[] = [
  // export jobs (issue 16): the worker, the stale-job check, jobs an earlier run left behind
  EXPORT_WORK,
  // the phone's export.zip uploads (issue 30): the import worker, imports left by an earlier run
  ARCHIVE_IMPORT_WORK,
];

/** Registers every piece of work on the job queue, and has each take up what was left unfinished. */
export function startBackgroundWork(deps: WorkDeps): void {
  for (const work of BACKGROUND_WORK) {
    work.register(deps);
    work
      .resume(deps)
      .catch((err: unknown) => deps.log.error({ err }, `${work.name} resume failed`));
  }
}
