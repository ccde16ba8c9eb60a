/**
 * Export files on local disk under DATA_DIR/exports (issue 16): written by a background job through
 * a temporary name and renamed when complete, read back as a stream by the download routes,
 * deleted with their job (expiry, account deletion). Keys are `exp_<uuid>.<zip|json>` (a CSV
 * export is a zip of one CSV file per kind, issue 30; `.csv`: a single-file CSV export written
 * before it); nothing outside that pattern, or outside the folder, is ever opened.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/** A job's file name: its id and the file's extension. */
export const EXPORT_FILE_KEY = /^exp_[0-9a-f-]{36}\.(zip|json|csv)$/;

/** The file extension of each export format: CSV files come in a zip. */
const EXTENSIONS: Record<string, string> = { csv: 'zip', json: 'json' };

/** The content type of each file extension. */
const CONTENT_TYPES: Record<string, string> = {
  zip: 'application/zip',
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/** The extension of a file key (zip, json, or csv for a file from before issue 30). */
export function exportFileExtension(key: string): string {
  return key.slice(key.lastIndexOf('.') + 1);
}

/** The content type of a file key. */
export function exportContentType(key: string): string {
  return CONTENT_TYPES[exportFileExtension(key)] ?? 'application/octet-stream';
}

export function exportDir(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'exports');
}

/** The key of the file a job of `format` writes. */
export function exportFileKey(jobId: string, format: string): string {
  return `exp_${jobId}.${EXTENSIONS[format] ?? format}`;
}

function fileOf(dataDir: string, key: string): string | null {
  return EXPORT_FILE_KEY.test(key) ? path.join(exportDir(dataDir), key) : null;
}

export interface ExportFileWriter {
  stream: WriteStream;
  /** closes the stream and moves the file into place; answers its size */
  commit(): Promise<number>;
  /** closes the stream and removes the partial file */
  discard(): Promise<void>;
}

/** Opens a temporary file for `key`; the finished file appears under `key` only on commit. */
export async function openExportFileWriter(
  dataDir: string,
  key: string,
): Promise<ExportFileWriter> {
  const file = fileOf(dataDir, key);
  if (!file) throw new Error(`invalid export file key ${key}`);
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.partial`;
  const stream = createWriteStream(temp, { mode: 0o600 });
  const closed = (): Promise<void> =>
    new Promise((resolve, reject) => {
      if (stream.closed) return resolve();
      stream.once('error', reject);
      stream.end(() => resolve());
    });
  return {
    stream,
    async commit() {
      await closed();
      await rename(temp, file);
      return (await stat(file)).size;
    },
    async discard() {
      await closed().catch(() => {});
      await rm(temp, { force: true });
    },
  };
}

export interface ExportFile {
  body: Readable;
  size: number;
}

/** The finished file of `key`, or null when it is not there. */
export async function openExportFile(dataDir: string, key: string): Promise<ExportFile | null> {
  const file = fileOf(dataDir, key);
  if (!file) return null;
  try {
    const info = await stat(file);
    return info.isFile() ? { body: createReadStream(file), size: info.size } : null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Removes a job's file (and a partial one); a missing file is not an error. */
export async function removeExportFile(dataDir: string, key: string): Promise<void> {
  const file = fileOf(dataDir, key);
  if (!file) return;
  await Promise.all([rm(file, { force: true }), rm(`${file}.partial`, { force: true })]);
}
