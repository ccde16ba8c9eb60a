/**
 * Files the person gives the assistant: images (JPEG, PNG, WebP, HEIC, checked from their bytes by
 * src/platform/photos.ts) and plain-text documents (UTF-8, no NUL, no known binary signature),
 * sent as base64, stored in the app's storage (folder `assistant`, never served publicly). From a
 * document the assistant draws memory facts when it is uploaded (one guarded model call with a JSON
 * answer); a reply may attach uploads (assistant.reply.ts).
 *
 * NOTE: every query names the caller; another person's upload is NOT_FOUND.
 */
import { fileTypeFromBuffer } from 'file-type';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { createCompletion } from '../../integrations/openai.ts';
import { newStorageKey } from '../../integrations/storage.ts';
import { checkedImageType, PHOTO_TYPES } from '../../platform/photos.ts';
import { AI_FEATURES, availableModel, guardedCall, worstCaseUsd } from '../ai/index.ts';
import { DOCUMENT_FACTS_PER_UPLOAD, FACT_TEXT_MAX } from './assistant.memory.ts';
import { ensureAssistantConsent, isId } from './assistant.service.ts';

/** Largest upload, in bytes (decoded). */
export const UPLOAD_MAX_BYTES = 5 * 1024 * 1024;
/** Uploads one person may keep; another beyond answers CONFLICT. */
export const UPLOADS_MAX = 50;
/** Characters of a document the model reads (drawing facts, or attached to a reply). */
export const DOCUMENT_CHARS_FOR_MODEL = 20_000;
export const FILE_NAME_MAX = 200;
/** Storage folder of uploads (not a media folder: never served by URL). */
export const ASSISTANT_UPLOAD_FOLDER = 'assistant';
const TEXT_TYPE = 'text/plain';

export interface UploadView {
  id: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  createdAt: Date;
  /** facts drawn from it (documents) */
  factCount: number;
}

const select = {
  id: true,
  fileName: true,
  contentType: true,
  sizeBytes: true,
  createdAt: true,
  _count: { select: { facts: true } },
} as const;

type UploadRow = Omit<UploadView, 'factCount'> & { _count: { facts: number } };

const viewOf = ({ _count, ...row }: UploadRow): UploadView => ({ ...row, factCount: _count.facts });

export interface CreateUploadOptions {
  /** the file's name, as the person knows it */
  fileName: string;
  /** what the client says it is (the bytes decide) */
  contentType: string;
  /** the file, base64-encoded */
  data: string;
}

/** The text of a plain-text document, or null when the bytes are not one. */
async function documentText(data: Uint8Array): Promise<string | null> {
  if (data.includes(0) || (await fileTypeFromBuffer(data))) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

/** The checked type of an upload: text/plain or an image type, else VALIDATION_FAILED. */
async function checkedType(
  data: Uint8Array,
  declared: string,
): Promise<{ type: string; text: string | null }> {
  const kind = declared.split(';')[0].trim().toLowerCase();
  if (kind === TEXT_TYPE) {
    const text = data.length ? await documentText(data) : null;
    if (text === null || !text.trim()) {
      throw validationError([
        {
          loc: ['data'],
          msg: 'The file is not a non-empty UTF-8 plain-text document',
          type: 'value_error',
        },
      ]);
    }
    return { type: TEXT_TYPE, text };
  }
  return { type: await checkedImageType(data, kind, 'data'), text: null };
}

const FactsAnswer = z.object({
  facts: z.array(z.string().min(1).max(FACT_TEXT_MAX)).max(DOCUMENT_FACTS_PER_UPLOAD),
});

const FACT_INSTRUCTIONS =
  'Draw from this document of the person the facts about their health that a health assistant ' +
  `should remember (conditions, medication, allergies, goals, results with dates). At most ${DOCUMENT_FACTS_PER_UPLOAD} ` +
  'short facts, each one sentence, in the language of the document; none if it has none. Answer JSON.';

/** The facts the model draws from a document (one guarded call, JSON answer). */
async function drawFacts(ctx: AuthedContext, fileName: string, text: string): Promise<string[]> {
  const { maxOutputTokens } = AI_FEATURES.assistant;
  const model = AI_FEATURES.assistant.model(ctx.config);
  const document = `Document "${fileName}":\n${text.slice(0, DOCUMENT_CHARS_FOR_MODEL)}`;
  const worst = worstCaseUsd(ctx, model, {
    texts: [FACT_INSTRUCTIONS, document],
    images: 0,
    maxOutputTokens,
  });
  const answer = await guardedCall(
    ctx,
    { feature: 'assistant', worstCaseUsd: worst },
    async (client) => {
      const completion = await createCompletion(
        client,
        {
          model,
          messages: [
            { role: 'system', content: FACT_INSTRUCTIONS },
            { role: 'user', content: document },
          ],
          response_format: zodResponseFormat(FactsAnswer, 'document_facts'),
          max_completion_tokens: maxOutputTokens,
        },
        ctx.log,
      );
      let value: z.infer<typeof FactsAnswer> | null = null;
      try {
        const parsed = FactsAnswer.safeParse(
          JSON.parse(completion.choices[0]?.message?.content ?? ''),
        );
        value = parsed.success ? parsed.data : null;
      } catch {
        value = null;
      }
      return {
        value,
        usage: {
          tokensIn: completion.usage?.prompt_tokens ?? 0,
          tokensOut: completion.usage?.completion_tokens ?? 0,
        },
      };
    },
  );
  return answer.facts.map((f) => f.trim()).filter(Boolean);
}

/**
 * Stores an upload of the caller: size first (413), then the type from its bytes (422); a
 * document's facts are drawn before anything is stored, so a failed model call stores nothing.
 */
export async function createAssistantUpload(
  ctx: AuthedContext,
  options: CreateUploadOptions,
): Promise<UploadView> {
  await ensureAssistantConsent(ctx);
  const userId = ctx.principal.userId;
  const data = new Uint8Array(Buffer.from(options.data, 'base64'));
  if (data.length > UPLOAD_MAX_BYTES)
    throw appError('PAYLOAD_TOO_LARGE', `The file is larger than ${UPLOAD_MAX_BYTES} bytes`);
  const { type, text } = await checkedType(data, options.contentType);
  if ((await ctx.prisma.assistantUpload.count({ where: { userId } })) >= UPLOADS_MAX) {
    throw appError('CONFLICT', `At most ${UPLOADS_MAX} uploads: delete one first`, {
      detail: { code: 'uploads_full', limit: UPLOADS_MAX },
    });
  }
  const fileName = options.fileName.trim();
  let facts: string[] = [];
  if (text !== null) {
    availableModel(ctx);
    facts = await drawFacts(ctx, fileName, text);
  }
  const key = newStorageKey(
    ASSISTANT_UPLOAD_FOLDER,
    type === TEXT_TYPE ? 'txt' : PHOTO_TYPES[type],
  );
  await ctx.storage.put(key, data, { contentType: type });
  try {
    const row = await ctx.prisma.assistantUpload.create({
      data: {
        userId,
        fileName,
        contentType: type,
        sizeBytes: data.length,
        storageKey: key,
        facts: { create: facts.map((f) => ({ userId, source: 'document', text: f })) },
      },
      select,
    });
    return viewOf(row);
  } catch (error) {
    await ctx.storage.delete(key);
    throw error;
  }
}

/** The caller's uploads, newest first. */
export async function assistantUploads(ctx: AuthedContext): Promise<UploadView[]> {
  const rows = await ctx.prisma.assistantUpload.findMany({
    where: { userId: ctx.principal.userId },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: UPLOADS_MAX,
    select,
  });
  return rows.map(viewOf);
}

/** Deletes an upload of the caller, its stored file and the facts drawn from it. */
export async function deleteAssistantUpload(
  ctx: AuthedContext,
  options: { id: string },
): Promise<{ deleted: number }> {
  const where = { id: options.id, userId: ctx.principal.userId };
  const row = isId(options.id)
    ? await ctx.prisma.assistantUpload.findFirst({ where, select: { storageKey: true } })
    : null;
  if (!row) throw appError('NOT_FOUND', 'No such upload');
  const { count } = await ctx.prisma.assistantUpload.deleteMany({ where });
  await ctx.storage.delete(row.storageKey);
  return { deleted: count };
}

async function bytesOf(ctx: AuthedContext, key: string): Promise<Buffer> {
  const file = await ctx.storage.get(key);
  if (!file) throw appError('NOT_FOUND', 'The uploaded file is gone');
  const chunks: Buffer[] = [];
  for await (const chunk of file.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** The caller's uploads `ids` for the model: images as data: URLs, documents as text. */
export async function uploadsForModel(
  ctx: AuthedContext,
  ids: readonly string[],
): Promise<{ images: string[]; texts: string[] }> {
  const unique = [...new Set(ids)];
  if (!unique.length) return { images: [], texts: [] };
  const rows = unique.every(isId)
    ? await ctx.prisma.assistantUpload.findMany({
        // NOTE: ownership
        where: { id: { in: unique }, userId: ctx.principal.userId },
        select: { id: true, fileName: true, contentType: true, storageKey: true },
      })
    : [];
  if (rows.length !== unique.length) throw appError('NOT_FOUND', 'No such upload');
  const images: string[] = [];
  const texts: string[] = [];
  for (const row of rows) {
    const bytes = await bytesOf(ctx, row.storageKey);
    if (row.contentType === TEXT_TYPE) {
      const text = bytes.toString('utf8').slice(0, DOCUMENT_CHARS_FOR_MODEL);
      texts.push(`Document "${row.fileName}":\n${text}`);
    } else images.push(`data:${row.contentType};base64,${bytes.toString('base64')}`);
  }
  return { images, texts };
}
