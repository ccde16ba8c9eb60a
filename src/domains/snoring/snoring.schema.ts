/**
 * Snoring on the graph (issue 16): nights (snore_nights_list, snore_night_read, snore_night_delete),
 * a night's audio clip (snore_audio_read) and the phone's clip upload (REST multipart).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { isLocalDate } from '../../platform/local-dates.ts';
import {
  snoreAudio,
  SNORE_AUDIO_CHUNK_BYTES,
  SNORE_CLIP_MAX_BYTES,
  SNORE_CLIPS_PER_NIGHT,
  uploadSnoreAudio,
} from './snoring.audio.ts';
import type { SnoreAudioChunkView, SnoreAudioUploadedView } from './snoring.audio.ts';
import {
  deleteSnoreNight,
  snoreNight,
  snoreNights,
  SNORE_PAGE_DEFAULT,
  SNORE_PAGE_MAX,
  SNORE_RANGE_DAYS_MAX,
} from './snoring.nights.ts';
import type {
  SnoreClipView,
  SnoreNightDeletedView,
  SnoreNightPageView,
  SnoreNightView,
} from './snoring.nights.ts';

const SnoreClip = builder.objectRef<SnoreClipView>('SnoreAudioClip').implement({
  description: 'An audio clip of a snoring night (read it with snore_audio_read)',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'the private media key' }),
    mimeType: t.exposeString('mimeType'),
    bytes: t.exposeInt('bytes'),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'when it was uploaded' }),
  }),
});

export const SnoreNight = builder.objectRef<SnoreNightView>('SnoreNight').implement({
  description: 'One night of snoring as the phone measured it',
  fields: (t) => ({
    id: t.exposeString('id'),
    nightDate: t.exposeString('nightDate', {
      description: "the local date of the morning the night ends (the person's zone)",
    }),
    timeZone: t.exposeString('timeZone', {
      description:
        "the IANA zone nightDate is local to (the person's profile zone; UTC when unset)",
    }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    endedAt: t.expose('endedAt', { type: 'DateTime' }),
    snoringMinutes: t.exposeFloat('snoringMinutes', { description: 'minutes of snoring' }),
    snoringPercent: t.exposeFloat('snoringPercent', {
      nullable: true,
      description: 'snoring as a percent of the sleep measured',
    }),
    loudnessMeanDb: t.exposeFloat('loudnessMeanDb', { nullable: true, description: 'mean, dB' }),
    loudnessMaxDb: t.exposeFloat('loudnessMaxDb', { nullable: true, description: 'loudest, dB' }),
    episodes: t.exposeInt('episodes', { description: 'separate snoring episodes' }),
    source: t.exposeString('source', { description: 'the app that measured it' }),
    clips: t.field({ type: [SnoreClip], resolve: (n) => n.clips }),
  }),
});

const SnoreNightPage = builder.objectRef<SnoreNightPageView>('SnoreNightPage').implement({
  description: 'A page of snoring nights, newest first, and the cursor of the next page',
  fields: (t) => ({
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    timezone: t.exposeString('timezone'),
    items: t.field({ type: [SnoreNight], resolve: (p) => p.items }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass it as cursor for the next page; null on the last page',
    }),
  }),
});

const SnoreNightDeleted = builder.objectRef<SnoreNightDeletedView>('SnoreNightDeleted').implement({
  description: 'A deleted snoring night',
  fields: (t) => ({
    id: t.exposeString('id'),
    deleted: t.exposeBoolean('deleted'),
    clipsRemoved: t.exposeInt('clipsRemoved', { description: 'audio clips removed with it' }),
  }),
});

const SnoreAudioChunk = builder.objectRef<SnoreAudioChunkView>('SnoreAudioChunk').implement({
  description: `A part of a snoring clip: at most ${SNORE_AUDIO_CHUNK_BYTES} bytes, base64`,
  fields: (t) => ({
    nightId: t.exposeString('nightId'),
    clip: t.exposeInt('clip', { description: 'which clip of the night (0-based)' }),
    clips: t.exposeInt('clips', { description: 'how many clips the night has' }),
    key: t.exposeString('key'),
    mimeType: t.exposeString('mimeType'),
    bytes: t.exposeInt('bytes', { description: "the whole clip's size" }),
    offset: t.exposeInt('offset'),
    data: t.exposeString('data', { description: 'the bytes of this part, base64' }),
    nextOffset: t.exposeInt('nextOffset', {
      nullable: true,
      description: 'call again with this offset for the next part; null at the end',
    }),
  }),
});

const SnoreAudioUploaded = builder
  .objectRef<SnoreAudioUploadedView>('SnoreAudioUploaded')
  .implement({
    description: 'A stored snoring clip',
    fields: (t) => ({
      nightId: t.exposeString('nightId'),
      key: t.exposeString('key'),
      mimeType: t.exposeString('mimeType'),
      bytes: t.exposeInt('bytes'),
    }),
  });

const localDate = z
  .string()
  .refine(isLocalDate, { message: 'not a date YYYY-MM-DD' })
  .meta({ format: 'date' });
const nightId = z.string().min(1).max(64);

builder.queryFields((t) => ({
  snoreNights: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: SnoreNightPage,
    description: "One page of the person's snoring nights of a range, newest first",
    args: {
      days: t.arg.int({
        required: true,
        defaultValue: 30,
        description: `the last nights ending at to (1..${SNORE_RANGE_DAYS_MAX}, default 30); not used when from is given`,
        validate: z.number().int().min(1).max(SNORE_RANGE_DAYS_MAX),
      }),
      from: t.arg.string({
        description: `the first night date, YYYY-MM-DD (from..to spans at most ${SNORE_RANGE_DAYS_MAX} days)`,
        validate: localDate.nullish(),
      }),
      to: t.arg.string({
        description: "the last night date, YYYY-MM-DD (default today, in the person's zone)",
        validate: localDate.nullish(),
      }),
      limit: t.arg.int({
        required: true,
        defaultValue: SNORE_PAGE_DEFAULT,
        description: `nights per page (1..${SNORE_PAGE_MAX}, default ${SNORE_PAGE_DEFAULT})`,
        validate: z.number().int().min(1).max(SNORE_PAGE_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page; leave it out for the first page',
        validate: z.string().min(1).max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => snoreNights(ctx, args),
  }),
  snoreNight: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: SnoreNight,
    description: "One of the person's snoring nights",
    args: { id: t.arg.string({ required: true, description: 'the night id', validate: nightId }) },
    resolve: (_root, args, ctx) => snoreNight(ctx, args),
  }),
  snoreAudio: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: SnoreAudioChunk,
    description: `An audio clip of one of the person's snoring nights, in base64 parts of ${SNORE_AUDIO_CHUNK_BYTES} bytes`,
    args: {
      nightId: t.arg.string({ required: true, description: 'the night id', validate: nightId }),
      clip: t.arg.int({
        required: true,
        defaultValue: 0,
        description: `which clip of the night, 0-based (0..${SNORE_CLIPS_PER_NIGHT - 1}, default 0)`,
        validate: z
          .number()
          .int()
          .min(0)
          .max(SNORE_CLIPS_PER_NIGHT - 1),
      }),
      offset: t.arg.int({
        required: true,
        defaultValue: 0,
        description: 'the first byte to answer: a previous answer’s next_offset',
        validate: z.number().int().min(0).max(SNORE_CLIP_MAX_BYTES),
      }),
    },
    resolve: (_root, args, ctx) => snoreAudio(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  deleteSnoreNight: t.withAuth({ scope: 'health:logs:write' }).field({
    type: SnoreNightDeleted,
    description: 'Deletes one of the caller’s snoring nights and its audio clips',
    args: { id: t.arg.string({ required: true, description: 'the night id', validate: nightId }) },
    resolve: (_root, args, ctx) => deleteSnoreNight(ctx, args),
  }),
  uploadSnoreAudio: t.withAuth({ scope: 'health:logs:write' }).field({
    type: SnoreAudioUploaded,
    description: `Stores an audio clip (M4A/AAC, MP3, WAV, Ogg/Opus or WebM, at most ${SNORE_CLIP_MAX_BYTES} bytes) of one of the caller's nights`,
    args: {
      nightId: t.arg.string({ required: true, description: 'the night id', validate: nightId }),
      file: t.arg({ type: 'File', required: true, description: 'the clip' }),
    },
    resolve: (_root, args, ctx) => uploadSnoreAudio(ctx, args),
  }),
}));
