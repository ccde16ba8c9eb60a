/**
 * File storage by key: put, get, delete. The default keeps files on local disk under
 * DATA_DIR/uploads; another backend (S3-compatible object storage) implements the same interface.
 * Thin by design: callers choose keys (random, unguessable) and decide who may read them.
 *
 * It must never read or write outside its root: keys are checked against a strict pattern
 * (no `..`, no absolute paths), and the resolved path is checked to stay under the root.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Config } from '../base/config.ts';
import type { Logger } from '../base/logger.ts';

/** `folder/name.ext`: lower-case folder, base64url name, short extension. */
export const STORAGE_KEY = /^[a-z0-9-]{1,32}\/[A-Za-z0-9_-]{16,64}\.[a-z0-9]{1,5}$/;

/** Content types by file extension (keys carry the extension of what they hold). */
const CONTENT_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  heic: 'image/heic',
};

export interface StoredFile {
  body: Readable;
  size: number;
  contentType: string;
}

export interface PutOptions {
  /** MIME type of the content (a backend with metadata keeps it; local disk derives it from the key) */
  contentType: string;
}

export interface Storage {
  /** Stores `data` under `key`, replacing what was there (atomically: readers see old or new). */
  put(key: string, data: Uint8Array, options: PutOptions): Promise<void>;
  /** The stored file, or null when there is none (or the key is malformed). */
  get(key: string): Promise<StoredFile | null>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
}

/**
 * Removes stored files whose rows have let go of them (null keys are skipped). A file that will not
 * go is logged as "could not delete <what>" and never fails the caller: the rows are already gone.
 */
export async function deleteStoredFiles(
  deps: { storage: Storage; log: Logger },
  keys: Iterable<string | null>,
  what: string,
): Promise<void> {
  for (const key of keys) {
    if (!key) continue;
    await deps.storage
      .delete(key)
      .catch((err: unknown) => deps.log.error({ err, key }, `could not delete ${what}`));
  }
}

/** A new random key in `folder` (128 random bits) with the given extension. */
export function newStorageKey(folder: string, extension: string): string {
  return `${folder}/${randomBytes(16).toString('base64url')}.${extension}`;
}

/** Local-disk storage under `root`. */
export function localDiskStorage(root: string): Storage {
  const base = path.resolve(root);
  // NOTE: the only way from a key to a path: pattern-checked, then confined to the root.
  const fileOf = (key: string): string | null => {
    if (!STORAGE_KEY.test(key)) return null;
    const file = path.resolve(base, key);
    return file.startsWith(base + path.sep) ? file : null;
  };
  return {
    async put(key, data) {
      const file = fileOf(key);
      if (!file) throw new Error(`invalid storage key ${key}`);
      await mkdir(path.dirname(file), { recursive: true });
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, data, { mode: 0o600 });
      await rename(temp, file);
    },
    async get(key) {
      const file = fileOf(key);
      if (!file) return null;
      try {
        const info = await stat(file);
        if (!info.isFile()) return null;
        const ext = key.slice(key.lastIndexOf('.') + 1);
        return {
          body: createReadStream(file),
          size: info.size,
          contentType: CONTENT_TYPES[ext] ?? 'application/octet-stream',
        };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async delete(key) {
      const file = fileOf(key);
      if (file) await rm(file, { force: true });
    },
  };
}

/** The configured storage: local disk under DATA_DIR/uploads. */
export function createStorage(config: Pick<Config, 'DATA_DIR'>): Storage {
  return localDiskStorage(path.join(config.DATA_DIR, 'uploads'));
}
