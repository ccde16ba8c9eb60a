/**
 * Export jobs as the person sees them (issue 16): start one (checked, recorded, queued, answered at
 * once), read its status, list them, and reach the finished file (a short-lived link, or the file
 * itself for the bearer route). Every read is the caller's own jobs: another person's id is 404.
 * Exports are the principal's own data, never an owner's seen through view-as.
 */
import { randomUUID } from 'node:crypto';
import { appError } from '../../base/errors.ts';
import type { ExportJob } from '../../generated/prisma/client.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import {
  exportContentType,
  exportFileExtension,
  exportFileKey,
} from '../../platform/export-files.ts';
import { localDateOf } from '../../platform/local-dates.ts';
import { publicOrigin } from '../../platform/public-url.ts';
import { personZone } from '../profile/index.ts';
import {
  EXPORT_KINDS,
  EXPORT_MAX_ACTIVE,
  EXPORT_MAX_PER_DAY,
  EXPORT_QUEUE,
} from './export.constants.ts';
import type { ExportFormat, ExportInterval, ExportKind } from './export.constants.ts';
import { signExportLink, verifyExportLink } from './export.link.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;

export interface ExportJobView {
  id: string;
  status: string;
  format: string;
  interval: string;
  /** the kinds written, in file order */
  kinds: string[];
  metricTypes: string[];
  /** the zone of the local hours and days and of the file's times */
  timeZone: string;
  from: Date;
  to: Date;
  rowsWritten: number;
  sizeBytes: number | null;
  error: string | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  expiresAt: Date;
  /** the job's row (its owner and file), for its download link */
  job: ExportJob;
}

/** The kinds a job writes: a job from before issue 30 recorded none and wrote metrics only. */
export function kindsOf(job: Pick<ExportJob, 'kinds'>): ExportKind[] {
  return job.kinds.length ? (job.kinds as ExportKind[]) : ['metrics'];
}

export function viewOf(job: ExportJob): ExportJobView {
  return {
    id: job.id,
    status: job.status,
    format: job.format,
    interval: job.interval,
    kinds: kindsOf(job),
    metricTypes: job.metricTypes,
    timeZone: job.timeZone,
    from: job.fromAt,
    to: job.toAt,
    rowsWritten: job.rowsWritten,
    sizeBytes: job.sizeBytes === null ? null : Number(job.sizeBytes),
    error: job.error,
    attempts: job.attempts,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    expiresAt: job.expiresAt,
    job,
  };
}

export interface StartExportOptions {
  /** first instant included */
  from: Date;
  /** first instant excluded */
  to: Date;
  /** raw samples, or hour/day buckets aggregated in SQL (default raw) */
  interval?: ExportInterval | null;
  /** default csv */
  format?: ExportFormat | null;
  /** metric types to include; empty or absent for all */
  metricTypes?: readonly string[] | null;
  /**
   * the kinds of data to write; absent: every kind, or metrics alone when metricTypes names some
   * (the schema refuses metricTypes with kinds that leave metrics out)
   */
  kinds?: readonly ExportKind[] | null;
}

/** The kinds asked for, in file order (EXPORT_KINDS order), each once. */
function kindsAskedFor(options: StartExportOptions): ExportKind[] {
  const asked = options.kinds?.length
    ? new Set(options.kinds)
    : new Set<ExportKind>(options.metricTypes?.length ? ['metrics'] : EXPORT_KINDS);
  return EXPORT_KINDS.filter((k) => asked.has(k));
}

/** Records a job and queues it; answers at once (status queued). */
export async function startHealthExport(
  ctx: AuthedContext,
  options: StartExportOptions,
): Promise<ExportJobView> {
  const userId = ctx.principal.userId;
  const now = clock.ms();
  // NOTE: exports are the principal's own data, so their zone too (never a viewed owner's)
  const ownCtx = { ...ctx, principal: { ...ctx.principal, viewAs: null } };
  const [active, today, timeZone] = await Promise.all([
    ctx.prisma.exportJob.count({ where: { userId, status: { in: ['queued', 'running'] } } }),
    ctx.prisma.exportJob.findMany({
      where: { userId, createdAt: { gt: new Date(now - DAY_MS) } },
      select: { createdAt: true },
      orderBy: { createdAt: 'asc' },
    }),
    personZone(ownCtx),
  ]);
  if (active >= EXPORT_MAX_ACTIVE) {
    throw appError(
      'CONFLICT',
      `${active} exports are already queued or running (at most ${EXPORT_MAX_ACTIVE}); wait until one is ready (health_export_status) and start this one then`,
    );
  }
  if (today.length >= EXPORT_MAX_PER_DAY) {
    const freesAt = today[today.length - EXPORT_MAX_PER_DAY].createdAt.getTime() + DAY_MS;
    throw appError(
      'RATE_LIMITED',
      `At most ${EXPORT_MAX_PER_DAY} exports may be started in 24 hours; try again later or download one of the finished ones (export_jobs_list)`,
      { retryAfter: (freesAt - now) / 1000, detail: { code: 'rate_limited' } },
    );
  }
  const job = await ctx.prisma.exportJob.create({
    data: {
      id: randomUUID(),
      userId,
      format: options.format ?? 'csv',
      interval: options.interval ?? 'raw',
      kinds: kindsAskedFor(options),
      metricTypes: [...new Set(options.metricTypes ?? [])],
      timeZone,
      fromAt: options.from,
      toAt: options.to,
      expiresAt: new Date(now + ctx.config.EXPORT_RETENTION_DAYS * DAY_MS),
    },
  });
  await ctx.jobs.send(EXPORT_QUEUE, { id: job.id });
  return viewOf(job);
}

async function ownJob(ctx: AuthedContext, id: string): Promise<ExportJob> {
  const job = await ctx.prisma.exportJob.findFirst({ where: { id, userId: ctx.principal.userId } });
  if (!job) {
    throw appError(
      'NOT_FOUND',
      'No such export job (finished exports are deleted after their expiry); list yours with export_jobs_list',
    );
  }
  return job;
}

export interface ExportJobOptions {
  /** the job's id */
  id: string;
}

export async function healthExportStatus(
  ctx: AuthedContext,
  options: ExportJobOptions,
): Promise<ExportJobView> {
  return viewOf(await ownJob(ctx, options.id));
}

export interface ListExportJobsOptions {
  /** jobs per page */
  limit: number;
  /** next_cursor of the previous page */
  cursor?: string | null;
}

export interface ExportJobPageView {
  items: ExportJobView[];
  nextCursor: string | null;
}

/** The caller's jobs, newest first, a page at a time (keyset on created_at, id). */
export async function exportJobs(
  ctx: AuthedContext,
  options: ListExportJobsOptions,
): Promise<ExportJobPageView> {
  const after = options.cursor ? decodeCursor(options.cursor) : null;
  const rows = await ctx.prisma.exportJob.findMany({
    where: {
      userId: ctx.principal.userId,
      ...(after
        ? {
            OR: [
              { createdAt: { lt: after.createdAt } },
              { createdAt: after.createdAt, id: { lt: after.id } },
            ],
          }
        : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit + 1,
  });
  const items = rows.slice(0, options.limit);
  const last = items[items.length - 1];
  return {
    items: items.map(viewOf),
    nextCursor:
      rows.length > options.limit && last
        ? Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url')
        : null,
  };
}

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime())) {
    throw appError('VALIDATION_FAILED', 'cursor is not a next_cursor this list answered', {
      detail: [{ loc: ['query', 'cursor'], msg: 'invalid cursor', type: 'value_error' }],
    });
  }
  return { createdAt, id };
}

/** The job's file, or the error saying what to do while it is not ready. */
function readyFile(job: ExportJob): { fileKey: string } {
  if (job.status === 'ready' && job.fileKey) return { fileKey: job.fileKey };
  if (job.status === 'failed') {
    throw appError(
      'CONFLICT',
      `This export failed (${job.error ?? 'no reason recorded'}); start a new one with health_export_start`,
    );
  }
  throw appError(
    'CONFLICT',
    `This export is not ready yet (status ${job.status}, ${job.rowsWritten} rows written); check health_export_status and download it once it is ready`,
  );
}

export interface ExportFileView {
  /** the file under DATA_DIR/exports */
  fileKey: string;
  fileName: string;
  contentType: string;
  sizeBytes: number | null;
}

function fileView(job: ExportJob, fileKey: string): ExportFileView {
  const day = (d: Date): string => localDateOf(d, job.timeZone);
  const ext = exportFileExtension(fileKey);
  return {
    fileKey,
    fileName: `health-export-${day(job.fromAt)}-${day(job.toAt)}-${job.interval}.${ext}`,
    contentType: exportContentType(fileKey),
    sizeBytes: job.sizeBytes === null ? null : Number(job.sizeBytes),
  };
}

export interface ExportLinkView extends ExportFileView {
  url: string;
  expiresAt: Date;
}

/** The signed link of a job's file: an absolute URL under PUBLIC_URL. */
async function linkOf(ctx: Context, job: ExportJob, fileKey: string): Promise<ExportLinkView> {
  const expiresAt = new Date(clock.ms() + ctx.config.EXPORT_LINK_TTL_SECONDS * 1000);
  const token = await signExportLink(
    ctx.config.jwtSecret,
    { jobId: job.id, userId: job.userId },
    expiresAt,
  );
  const url = `${publicOrigin(ctx.config)}/api/v1/export/files/${token}`;
  return { ...fileView(job, fileKey), url, expiresAt };
}

/** A short-lived, owner-only link to a ready export's file. */
export async function healthExportDownload(
  ctx: AuthedContext,
  options: ExportJobOptions,
): Promise<ExportLinkView> {
  const job = await ownJob(ctx, options.id);
  return linkOf(ctx, job, readyFile(job).fileKey);
}

/**
 * The download link of a job in a status or list answer: a fresh short-lived link once it is
 * ready, null before (the view comes from the caller's own jobs).
 */
export async function exportJobDownload(
  ctx: Context,
  view: ExportJobView,
): Promise<ExportLinkView | null> {
  const { job } = view;
  return job.status === 'ready' && job.fileKey ? linkOf(ctx, job, job.fileKey) : null;
}

/** The ready file of one of the caller's jobs (the bearer download route). */
export async function healthExportFile(
  ctx: AuthedContext,
  options: ExportJobOptions,
): Promise<ExportFileView> {
  const job = await ownJob(ctx, options.id);
  return fileView(job, readyFile(job).fileKey);
}

/** The file a download link names, while the link is valid and the job still its owner's. */
export async function healthExportFileByLink(
  ctx: Context,
  options: { token: string },
): Promise<ExportFileView> {
  const claims = await verifyExportLink(ctx.config.jwtSecret, options.token);
  const job = claims
    ? await ctx.prisma.exportJob.findFirst({
        where: { id: claims.jobId, userId: claims.userId, status: 'ready' },
      })
    : null;
  if (!job?.fileKey) {
    throw appError(
      'NOT_FOUND',
      'This download link has expired or is not valid; ask for a new one (health_export_download)',
    );
  }
  return fileView(job, job.fileKey);
}

/**
 * Every file a job may have on disk: the one its format writes, the one it recorded, and for a
 * CSV job the single CSV file such jobs wrote before issue 30 (a job taken over mid-upgrade).
 */
export function jobFileKeys(job: Pick<ExportJob, 'id' | 'format' | 'fileKey'>): string[] {
  const legacy = job.format === 'csv' ? `exp_${job.id}.csv` : null;
  const keys = [exportFileKey(job.id, job.format), job.fileKey, legacy];
  return [...new Set(keys.filter((k): k is string => k !== null))];
}

/** The files (finished or being written) of a person's jobs, for account deletion. */
export async function exportFileKeysOf(
  db: Pick<Context['prisma'], 'exportJob'>,
  userId: number,
): Promise<string[]> {
  const jobs = await db.exportJob.findMany({
    where: { userId },
    select: { id: true, format: true, fileKey: true },
  });
  return jobs.flatMap(jobFileKeys);
}
