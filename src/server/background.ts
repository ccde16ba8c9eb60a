/**
 * The registry of background work: each domain that runs workers or periodic checks exports a
 * BackgroundWork (src/platform/jobs.ts) from its index, listed here once; the app starts them all.
 * A new domain with background work adds its entry to BACKGROUND_WORK.
 */
import type { ContextDeps } from '../graphql/context.ts';
import type { Logger } from '../base/logger.ts';
import type { DbTarget } from '../db/target.ts';
import type { BackgroundWork } from '../platform/jobs.ts';
import { DISCOVERY_WORK } from '../domains/discovery/index.ts';
import { DNA_REPORT_WORK } from '../domains/dna/index.ts';
import { EXPORT_WORK } from '../domains/export/index.ts';
import { ARCHIVE_IMPORT_WORK } from '../domains/health/index.ts';
import { INSIGHTS_DELIVERY_WORK } from '../domains/insights/index.ts';
import { notifyPerson } from '../domains/notifications/index.ts';

/** What every piece of background work is given: the request context's parts, and more. */
export type WorkDeps = ContextDeps & {
  log: Logger;
  /** PGlite: one process holds the database, so no other process can hold a job */
  singleProcess: boolean;
  db: { prisma: ContextDeps['prisma']; target: DbTarget };
  /** the platform's own send to a person (notifications), for work in a domain below it */
  notify: typeof notifyPerson;
};

const BACKGROUND_WORK: readonly BackgroundWork<WorkDeps>[] = [
  // export jobs (issue 16): the worker, the stale-job check, jobs an earlier run left behind
  EXPORT_WORK,
  // the phone's export.zip uploads (issue 30): the import worker, imports left by an earlier run
  ARCHIVE_IMPORT_WORK,
  // insights come to the person (issue 33): the morning run, predicted lows on new glucose
  INSIGHTS_DELIVERY_WORK,
  // discovery runs (issue 33): the worker, the stale-run check, runs an earlier process left
  DISCOVERY_WORK,
  // DNA reports (issue 34): medicines and HLA made from the stored genome in the background
  DNA_REPORT_WORK,
];

/** Registers every piece of work on the job queue, and has each take up what was left unfinished. */
export function startBackgroundWork(parts: Omit<WorkDeps, 'notify'>): void {
  const deps: WorkDeps = { ...parts, notify: notifyPerson };
  for (const work of BACKGROUND_WORK) {
    work.register(deps);
    work
      .resume(deps)
      .catch((err: unknown) => deps.log.error({ err }, `${work.name} resume failed`));
  }
}
