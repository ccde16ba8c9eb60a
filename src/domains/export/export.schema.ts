/**
 * Health exports (issues 16 and 30): start an export job of a date range (every kind of the
 * person's data, or the kinds asked for; a zip of CSV files or one JSON document; raw, or local
 * hour/day buckets), read its status, list the person's jobs, and reach the finished file (a
 * short-lived absolute link, or the file itself through the bearer route). Scope
 * health:export:read throughout.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { enumValues } from '../../graphql/enum-values.ts';
import {
  EXPORT_EARLIEST,
  EXPORT_FORMATS,
  EXPORT_INTERVALS,
  EXPORT_KINDS,
  EXPORT_LIST_DEFAULT,
  EXPORT_LIST_MAX,
  EXPORT_MAX_RANGE_DAYS,
  EXPORT_STATUSES,
} from './export.constants.ts';
import {
  exportJobDownload,
  healthExportDownload,
  healthExportFile,
  healthExportFileByLink,
  healthExportStatus,
  exportJobs,
  startHealthExport,
} from './export.jobs.ts';
import type {
  ExportFileView,
  ExportJobPageView,
  ExportJobView,
  ExportLinkView,
} from './export.jobs.ts';
import { clock } from '../../base/clock.ts';

const DAY_MS = 86_400_000;

const enumOf = <T extends string>(name: string, description: string, values: readonly T[]) =>
  builder.enumType(name, {
    description,
    values: enumValues(values),
  });

const ExportFormat = enumOf(
  'ExportFormat',
  'The file format of a health export: csv (a zip, one CSV file per kind) or json (one document)',
  EXPORT_FORMATS,
);
const ExportInterval = enumOf(
  'ExportInterval',
  "raw: every record; hour or day: metrics and glucose per bucket of the person's local clock (count, min, max, avg, and sum for metrics); the other kinds are always every record",
  EXPORT_INTERVALS,
);
const ExportKind = enumOf(
  'ExportKind',
  'A kind of data in a health export: metrics (health samples), glucose (readings), sleep, workouts, meals (with items and nutrients), blood_pressure, logs (hydration, weight, medication, ...)',
  EXPORT_KINDS,
);
const ExportStatus = enumOf(
  'ExportStatus',
  'queued, running, ready (download it) or failed (see error)',
  EXPORT_STATUSES,
);

const ExportDownloadRef = builder.objectRef<ExportLinkView>('ExportDownload');

const ExportJob = builder.objectRef<ExportJobView>('ExportJob').implement({
  description: 'A health export job and where it is',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'pass it to health_export_status and download' }),
    status: t.field({ type: ExportStatus, resolve: (j) => j.status as 'queued' }),
    format: t.field({ type: ExportFormat, resolve: (j) => j.format as 'csv' }),
    interval: t.field({ type: ExportInterval, resolve: (j) => j.interval as 'raw' }),
    kinds: t.field({
      type: [ExportKind],
      description: 'the kinds of data in the file, in file order',
      resolve: (j) => j.kinds as 'metrics'[],
    }),
    metricTypes: t.exposeStringList('metricTypes', { description: 'empty: every metric type' }),
    timeZone: t.exposeString('timeZone', {
      description:
        "the IANA zone of the local hours and days, and of every time in the file (written with its offset): the person's profile zone when the export started",
    }),
    from: t.expose('from', { type: 'DateTime', description: 'first instant included' }),
    to: t.expose('to', { type: 'DateTime', description: 'first instant excluded' }),
    rowsWritten: t.exposeInt('rowsWritten', { description: 'rows written so far, or in the file' }),
    sizeBytes: t.exposeFloat('sizeBytes', { nullable: true, description: 'bytes of the file' }),
    error: t.exposeString('error', { nullable: true, description: 'why it failed' }),
    attempts: t.exposeInt('attempts', { description: 'times a worker started it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'when the job and its file are deleted',
    }),
    download: t.field({
      type: ExportDownloadRef,
      nullable: true,
      description:
        'once status is ready: a fresh short-lived absolute link to the file (as health_export_download gives); null before',
      resolve: (j, _args, ctx) => exportJobDownload(ctx, j),
    }),
  }),
});

const ExportJobPage = builder.objectRef<ExportJobPageView>('ExportJobPage').implement({
  description: "A page of the person's export jobs, newest first",
  fields: (t) => ({
    items: t.field({ type: [ExportJob], resolve: (p) => p.items }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass it as cursor for the next page; null on the last page',
    }),
  }),
});

const ExportFile = builder.objectRef<ExportFileView>('ExportFile').implement({
  description: "A finished export's file",
  fields: (t) => ({
    fileKey: t.exposeString('fileKey', {
      description: 'the stored file the download routes serve',
    }),
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType'),
    sizeBytes: t.exposeFloat('sizeBytes', { nullable: true }),
  }),
});

const ExportDownload = ExportDownloadRef.implement({
  description: "A short-lived link to a finished export's file",
  fields: (t) => ({
    url: t.exposeString('url', {
      description:
        "an absolute URL (the server's PUBLIC_URL): GET it (no credential needed) before expires_at; only this file, only once ready",
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType'),
    sizeBytes: t.exposeFloat('sizeBytes', { nullable: true }),
  }),
});

const metricType = z
  .string()
  .regex(/^[a-z0-9_]{1,64}$/, 'a metric type is lower-case letters, digits and _');

const StartHealthExportInput = builder.inputType('StartHealthExportInput', {
  description: 'What a health export covers and how it is written',
  fields: (t) => ({
    from: t.field({
      type: 'DateTime',
      required: true,
      description: 'first instant included (ISO 8601; 2000-01-01 or later)',
    }),
    to: t.field({
      type: 'DateTime',
      required: true,
      description: `first instant excluded (at most ${EXPORT_MAX_RANGE_DAYS} days after from, at most a day ahead of now)`,
    }),
    interval: t.field({
      type: ExportInterval,
      defaultValue: 'raw',
      description: 'raw samples, or hour/day aggregates (default raw)',
    }),
    format: t.field({
      type: ExportFormat,
      defaultValue: 'csv',
      description: 'csv (a zip with one CSV file per kind) or json (one document); default csv',
    }),
    kinds: t.field({
      type: [ExportKind],
      description:
        'only these kinds of data; absent: every kind (metrics alone when metric_types is given)',
    }),
    metricTypes: t.stringList({
      description:
        'only these metric types in the metrics kind (e.g. heart_rate, steps; at most 20); absent: all',
    }),
  }),
  validate: z
    .object({
      from: z.date().min(EXPORT_EARLIEST, 'from must be 2000-01-01 or later'),
      to: z.date(),
      interval: z.enum(EXPORT_INTERVALS).nullish(),
      format: z.enum(EXPORT_FORMATS).nullish(),
      kinds: z.array(z.enum(EXPORT_KINDS)).min(1).max(EXPORT_KINDS.length).nullish(),
      metricTypes: z.array(metricType).max(20).nullish(),
    })
    .refine((v) => v.to > v.from, { message: 'to must be after from', path: ['to'] })
    .refine((v) => !v.metricTypes?.length || !v.kinds || v.kinds.includes('metrics'), {
      message: 'metric_types narrows the metrics kind: add metrics to kinds, or leave kinds out',
      path: ['metricTypes'],
    })
    .refine((v) => v.to.getTime() - v.from.getTime() <= EXPORT_MAX_RANGE_DAYS * DAY_MS, {
      message: `the range may span at most ${EXPORT_MAX_RANGE_DAYS} days (5 years); split it into several exports`,
      path: ['to'],
    })
    .refine((v) => v.to.getTime() <= clock.ms() + DAY_MS, {
      message: 'to may be at most one day in the future',
      path: ['to'],
    }),
});

const jobId = {
  required: true as const,
  description: 'the export job id (health_export_start or export_jobs_list answer it)',
  validate: z.string().uuid('id is an export job id (a UUID)'),
};

builder.queryFields((t) => ({
  healthExportStatus: t.withAuth({ scope: 'health:export:read' }).field({
    type: ExportJob,
    description: "One of the person's export jobs",
    args: { id: t.arg.string(jobId) },
    resolve: (_root, args, ctx) => healthExportStatus(ctx, args),
  }),
  exportJobs: t.withAuth({ scope: 'health:export:read' }).field({
    type: ExportJobPage,
    description: "The person's export jobs, newest first, a page at a time",
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: EXPORT_LIST_DEFAULT,
        description: `jobs per page (1..${EXPORT_LIST_MAX}, default ${EXPORT_LIST_DEFAULT})`,
        validate: z.number().int().min(1).max(EXPORT_LIST_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page; leave it out for the first page',
        validate: z.string().min(1).max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => exportJobs(ctx, args),
  }),
  healthExportDownload: t.withAuth({ scope: 'health:export:read' }).field({
    type: ExportDownload,
    description: "A short-lived link to a finished export's file",
    args: { id: t.arg.string(jobId) },
    resolve: (_root, args, ctx) => healthExportDownload(ctx, args),
  }),
  healthExportFile: t.withAuth({ scope: 'health:export:read' }).field({
    type: ExportFile,
    description: "A finished export's file (the bearer download route streams it)",
    args: { id: t.arg.string(jobId) },
    resolve: (_root, args, ctx) => healthExportFile(ctx, args),
  }),
  // NOTE: public on purpose: the signed, expiring link is the capability for one file (export.link.ts)
  healthExportFileByLink: t.withAuth({ public: true }).field({
    type: ExportFile,
    description: 'The file a download link names, while the link is valid',
    args: {
      token: t.arg.string({
        required: true,
        description: 'the token of the link',
        validate: z.string().min(1).max(2000),
      }),
    },
    resolve: (_root, args, ctx) => healthExportFileByLink(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  startHealthExport: t.withAuth({ scope: 'health:export:read' }).field({
    type: ExportJob,
    description: 'Records an export job and queues it; answers at once',
    args: { input: t.arg({ type: StartHealthExportInput, required: true }) },
    resolve: (_root, args, ctx) => startHealthExport(ctx, args.input),
  }),
}));
