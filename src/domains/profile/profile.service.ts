/**
 * Profile photos: checked (size, and the image type from the file's own bytes, not only the
 * declared type), stored under a new random key, the user row pointed at it, the old photo removed.
 * Photos are served at /media/<key> (media.router.ts): the key is the capability, 128 random bits.
 */
import { fileTypeFromBuffer } from 'file-type';
import { appError, validationError } from '../../errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { newStorageKey } from '../../integrations/storage.ts';

/** Accepted image types (as sniffed from the bytes) and the extension their keys get. */
export const PHOTO_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
};

/** Declared types that say nothing (the bytes decide). */
const UNSPECIFIC_TYPES = new Set(['', 'application/octet-stream']);

export const PROFILE_PHOTO_FOLDER = 'profile';

const TYPES_IN_WORDS = 'JPEG, PNG, WebP or HEIC';

/** An uploaded file: a WHATWG File/Blob (its `type` is what the client declared). */
export type UploadedFile = Pick<Blob, 'size' | 'type' | 'arrayBuffer'>;

export interface SetProfilePhotoOptions {
  /** the image; its size is checked before it is read */
  file: UploadedFile;
  /** the argument it came in, for validation locations (`file`, `data`) */
  argument: string;
}

/** The public URL of a stored photo: PUBLIC_URL + /media/<key>, or the path alone without PUBLIC_URL. */
export function mediaUrl(ctx: Pick<AuthedContext, 'config'>, key: string): string {
  return `${ctx.config.PUBLIC_URL?.replace(/\/$/, '') ?? ''}/media/${key}`;
}

/** The image type of `data` from its magic bytes, or a VALIDATION_FAILED naming `argument`. */
export async function checkedImageType(data: Uint8Array, declaredType: string | null, argument: string): Promise<string> {
  const declared = (declaredType ?? '').split(';')[0].trim().toLowerCase();
  const invalid = (msg: string) => validationError([{ loc: [argument], msg, type: 'value_error' }]);
  if (data.length === 0) throw invalid('The file is empty');
  if (!UNSPECIFIC_TYPES.has(declared) && !(declared in PHOTO_TYPES)) {
    throw invalid(`Unsupported image type ${declared}; use ${TYPES_IN_WORDS}`);
  }
  const sniffed = (await fileTypeFromBuffer(data))?.mime;
  // HEIF files with an HEIC brand other than the major one are still HEIC photos
  const actual = sniffed === 'image/heif' ? 'image/heic' : sniffed;
  if (!actual || !(actual in PHOTO_TYPES)) throw invalid(`The file is not a ${TYPES_IN_WORDS} image`);
  return actual;
}

/** Stores a new profile photo for the caller and answers the updated user; the old photo is deleted. */
export async function setProfilePhoto(
  ctx: AuthedContext,
  options: SetProfilePhotoOptions,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  const max = ctx.config.PROFILE_PHOTO_MAX_BYTES;
  if (options.file.size > max) throw appError('PAYLOAD_TOO_LARGE', `The photo is larger than ${max} bytes`);
  const data = new Uint8Array(await options.file.arrayBuffer());
  const type = await checkedImageType(data, options.file.type, options.argument);
  const key = newStorageKey(PROFILE_PHOTO_FOLDER, PHOTO_TYPES[type]);
  await ctx.storage.put(key, data, { contentType: type });
  let previous: string | null;
  let user;
  try {
    ({ previous, user } = await ctx.prisma.$transaction(async (tx) => {
      // NOTE: the caller's own row, locked so that two uploads at once each delete the right old photo.
      const rows = await tx.$queryRaw<{ key: string | null }[]>`SELECT profile_photo_key AS key FROM users WHERE id = ${ctx.principal.userId} FOR UPDATE`;
      if (!rows.length) throw appError('NOT_FOUND', 'Account not found');
      const updated = await tx.user.update({
        ...query,
        where: { id: ctx.principal.userId },
        data: { profilePhotoKey: key, profilePhotoUrl: mediaUrl(ctx, key) },
      });
      return { previous: rows[0].key, user: updated };
    }));
  } catch (e) {
    await ctx.storage.delete(key);
    throw e;
  }
  if (previous && previous !== key) {
    await ctx.storage.delete(previous).catch((err: unknown) => ctx.log.error({ err, key: previous }, 'could not delete the old photo'));
  }
  return user;
}
