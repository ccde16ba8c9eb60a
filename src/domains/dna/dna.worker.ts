/**
 * The background side of DNA reports (issues 34 and 35): the pg-boss worker that makes a queued
 * medicines, HLA or ancestry report from the person's stored genome. A report is a resumable job
 * (src/platform/resumable-jobs.ts: claimed once, back to queued at stop, taken back when its
 * process died, failed after DNA_REPORT_MAX_ATTEMPTS starts); each attempt starts over. The
 * result is sealed with the genome's key before it is stored.
 */
import type { Config } from '../../base/config.ts';
import type { Logger } from '../../base/logger.ts';
import type { Db } from '../../db/client.ts';
import type { BackgroundWork, JobQueue } from '../../platform/jobs.ts';
import {
  claimJob,
  endJob,
  requeueStoppedJob,
  resumableWork,
} from '../../platform/resumable-jobs.ts';
import type { ResumableJobSpec } from '../../platform/resumable-jobs.ts';
import { estimateAncestry } from './dna.ancestry.ts';
import { openGenome } from './dna.genome.ts';
import { hlaReport } from './dna.hla.ts';
import { medicinesReport, PGX_RULES_VERSION, type GenomeFacts } from './dna.pgx.ts';
import {
  DNA_REPORT_MAX_ATTEMPTS,
  DNA_REPORT_QUEUE,
  DNA_REPORT_STALE_CHECK_MS,
  DNA_REPORT_STALE_MS,
} from './dna.reports.ts';
import type { AncestryResult, HlaResult, MedicinesResult } from './dna.reports.ts';
import { encryptGenome, genomeKey } from './dna.store.ts';
import type { CallLookup } from './dna.types.ts';

export interface DnaWorkerDeps {
  prisma: Db;
  config: Config;
  log: Logger;
  jobs: JobQueue;
  /** the embedded database: one process, so any running report at start is orphaned */
  singleProcess: boolean;
}

/** DNA reports as resumable jobs: the dna_reports table and queue. */
export const DNA_REPORT_JOBS: ResumableJobSpec<DnaWorkerDeps> = {
  name: 'dna report',
  queue: DNA_REPORT_QUEUE,
  table: (db) => db.dnaReport,
  maxAttempts: DNA_REPORT_MAX_ATTEMPTS,
  staleMs: DNA_REPORT_STALE_MS,
  staleCheckMs: DNA_REPORT_STALE_CHECK_MS,
  gaveUp: (attempts) => `The report was interrupted by server restarts ${attempts} times.`,
};

/** The report of `kind` over the person's calls. */
function reportOf(
  kind: string,
  calls: CallLookup,
  facts: GenomeFacts,
): MedicinesResult | HlaResult | AncestryResult {
  if (kind === 'ancestry') return { ancestry: estimateAncestry(calls) };
  if (kind === 'hla') return { tags: hlaReport(calls) };
  return { genes: medicinesReport(calls, facts), rules: PGX_RULES_VERSION };
}

/** Runs one queued report: claims it, reads the genome, stores the sealed result. */
export async function runDnaReportJob(
  deps: DnaWorkerDeps,
  id: string,
  signal: AbortSignal,
): Promise<void> {
  const { prisma, config, log } = deps;
  if (!(await claimJob(prisma, DNA_REPORT_JOBS, id))) return; // done, failed, deleted, or taken
  const job = await prisma.dnaReport.findUnique({ where: { id } });
  if (!job) return;
  try {
    const genome = await openGenome({ prisma, config }, job.userId);
    if (signal.aborted) throw new Error('stopping');
    if (!genome) {
      await endJob(prisma, DNA_REPORT_JOBS, id, {
        status: 'failed',
        error: 'The genome was deleted before the report ran; upload a raw DNA file first.',
      });
      return;
    }
    const plain = Buffer.from(
      JSON.stringify(reportOf(job.kind, genome.calls, genome.view)),
      'utf8',
    );
    const sealed = new Uint8Array(encryptGenome(plain, genomeKey(config)));
    await endJob(prisma, DNA_REPORT_JOBS, id, { status: 'done', sealed });
  } catch (err) {
    if (signal.aborted) return requeueStoppedJob(deps, DNA_REPORT_JOBS, id);
    log.error({ err, id }, 'dna report failed');
    await endJob(prisma, DNA_REPORT_JOBS, id, {
      status: 'failed',
      error: 'The server could not make this report.',
    });
  }
}

/** The report worker, its stale check and the reports an earlier process left (the app's registry). */
export const DNA_REPORT_WORK: BackgroundWork<DnaWorkerDeps> = resumableWork(
  DNA_REPORT_JOBS,
  runDnaReportJob,
);
