/**
 * The assistant's memory: facts the person sets or confirms (by key, `memory_fact_set`), and facts
 * drawn from the documents they upload (assistant.uploads.ts). Both are given to the model in the
 * assistant's instructions (factsForInstructions). NOTE: every query names the caller.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { isId } from './assistant.service.ts';

/** Facts the person may set (by key); setting another key beyond answers CONFLICT. */
export const PERSON_FACTS_MAX = 100;
/** Facts one document may give, and facts from documents the instructions carry. */
export const DOCUMENT_FACTS_PER_UPLOAD = 20;
export const DOCUMENT_FACTS_IN_INSTRUCTIONS = 200;
export const FACT_KEY_MAX = 60;
export const FACT_TEXT_MAX = 500;

export interface MemoryFactView {
  id: string;
  /** person or document */
  source: string;
  key: string | null;
  text: string;
  /** the upload a document fact was drawn from */
  uploadId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const select = {
  id: true,
  source: true,
  key: true,
  text: true,
  uploadId: true,
  createdAt: true,
  updatedAt: true,
} as const;

export interface SetFactOptions {
  /** the person's name for the fact, e.g. diet (setting a key again replaces its text) */
  key: string;
  /** the fact, in the person's words */
  text: string;
}

/** Sets (or confirms, by setting it again) a fact of the caller under `key`. */
export async function setMemoryFact(
  ctx: AuthedContext,
  options: SetFactOptions,
): Promise<MemoryFactView> {
  const userId = ctx.principal.userId;
  const key = options.key.trim().toLowerCase();
  const text = options.text.trim();
  const exists = await ctx.prisma.memoryFact.findUnique({
    where: { userId_key: { userId, key } },
    select: { id: true },
  });
  if (!exists) {
    const count = await ctx.prisma.memoryFact.count({ where: { userId, source: 'person' } });
    if (count >= PERSON_FACTS_MAX) {
      throw appError('CONFLICT', `At most ${PERSON_FACTS_MAX} facts: forget one first`, {
        detail: { code: 'memory_full', limit: PERSON_FACTS_MAX },
      });
    }
  }
  return ctx.prisma.memoryFact.upsert({
    where: { userId_key: { userId, key } },
    create: { userId, key, text, source: 'person' },
    update: { text },
    select,
  });
}

/** The facts the caller set, by key. */
export function memoryFacts(ctx: AuthedContext): Promise<MemoryFactView[]> {
  return ctx.prisma.memoryFact.findMany({
    where: { userId: ctx.principal.userId, source: 'person' },
    orderBy: { key: 'asc' },
    take: PERSON_FACTS_MAX,
    select,
  });
}

/** Forgets the caller's fact `key` (NOT_FOUND when there is none). */
export async function forgetMemoryFact(
  ctx: AuthedContext,
  options: { key: string },
): Promise<{ deleted: number }> {
  const { count } = await ctx.prisma.memoryFact.deleteMany({
    where: {
      userId: ctx.principal.userId,
      source: 'person',
      key: options.key.trim().toLowerCase(),
    },
  });
  if (!count) throw appError('NOT_FOUND', 'No such fact');
  return { deleted: count };
}

/** Facts drawn from the caller's documents, newest first (of one upload when `uploadId` is set). */
export function memoryDocumentFacts(
  ctx: AuthedContext,
  options: { uploadId?: string | null },
): Promise<MemoryFactView[]> {
  if (options.uploadId && !isId(options.uploadId)) return Promise.resolve([]);
  return ctx.prisma.memoryFact.findMany({
    where: {
      userId: ctx.principal.userId,
      source: 'document',
      ...(options.uploadId ? { uploadId: options.uploadId } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    take: DOCUMENT_FACTS_IN_INSTRUCTIONS,
    select,
  });
}

/** Deletes one fact drawn from a document of the caller. */
export async function deleteMemoryDocumentFact(
  ctx: AuthedContext,
  options: { id: string },
): Promise<{ deleted: number }> {
  const { count } = isId(options.id)
    ? await ctx.prisma.memoryFact.deleteMany({
        // NOTE: ownership
        where: { id: options.id, userId: ctx.principal.userId, source: 'document' },
      })
    : { count: 0 };
  if (!count) throw appError('NOT_FOUND', 'No such fact');
  return { deleted: count };
}

/** Every fact of the caller as lines for the instructions (person's first). */
export async function factsForInstructions(ctx: AuthedContext): Promise<string[]> {
  const [own, drawn] = await Promise.all([memoryFacts(ctx), memoryDocumentFacts(ctx, {})]);
  return [
    ...own.map((f) => `- ${f.key}: ${f.text} (set by the person)`),
    ...drawn.map((f) => `- ${f.text} (from an uploaded document)`),
  ];
}
