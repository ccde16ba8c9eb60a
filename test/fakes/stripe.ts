/**
 * A fake Stripe API: a real HTTP server on 127.0.0.1 speaking the few Stripe paths the payments
 * domain calls, for the real `stripe` SDK (STRIPE_API_BASE points it here), so tests never reach
 * Stripe and never mock the SDK (issue 15). Bodies are form-encoded as the SDK sends them
 * (`items[0][price]=...`), answers are Stripe's JSON objects, errors Stripe's `{ error: {...} }`
 * shape with its statuses, and a repeated `Idempotency-Key` answers the first answer again.
 *
 * Paths: POST /v1/customers, GET /v1/customers/:id/payment_methods, POST /v1/subscriptions,
 * GET /v1/subscriptions/:id, POST /v1/payment_intents, GET /v1/payment_intents/:id,
 * POST /v1/payment_intents/:id/cancel, POST /v1/setup_intents, POST /v1/setup_intents/:id/cancel.
 *
 * Webhooks are signed with the SDK's own `webhooks.generateTestHeaderString` (`signedEvent`).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Stripe from 'stripe';
import { startHttpFake } from './http-fake.ts';
import { clock } from '../../src/base/clock.ts';

export const FAKE_STRIPE_KEY = 'sk_test_fake';
export const FAKE_WEBHOOK_SECRET = 'whsec_fake_secret';

type Json = Record<string, unknown>;

export interface FakeStripeRequest {
  method: string;
  path: string;
  form: Json;
  idempotencyKey: string | undefined;
}

export interface FakeStripe {
  /** STRIPE_API_BASE for the app, http://127.0.0.1:<port> */
  url: string;
  /** config overrides that point the app here (key, webhook secret, base, prices) */
  env: Record<string, string>;
  requests: FakeStripeRequest[];
  customers: Map<string, Json>;
  subscriptions: Map<string, Json>;
  paymentIntents: Map<string, Json>;
  setupIntents: Map<string, Json>;
  /** saves a card to a customer (the next order payment is confirmed with it) */
  attachCard(customer: string): string;
  /** the next card payment is declined */
  declineNext(): void;
  /** the next `times` requests answer this Stripe error status (500: the SDK sees an api_error) */
  failNext(status: number, times?: number): void;
  /**
   * The next request (or the next one `options.request` matches) is answered with this raw body,
   * status 200 and a JSON content type unless given: a malformed or unexpected answer, such as
   * `{}`, `null` or text that is not JSON.
   */
  answerRaw(body: string, options?: RawAnswer): void;
  /**
   * The next `times` requests (default 1; those `request` matches) are never answered: the fake
   * reads them and holds them open until the client gives up (or the fake closes).
   */
  neverAnswer(times?: number, request?: RegExp): void;
  /** sets what Stripe says of a subscription (what verify reads) */
  setSubscription(id: string, status: string, periodEnd: number): void;
  close(): Promise<void>;
}

/** The status and content type of a raw answer (`answerRaw`). */
export interface RawAnswer {
  status?: number;
  contentType?: string;
  /** only for a request whose `METHOD /path` this matches (default: the next request) */
  request?: RegExp;
}

const id = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Decodes Stripe's form encoding (`a[b][0][c]=v`) into nested objects and arrays. */
export function decodeForm(text: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/[[\]]+/).filter(Boolean);
    let node: Record<string, unknown> = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= /^\d+$/.test(parts[i + 1] ?? '') ? [] : {}) as Json;
    });
  }
  return root;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
  res.end(JSON.stringify(body));
}

function stripeError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  extra: Json = {},
): void {
  send(res, status, { error: { type, message, ...extra } });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const now = (): number => Math.floor(clock.ms() / 1000);

/** Starts the fake; closed after the test file. `prices` are the plans' price ids it knows. */
export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  const customers = new Map<string, Json>();
  const subscriptions = new Map<string, Json>();
  const paymentIntents = new Map<string, Json>();
  const setupIntents = new Map<string, Json>();
  const cards = new Map<string, string[]>();
  const replays = new Map<string, { status: number; body: unknown }>();
  const raw: (RawAnswer & { body: string })[] = [];
  const silent: { request?: RegExp }[] = [];
  let decline = false;
  let failStatus: number | null = null;
  let failures = 0;

  function intent(form: Json): [number, unknown] {
    const amount = Number(form.amount);
    if (!Number.isInteger(amount) || amount < 50)
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            param: 'amount',
            message: 'Amount must be at least 50 cents',
          },
        },
      ];
    const pi = id('pi');
    const confirm = form.confirm === 'true';
    if (confirm && decline) {
      decline = false;
      return [
        402,
        {
          error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: 'insufficient_funds',
            message: 'Your card has insufficient funds.',
          },
        },
      ];
    }
    const object: Json = {
      id: pi,
      object: 'payment_intent',
      amount,
      currency: form.currency,
      customer: form.customer ?? null,
      capture_method: form.capture_method ?? 'automatic',
      client_secret: `${pi}_secret_${randomBytes(8).toString('hex')}`,
      created: now(),
      metadata: form.metadata ?? {},
      payment_method: form.payment_method ?? null,
      receipt_email: form.receipt_email ?? null,
      status: confirm ? 'succeeded' : 'requires_payment_method',
      livemode: false,
    };
    paymentIntents.set(pi, object);
    return [200, object];
  }

  function route(method: string, path: string, form: Json): [number, unknown] {
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/v1/customers') {
      const object = {
        id: id('cus'),
        object: 'customer',
        email: form.email ?? null,
        metadata: form.metadata ?? {},
        created: now(),
      };
      customers.set(object.id, object);
      return [200, object];
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/customers\/([^/]+)\/payment_methods$/))) {
      const list = (cards.get(m[1] ?? '') ?? []).map((pm) => ({
        id: pm,
        object: 'payment_method',
        type: 'card',
      }));
      return [
        200,
        { object: 'list', data: list.slice(0, 1), has_more: list.length > 1, url: path },
      ];
    }
    if (method === 'POST' && path === '/v1/subscriptions') {
      const customer = typeof form.customer === 'string' ? form.customer : '';
      if (!customers.has(customer))
        return [
          400,
          {
            error: {
              type: 'invalid_request_error',
              param: 'customer',
              message: `No such customer: '${customer}'`,
            },
          },
        ];
      const items = (form.items as Json[] | undefined) ?? [];
      const price = typeof items[0]?.price === 'string' ? items[0].price : '';
      const sub = id('sub');
      const inv = id('in');
      const created = now();
      const object: Json = {
        id: sub,
        object: 'subscription',
        customer,
        status: 'incomplete',
        created,
        metadata: form.metadata ?? {},
        items: {
          object: 'list',
          data: [
            {
              id: id('si'),
              object: 'subscription_item',
              price: { id: price, object: 'price' },
              current_period_start: created,
              current_period_end: created + 30 * 86400,
            },
          ],
        },
        latest_invoice: inv,
      };
      subscriptions.set(sub, object);
      const expand = Object.values((form.expand as Json | string[] | undefined) ?? {});
      const answer = expand.includes('latest_invoice.confirmation_secret')
        ? {
            ...object,
            latest_invoice: {
              id: inv,
              object: 'invoice',
              confirmation_secret: {
                client_secret: `${inv}_secret_${randomBytes(8).toString('hex')}`,
                type: 'payment_intent',
              },
            },
          }
        : object;
      return [200, answer];
    }
    if (method === 'GET' && (m = path.match(/^\/v1\/subscriptions\/([^/]+)$/))) {
      const object = subscriptions.get(m[1] ?? '');
      if (!object)
        return [
          404,
          { error: { type: 'invalid_request_error', message: `No such subscription: '${m[1]}'` } },
        ];
      return [200, object];
    }
    if (method === 'POST' && path === '/v1/payment_intents') return intent(form);
    if ((m = path.match(/^\/v1\/(payment_intents|setup_intents)\/([^/]+)(\/cancel)?$/))) {
      const store = m[1] === 'payment_intents' ? paymentIntents : setupIntents;
      const object = store.get(m[2] ?? '');
      if (!object)
        return [
          404,
          {
            error: {
              type: 'invalid_request_error',
              code: 'resource_missing',
              message: `No such ${m[1]}: '${m[2]}'`,
            },
          },
        ];
      if (method === 'GET' && !m[3]) return [200, object];
      if (method === 'POST' && m[3]) {
        if (object.status === 'succeeded' || object.status === 'canceled')
          return [
            400,
            {
              error: {
                type: 'invalid_request_error',
                code: `${m[1] === 'payment_intents' ? 'payment_intent' : 'setup_intent'}_unexpected_state`,
                message: `You cannot cancel this ${m[1]} because it has a status of ${String(object.status)}.`,
              },
            },
          ];
        object.status = 'canceled';
        return [200, object];
      }
    }
    if (method === 'POST' && path === '/v1/setup_intents') {
      const seti = id('seti');
      const object = {
        id: seti,
        object: 'setup_intent',
        customer: form.customer ?? null,
        usage: form.usage ?? 'off_session',
        status: 'requires_payment_method',
        client_secret: `${seti}_secret_${randomBytes(8).toString('hex')}`,
        created: now(),
      };
      setupIntents.set(seti, object);
      return [200, object];
    }
    return [
      404,
      {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${method}: ${path})`,
        },
      },
    ];
  }

  const fake = await startHttpFake((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://fake');
      const form = decodeForm(req.method === 'GET' ? url.search.slice(1) : text);
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      requests.push({ method: req.method ?? '', path: url.pathname, form, idempotencyKey });
      if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_KEY}`)
        return stripeError(res, 401, 'invalid_request_error', 'Invalid API Key provided');
      const hang = silent.findIndex(
        (h) => !h.request || h.request.test(`${req.method} ${url.pathname}`),
      );
      if (hang >= 0) return void silent.splice(hang, 1); // no answer: the response stays open
      if (failStatus !== null && failures > 0) {
        const status = failStatus;
        failures -= 1;
        return stripeError(res, status, 'api_error', 'Something went wrong on our end.');
      }
      const at = raw.findIndex(
        (r) => !r.request || r.request.test(`${req.method} ${url.pathname}`),
      );
      const next = at >= 0 ? raw.splice(at, 1)[0] : undefined;
      if (next) {
        res.writeHead(next.status ?? 200, {
          'content-type': next.contentType ?? 'application/json',
          'request-id': id('req'),
        });
        return res.end(next.body);
      }
      const replayKey = idempotencyKey && `${req.method} ${url.pathname} ${idempotencyKey}`;
      const replay = replayKey ? replays.get(replayKey) : undefined;
      if (replay) return send(res, replay.status, replay.body);
      const [status, body] = route(req.method ?? '', url.pathname, form);
      if (replayKey && status < 500) replays.set(replayKey, { status, body });
      send(res, status, body);
    })();
  });

  return {
    url: fake.origin,
    env: {
      STRIPE_SECRET_KEY: FAKE_STRIPE_KEY,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
      STRIPE_WEBHOOK_SECRET: FAKE_WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.origin,
      STRIPE_PRICE_PREMIUM_MONTHLY: 'price_monthly',
      STRIPE_PRICE_PREMIUM_YEARLY: 'price_yearly',
    },
    requests,
    customers,
    subscriptions,
    paymentIntents,
    setupIntents,
    attachCard: (customer) => {
      const pm = id('pm');
      cards.set(customer, [...(cards.get(customer) ?? []), pm]);
      return pm;
    },
    declineNext: () => {
      decline = true;
    },
    answerRaw: (body, options = {}) => void raw.push({ ...options, body }),
    neverAnswer: (times = 1, request) => {
      for (let i = 0; i < times; i++) silent.push({ request });
    },
    failNext: (status, times = 1) => {
      failStatus = status;
      failures = times;
    },
    setSubscription: (sub, status, periodEnd) => {
      const object = subscriptions.get(sub);
      if (!object) throw new Error(`no subscription ${sub}`);
      object.status = status;
      const item = (object.items as { data: Json[] }).data[0];
      if (item) item.current_period_end = periodEnd;
    },
    close: () => fake.close(),
  };
}

const signer = new Stripe(FAKE_STRIPE_KEY);

export interface SignedEvent {
  id: string;
  /** the body exactly as Stripe sends it */
  body: string;
  /** the Stripe-Signature header for it */
  signature: string;
}

/** A Stripe event of `type` about `object`, signed with the SDK's own test header. */
export function signedEvent(
  type: string,
  object: Json,
  options: { created?: number; id?: string; secret?: string; timestamp?: number } = {},
): SignedEvent {
  const eventId = options.id ?? id('evt');
  const body = JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2025-01-01',
    created: options.created ?? now(),
    type,
    livemode: false,
    pending_webhooks: 1,
    data: { object },
  });
  const signature = signer.webhooks.generateTestHeaderString({
    payload: body,
    secret: options.secret ?? FAKE_WEBHOOK_SECRET,
    ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
  });
  return { id: eventId, body, signature };
}
