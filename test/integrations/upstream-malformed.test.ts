/**
 * Issue 29 item 6: a third party answering a malformed or unexpected body (not JSON, the wrong
 * shape, a field we rely on missing) is a 502 whose message says who answered and what to do next,
 * never an INTERNAL 500. One section per integration, each through a real door (REST route, MCP
 * tool) against the integration's protocol server in test/fakes/ answering the malformed body.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startFakeIdp } from '../fakes/jwks.ts';
import { startFakeMonitorCloud } from '../fakes/monitor-cloud.ts';
import { startFakeOpenAI } from '../fakes/openai.ts';
import { startFakePushGateway } from '../fakes/push.ts';
import { startFakeStripe } from '../fakes/stripe.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const stripe = await startFakeStripe();
const openai = await startFakeOpenAI();
const cloud = await startFakeMonitorCloud();
const idp = await startFakeIdp();
const push = await startFakePushGateway();
/** Identity providers JUNK0..JUNK15 on the fake's malformed key set, each its own key cache. */
const JUNK_PROVIDERS = 16;
const junk = Object.fromEntries(
  Array.from({ length: JUNK_PROVIDERS }, (_, i) => [
    [`IDP_JUNK${i}_CLIENT_ID`, 'junk-app'],
    [`IDP_JUNK${i}_ISSUER`, idp.url],
    [`IDP_JUNK${i}_JWKS_URL`, `${idp.malformedJwksUrl}/${i}`],
  ]).flat(),
) as Record<string, string>;
const app = await startTestApp({
  ...junk,
  PUSH_HTTP_URL: push.url,
  NOTIFICATION_TEST_SENDS_PER_HOUR: '100',
  MONITOR_API_BASE: cloud.url,
  ...stripe.env,
  OPENAI_API_KEY: 'sk-test',
  OPENAI_BASE_URL: openai.url,
});

/** Bodies no integration can use: not JSON, not an object, an object without the fields. */
const MALFORMED: [string, string, string?][] = [
  ['an empty object', '{}'],
  ['a JSON array', '[]'],
  ['text that is not JSON', '<html>Bad gateway</html>', 'text/html'],
  ['truncated JSON', '{"id": "x", "obj'],
];

/**
 * The REST answer of a malformed upstream body: 502 and a message naming who answered and what to
 * do next (`detail`, or `detail.message` beside the code of an integration with its own codes).
 */
function expect502(res: { status: number; body: any }, who: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(502);
  const message = typeof res.body.detail === 'string' ? res.body.detail : res.body.detail.message;
  expect(message).toMatch(who);
  expect(message).toMatch(/try again/);
}

describe('Stripe (payments)', () => {
  const PAYMENT_PROVIDER =
    /^The payment provider answered unexpectedly when asked to .+; try again later$/;
  const pat = async (person: SeededUser) =>
    mcpClient(app, await seedPersonalToken(app, person.user.id, ['orders:pay', 'orders:write']));
  let keySeq = 0;
  const key = () => `upstream-key-${++keySeq}`;

  it('orders_order_pay: a payment methods list without data is UPSTREAM_FAILED, the order stays pending (the issue)', async () => {
    const person = await seedUser(app);
    const c = await pat(person);
    const order = (
      await callTool(c, 'orders_order_create', {
        product: 'kit',
        confirm: true,
        idempotency_key: key(),
      })
    ).structuredContent as { id: number };
    stripe.answerRaw('{"object":"list","has_more":false}', { request: /payment_methods$/ });
    const paid = await callTool(c, 'orders_order_pay', {
      id: order.id,
      confirm: true,
      idempotency_key: key(),
    });
    expect(paid.isError).toBe(true);
    expect((paid.structuredContent as any).error).toEqual({
      code: 'UPSTREAM_FAILED',
      message:
        'The payment provider answered unexpectedly when asked to read the saved cards; try again later',
      retryable: true,
      retry_after: 5,
      detail: { code: 'payment_provider_error', message: expect.any(String) },
    });
    const row = await app.db.prisma.order.findUniqueOrThrow({ where: { id: order.id } });
    expect(row).toMatchObject({ status: 'pending', paymentIntentId: null });
  });

  it.each(MALFORMED)(
    'orders_order_pay: the payment intent answered as %s is UPSTREAM_FAILED',
    async (_what, body, contentType) => {
      const person = await seedUser(app);
      const c = await pat(person);
      const order = (
        await callTool(c, 'orders_order_create', {
          product: 'kit',
          confirm: true,
          idempotency_key: key(),
        })
      ).structuredContent as { id: number };
      stripe.answerRaw(body, { request: /^POST \/v1\/payment_intents$/, contentType });
      const paid = await callTool(c, 'orders_order_pay', {
        id: order.id,
        confirm: true,
        idempotency_key: key(),
      });
      expect((paid.structuredContent as any).error).toMatchObject({
        code: 'UPSTREAM_FAILED',
        message: expect.stringMatching(/^The payment provider .+; try again later$/),
      });
    },
  );

  it.each(MALFORMED)(
    'POST /api/payments/kit-intent: an intent answered as %s is a 502',
    async (_what, body, contentType) => {
      stripe.answerRaw(body, { request: /^POST \/v1\/payment_intents$/, contentType });
      const res = await rest(app, 'POST', '/api/payments/kit-intent', {
        body: {},
        headers: fromNewIp(),
      });
      expect502(res, /^The payment provider /);
    },
  );

  it('POST /api/payments/setup-intent: an intent without a status is a 502', async () => {
    stripe.answerRaw('{"id":"seti_1","object":"setup_intent","client_secret":"s"}', {
      request: /^POST \/v1\/setup_intents$/,
    });
    const res = await rest(app, 'POST', '/api/payments/setup-intent', {
      body: {},
      headers: fromNewIp(),
    });
    expect502(res, PAYMENT_PROVIDER);
  });

  it('create-subscription: a customer without an id, or a subscription without a status, is a 502', async () => {
    const person = await seedUser(app);
    const create = () =>
      rest(app, 'POST', '/api/subscriptions/create-subscription?plan=premium_monthly', {
        token: person.token,
        headers: fromNewIp(),
      });
    stripe.answerRaw('{"object":"customer"}', { request: /^POST \/v1\/customers$/ });
    expect502(await create(), PAYMENT_PROVIDER);
    stripe.answerRaw('{"id":"sub_1","object":"subscription","items":"x"}', {
      request: /^POST \/v1\/subscriptions$/,
    });
    expect502(await create(), PAYMENT_PROVIDER);
    expect(
      (await app.db.prisma.entitlement.findUnique({ where: { userId: person.user.id } }))
        ?.stripeSubscriptionId ?? null,
    ).toBeNull();
  });

  it('verify: a subscription read answered without its fields is a 502 and changes nothing', async () => {
    const person = await seedUser(app);
    const created = await rest(
      app,
      'POST',
      '/api/subscriptions/create-subscription?plan=premium_monthly',
      {
        token: person.token,
        headers: fromNewIp(),
      },
    );
    expect(created.status).toBe(200);
    stripe.answerRaw('{"object":"subscription","status":7}', {
      request: /^GET \/v1\/subscriptions\//,
    });
    const res = await rest(app, 'POST', '/api/subscriptions/verify', { token: person.token });
    expect502(res, PAYMENT_PROVIDER);
    expect(
      await app.db.prisma.entitlement.findUnique({ where: { userId: person.user.id } }),
    ).toMatchObject({
      status: 'incomplete',
    });
  });
});

describe('OpenAI (AI features and the assistant)', () => {
  const AI_MODEL = /^The AI model /;
  /** Chat Completions bodies that break the protocol, each with its content type. */
  const BROKEN: [string, string, string?][] = [
    ...MALFORMED,
    ['choices that are not a list', '{"id":"c","object":"chat.completion","choices":"x"}'],
    ['a choice without a message', '{"id":"c","object":"chat.completion","choices":[{"index":0}]}'],
    [
      'a message whose content is a number',
      '{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":5}}]}',
    ],
  ];
  const ledger = (userId: number) =>
    app.db.prisma.aiUsage.findMany({ where: { userId }, select: { outcome: true } });

  it.each(BROKEN)(
    'POST /api/meals/suggest_name: a completion answered as %s is a 502, recorded as failed',
    async (_what, body, contentType) => {
      const { user, token } = await seedUser(app);
      openai.answerRaw(body, contentType);
      const res = await rest(app, 'POST', '/api/meals/suggest_name', {
        token,
        body: { items: [{ name: 'rice', grams: 150 }], hour: 13 },
      });
      expect502(res, AI_MODEL);
      expect(await ledger(user.id)).toEqual([{ outcome: 'failed' }]);
    },
  );

  async function assistantClient() {
    const { user } = await seedUser(app);
    await app.db.prisma.consent.create({ data: { userId: user.id, kind: 'assistant' } });
    const token = await seedPersonalToken(app, user.id, ['assistant:chat', 'memory:read']);
    const client = await mcpClient(app, token);
    const started = await callTool(client, 'assistant_conversation_start', {
      title: 'Upstream',
      idempotency_key: key(),
    });
    return { client, userId: user.id, conversationId: (started.structuredContent as any).id };
  }
  let keySeq = 0;
  const key = () => `upstream-ai-${++keySeq}`;
  const errorOf = (r: { structuredContent?: unknown }) => (r.structuredContent as any).error;

  it.each([
    ...BROKEN,
    [
      'a function call without its function',
      '{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function"}]}}]}',
    ],
  ])(
    'assistant_conversation_reply: a round answered as %s is UPSTREAM_FAILED',
    async (_what, body, contentType) => {
      const { client, userId, conversationId } = await assistantClient();
      openai.answerRaw(body, contentType);
      const result = await callTool(client, 'assistant_conversation_reply', {
        conversation_id: conversationId,
        message: 'How was my lunch?',
        idempotency_key: key(),
      });
      expect(result.isError).toBe(true);
      expect(errorOf(result)).toMatchObject({
        code: 'UPSTREAM_FAILED',
        message: expect.stringMatching(AI_MODEL),
        retryable: true,
      });
      expect(await ledger(userId)).toEqual([{ outcome: 'failed' }]);
    },
  );

  it.each([
    [
      'chunks without choices',
      'data: {"id":"c","object":"chat.completion.chunk"}\n\ndata: [DONE]\n\n',
    ],
    ['a chunk that is not JSON', 'data: {"id":"c","choi\n\ndata: [DONE]\n\n'],
    ['no chunk at all', 'data: [DONE]\n\n'],
  ])(
    'assistant_conversation_reply_stream: a stream of %s is UPSTREAM_FAILED',
    async (_what, body) => {
      const { client, userId, conversationId } = await assistantClient();
      openai.answerRaw(body, 'text/event-stream');
      const result = (await client.callTool(
        {
          name: 'assistant_conversation_reply_stream',
          arguments: { conversation_id: conversationId, message: 'Hi', idempotency_key: key() },
        },
        undefined,
        { onprogress: () => undefined },
      )) as { structuredContent?: unknown; isError?: boolean };
      expect(result.isError).toBe(true);
      expect(errorOf(result)).toMatchObject({
        code: 'UPSTREAM_FAILED',
        message: expect.stringMatching(AI_MODEL),
      });
      expect(await ledger(userId)).toEqual([{ outcome: 'failed' }]);
    },
  );

  it('assistant_upload_create: facts drawn with a completion answered as {} are UPSTREAM_FAILED, nothing stored', async () => {
    const { client } = await assistantClient();
    openai.answerRaw('{}');
    const created = await callTool(client, 'assistant_upload_create', {
      idempotency_key: key(),
      file_name: 'notes.txt',
      content_type: 'text/plain',
      data: Buffer.from('Allergic to penicillin.').toString('base64'),
    });
    expect(errorOf(created)).toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: expect.stringMatching(AI_MODEL),
    });
    expect((await callTool(client, 'assistant_upload_list', {})).structuredContent).toMatchObject({
      items: [],
    });
  });
});

describe('the room-monitor cloud', () => {
  const MONITOR =
    /^The room-monitor cloud answered unexpectedly when asked to .+; try again later$/;
  let seq = 0;

  /** A person whose cloud account holds one device; `linked`: already linked. */
  async function person(linked: boolean) {
    const who = await seedUser(app);
    const clientId = `upstream-${++seq}`;
    cloud.addAccount(clientId, 'secret', [{ id: `serial-${seq}`, samples: [] }]);
    const link = () =>
      rest(app, 'POST', '/api/monitor/link', {
        token: who.token,
        body: { client_id: clientId, client_secret: 'secret' },
      });
    if (linked) expect((await link()).status).toBeLessThan(300);
    return { ...who, link };
  }

  it.each([...MALFORMED, ['a token that is a number', '{"access_token":5}']])(
    'link: a token answered as %s is a 502, nothing linked',
    async (_what, body, contentType) => {
      const who = await person(false);
      cloud.answerRaw(body, { request: /^POST \/v1\/token$/, contentType });
      expect502(await who.link(), MONITOR);
      expect(await app.db.prisma.monitorDevice.count({ where: { userId: who.user.id } })).toBe(0);
    },
  );

  it.each([
    ...MALFORMED,
    ['devices that are not a list', '{"devices":{"id":"x"}}'],
    ['a device without an id', '{"devices":[{"deviceType":"VIEW_PLUS"}]}'],
  ])('link: a devices list answered as %s is a 502', async (_what, body, contentType) => {
    const who = await person(false);
    cloud.answerRaw(body, { request: /^GET \/v1\/devices$/, contentType });
    expect502(await who.link(), MONITOR);
  });

  it.each([
    ...MALFORMED,
    ['times that are text', '{"data":{"time":["noon"]}}'],
    ['a column that is not a list', '{"data":{"time":[1],"co2":"high"}}'],
  ])(
    'GET /api/monitor/sync: samples answered as %s are a 502',
    async (_what, body, contentType) => {
      const who = await person(true);
      cloud.answerRaw(body, { request: /\/samples$/, contentType });
      expect502(await rest(app, 'GET', '/api/monitor/sync', { token: who.token }), MONITOR);
    },
  );
});

describe('identity-provider keys', () => {
  const key = idp.publicJwk;
  let providers = 0;
  /** Signs in with a token of `options` at the next JUNK provider, whose key set answers `body`. */
  async function signIn(body: string, contentType?: string, options = {}) {
    const provider = `junk${providers++}`;
    expect(providers).toBeLessThanOrEqual(JUNK_PROVIDERS);
    idp.answerMalformed(body, contentType);
    const token = await idp.sign({ iss: idp.url, aud: 'junk-app', sub: 'someone' }, options);
    const res = await rest(app, 'POST', '/api/auth/idp', { body: { provider, id_token: token } });
    return { res, who: new RegExp(`^The ${provider} key set answered unexpectedly`) };
  }
  const sets: [string, string, string?][] = [
    ...MALFORMED,
    ['keys that are not a list', '{"keys":"x"}'],
    ['a key that is not an object', '{"keys":[5]}'],
    ['the signing key without its type', JSON.stringify({ keys: [{ ...key, kty: undefined }] })],
    ['the signing key of another type', JSON.stringify({ keys: [{ ...key, kty: 'EC' }] })],
    ['the signing key without its modulus', JSON.stringify({ keys: [{ ...key, n: undefined }] })],
    ['the signing key with a broken modulus', JSON.stringify({ keys: [{ ...key, n: '!!' }] })],
    [
      'the signing key with a modulus of the wrong type',
      JSON.stringify({ keys: [{ ...key, n: 5 }] }),
    ],
  ];

  it.each(sets)(
    'sign-in: a key set answered as %s is a 502, not a 401 or a 500',
    async (_what, body, contentType) => {
      const { res, who } = await signIn(body, contentType);
      expect502(res, who);
    },
  );

  it('still answers 401 for a token whose key the set does not hold, or that it does not sign (the caller is at fault)', async () => {
    const sound = JSON.stringify({ keys: [key] });
    expect((await signIn(sound, undefined, { kid: 'unknown-key' })).res.status).toBe(401);
    expect((await signIn(sound, undefined, { key: idp.foreignKey })).res.status).toBe(401);
  });
});

/**
 * Push is delivery, not the request's purpose: a push service's malformed answer never fails the
 * request that sent the notification (it is stored in the inbox either way). A 2xx is the
 * service's acceptance whatever its body (`sent`); anything else is `failed` unless its status
 * says the token is dead (APNs 410; FCM's UNREGISTERED only when its error body says so).
 */
describe('push services', () => {
  let seq = 0;
  async function phoneOwner(platform: 'ios' | 'android') {
    const { user, token } = await seedUser(app);
    const device = `${platform}-upstream-${++seq}`;
    const registered = await rest(app, 'POST', '/api/devices/token', {
      token,
      body: { token: device, platform },
    });
    expect(registered.status).toBe(200);
    const pat = await seedPersonalToken(app, user.id, [
      'notifications:read',
      'notifications:write',
    ]);
    return { client: await mcpClient(app, pat), device };
  }

  it.each([
    ['ios', 200, 'text that is not JSON', '<html>ok</html>', 'sent'],
    ['android', 200, 'a JSON array', '[]', 'sent'],
    ['android', 200, 'truncated JSON', '{"name":', 'sent'],
    ['ios', 500, 'text that is not JSON', 'Internal error', 'failed'],
    ['ios', 400, 'a reason that is a number', '{"reason":5}', 'failed'],
    ['android', 404, 'details that are not a list', '{"error":{"details":"x"}}', 'failed'],
    [
      'android',
      404,
      'details of the wrong shape',
      '{"error":{"details":[null,5,{"errorCode":7}]}}',
      'failed',
    ],
    ['android', 500, 'an error that is text', '{"error":"boom"}', 'failed'],
  ] as const)(
    'notifications_test_send (%s): a %i answered as %s (%s) is %s, and the send succeeds',
    async (platform, status, _what, body, outcome) => {
      const { client, device } = await phoneOwner(platform);
      push.answerRaw(body, { status });
      const result = await callTool(client, 'notifications_test_send', {});
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        push_status: outcome,
        devices: 1,
        sent: outcome === 'sent' ? 1 : 0,
        retired: 0,
      });
      expect(push.to(device)).toHaveLength(1);
    },
  );
});
