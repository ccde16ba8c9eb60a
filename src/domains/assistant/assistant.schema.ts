/**
 * The assistant (scope assistant:chat) and its memory (memory:read, memory:write) on the graph:
 * conversations, replies with the read operations they used, feedback, uploads, the assistant
 * consent, facts the person sets and facts drawn from documents.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { progressReporter } from '../../platform/progress.ts';
import { Consent } from '../consents/index.ts';
import {
  deleteMemoryDocumentFact,
  FACT_KEY_MAX,
  FACT_TEXT_MAX,
  forgetMemoryFact,
  memoryDocumentFacts,
  memoryFacts,
  setMemoryFact,
} from './assistant.memory.ts';
import type { MemoryFactView } from './assistant.memory.ts';
import {
  MESSAGE_MAX_CHARS,
  replyAssistantConversation,
  REPLY_UPLOADS_MAX,
} from './assistant.reply.ts';
import type { ReplyView } from './assistant.reply.ts';
import {
  CONVERSATION_PAGE_DEFAULT,
  CONVERSATION_PAGE_MAX,
  deleteAssistantConversation,
  assistantConversations,
  rateAssistantAnswer,
  assistantConsent,
  assistantConversation,
  startAssistantConversation,
  TITLE_MAX,
  withdrawAssistantConsent,
} from './assistant.service.ts';
import type {
  AnswerSource,
  ConversationPage,
  ConversationView,
  ConversationWithMessages,
  MessageView,
} from './assistant.service.ts';
import {
  createAssistantUpload,
  deleteAssistantUpload,
  FILE_NAME_MAX,
  assistantUploads,
  UPLOAD_MAX_BYTES,
} from './assistant.uploads.ts';
import type { UploadView } from './assistant.uploads.ts';

const id = z.uuid({ message: 'Input should be a valid UUID' });
const text = (max: number) => z.string().trim().min(1).max(max);

const Deleted = builder.objectRef<{ deleted: number }>('AssistantDeleted').implement({
  description: 'How many entries a delete removed',
  fields: (t) => ({ deleted: t.exposeInt('deleted', { description: 'entries deleted' }) }),
});

const AssistantSource = builder.objectRef<AnswerSource>('AssistantSource').implement({
  description: 'A read of the person’s data an answer used',
  fields: (t) => ({
    operation: t.exposeString('operation', { description: 'the read operation it ran' }),
    arguments: t.exposeString('arguments', { description: 'its arguments, as JSON' }),
    ok: t.exposeBoolean('ok', { description: 'true when it gave data' }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'the error code when it was refused (e.g. INSUFFICIENT_SCOPE)',
    }),
  }),
});

const AssistantMessage = builder.objectRef<MessageView>('AssistantMessage').implement({
  description: 'A message of a conversation: the person’s or the assistant’s answer',
  fields: (t) => ({
    id: t.exposeString('id'),
    conversationId: t.exposeString('conversationId'),
    role: t.exposeString('role', { description: 'user or assistant' }),
    content: t.exposeString('content'),
    sources: t.expose('sources', {
      type: [AssistantSource],
      description: 'the reads of the person’s data the answer used (answers only)',
    }),
    feedback: t.exposeString('feedback', { nullable: true, description: 'up or down' }),
    feedbackComment: t.exposeString('feedbackComment', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AssistantConversation = builder
  .objectRef<ConversationView>('AssistantConversation')
  .implement({
    description: 'A conversation of the person with the assistant',
    fields: (t) => ({
      id: t.exposeString('id'),
      title: t.exposeString('title'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    }),
  });

const AssistantConversationThread = builder
  .objectRef<ConversationWithMessages>('AssistantConversationThread')
  .implement({
    description: 'A conversation with its messages, oldest first',
    fields: (t) => ({
      id: t.exposeString('id'),
      title: t.exposeString('title'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      messages: t.expose('messages', { type: [AssistantMessage] }),
    }),
  });

const AssistantConversationPage = builder
  .objectRef<ConversationPage>('AssistantConversationPage')
  .implement({
    description: 'One page of conversations, newest first, and the cursor of the next page',
    fields: (t) => ({
      items: t.expose('items', { type: [AssistantConversation] }),
      nextCursor: t.exposeString('nextCursor', { nullable: true }),
    }),
  });

const AssistantReply = builder.objectRef<ReplyView>('AssistantReply').implement({
  description: 'The person’s message and the assistant’s answer (with its sources)',
  fields: (t) => ({
    conversationId: t.exposeString('conversationId'),
    question: t.expose('question', { type: AssistantMessage }),
    answer: t.expose('answer', { type: AssistantMessage }),
  }),
});

const AssistantUpload = builder.objectRef<UploadView>('AssistantUpload').implement({
  description: 'A file the person gave the assistant',
  fields: (t) => ({
    id: t.exposeString('id'),
    fileName: t.exposeString('fileName'),
    contentType: t.exposeString('contentType', { description: 'as checked from its bytes' }),
    sizeBytes: t.exposeInt('sizeBytes'),
    factCount: t.exposeInt('factCount', { description: 'memory facts drawn from it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const MemoryFact = builder.objectRef<MemoryFactView>('MemoryFact').implement({
  description: 'A fact the assistant remembers about the person',
  fields: (t) => ({
    id: t.exposeString('id'),
    source: t.exposeString('source', { description: 'person (set by them) or document' }),
    key: t.exposeString('key', { nullable: true, description: 'the person’s name for it' }),
    text: t.exposeString('text'),
    uploadId: t.exposeString('uploadId', {
      nullable: true,
      description: 'the upload it was drawn from',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const StartAssistantConversationInput = builder.inputType('StartAssistantConversationInput', {
  fields: (t) => ({
    title: t.string({ description: `a title (at most ${TITLE_MAX} characters)` }),
  }),
  validate: z.object({ title: text(TITLE_MAX).nullish() }),
});

const ReplyAssistantConversationInput = builder.inputType('ReplyAssistantConversationInput', {
  fields: (t) => ({
    conversationId: t.string({ required: true, description: 'the conversation' }),
    message: t.string({
      required: true,
      description: 'the person’s message',
    }),
    uploadIds: t.stringList({
      description: 'uploads to show the assistant',
    }),
  }),
  validate: z.object({
    conversationId: id,
    message: text(MESSAGE_MAX_CHARS),
    uploadIds: z.array(id).max(REPLY_UPLOADS_MAX).nullish(),
  }),
});

const RateAssistantAnswerInput = builder.inputType('RateAssistantAnswerInput', {
  fields: (t) => ({
    messageId: t.string({ required: true, description: 'the answer (an assistant message)' }),
    rating: t.string({ required: true, description: 'up or down' }),
    comment: t.string({ description: 'why, in the person’s words (at most 1000 characters)' }),
  }),
  validate: z.object({
    messageId: id,
    rating: z.enum(['up', 'down']),
    comment: text(1000).nullish(),
  }),
});

const CreateAssistantUploadInput = builder.inputType('CreateAssistantUploadInput', {
  fields: (t) => ({
    fileName: t.string({ required: true, description: 'the file’s name' }),
    contentType: t.string({
      required: true,
      description: 'image/jpeg, image/png, image/webp, image/heic or text/plain',
    }),
    data: t.string({
      required: true,
      description: `the file, base64-encoded (at most ${UPLOAD_MAX_BYTES} bytes)`,
    }),
  }),
  validate: z.object({
    fileName: text(FILE_NAME_MAX),
    contentType: text(100),
    data: z
      .base64({ message: 'data must be base64' })
      .max(Math.ceil(UPLOAD_MAX_BYTES / 3) * 4 + 4, { message: 'The file is too large' }),
  }),
});

const SetMemoryFactInput = builder.inputType('SetMemoryFactInput', {
  fields: (t) => ({
    key: t.string({ required: true, description: 'a short name for the fact, e.g. diet' }),
    text: t.string({ required: true, description: 'the fact, in the person’s words' }),
  }),
  validate: z.object({
    key: z
      .string()
      .trim()
      .min(1)
      .max(FACT_KEY_MAX)
      .regex(/^[A-Za-z0-9_ -]+$/, { message: 'letters, digits, space, _ or - only' }),
    text: text(FACT_TEXT_MAX),
  }),
});

builder.queryFields((t) => ({
  assistantConversations: t.withAuth({ scope: 'assistant:chat' }).field({
    type: AssistantConversationPage,
    description: 'One page of the caller’s conversations with the assistant, newest first',
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: CONVERSATION_PAGE_DEFAULT,
        description: `conversations per page (1..${CONVERSATION_PAGE_MAX})`,
        validate: z.number().int().min(1).max(CONVERSATION_PAGE_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page',
        validate: z.string().min(1).max(100).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => assistantConversations(ctx, args),
  }),
  assistantConversation: t.withAuth({ scope: 'assistant:chat' }).field({
    type: AssistantConversationThread,
    description: 'One conversation of the caller with its messages',
    args: { id: t.arg.string({ required: true, description: 'the conversation', validate: id }) },
    resolve: (_root, args, ctx) => assistantConversation(ctx, args),
  }),
  assistantUploads: t.withAuth({ scope: 'assistant:chat' }).field({
    type: [AssistantUpload],
    description: 'The files the caller gave the assistant, newest first',
    resolve: (_root, _args, ctx) => assistantUploads(ctx),
  }),
  memoryFacts: t.withAuth({ scope: 'memory:read' }).field({
    type: [MemoryFact],
    description: 'The facts the caller set for the assistant to remember, by key',
    resolve: (_root, _args, ctx) => memoryFacts(ctx),
  }),
  memoryDocumentFacts: t.withAuth({ scope: 'memory:read' }).field({
    type: [MemoryFact],
    description: 'The facts drawn from the caller’s uploaded documents, newest first',
    args: {
      uploadId: t.arg.string({ description: 'only those of this upload', validate: id.nullish() }),
    },
    resolve: (_root, args, ctx) => memoryDocumentFacts(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  startAssistantConversation: t.withAuth({ scope: 'assistant:chat' }).field({
    type: AssistantConversation,
    description:
      'Starts a conversation of the caller with the assistant (needs the assistant consent)',
    args: { input: t.arg({ type: StartAssistantConversationInput, required: true }) },
    resolve: (_root, { input }, ctx) => startAssistantConversation(ctx, input),
  }),
  replyAssistantConversation: t.withAuth({ scope: 'assistant:chat' }).field({
    type: AssistantReply,
    description:
      'The assistant’s answer to the caller’s message, from their own data (a streaming door gets its text as it is written)',
    args: { input: t.arg({ type: ReplyAssistantConversationInput, required: true }) },
    resolve: (_root, { input }, ctx, info) =>
      replyAssistantConversation(ctx, {
        ...input,
        schema: info.schema,
        onText: progressReporter(),
      }),
  }),
  deleteAssistantConversation: t.withAuth({ scope: 'assistant:chat' }).field({
    type: Deleted,
    description: 'Deletes a conversation of the caller and its messages',
    args: { id: t.arg.string({ required: true, description: 'the conversation', validate: id }) },
    resolve: (_root, args, ctx) => deleteAssistantConversation(ctx, args),
  }),
  rateAssistantAnswer: t.withAuth({ scope: 'assistant:chat' }).field({
    type: AssistantMessage,
    description: 'Rates an answer of the assistant up or down, with an optional comment',
    args: { input: t.arg({ type: RateAssistantAnswerInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      rateAssistantAnswer(ctx, { ...input, rating: input.rating as 'up' | 'down' }),
  }),
  createAssistantUpload: t.withAuth({ scope: 'assistant:chat' }).field({
    type: AssistantUpload,
    description: 'Gives the assistant a file (an image or a plain-text document)',
    args: { input: t.arg({ type: CreateAssistantUploadInput, required: true }) },
    resolve: (_root, { input }, ctx) => createAssistantUpload(ctx, input),
  }),
  deleteAssistantUpload: t.withAuth({ scope: 'assistant:chat' }).field({
    type: Deleted,
    description: 'Deletes a file the caller gave the assistant and the facts drawn from it',
    args: { id: t.arg.string({ required: true, description: 'the upload', validate: id }) },
    resolve: (_root, args, ctx) => deleteAssistantUpload(ctx, args),
  }),
  setMemoryFact: t.withAuth({ scope: 'memory:write' }).field({
    type: MemoryFact,
    description: 'Sets (or confirms) a fact for the assistant to remember, under a key',
    args: { input: t.arg({ type: SetMemoryFactInput, required: true }) },
    resolve: (_root, { input }, ctx) => setMemoryFact(ctx, input),
  }),
  forgetMemoryFact: t.withAuth({ scope: 'memory:write' }).field({
    type: Deleted,
    description: 'Forgets a fact the caller set, by its key',
    args: {
      key: t.arg.string({
        required: true,
        description: 'the fact’s key',
        validate: z.string().trim().min(1).max(FACT_KEY_MAX),
      }),
    },
    resolve: (_root, args, ctx) => forgetMemoryFact(ctx, args),
  }),
  deleteMemoryDocumentFact: t.withAuth({ scope: 'memory:write' }).field({
    type: Deleted,
    description: 'Deletes one fact drawn from an uploaded document',
    args: { id: t.arg.string({ required: true, description: 'the fact', validate: id }) },
    resolve: (_root, args, ctx) => deleteMemoryDocumentFact(ctx, args),
  }),
}));

// The assistant's own consent is a consent of the consents domain (kind `assistant`), one type.
builder.queryField('assistantConsent', (t) =>
  t.withAuth({ scope: 'assistant:chat' }).field({
    type: Consent,
    description: 'The caller’s assistant consent (kind assistant)',
    resolve: (_root, _args, ctx) => assistantConsent(ctx),
  }),
);

builder.mutationField('withdrawAssistantConsent', (t) =>
  t.withAuth({ scope: 'assistant:chat' }).field({
    type: Consent,
    description: 'Withdraws the caller’s assistant consent (kind assistant)',
    resolve: (_root, _args, ctx) => withdrawAssistantConsent(ctx),
  }),
);
