/**
 * The assistant and its memory (issue 14) through the MCP tools of the families assistant, memory
 * and documents, against the suite's fake OpenAI server: scopes, the assistant consent, ownership,
 * confirm on deletes, replies that read the person's data with the token's own scopes (and name
 * their sources), one ledger row per model round, the daily cap and the budget, the bounded tool
 * loop, uploads checked by their bytes, memory facts and facts drawn from documents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { startFakeOpenAI } from '../fakes/openai.ts';
import { JPEG, PNG } from '../fakes/images.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { gql } from '../harness/clients.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';
import { printLedgerAfterAll } from '../harness/ai-ledger.ts';
import { clock } from '../../src/base/clock.ts';

const fake = await startFakeOpenAI();
const ai = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.url };
const app = await startTestApp(ai);
printLedgerAfterAll(app, 'assistant');
afterEach(() => fake.reset());

const CHAT: Scope[] = ['assistant:chat'];
let keySeq = 0;
const key = (): string => `idem-key-${clock.ms()}-${++keySeq}`;

type Structured = Record<string, any>;
const sc = (result: { structuredContent?: unknown }): Structured =>
  result.structuredContent as Structured;
const errorOf = (result: { structuredContent?: unknown; isError?: boolean }) => {
  expect(result.isError).toBe(true);
  return sc(result).error as { code: string; message: string; detail?: any };
};

async function consent(target: TestApp, userId: number): Promise<void> {
  await target.db.prisma.consent.create({ data: { userId, kind: 'assistant' } });
}

/** A person who gave the assistant consent, and an MCP client for a token with `scopes`. */
async function person(scopes: Scope[] = CHAT, target: TestApp = app, consented = true) {
  const { user, token: loginToken } = await seedUser(target);
  if (consented) await consent(target, user.id);
  const token = await seedPersonalToken(target, user.id, scopes);
  const client = await mcpClient(target, token);
  return { user, client, loginToken };
}

async function start(client: Awaited<ReturnType<typeof mcpClient>>, title = 'Lunch questions') {
  const result = await callTool(client, 'assistant_conversation_start', {
    title,
    idempotency_key: key(),
  });
  expect(result.isError).toBeFalsy();
  return sc(result) as { id: string; title: string };
}

const reply = (
  client: Awaited<ReturnType<typeof mcpClient>>,
  conversationId: string,
  message: string,
  extra: Record<string, unknown> = {},
) =>
  callTool(client, 'assistant_conversation_reply', {
    conversation_id: conversationId,
    message,
    idempotency_key: key(),
    ...extra,
  });

const ledger = (target: TestApp, userId: number) =>
  target.db.prisma.aiUsage.findMany({ where: { userId }, orderBy: { id: 'asc' } });

describe('scopes', () => {
  it('refuses every assistant tool to a token without assistant:chat, and lists none', async () => {
    const { client } = await person(['profile:read', 'memory:read']);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed.filter((n) => n.startsWith('assistant_'))).toEqual([]);
    expect(listed).toContain('insights_memory_read');
    const result = await callTool(client, 'assistant_conversation_list', {});
    expect(errorOf(result)).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { code: 'insufficient_scope', scope: 'assistant:chat' },
    });
  });

  it('refuses memory writes to a token with memory:read only', async () => {
    const { client } = await person(['memory:read']);
    const result = await callTool(client, 'memory_fact_set', { key: 'diet', text: 'vegetarian' });
    expect(errorOf(result).code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('the assistant consent', () => {
  it('is needed to start; given in the app (consent kind assistant), read and withdrawn by tools', async () => {
    const { user, client, loginToken } = await person(CHAT, app, false);
    const refused = await callTool(client, 'assistant_conversation_start', {
      idempotency_key: key(),
    });
    expect(errorOf(refused)).toMatchObject({
      code: 'FORBIDDEN',
      detail: { code: 'needs_consent', kind: 'assistant' },
    });
    expect(sc(await callTool(client, 'assistant_consent_read', {}))).toMatchObject({
      given: false,
      given_at: null,
    });

    const given = await gql(app, 'mutation { giveConsent(kind: assistant) { kind given } }', {
      token: loginToken,
    });
    expect(given.body.data.giveConsent).toEqual({ kind: 'assistant', given: true });
    expect(sc(await callTool(client, 'assistant_consent_read', {})).given).toBe(true);
    const conversation = await start(client);

    const unconfirmed = await callTool(client, 'assistant_consent_withdraw', {});
    expect(errorOf(unconfirmed).code).toBe('CONFIRMATION_REQUIRED');
    const withdrawn = await callTool(client, 'assistant_consent_withdraw', { confirm: true });
    expect(sc(withdrawn)).toMatchObject({ given: false });
    expect(sc(withdrawn).withdrawn_at).toEqual(expect.any(String));

    const after = await reply(client, conversation.id, 'How was my lunch?');
    expect(errorOf(after).detail).toMatchObject({ code: 'needs_consent', kind: 'assistant' });
    expect(fake.requests).toHaveLength(0);
    expect(await ledger(app, user.id)).toHaveLength(0);
  });
});

describe('conversations', () => {
  it('start, reply (JSON), read: the answer is stored with the question, and one ledger row', async () => {
    const { user, client } = await person();
    const conversation = await start(client, 'My glucose');
    expect(conversation.title).toBe('My glucose');
    fake.reply('Your lunch looks balanced.');
    const result = await reply(client, conversation.id, 'Was my lunch good?');
    expect(result.isError).toBeFalsy();
    expect(sc(result)).toMatchObject({
      conversation_id: conversation.id,
      question: { role: 'user', content: 'Was my lunch good?' },
      answer: { role: 'assistant', content: 'Your lunch looks balanced.', sources: [] },
    });
    const sent = fake.requests[0].body!;
    expect(sent.messages![0].role).toBe('system');
    expect(sent.messages!.at(-1)).toEqual({ role: 'user', content: 'Was my lunch good?' });
    expect(fake.toolsOf(fake.requests[0])).toContain('me');

    const rows = await ledger(app, user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ feature: 'assistant', outcome: 'ok', model: 'gpt-4o-mini' });

    const read = sc(await callTool(client, 'assistant_conversation_read', { id: conversation.id }));
    expect(read.messages.map((m: Structured) => [m.role, m.content])).toEqual([
      ['user', 'Was my lunch good?'],
      ['assistant', 'Your lunch looks balanced.'],
    ]);

    // the next reply carries the conversation so far
    fake.reply('Yes.');
    await reply(client, conversation.id, 'Really?');
    const history = fake.requests[1].body!.messages!.map((m) => [m.role, m.content]);
    expect(history.slice(1)).toEqual([
      ['user', 'Was my lunch good?'],
      ['assistant', 'Your lunch looks balanced.'],
      ['user', 'Really?'],
    ]);
  });

  it('lists conversations newest first, a page at a time', async () => {
    const { client } = await person();
    for (const title of ['one', 'two', 'three']) await start(client, title);
    const first = sc(await callTool(client, 'assistant_conversation_list', { limit: 2 }));
    expect(first.items.map((c: Structured) => c.title)).toEqual(['three', 'two']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = sc(
      await callTool(client, 'assistant_conversation_list', {
        limit: 2,
        cursor: first.next_cursor,
      }),
    );
    expect(second.items.map((c: Structured) => c.title)).toEqual(['one']);
    expect(second.next_cursor).toBeUndefined();
  });

  it('answers 404 for another person’s conversation and answer (read, reply, delete, feedback)', async () => {
    const owner = await person();
    const conversation = await start(owner.client);
    fake.reply('Hello.');
    const answer = sc(await reply(owner.client, conversation.id, 'Hi')).answer;
    const other = await person();
    fake.reset();
    for (const result of [
      await callTool(other.client, 'assistant_conversation_read', { id: conversation.id }),
      await reply(other.client, conversation.id, 'Hi'),
      await callTool(other.client, 'assistant_conversation_delete', {
        id: conversation.id,
        confirm: true,
      }),
      await callTool(other.client, 'assistant_answer_feedback', {
        message_id: answer.id,
        rating: 'down',
      }),
    ]) {
      expect(errorOf(result).code).toBe('NOT_FOUND');
    }
    expect(fake.requests).toHaveLength(0);
    expect(
      sc(await callTool(owner.client, 'assistant_conversation_read', { id: conversation.id }))
        .messages,
    ).toHaveLength(2);
  });

  it('deletes only with confirm: true', async () => {
    const { client } = await person();
    const conversation = await start(client);
    const refused = await callTool(client, 'assistant_conversation_delete', {
      id: conversation.id,
    });
    expect(errorOf(refused).code).toBe('CONFIRMATION_REQUIRED');
    const deleted = await callTool(client, 'assistant_conversation_delete', {
      id: conversation.id,
      confirm: true,
    });
    expect(sc(deleted)).toEqual({ deleted: 1 });
    const read = await callTool(client, 'assistant_conversation_read', { id: conversation.id });
    expect(errorOf(read).code).toBe('NOT_FOUND');
  });

  it('takes feedback (up/down and a comment) on answers only', async () => {
    const { client } = await person();
    const conversation = await start(client);
    fake.reply('Drink water.');
    const { question, answer } = sc(await reply(client, conversation.id, 'Tips?'));
    const rated = await callTool(client, 'assistant_answer_feedback', {
      message_id: answer.id,
      rating: 'down',
      comment: 'Too short',
    });
    expect(sc(rated)).toMatchObject({
      id: answer.id,
      feedback: 'down',
      feedback_comment: 'Too short',
    });
    const own = await callTool(client, 'assistant_answer_feedback', {
      message_id: question.id,
      rating: 'up',
    });
    expect(errorOf(own).code).toBe('NOT_FOUND');
    const bad = await callTool(client, 'assistant_answer_feedback', {
      message_id: answer.id,
      rating: 'great',
    });
    expect(errorOf(bad).code).toBe('VALIDATION_FAILED');
  });

  it.each([
    ['a message over 4000 characters', { message: 'x'.repeat(4001) }, 'message'],
    ['a blank message', { message: '   ' }, 'message'],
    ['a conversation id that is no UUID', { conversation_id: 'nope' }, 'conversation_id'],
    [
      'five uploads',
      { upload_ids: Array.from({ length: 5 }, () => crypto.randomUUID()) },
      'upload_ids',
    ],
  ])('refuses %s with VALIDATION_FAILED, before any model call', async (_case, args, loc) => {
    const { client } = await person();
    const conversation = await start(client);
    const result = await callTool(client, 'assistant_conversation_reply', {
      conversation_id: conversation.id,
      message: 'hi',
      idempotency_key: key(),
      ...args,
    });
    const error = errorOf(result);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.detail[0].loc[0]).toBe(loc);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('replies that read the person’s data', () => {
  it('runs reads with the token’s own scopes: a missing scope is a refusal the model sees, never data', async () => {
    const { user, client } = await person(['assistant:chat', 'profile:read']);
    const conversation = await start(client);
    fake.replyToolCalls([
      { name: 'me', arguments: {} },
      { name: 'glucoseReadingPage', arguments: { since_hours: 24 } },
    ]);
    fake.reply('I can see your profile but not your glucose.');
    const result = await reply(client, conversation.id, 'How is my glucose?');
    expect(result.isError).toBeFalsy();

    const [profile, glucose] = fake.toolResultsOf(fake.requests[1]);
    expect(JSON.parse(profile.content).me.email).toBe(user.email);
    expect(JSON.parse(glucose.content)).toEqual({
      error: {
        code: 'INSUFFICIENT_SCOPE',
        message: expect.stringContaining('health:glucose:read'),
      },
    });
    expect(glucose.content).not.toContain('mg_dl');
    expect(sc(result).answer.sources).toEqual([
      { operation: 'me', arguments: '{}', ok: true, error: null },
      {
        operation: 'glucoseReadingPage',
        arguments: '{"since_hours":24}',
        ok: false,
        error: 'INSUFFICIENT_SCOPE',
      },
    ]);
    // one ledger row per model round
    const rows = await ledger(app, user.id);
    expect(rows.map((r) => [r.feature, r.outcome])).toEqual([
      ['assistant', 'ok'],
      ['assistant', 'ok'],
    ]);
  });

  it('reads glucose when the token holds health:glucose:read', async () => {
    const { client } = await person(['assistant:chat', 'health:glucose:read']);
    const conversation = await start(client);
    fake.replyToolCalls([{ name: 'glucoseReadingPage', arguments: { since_hours: 24 } }]);
    fake.reply('No readings yet.');
    const result = await reply(client, conversation.id, 'Glucose?');
    const [glucose] = fake.toolResultsOf(fake.requests[1]);
    expect(JSON.parse(glucose.content)).toEqual({
      glucose_reading_page: { items: [], next_cursor: null },
    });
    expect(sc(result).answer.sources[0]).toMatchObject({ ok: true, error: null });
  });

  it('hands bad calls back as errors: unknown tools, arguments that are not JSON or out of bounds', async () => {
    const { client } = await person(['assistant:chat', 'health:glucose:read']);
    const conversation = await start(client);
    fake.replyToolCalls([
      { name: 'deleteAllMeals', arguments: {} },
      { name: 'glucoseReadingPage', arguments: '{not json' },
      { name: 'glucoseReadingPage', arguments: { limit: 100000 } },
    ]);
    fake.reply('Sorry.');
    const result = await reply(client, conversation.id, 'Delete my meals');
    expect(fake.toolsOf(fake.requests[0])).not.toContain('deleteAllMeals');
    const codes = fake.toolResultsOf(fake.requests[1]).map((r) => JSON.parse(r.content).error.code);
    expect(codes).toEqual(['NOT_FOUND', 'VALIDATION_FAILED', 'VALIDATION_FAILED']);
    expect(sc(result).answer.sources.map((s: Structured) => s.ok)).toEqual([false, false, false]);
  });

  it('bounds the loop: after 4 rounds with tools, a last round without tools must answer', async () => {
    const { user, client } = await person(['assistant:chat', 'profile:read']);
    const conversation = await start(client);
    for (let i = 0; i < 4; i++) fake.replyToolCalls([{ name: 'me' }]);
    fake.reply('Done reading.');
    const result = await reply(client, conversation.id, 'Read everything');
    expect(sc(result).answer.content).toBe('Done reading.');
    expect(fake.requests).toHaveLength(5);
    expect(fake.toolsOf(fake.requests[3])).toContain('me');
    expect(fake.toolsOf(fake.requests[4])).toEqual([]);
    expect(await ledger(app, user.id)).toHaveLength(5);
  });

  it('stores nothing when a round fails (502) and records the failed round', async () => {
    const { user, client } = await person();
    const conversation = await start(client);
    fake.fail(500);
    const result = await reply(client, conversation.id, 'Hi');
    expect(errorOf(result).code).toBe('UPSTREAM_FAILED');
    const read = sc(await callTool(client, 'assistant_conversation_read', { id: conversation.id }));
    expect(read.messages).toEqual([]);
    expect((await ledger(app, user.id)).map((r) => r.outcome)).toEqual(['failed']);
  });
});

describe('the reply stream (server-sent events)', () => {
  it('delivers the answer in pieces as progress notifications, then the full answer', async () => {
    const { user, client } = await person(['assistant:chat', 'profile:read']);
    const conversation = await start(client);
    const text = 'Your profile says you are in Amman; lunch at noon suits your routine well.';
    fake.replyToolCalls([{ name: 'me', arguments: {} }]);
    fake.reply(text);
    const pieces: string[] = [];
    const result = (await client.callTool(
      {
        name: 'assistant_conversation_reply_stream',
        arguments: {
          conversation_id: conversation.id,
          message: 'When should I eat?',
          idempotency_key: key(),
        },
      },
      undefined,
      { onprogress: (p) => void pieces.push(p.message ?? '') },
    )) as { structuredContent?: Structured; isError?: boolean };
    expect(result.isError).toBeFalsy();
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
    expect(result.structuredContent!.answer).toMatchObject({
      content: text,
      sources: [{ operation: 'me', ok: true }],
    });
    expect(fake.requests.map((r) => r.body!.stream)).toEqual([true, true]);
    expect(await ledger(app, user.id)).toHaveLength(2);
  });

  it('answers as text/event-stream, progress events before the result', async () => {
    const { user } = await seedUser(app);
    await consent(app, user.id);
    const token = await seedPersonalToken(app, user.id, CHAT);
    const client = await mcpClient(app, token);
    const conversation = await start(client);
    fake.reply('Short and sweet answer here.');
    const res = await mcpPost(
      app,
      rpc('tools/call', {
        name: 'assistant_conversation_reply_stream',
        arguments: { conversation_id: conversation.id, message: 'Hi', idempotency_key: key() },
        _meta: { progressToken: 'p1' },
      }),
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = String(res.body)
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    const progress = events.filter((e) => e.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((e) => e.params.message).join('')).toBe('Short and sweet answer here.');
    expect(events.at(-1).result.structuredContent.answer.content).toBe(
      'Short and sweet answer here.',
    );
  });

  it('answers the plain reply tool as JSON, never streamed', async () => {
    const { user } = await seedUser(app);
    await consent(app, user.id);
    const token = await seedPersonalToken(app, user.id, CHAT);
    const client = await mcpClient(app, token);
    const conversation = await start(client);
    fake.reply('Plain.');
    const res = await mcpPost(
      app,
      rpc('tools/call', {
        name: 'assistant_conversation_reply',
        arguments: { conversation_id: conversation.id, message: 'Hi', idempotency_key: key() },
        _meta: { progressToken: 'p2' },
      }),
      { token },
    );
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(fake.requests[0].body!.stream).toBeUndefined();

    // the streaming tool without a progressToken has nothing to stream: JSON
    fake.reply('Also plain.');
    const unstreamed = await mcpPost(
      app,
      rpc('tools/call', {
        name: 'assistant_conversation_reply_stream',
        arguments: { conversation_id: conversation.id, message: 'Hi', idempotency_key: key() },
      }),
      { token },
    );
    expect(unstreamed.headers.get('content-type')).toContain('application/json');
    expect((unstreamed.body as Structured).result.structuredContent.answer.content).toBe(
      'Also plain.',
    );
  });
});

describe('the daily cap and the budget', () => {
  it('answers 429 rate_limited past ASSISTANT_DAILY_CAP model rounds', async () => {
    const capped = await startTestApp({ ...ai, ASSISTANT_DAILY_CAP: '2' });
    try {
      const { user, client } = await person(['assistant:chat', 'profile:read'], capped);
      const conversation = await start(client);
      fake.replyToolCalls([{ name: 'me' }]);
      fake.reply('ok');
      expect((await reply(client, conversation.id, 'one')).isError).toBeFalsy();
      const refused = await reply(client, conversation.id, 'two');
      expect(errorOf(refused)).toMatchObject({
        code: 'RATE_LIMITED',
        detail: { code: 'rate_limited' },
      });
      expect(await ledger(capped, user.id)).toHaveLength(2);
    } finally {
      await capped.close();
    }
  });

  it('answers 429 ai_budget_exhausted when the day’s budget cannot cover a round', async () => {
    const poor = await startTestApp({ ...ai, AI_DAILY_BUDGET_USD: '0.00001' });
    try {
      const { user, client } = await person(CHAT, poor);
      const conversation = await start(client);
      const refused = await reply(client, conversation.id, 'Hi');
      expect(errorOf(refused)).toMatchObject({
        code: 'AI_BUDGET_EXHAUSTED',
        detail: { code: 'ai_budget_exhausted' },
      });
      expect(fake.requests).toHaveLength(0);
      expect(await ledger(poor, user.id)).toHaveLength(0);
    } finally {
      await poor.close();
    }
  });
});

describe('uploads', () => {
  const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
  const upload = (client: Awaited<ReturnType<typeof mcpClient>>, args: Record<string, unknown>) =>
    callTool(client, 'assistant_upload_create', { idempotency_key: key(), ...args });

  it('stores an image checked by its bytes, lists it, shows it to the model, deletes it with confirm', async () => {
    const { client } = await person();
    const created = await upload(client, {
      file_name: 'plate.png',
      content_type: 'application/octet-stream',
      data: b64(PNG),
    });
    expect(sc(created)).toMatchObject({
      file_name: 'plate.png',
      content_type: 'image/png',
      size_bytes: PNG.length,
      fact_count: 0,
    });
    const id = sc(created).id as string;
    expect(
      sc(await callTool(client, 'assistant_upload_list', {})).items.map((u: Structured) => u.id),
    ).toEqual([id]);

    const conversation = await start(client);
    fake.reply('A plate of rice.');
    await reply(client, conversation.id, 'What is on this plate?', { upload_ids: [id] });
    expect(fake.imagesOf(fake.requests[0])).toEqual([`data:image/png;base64,${b64(PNG)}`]);

    const refused = await callTool(client, 'assistant_upload_delete', { id });
    expect(errorOf(refused).code).toBe('CONFIRMATION_REQUIRED');
    expect(sc(await callTool(client, 'assistant_upload_delete', { id, confirm: true }))).toEqual({
      deleted: 1,
    });
    expect(sc(await callTool(client, 'assistant_upload_list', {})).items).toEqual([]);
  });

  it('refuses bytes that are not the declared type, binary "text", and files over 5 MB', async () => {
    const { client } = await person();
    const notImage = await upload(client, {
      file_name: 'a.png',
      content_type: 'image/png',
      data: b64(new TextEncoder().encode('hello, not a png')),
    });
    expect(errorOf(notImage)).toMatchObject({ code: 'VALIDATION_FAILED' });
    const binaryText = await upload(client, {
      file_name: 'a.txt',
      content_type: 'text/plain',
      data: b64(JPEG),
    });
    expect(errorOf(binaryText).code).toBe('VALIDATION_FAILED');
    const gif = await upload(client, {
      file_name: 'a.gif',
      content_type: 'image/gif',
      data: b64(new TextEncoder().encode('GIF89a')),
    });
    expect(errorOf(gif).code).toBe('VALIDATION_FAILED');
    const big = await upload(client, {
      file_name: 'big.jpg',
      content_type: 'image/jpeg',
      data: b64(new Uint8Array(5 * 1024 * 1024 + 1)),
    });
    expect(['PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED']).toContain(errorOf(big).code);
    expect(sc(await callTool(client, 'assistant_upload_list', {})).items).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 404 for another person’s upload (delete, attach)', async () => {
    const owner = await person();
    const id = sc(
      await upload(owner.client, { file_name: 'p.png', content_type: 'image/png', data: b64(PNG) }),
    ).id;
    const other = await person();
    const deleted = await callTool(other.client, 'assistant_upload_delete', { id, confirm: true });
    expect(errorOf(deleted).code).toBe('NOT_FOUND');
    const conversation = await start(other.client);
    const attached = await reply(other.client, conversation.id, 'Look', { upload_ids: [id] });
    expect(errorOf(attached).code).toBe('NOT_FOUND');
    expect(fake.requests).toHaveLength(0);
  });
});

describe('memory facts', () => {
  it('set, read, replace, given to the model in its instructions, forgotten with confirm', async () => {
    const { user, client } = await person(['assistant:chat', 'memory:read', 'memory:write']);
    const set = await callTool(client, 'memory_fact_set', { key: 'Diet', text: 'vegetarian' });
    expect(sc(set)).toMatchObject({ key: 'diet', text: 'vegetarian', source: 'person' });
    await callTool(client, 'memory_fact_set', { key: 'diet', text: 'vegan since 2024' });
    await callTool(client, 'memory_fact_set', { key: 'allergy', text: 'peanuts' });
    const read = sc(await callTool(client, 'insights_memory_read', {}));
    expect(read.items.map((f: Structured) => [f.key, f.text])).toEqual([
      ['allergy', 'peanuts'],
      ['diet', 'vegan since 2024'],
    ]);

    const conversation = await start(client);
    fake.reply('Try lentils.');
    await reply(client, conversation.id, 'Dinner idea?');
    const system = fake.requests[0].body!.messages![0].content as string;
    expect(system).toContain('- diet: vegan since 2024');
    expect(system).toContain('- allergy: peanuts');

    const refused = await callTool(client, 'insights_memory_forget', { key: 'diet' });
    expect(errorOf(refused).code).toBe('CONFIRMATION_REQUIRED');
    expect(
      sc(await callTool(client, 'insights_memory_forget', { key: 'diet', confirm: true })),
    ).toEqual({
      deleted: 1,
    });
    const again = await callTool(client, 'insights_memory_forget', { key: 'diet', confirm: true });
    expect(errorOf(again).code).toBe('NOT_FOUND');
    expect(await app.db.prisma.memoryFact.count({ where: { userId: user.id } })).toBe(1);
  });

  it('refuses bad keys and long texts', async () => {
    const { client } = await person(['memory:write']);
    for (const args of [
      { key: 'x'.repeat(61), text: 'a' },
      { key: 'semi;colon', text: 'a' },
      { key: 'ok', text: 'x'.repeat(501) },
    ]) {
      expect(errorOf(await callTool(client, 'memory_fact_set', args)).code).toBe(
        'VALIDATION_FAILED',
      );
    }
  });
});

describe('facts drawn from documents', () => {
  it('draws facts from a text document (one ledger row), lists them, gives them to the model, deletes them', async () => {
    const { user, client } = await person(['assistant:chat', 'memory:read', 'memory:write']);
    fake.reply({
      facts: ['Has type 2 diabetes since 2019.', 'Takes metformin 500 mg twice a day.'],
    });
    const created = await callTool(client, 'assistant_upload_create', {
      idempotency_key: key(),
      file_name: 'clinic letter.txt',
      content_type: 'text/plain; charset=utf-8',
      data: Buffer.from('Diagnosis: type 2 diabetes (2019). Metformin 500 mg bid.').toString(
        'base64',
      ),
    });
    expect(sc(created)).toMatchObject({ content_type: 'text/plain', fact_count: 2 });
    expect(JSON.stringify(fake.requests[0].body!.messages)).toContain('Metformin 500 mg bid');
    expect(fake.requests[0].body!.response_format!.type).toBe('json_schema');
    expect((await ledger(app, user.id)).map((r) => r.feature)).toEqual(['assistant']);

    const facts = sc(await callTool(client, 'memory_document_facts_read', {}))
      .items as Structured[];
    expect(facts.map((f) => f.text).sort()).toEqual([
      'Has type 2 diabetes since 2019.',
      'Takes metformin 500 mg twice a day.',
    ]);
    expect(facts.every((f) => f.upload_id === sc(created).id && f.source === 'document')).toBe(
      true,
    );

    const conversation = await start(client);
    fake.reply('Noted.');
    await reply(client, conversation.id, 'What do you know about me?');
    expect(fake.requests[1].body!.messages![0].content).toContain(
      'Takes metformin 500 mg twice a day.',
    );

    const target = facts.find((f) => f.text.startsWith('Takes'))!;
    const refused = await callTool(client, 'memory_document_fact_delete', { id: target.id });
    expect(errorOf(refused).code).toBe('CONFIRMATION_REQUIRED');
    expect(
      sc(await callTool(client, 'memory_document_fact_delete', { id: target.id, confirm: true })),
    ).toEqual({ deleted: 1 });
    expect(sc(await callTool(client, 'memory_document_facts_read', {})).items).toHaveLength(1);

    const other = await person(['memory:write']);
    const foreign = await callTool(other.client, 'memory_document_fact_delete', {
      id: facts[0].id === target.id ? facts[1].id : facts[0].id,
      confirm: true,
    });
    expect(errorOf(foreign).code).toBe('NOT_FOUND');

    // deleting the document deletes what was drawn from it
    await callTool(client, 'assistant_upload_delete', { id: sc(created).id, confirm: true });
    expect(sc(await callTool(client, 'memory_document_facts_read', {})).items).toEqual([]);
  });

  it('stores nothing when drawing the facts fails', async () => {
    const { client } = await person(['assistant:chat', 'memory:read']);
    fake.malformed();
    const created = await callTool(client, 'assistant_upload_create', {
      idempotency_key: key(),
      file_name: 'notes.txt',
      content_type: 'text/plain',
      data: Buffer.from('Allergic to penicillin.').toString('base64'),
    });
    expect(errorOf(created).code).toBe('UPSTREAM_FAILED');
    expect(sc(await callTool(client, 'assistant_upload_list', {})).items).toEqual([]);
  });
});
