/**
 * Audio clips of snoring nights (issue 16): the phone uploads a clip of one of its nights
 * (POST /api/v1/health/snoring/{night_id}/audio, multipart), agents read it back in base64 parts
 * (snore_audio_read). Clips are private: stored in the `snoring` folder, which the public media
 * route never serves; only the night's owner reads them (NOT_FOUND otherwise).
 */
import { fileTypeFromBuffer } from 'file-type';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { newStorageKey } from '../../integrations/storage.ts';
import type { UploadedFile } from '../../platform/photos.ts';
import type { DbTx } from '../../db/client.ts';
import type { SyncDeletion } from '../../platform/synced-tables.ts';

/** Private storage folder of snoring clips (not a public media folder). */
export const SNORE_AUDIO_FOLDER = 'snoring';
/** Largest clip, bytes. */
export const SNORE_CLIP_MAX_BYTES = 8 * 1024 * 1024;
/** Most clips one night keeps. */
export const SNORE_CLIPS_PER_NIGHT = 20;
/** Bytes of one part of a clip read (base64: 80,000 characters, well under an answer's limit). */
export const SNORE_AUDIO_CHUNK_BYTES = 60_000;

/** Accepted audio types (sniffed from the bytes) and the extension their keys get. */
export const AUDIO_TYPES: Readonly<Record<string, string>> = {
  'audio/x-m4a': 'm4a',
  'audio/mp4': 'm4a',
  'audio/aac': 'aac',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/ogg': 'ogg',
  'audio/opus': 'opus',
  'audio/webm': 'webm',
};

export interface UploadSnoreAudioOptions {
  /** the night the clip belongs to (one of the caller's) */
  nightId: string;
  /** the uploaded clip */
  file: UploadedFile;
}

export interface SnoreAudioUploadedView {
  nightId: string;
  key: string;
  mimeType: string;
  bytes: number;
}

export interface ReadSnoreAudioOptions {
  /** the night whose clip to read */
  nightId: string;
  /** which clip of the night (0: the first uploaded) */
  clip: number;
  /** the first byte to answer */
  offset: number;
}

export interface SnoreAudioChunkView {
  nightId: string;
  clip: number;
  clips: number;
  key: string;
  mimeType: string;
  bytes: number;
  offset: number;
  data: string;
  nextOffset: number | null;
}

const nightNotFound = () =>
  appError(
    'NOT_FOUND',
    'Snoring night not found: snore_nights_list lists the nights and their ids',
  );

/** Stores a clip for one of the caller's live nights. */
export async function uploadSnoreAudio(
  ctx: AuthedContext,
  options: UploadSnoreAudioOptions,
): Promise<SnoreAudioUploadedView> {
  const userId = ctx.principal.userId;
  const night = await ctx.prisma.snoreNight.findFirst({
    where: { id: options.nightId, userId, deletedAt: null },
    select: { id: true, _count: { select: { clips: true } } },
  });
  if (!night) throw nightNotFound();
  if (night._count.clips >= SNORE_CLIPS_PER_NIGHT) {
    throw appError(
      'CONFLICT',
      `The night already has ${SNORE_CLIPS_PER_NIGHT} clips: delete the night to start again`,
    );
  }
  if (options.file.size > SNORE_CLIP_MAX_BYTES) {
    throw appError('PAYLOAD_TOO_LARGE', `The clip is larger than ${SNORE_CLIP_MAX_BYTES} bytes`);
  }
  const data = new Uint8Array(await options.file.arrayBuffer());
  const invalid = (msg: string) => validationError([{ loc: ['file'], msg, type: 'value_error' }]);
  if (data.length === 0) throw invalid('The file is empty');
  const mimeType = (await fileTypeFromBuffer(data))?.mime ?? '';
  if (!(mimeType in AUDIO_TYPES)) {
    throw invalid('The file is not an audio clip (M4A/AAC, MP3, WAV, Ogg/Opus or WebM)');
  }
  const key = newStorageKey(SNORE_AUDIO_FOLDER, AUDIO_TYPES[mimeType]);
  await ctx.storage.put(key, data, { contentType: mimeType });
  try {
    await ctx.prisma.snoreAudioClip.create({
      data: { userId, nightId: night.id, key, mimeType, bytes: data.length },
    });
  } catch (e) {
    await ctx.storage.delete(key);
    throw e;
  }
  return { nightId: night.id, key, mimeType, bytes: data.length };
}

/** One clip of one of the person's nights, in base64 parts of SNORE_AUDIO_CHUNK_BYTES. */
export async function snoreAudio(
  ctx: AuthedContext,
  options: ReadSnoreAudioOptions,
): Promise<SnoreAudioChunkView> {
  const night = await ctx.prisma.snoreNight.findFirst({
    where: { id: options.nightId, userId: readerUserId(ctx), deletedAt: null },
    select: { clips: { orderBy: { id: 'asc' }, select: { key: true, mimeType: true } } },
  });
  if (!night) throw nightNotFound();
  if (!night.clips.length) {
    throw appError(
      'NOT_FOUND',
      'This night has no audio clip: the phone uploads clips when it records them',
    );
  }
  const chosen = night.clips[options.clip];
  if (!chosen) {
    throw validationError([
      {
        loc: ['clip'],
        msg: `The night has ${night.clips.length} clips (0..${night.clips.length - 1})`,
        type: 'value_error',
      },
    ]);
  }
  const stored = await ctx.storage.get(chosen.key);
  if (!stored) throw appError('NOT_FOUND', 'The clip file is missing');
  const parts: Buffer[] = [];
  for await (const part of stored.body) parts.push(part as Buffer);
  const data = Buffer.concat(parts);
  if (options.offset > data.length) {
    throw validationError([
      { loc: ['offset'], msg: `The clip has ${data.length} bytes`, type: 'value_error' },
    ]);
  }
  const end = Math.min(options.offset + SNORE_AUDIO_CHUNK_BYTES, data.length);
  return {
    nightId: options.nightId,
    clip: options.clip,
    clips: night.clips.length,
    key: chosen.key,
    mimeType: chosen.mimeType,
    bytes: data.length,
    offset: options.offset,
    data: data.subarray(options.offset, end).toString('base64'),
    nextOffset: end < data.length ? end : null,
  };
}

/** Storage keys of every clip of a person (account deletion removes the files). */
export async function snoreAudioKeys(tx: DbTx, userId: number): Promise<string[]> {
  const rows = await tx.snoreAudioClip.findMany({ where: { userId }, select: { key: true } });
  return rows.map((r) => r.key);
}

/**
 * A night deleted through sync (the push's onDeleted, snoring.synced.ts): deletes its clips' rows
 * in the push's transaction and answers their storage keys, whose files the push removes once it
 * has committed, as deleteSnoreNight removes them. Only this person's clips of these nights.
 */
export async function releaseDeletedNightClips(
  tx: DbTx,
  { userId, ids }: SyncDeletion,
): Promise<string[]> {
  const removed = await tx.$queryRaw<{ key: string }[]>`
    DELETE FROM snore_audio_clips
     WHERE user_id = ${userId}::int AND night_id = ANY(${ids}::text[])
    RETURNING key`;
  return removed.map((r) => r.key);
}
