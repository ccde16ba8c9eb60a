/**
 * A reply of the assistant: the person's message, the conversation so far, their memory facts in
 * the instructions, their attached uploads, and a bounded loop of model rounds in which the model
 * may call the read operations of assistant.catalogue.ts (at most MAX_TOOL_ROUNDS rounds with
 * tools, then one without). Every round is one guarded model call (daily cap, USD budget, one
 * ledger row; src/domains/ai). The answer names its sources: every operation it ran and whether
 * it gave data.
 *
 * It must never read data with more than the caller's credential (the catalogue runs operations
 * with the caller's context), never loop unbounded, and never store a reply the model did not give
 * (a failed round stores nothing).
 */
import type { GraphQLSchema } from 'graphql';
import type {
  ChatCompletion,
  ChatCompletionContentPart,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { checkedCompletion, createCompletion } from '../../integrations/openai.ts';
import { AI_FEATURES, availableModel, guardedCall, worstCaseUsd } from '../ai/index.ts';
import type { CallResult } from '../ai/index.ts';
import { readTools, runReadTool } from './assistant.catalogue.ts';
import type { ToolRun } from './assistant.catalogue.ts';
import { factsForInstructions } from './assistant.memory.ts';
import {
  CONVERSATION_MESSAGES_MAX,
  ensureAssistantConsent,
  messageSelect,
  messageView,
  ownedConversation,
} from './assistant.service.ts';
import type { AnswerSource, MessageView } from './assistant.service.ts';
import { uploadsForModel } from './assistant.uploads.ts';
import { clock } from '../../base/clock.ts';

/** Model rounds that may call tools; the round after them must answer in words. */
export const MAX_TOOL_ROUNDS = 4;
/** Tool calls run per round (more are answered with an error). */
export const TOOL_CALLS_PER_ROUND = 4;
/** Longest message of the person. */
export const MESSAGE_MAX_CHARS = 4_000;
/** Earlier messages of the conversation sent with a reply. */
export const HISTORY_MESSAGES = 20;
/** Uploads one reply may attach. */
export const REPLY_UPLOADS_MAX = 4;

const INSTRUCTIONS = [
  'You are the health assistant of one person, answering from their own health-platform data.',
  'Read their data with the tools (each runs a read of the platform with their permission); a tool',
  'that answers an error (e.g. INSUFFICIENT_SCOPE) gave you no data: say so, and never guess the data.',
  'Be brief and concrete; you are not a doctor: for anything urgent, tell the person to seek care.',
].join(' ');

export interface ReplyOptions {
  /** the caller's conversation */
  conversationId: string;
  /** the person's message */
  message: string;
  /** the caller's uploads to attach (images are shown to the model, documents as text) */
  uploadIds?: readonly string[] | null;
  /** the schema the read operations run on (the resolver's) */
  schema: GraphQLSchema;
  /** called with each piece of the answer's text as the model streams it (the reply stream) */
  onText?: (text: string) => void;
}

export interface ReplyView {
  conversationId: string;
  /** the person's message, as stored */
  question: MessageView;
  /** the assistant's answer, with its sources */
  answer: MessageView;
}

interface Round {
  content: string;
  toolCalls: ChatCompletionMessageFunctionToolCall[];
}

function roundOf(completion: ChatCompletion): CallResult<Round> {
  const message = completion.choices[0]?.message;
  const toolCalls = (message?.tool_calls ?? []).filter(
    (c): c is ChatCompletionMessageFunctionToolCall => c.type === 'function',
  );
  const content = message?.content ?? '';
  return {
    value: message && (content || toolCalls.length) ? { content, toolCalls } : null,
    usage: {
      tokensIn: completion.usage?.prompt_tokens ?? 0,
      tokensOut: completion.usage?.completion_tokens ?? 0,
    },
  };
}

/** One model round through guardedCall (cap, budget, ledger row). */
async function modelRound(
  ctx: AuthedContext,
  messages: ChatCompletionMessageParam[],
  tools: ChatCompletionTool[],
  images: number,
  onText: ((text: string) => void) | undefined,
): Promise<Round> {
  const { maxOutputTokens } = AI_FEATURES.assistant;
  const model = AI_FEATURES.assistant.model(ctx.config);
  const texts = [JSON.stringify(messages), tools.length ? JSON.stringify(tools) : ''];
  const worst = worstCaseUsd(ctx, model, { texts, images, maxOutputTokens });
  return guardedCall(ctx, { feature: 'assistant', worstCaseUsd: worst }, async (client) => {
    const body = {
      model,
      messages,
      ...(tools.length ? { tools } : {}),
      max_completion_tokens: maxOutputTokens,
    };
    if (!onText) return roundOf(await createCompletion(client, body, ctx.log));
    const stream = client.chat.completions.stream({
      ...body,
      stream: true,
      stream_options: { include_usage: true },
    });
    stream.on('content', (delta) => {
      if (delta) onText(delta);
    });
    return roundOf(checkedCompletion(await stream.finalChatCompletion(), ctx.log));
  });
}

/** The earlier messages of the conversation, oldest first (the last HISTORY_MESSAGES). */
async function history(
  ctx: AuthedContext,
  conversationId: string,
): Promise<ChatCompletionMessageParam[]> {
  const rows = await ctx.prisma.assistantMessage.findMany({
    where: { conversationId, userId: ctx.principal.userId },
    orderBy: [{ createdAt: 'desc' }, { role: 'asc' }],
    take: HISTORY_MESSAGES,
    select: { role: true, content: true },
  });
  return rows
    .reverse()
    .map((r) =>
      r.role === 'assistant'
        ? { role: 'assistant' as const, content: r.content }
        : { role: 'user' as const, content: r.content },
    );
}

/** A conversation has room for a question and its answer, else CONFLICT conversation_full. */
async function ensureRoom(ctx: AuthedContext, conversationId: string): Promise<void> {
  const count = await ctx.prisma.assistantMessage.count({
    where: { conversationId, userId: ctx.principal.userId },
  });
  if (count + 2 > CONVERSATION_MESSAGES_MAX) {
    throw appError(
      'CONFLICT',
      `A conversation holds at most ${CONVERSATION_MESSAGES_MAX} messages: start a new one`,
      {
        detail: { code: 'conversation_full', limit: CONVERSATION_MESSAGES_MAX },
      },
    );
  }
}

/** What the model is sent: the instructions with what it remembers, the history, the new message. */
async function promptOf(
  ctx: AuthedContext,
  conversationId: string,
  options: ReplyOptions,
  attached: Awaited<ReturnType<typeof uploadsForModel>>,
): Promise<ChatCompletionMessageParam[]> {
  const facts = await factsForInstructions(ctx);
  const system = facts.length
    ? `${INSTRUCTIONS}\n\nWhat you remember about the person:\n${facts.join('\n')}`
    : INSTRUCTIONS;
  const userContent: ChatCompletionContentPart[] = [
    { type: 'text', text: options.message },
    ...attached.texts.map((text) => ({ type: 'text' as const, text })),
    ...attached.images.map((url) => ({
      type: 'image_url' as const,
      image_url: { url, detail: 'auto' as const },
    })),
  ];
  return [
    { role: 'system', content: system },
    ...(await history(ctx, conversationId)),
    {
      role: 'user',
      content: userContent.length === 1 ? options.message : userContent,
    },
  ];
}

/** One tool call of a round: run (a read operation), or refused past TOOL_CALLS_PER_ROUND. */
async function runToolCall(
  ctx: AuthedContext,
  options: ReplyOptions,
  call: { function: { name: string; arguments: string } },
  index: number,
): Promise<ToolRun> {
  if (index < TOOL_CALLS_PER_ROUND)
    return runReadTool(ctx, options.schema, call.function.name, call.function.arguments);
  return {
    ok: false,
    content: JSON.stringify({
      error: { code: 'RATE_LIMITED', message: `At most ${TOOL_CALLS_PER_ROUND} calls per round` },
    }),
    error: 'RATE_LIMITED',
  };
}

/**
 * The model's rounds: each may call read tools (their answers go back to it) until it answers in
 * text, or MAX_TOOL_ROUNDS pass (the last round offers no tools). Answers the text and the sources.
 */
async function converse(
  ctx: AuthedContext,
  options: ReplyOptions,
  messages: ChatCompletionMessageParam[],
  images: number,
): Promise<{ answer: string; sources: AnswerSource[] }> {
  const tools: ChatCompletionTool[] = [...readTools(options.schema).values()].map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const sources: AnswerSource[] = [];
  for (let round = 0; ; round++) {
    const last = round >= MAX_TOOL_ROUNDS;
    const result = await modelRound(ctx, messages, last ? [] : tools, images, options.onText);
    if (last || !result.toolCalls.length) return { answer: result.content, sources };
    messages.push({
      role: 'assistant',
      content: result.content || null,
      tool_calls: result.toolCalls,
    });
    for (const [i, call] of result.toolCalls.entries()) {
      const run = await runToolCall(ctx, options, call, i);
      messages.push({ role: 'tool', tool_call_id: call.id, content: run.content });
      sources.push({
        operation: call.function.name.slice(0, 64),
        arguments: call.function.arguments.slice(0, 500),
        ok: run.ok,
        error: run.error,
      });
    }
  }
}

/** Stores the question and its answer (with the sources) in one transaction. */
async function storeExchange(
  ctx: AuthedContext,
  conversationId: string,
  question: string,
  reply: { answer: string; sources: AnswerSource[] },
): Promise<ReplyView> {
  const userId = ctx.principal.userId;
  const now = clock.ms();
  const [asked, answered] = await ctx.prisma.$transaction([
    ctx.prisma.assistantMessage.create({
      data: {
        conversationId,
        userId,
        role: 'user',
        content: question,
        createdAt: new Date(now),
      },
      select: messageSelect,
    }),
    ctx.prisma.assistantMessage.create({
      data: {
        conversationId,
        userId,
        role: 'assistant',
        content: reply.answer,
        sources: reply.sources as unknown as object[],
        createdAt: new Date(now + 1),
      },
      select: messageSelect,
    }),
    ctx.prisma.assistantConversation.updateMany({
      where: { id: conversationId, userId },
      data: { updatedAt: new Date(now + 1) },
    }),
  ]);
  return {
    conversationId,
    question: messageView(asked),
    answer: messageView(answered),
  };
}

/** Answers the person's message in their conversation (see the module comment). */
export async function replyAssistantConversation(
  ctx: AuthedContext,
  options: ReplyOptions,
): Promise<ReplyView> {
  availableModel(ctx);
  await ensureAssistantConsent(ctx);
  const conversation = await ownedConversation(ctx, options.conversationId);
  await ensureRoom(ctx, conversation.id);
  const attached = await uploadsForModel(ctx, options.uploadIds ?? []);
  const messages = await promptOf(ctx, conversation.id, options, attached);
  const reply = await converse(ctx, options, messages, attached.images.length);
  if (!reply.answer) {
    throw appError('UPSTREAM_FAILED', 'The AI model gave no answer; try again', { retryAfter: 5 });
  }
  return storeExchange(ctx, conversation.id, options.message, reply);
}
