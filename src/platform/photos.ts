/**
 * Photos that domains store (profile photos, meal photos): the accepted image types, their size
 * limits (PHOTO_LIMITS: the field checks the file, and the REST facade stops reading a multipart
 * part there, issue 45), the check of an upload's type from its own bytes (not only the declared
 * type), the public storage folders and the public URL of a stored photo. Photos are served at
 * /media/<folder>/<key> (media.router.ts): the key is the capability, 128 random bits.
 *
 * It must never import a domain: a domain that stores photos imports this, and its folder is
 * listed here so that the media router can serve it.
 */
import { fileTypeFromBuffer } from 'file-type';
import type { GraphQLError } from 'graphql';
import { appError, validationError } from '../base/errors.ts';
import type { Config } from '../base/config.ts';

/** Accepted image types (as sniffed from the bytes) and the extension their keys get. */
export const PHOTO_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/heic': 'heic',
};

/** Declared types that say nothing (the bytes decide). */
const UNSPECIFIC_TYPES = new Set(['', 'application/octet-stream']);

/** Storage folder of profile photos (served at /media/profile/<key>, public by unguessable key). */
export const PROFILE_PHOTO_FOLDER = 'profile';

/** Storage folder of meal photos (served at /media/meals/<key>, public by unguessable key). */
export const MEAL_PHOTO_FOLDER = 'meals';

/** Largest meal photo, bytes (below the multipart read limit, UPLOAD_MAX_BYTES). */
export const MEAL_PHOTO_MAX_BYTES = 8 * 1024 * 1024;

/** The size limit of each kind of photo, in bytes (413 beyond). */
export const PHOTO_LIMITS = {
  /** a profile photo: PROFILE_PHOTO_MAX_BYTES */
  profile: (config: Pick<Config, 'PROFILE_PHOTO_MAX_BYTES'>): number =>
    config.PROFILE_PHOTO_MAX_BYTES,
  /** a meal's photo: MEAL_PHOTO_MAX_BYTES */
  meal: (): number => MEAL_PHOTO_MAX_BYTES,
} as const;

/** A kind of photo with its own size limit (a REST row names it: `photo`). */
export type PhotoKind = keyof typeof PHOTO_LIMITS;

/** The largest `kind` photo under `config`, in bytes. */
export function photoMaxBytes(
  kind: PhotoKind,
  config: Pick<Config, 'PROFILE_PHOTO_MAX_BYTES'>,
): number {
  return PHOTO_LIMITS[kind](config);
}

/** The 413 of a photo over `maxBytes`: the field and the REST facade's early stop say the same. */
export function photoTooLarge(maxBytes: number): GraphQLError {
  return appError('PAYLOAD_TOO_LARGE', `The photo is larger than ${maxBytes} bytes`);
}

const TYPES_IN_WORDS = 'JPEG, PNG, WebP or HEIC';

/** An uploaded file: a WHATWG File/Blob (its `type` is what the client declared). */
export type UploadedFile = Pick<Blob, 'size' | 'type' | 'arrayBuffer'>;

/** The public URL of a stored photo: PUBLIC_URL + /media/<key>, or the path alone without PUBLIC_URL. */
export function mediaUrl(ctx: { config: Pick<Config, 'PUBLIC_URL'> }, key: string): string {
  return `${ctx.config.PUBLIC_URL?.replace(/\/$/, '') ?? ''}/media/${key}`;
}

/** The image type of `data` from its magic bytes, or a VALIDATION_FAILED naming `argument`. */
export async function checkedImageType(
  data: Uint8Array,
  declaredType: string | null,
  argument: string,
): Promise<string> {
  const declared = (declaredType ?? '').split(';')[0].trim().toLowerCase();
  const invalid = (msg: string) => validationError([{ loc: [argument], msg, type: 'value_error' }]);
  if (data.length === 0) throw invalid('The file is empty');
  if (!UNSPECIFIC_TYPES.has(declared) && !(declared in PHOTO_TYPES)) {
    throw invalid(`Unsupported image type ${declared}; use ${TYPES_IN_WORDS}`);
  }
  const sniffed = (await fileTypeFromBuffer(data))?.mime;
  // HEIF files with an HEIC brand other than the major one are still HEIC photos
  const actual = sniffed === 'image/heif' ? 'image/heic' : sniffed;
  if (!actual || !(actual in PHOTO_TYPES))
    throw invalid(`The file is not a ${TYPES_IN_WORDS} image`);
  return actual;
}
