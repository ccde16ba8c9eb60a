/**
 * The phone's upload of the person's Apple Health export.zip (issue 30): the file is streamed to
 * DATA_DIR/health-imports (hashed and counted on the way, never held in memory), its zip
 * directory is checked for export.xml, and an import job is queued for the background worker
 * (health.archive-upload.worker.ts), which runs the CLI's importer (`importAppleHealthFile`) on it.
 *
 * An upload is idempotent twice over: the same bytes (sha256) uploaded again answer the import
 * they started, and a retry carrying the same Idempotency-Key answers its import without the file
 * being read at all. Hostile input never costs more than the bytes sent: a file over
 * HEALTH_ARCHIVE_MAX_BYTES (413), a body cut short or abandoned, something that is not a zip or a
 * zip without export.xml (422) each leave no file behind. It must never write outside
 * DATA_DIR/health-imports nor keep a file whose import has ended.
 */
import { randomUUID, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { readerUserId } from '../../auth/principal.ts';
import type { Db } from '../../db/client.ts';
import { appError, validationError } from '../../base/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { HealthArchiveImport } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { spendLimit } from '../../platform/limits.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { readableOf } from '../../platform/streamed-file.ts';
import type { StreamedFile } from '../../platform/streamed-file.ts';

/** The pg-boss queue of archive imports. */
export const ARCHIVE_IMPORT_QUEUE = 'health-archive-import';
export const ARCHIVE_IMPORT_STATUSES = ['queued', 'running', 'ready', 'failed'] as const;
export type ArchiveImportStatus = (typeof ARCHIVE_IMPORT_STATUSES)[number];
/** Starts of one import (server restarts mid-import) before it fails. */
export const ARCHIVE_IMPORT_MAX_ATTEMPTS = 3;
/** How often a running import records its progress and a heartbeat. */
export const ARCHIVE_IMPORT_HEARTBEAT_MS = 5_000;
/** A running import without a heartbeat for this long was left by a process that died. */
export const ARCHIVE_IMPORT_STALE_MS = 2 * 60_000;
/** How often every app looks for such imports. */
export const ARCHIVE_IMPORT_STALE_CHECK_MS = 60_000;
/** A partial upload untouched for this long belongs to a process that died: it is removed. */
export const ARCHIVE_UPLOAD_STALE_MS = 6 * 3_600_000;
/** Imports a list answers (newest first). */
export const ARCHIVE_IMPORT_LIST = { default: 20, max: 50 };

/** Uploads one person may start per UTC day (each may be gigabytes): ARCHIVE_IMPORTS_PER_DAY. */
const uploadRule = (ctx: AuthedContext): LimitRule => ({
  name: 'health:archive-uploads',
  points: ctx.config.ARCHIVE_IMPORTS_PER_DAY,
  seconds: 'utc-day',
});

/** What to do when an upload is not an export. */
const EXPORT_HOWTO =
  'on the iPhone open Health, tap the profile picture, choose "Export All Health Data" and upload the export.zip it writes';

// ---- files ----------------------------------------------------------------------------------

/**
 * The folder of uploaded exports. Only names of the two patterns below are ever opened or removed
 * there, so deployments (and test apps) sharing a DATA_DIR never touch each other's files.
 */
export function archiveImportDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'health-imports');
}

const JOB_FILE = /^[0-9a-f-]{36}\.zip$/;
/** An upload still arriving: `upload_<uuid>.partial`. */
export const UPLOAD_FILE = /^upload_[0-9a-f-]{36}\.partial$/;

/** The file of an import (its id is a UUID; anything else names no file). */
export function archiveImportFile(dataDir: string, id: string): string | null {
  const name = `${id}.zip`;
  return JOB_FILE.test(name) ? path.join(archiveImportDir(dataDir), name) : null;
}

/** Removes an import's file, if it is there. */
export async function removeArchiveImportFile(dataDir: string, id: string): Promise<void> {
  const file = archiveImportFile(dataDir, id);
  if (file) await rm(file, { force: true });
}

/**
 * The ids of a person's imports that still have their file (queued or running): account deletion
 * reads them before the rows go and removes the files (removeArchiveImportFile) after.
 */
export async function archiveImportIdsWithFiles(prisma: Db, userId: number): Promise<string[]> {
  const rows = await prisma.healthArchiveImport.findMany({
    where: { userId, status: { in: ['queued', 'running'] } },
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

// ---- views ----------------------------------------------------------------------------------

/** New rows per table an import stored, and the export's files it could not read. */
export interface ArchiveImportCountsView {
  healthMetrics: number;
  sleepSamples: number;
  workoutSamples: number;
  archiveRecords: number;
  archiveWorkouts: number;
  archiveRoutePoints: number;
  archiveEcg: number;
  /** samples the account already had (stored by the phone or an earlier import) */
  alreadyStored: number;
  missingRouteFiles: number;
  unreadableEcgFiles: number;
}

export interface ArchiveImportView {
  id: string;
  status: ArchiveImportStatus;
  fileName: string;
  sizeBytes: number;
  sha256: string;
  recordsRead: number;
  recordsStored: number;
  counts: ArchiveImportCountsView | null;
  error: string | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

function viewOf(row: HealthArchiveImport): ArchiveImportView {
  return {
    id: row.id,
    status: row.status as ArchiveImportStatus,
    fileName: row.fileName,
    sizeBytes: Number(row.sizeBytes),
    sha256: row.sha256,
    recordsRead: row.recordsRead,
    recordsStored: row.recordsStored,
    counts: (row.counts as ArchiveImportCountsView | null) ?? null,
    error: row.error,
    attempts: row.attempts,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

// ---- the upload -----------------------------------------------------------------------------

export interface StartArchiveImportOptions {
  /** the uploaded export.zip: streamed over REST (a StreamedFile), in memory through /graphql */
  file: File | StreamedFile;
  /** the client's Idempotency-Key: a retry with it answers the same import, the file unread */
  idempotencyKey?: string | null;
}

interface Spooled {
  file: string;
  sha256: string;
  size: number;
}

const fileInvalid = (msg: string) => validationError([{ loc: ['file'], msg, type: 'value_error' }]);

/**
 * Streams the upload to a partial file, hashing and counting it; removes it and throws 413 beyond
 * `maxBytes`, 422 when the body ends before the file did (cut short, the client gone).
 */
async function spool(dataDir: string, maxBytes: number, upload: Blob | StreamedFile) {
  const dir = archiveImportDir(dataDir);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `upload_${randomUUID()}.partial`);
  const hash = createHash('sha256');
  let size = 0;
  let tooLarge = false;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        return done(new Error('upload over the limit'));
      }
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      readableOf(upload),
      meter,
      createWriteStream(file, { flags: 'wx', mode: 0o600 }),
    );
  } catch (err) {
    await rm(file, { force: true });
    if (tooLarge) {
      throw appError(
        'PAYLOAD_TOO_LARGE',
        `The file is larger than ${maxBytes} bytes, the most an export.zip upload may have`,
      );
    }
    const failure = err as NodeJS.ErrnoException;
    if (failure.code === 'ENOSPC') {
      throw appError('UNAVAILABLE', 'The server has no room for the file now; try again later', {
        retryAfter: 3600,
      });
    }
    // the disk failed (a system call's error) or a bug: ours, masked as 500
    if (typeof failure.syscall === 'string' || err instanceof TypeError) throw err;
    throw fileInvalid('The upload ended before the whole file arrived: upload the file again');
  }
  return { file, sha256: hash.digest('hex'), size } satisfies Spooled;
}

/** Whether `file` is a zip whose directory names an export.xml (the contents are not read). */
async function checkExportZip(file: string): Promise<'ok' | 'not_zip' | 'no_export_xml'> {
  const zip = await new Promise<yauzl.ZipFile | null>((resolve) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, z) =>
      resolve(err || !z ? null : z),
    ),
  );
  if (!zip) return 'not_zip';
  try {
    return await new Promise((resolve) => {
      zip.on('entry', (entry: yauzl.Entry) => {
        if (/(^|\/)export\.xml$/.test(entry.fileName)) return resolve('ok');
        zip.readEntry();
      });
      zip.on('end', () => resolve('no_export_xml'));
      zip.on('error', () => resolve('not_zip'));
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

/**
 * Takes the person's upload: streams it to disk, checks it is an export zip, and queues its
 * import, or answers the import the same file (or the same Idempotency-Key) started before. A
 * failed import of the same file is queued again with the new copy. While another file's import
 * is queued or running the upload is refused (409), so one person holds one file on disk at most.
 */
export async function importHealthArchive(
  ctx: AuthedContext,
  options: StartArchiveImportOptions,
): Promise<ArchiveImportView> {
  // NOTE: writes are the caller's own (a login session), never a viewed owner's
  const userId = ctx.principal.userId;
  const idempotencyKey = options.idempotencyKey ?? null;
  const imports = ctx.prisma.healthArchiveImport;
  if (idempotencyKey) {
    const earlier = await imports.findUnique({
      where: { userId_idempotencyKey: { userId, idempotencyKey } },
    });
    if (earlier) return viewOf(earlier);
  }
  await spendLimit(
    ctx.limits,
    uploadRule(ctx),
    String(userId),
    `At most ${ctx.config.ARCHIVE_IMPORTS_PER_DAY} health archive uploads a day; try again tomorrow`,
  );
  const { DATA_DIR: dataDir, HEALTH_ARCHIVE_MAX_BYTES: maxBytes } = ctx.config;
  const spooled = await spool(dataDir, maxBytes, options.file);
  try {
    const check = await checkExportZip(spooled.file);
    if (check === 'not_zip')
      throw fileInvalid(`The file is not a (complete) zip archive: ${EXPORT_HOWTO}`);
    if (check === 'no_export_xml')
      throw fileInvalid(`The zip holds no export.xml, so it is no Health export: ${EXPORT_HOWTO}`);
    return await queueImport(ctx, { userId, idempotencyKey, spooled, fileName: options.file.name });
  } finally {
    // moved into place when an import took it; otherwise it goes here
    await rm(spooled.file, { force: true });
  }
}

interface QueueImportOptions {
  userId: number;
  idempotencyKey: string | null;
  spooled: Spooled;
  /** the name the client gave the file */
  fileName: string | undefined;
}

/** The import of a checked upload: the earlier one of the same bytes, or a new one queued. */
async function queueImport(
  ctx: AuthedContext,
  options: QueueImportOptions,
): Promise<ArchiveImportView> {
  const { userId, spooled } = options;
  const imports = ctx.prisma.healthArchiveImport;
  const sameFile = { userId_sha256: { userId, sha256: spooled.sha256 } };
  const earlier = await imports.findUnique({ where: sameFile });
  if (earlier && earlier.status !== 'failed') return viewOf(earlier);
  const busy = await imports.findFirst({
    where: { userId, status: { in: ['queued', 'running'] }, NOT: { sha256: spooled.sha256 } },
    select: { id: true },
  });
  if (busy) {
    throw appError(
      'CONFLICT',
      'Another export is being imported: wait until it is ready (or failed), then upload this one',
      { detail: { code: 'import_in_progress', import_id: busy.id } },
    );
  }
  const fresh = {
    status: 'queued',
    sizeBytes: BigInt(spooled.size),
    fileName: (options.fileName || 'export.zip').slice(0, 200),
    recordsRead: 0,
    recordsStored: 0,
    counts: Prisma.DbNull,
    error: null,
    attempts: 0,
    startedAt: null,
    heartbeatAt: null,
    finishedAt: null,
  };
  if (earlier) {
    // a failed import of these bytes starts again with this copy: claimed first (only a failed
    // one), so of two concurrent retries one queues it and the other answers it
    const claimed = await imports.updateMany({
      where: { id: earlier.id, status: 'failed' },
      data: fresh,
    });
    if (claimed.count === 0) return viewOf(await imports.findUniqueOrThrow({ where: sameFile }));
    await rename(spooled.file, archiveImportFile(ctx.config.DATA_DIR, earlier.id)!);
    await ctx.jobs.send(ARCHIVE_IMPORT_QUEUE, { id: earlier.id });
    return viewOf(await imports.findUniqueOrThrow({ where: { id: earlier.id } }));
  }
  const id = randomUUID();
  const target = archiveImportFile(ctx.config.DATA_DIR, id)!;
  await rename(spooled.file, target);
  let row: HealthArchiveImport;
  try {
    row = await imports.create({
      data: {
        ...fresh,
        id,
        userId,
        sha256: spooled.sha256,
        idempotencyKey: options.idempotencyKey,
      },
    });
  } catch (e) {
    await rm(target, { force: true });
    if ((e as { code?: string }).code !== 'P2002') throw e;
    // the same bytes (or key) were queued by a concurrent upload meanwhile: answer that import
    const other = await imports.findFirst({
      where: {
        userId,
        OR: [
          { sha256: spooled.sha256 },
          ...(options.idempotencyKey ? [{ idempotencyKey: options.idempotencyKey }] : []),
        ],
      },
    });
    if (!other) throw e;
    return viewOf(other);
  }
  await ctx.jobs.send(ARCHIVE_IMPORT_QUEUE, { id });
  return viewOf(row);
}

// ---- reads ----------------------------------------------------------------------------------

export interface ArchiveImportOptions {
  /** the import's id (answered by the upload) */
  id: string;
}

/** One of the person's imports; another person's id answers 404 like an unknown one. */
export async function healthArchiveImport(
  ctx: AuthedContext,
  options: ArchiveImportOptions,
): Promise<ArchiveImportView> {
  // NOTE: ownership is part of the lookup: the person's imports (the owner's while viewing as)
  const row = await ctx.prisma.healthArchiveImport.findFirst({
    where: { id: options.id, userId: readerUserId(ctx) },
  });
  if (!row) throw appError('NOT_FOUND', 'No health archive import with this id');
  return viewOf(row);
}

export interface ArchiveImportsOptions {
  /** imports to answer, newest first (default 20, at most 50) */
  limit?: number | null;
}

/** The person's imports, newest first. */
export async function healthArchiveImports(
  ctx: AuthedContext,
  options: ArchiveImportsOptions,
): Promise<ArchiveImportView[]> {
  const rows = await ctx.prisma.healthArchiveImport.findMany({
    where: { userId: readerUserId(ctx) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit ?? ARCHIVE_IMPORT_LIST.default,
  });
  return rows.map(viewOf);
}

/** The person's latest import (the archive coverage carries it), or null when none. */
export async function latestArchiveImport(ctx: AuthedContext): Promise<ArchiveImportView | null> {
  const [latest] = await healthArchiveImports(ctx, { limit: 1 });
  return latest ?? null;
}
