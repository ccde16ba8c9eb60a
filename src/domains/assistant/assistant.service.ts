/**
 * The assistant's conversations (issue 14): start, list (keyset pages), read, delete, feedback on
 * an answer, and the assistant consent (the consents domain's kind `assistant`: given by the person
 * in the app, read and withdrawn here). Replies are in assistant.reply.ts, uploads in
 * assistant.uploads.ts, memory facts in assistant.memory.ts.
 *
 * NOTE: every query names the caller (`userId: ctx.principal.userId`); another person's id answers
 * NOT_FOUND, exactly like an id that does not exist.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { hasConsent, consents, withdrawConsent } from '../consents/index.ts';
import type { ConsentView } from '../consents/index.ts';

/** Messages one conversation may hold (both sides); a reply beyond answers CONFLICT. */
export const CONVERSATION_MESSAGES_MAX = 200;
/** Conversations per page (default and most). */
export const CONVERSATION_PAGE_DEFAULT = 20;
export const CONVERSATION_PAGE_MAX = 50;
/** Longest title; a conversation without one is named from its start. */
export const TITLE_MAX = 200;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can be a row id at all (anything else is simply not found). */
export const isId = (id: string): boolean => UUID.test(id);

/** One source of an answer: a read operation the assistant ran, and whether it gave data. */
export interface AnswerSource {
  operation: string;
  /** the arguments it ran with (as the model sent them) */
  arguments: string;
  ok: boolean;
  /** the error code when it was refused (e.g. INSUFFICIENT_SCOPE) */
  error: string | null;
}

export interface MessageView {
  id: string;
  conversationId: string;
  role: string;
  content: string;
  sources: AnswerSource[];
  feedback: string | null;
  feedbackComment: string | null;
  createdAt: Date;
}

export interface ConversationView {
  id: string;
  title: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConversationWithMessages extends ConversationView {
  messages: MessageView[];
}

export interface ConversationPage {
  items: ConversationView[];
  nextCursor: string | null;
}

const conversationSelect = { id: true, title: true, createdAt: true, updatedAt: true } as const;

type MessageRow = Omit<MessageView, 'sources'> & { sources: Prisma.JsonValue };

export const messageSelect = {
  id: true,
  conversationId: true,
  role: true,
  content: true,
  sources: true,
  feedback: true,
  feedbackComment: true,
  createdAt: true,
} as const;

/** A stored message as answered (sources always a list). */
export function messageView(row: MessageRow): MessageView {
  return {
    ...row,
    sources: Array.isArray(row.sources) ? (row.sources as unknown as AnswerSource[]) : [],
  };
}

/** 403 `needs_consent` unless the person gave the assistant consent (and has not withdrawn it). */
export async function ensureAssistantConsent(ctx: AuthedContext): Promise<void> {
  if (await hasConsent(ctx, ctx.principal.userId, 'assistant')) return;
  throw appError('FORBIDDEN', 'Assistant consent needed: the person gives it in the app', {
    detail: {
      code: 'needs_consent',
      kind: 'assistant',
      message:
        'The person has not consented to the assistant (their messages, uploads, memory facts and ' +
        'the data it reads are sent to an AI model). They give it in the app ' +
        '(POST /api/v1/consents/assistant); then retry.',
    },
  });
}

/** The caller's conversation `id` (NOT_FOUND when it is not theirs). */
export async function ownedConversation(ctx: AuthedContext, id: string): Promise<ConversationView> {
  const row = isId(id)
    ? await ctx.prisma.assistantConversation.findFirst({
        // NOTE: ownership: the caller's rows only
        where: { id, userId: ctx.principal.userId },
        select: conversationSelect,
      })
    : null;
  if (!row) throw appError('NOT_FOUND', 'No such conversation');
  return row;
}

export interface StartConversationOptions {
  /** the conversation's title (default "New conversation") */
  title?: string | null;
}

/** Starts a conversation of the caller (the assistant consent is needed). */
export async function startAssistantConversation(
  ctx: AuthedContext,
  options: StartConversationOptions,
): Promise<ConversationView> {
  await ensureAssistantConsent(ctx);
  return ctx.prisma.assistantConversation.create({
    data: { userId: ctx.principal.userId, title: options.title?.trim() || 'New conversation' },
    select: conversationSelect,
  });
}

export interface ListConversationsOptions {
  /** conversations per page (1..CONVERSATION_PAGE_MAX) */
  limit: number;
  /** next_cursor of the previous page (the last conversation's id) */
  cursor?: string | null;
}

/** The caller's conversations, newest first, one keyset page. */
export async function assistantConversations(
  ctx: AuthedContext,
  options: ListConversationsOptions,
): Promise<ConversationPage> {
  const userId = ctx.principal.userId;
  let after: Prisma.AssistantConversationWhereInput = {};
  if (options.cursor) {
    const last = await ownedConversation(ctx, options.cursor).catch(() => {
      throw appError('VALIDATION_FAILED', 'cursor: not a next_cursor of this list', {
        detail: [{ loc: ['cursor'], msg: 'not a next_cursor of this list', type: 'value_error' }],
      });
    });
    after = {
      OR: [
        { createdAt: { lt: last.createdAt } },
        { createdAt: last.createdAt, id: { lt: last.id } },
      ],
    };
  }
  const rows = await ctx.prisma.assistantConversation.findMany({
    where: { userId, ...after },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit + 1,
    select: conversationSelect,
  });
  const items = rows.slice(0, options.limit);
  return { items, nextCursor: rows.length > options.limit ? items[items.length - 1].id : null };
}

/** One conversation of the caller with its messages, oldest first. */
export async function assistantConversation(
  ctx: AuthedContext,
  options: { id: string },
): Promise<ConversationWithMessages> {
  const conversation = await ownedConversation(ctx, options.id);
  const messages = await ctx.prisma.assistantMessage.findMany({
    where: { conversationId: conversation.id, userId: ctx.principal.userId },
    orderBy: [{ createdAt: 'asc' }, { role: 'desc' }],
    take: CONVERSATION_MESSAGES_MAX,
    select: messageSelect,
  });
  return { ...conversation, messages: messages.map(messageView) };
}

/** Deletes a conversation of the caller and its messages. */
export async function deleteAssistantConversation(
  ctx: AuthedContext,
  options: { id: string },
): Promise<{ deleted: number }> {
  const conversation = await ownedConversation(ctx, options.id);
  const { count } = await ctx.prisma.assistantConversation.deleteMany({
    where: { id: conversation.id, userId: ctx.principal.userId },
  });
  return { deleted: count };
}

export interface FeedbackOptions {
  /** the assistant answer rated */
  messageId: string;
  /** up or down */
  rating: 'up' | 'down';
  /** why, in the person's words (optional; null clears it) */
  comment?: string | null;
}

/** Rates an answer of the assistant (setting it again replaces the rating). */
export async function rateAssistantAnswer(
  ctx: AuthedContext,
  options: FeedbackOptions,
): Promise<MessageView> {
  const where = {
    id: options.messageId,
    userId: ctx.principal.userId,
    role: 'assistant',
  };
  const { count } = isId(options.messageId)
    ? await ctx.prisma.assistantMessage.updateMany({
        // NOTE: ownership, and only answers of the assistant can be rated
        where,
        data: { feedback: options.rating, feedbackComment: options.comment?.trim() || null },
      })
    : { count: 0 };
  if (!count) throw appError('NOT_FOUND', 'No such answer');
  const row = await ctx.prisma.assistantMessage.findFirstOrThrow({ where, select: messageSelect });
  return messageView(row);
}

/** The caller's assistant consent. */
export async function assistantConsent(ctx: AuthedContext): Promise<ConsentView> {
  const all = await consents(ctx);
  return all.find((c) => c.kind === 'assistant')!;
}

/** Withdraws the caller's assistant consent (replies and uploads are refused until it is given again). */
export function withdrawAssistantConsent(ctx: AuthedContext): Promise<ConsentView> {
  return withdrawConsent(ctx, { kind: 'assistant' });
}
