/**
 * GET /media/<folder>/<name>: streams a stored file of a public folder (profile and meal photos)
 * with its content type and cache headers. Public by unguessable key: a photo's URL is the
 * capability (128 random bits, a new key on every upload; the old file is deleted on replace, on
 * delete and on account deletion), so the phone's and the browser's image views need no credential.
 *
 * It must never serve a folder that is not listed in PUBLIC_FOLDERS (private uploads need their own
 * authenticated route), nor a path that is not a valid key. It imports no domain: the public
 * folders are named in photos.ts, which the domains that store photos import.
 */
import express from 'express';
import type { Router } from 'express';
import { httpErrorBody } from '../base/errors.ts';
import type { Storage, StoredFile } from '../integrations/storage.ts';
import { MEAL_PHOTO_FOLDER, PROFILE_PHOTO_FOLDER } from './photos.ts';

export const MEDIA_PATH = '/media';

/** Storage folders whose files anyone holding the URL may read. */
const PUBLIC_FOLDERS: ReadonlySet<string> = new Set([PROFILE_PHOTO_FOLDER, MEAL_PHOTO_FOLDER]);

export interface MediaRouterOptions {
  storage: Storage;
}

export function createMediaRouter(options: MediaRouterOptions): Router {
  const router = express.Router();
  router.get(`${MEDIA_PATH}/:folder/:name`, async (req, res, next) => {
    const { folder, name } = req.params;
    let file: StoredFile | null = null;
    try {
      // NOTE: only public folders; the storage itself refuses anything that is not a well-formed key.
      if (PUBLIC_FOLDERS.has(folder)) file = await options.storage.get(`${folder}/${name}`);
    } catch (err) {
      return next(err);
    }
    if (!file) return void res.status(404).json(httpErrorBody('NOT_FOUND'));
    const etag = `"${name}"`;
    res.set({
      'content-type': file.contentType,
      'cache-control': 'private, max-age=31536000, immutable',
      etag,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
    });
    if (req.get('if-none-match') === etag) {
      file.body.destroy();
      return void res.status(304).end();
    }
    res.set('content-length', String(file.size));
    file.body.on('error', (err) => res.destroy(err));
    file.body.pipe(res);
  });
  return router;
}
