/**
 * Payments (issue 15): subscriptions and the entitlement, the signed Stripe webhook (exactly once,
 * any order), one-off intents for the payment sheet, the public config, and the MCP `orders`
 * family. The real `stripe` SDK talks to the suite's own Stripe server (test/fakes/stripe.ts);
 * webhooks are signed with the SDK's generateTestHeaderString.
 */
import { describe, expect, it } from 'vitest';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { FAKE_WEBHOOK_SECRET, signedEvent, startFakeStripe } from '../fakes/stripe.ts';
import type { SignedEvent } from '../fakes/stripe.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, rest } from '../harness/clients.ts';
import { callTool, mcpClient, rpc } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const stripe = await startFakeStripe();
const smtp = await startFakeSmtp();
const { STRIPE_PRICE_PREMIUM_YEARLY: _yearly, ...env } = stripe.env;
const app = await startTestApp({
  ...env,
  SMTP_URL: smtp.url,
  KIT_PRICE_CENTS: '12900',
  PAYMENTS_CURRENCY: 'eur',
  PAYMENTS_INTENTS_PER_IP_PER_HOUR: '4',
});
/** Issue 45: a second replica of the deployment (same database) whose Stripe requests wait 200 ms. */
const impatient = await startTestApp(
  { ...env, STRIPE_TIMEOUT_MS: '200', PAYMENTS_INTENTS_PER_IP_PER_HOUR: '4' },
  { database: app.db },
);
const prisma = app.db.prisma;
const now = (): number => Math.floor(clock.ms() / 1000);

const post = (path: string, options: { token?: string; body?: unknown } = {}) =>
  rest(app, 'POST', path, { ...options, headers: fromNewIp() });

/** Delivers a signed event to the webhook as Stripe does (raw JSON body, signature header). */
const deliver = (event: SignedEvent, signature = event.signature) =>
  app
    .fetch('/api/subscriptions/webhook', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: event.body,
    })
    .then(async (res) => ({ status: res.status, body: await res.json() }));

async function subscribed(person: SeededUser) {
  const res = await post('/api/subscriptions/create-subscription?plan=premium_monthly', {
    token: person.token,
  });
  expect(res.status).toBe(200);
  return res.body as { subscription_id: string; customer_id: string; client_secret: string };
}

const subscriptionObject = (
  sub: string,
  customer: string,
  status: string,
  periodEnd: number,
  price = 'price_monthly',
) => ({
  id: sub,
  object: 'subscription',
  customer,
  status,
  items: { object: 'list', data: [{ price: { id: price }, current_period_end: periodEnd }] },
});

const entitlement = (userId: number) =>
  prisma.entitlement.findUniqueOrThrow({
    where: { userId },
    select: { plan: true, status: true, currentPeriodEnd: true, stripeSubscriptionId: true },
  });

describe('GET /api/payments/config', () => {
  it('answers the publishable key and the kit price, never the secret key', async () => {
    const res = await rest(app, 'GET', '/api/payments/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      publishable_key: 'pk_test_fake',
      kit_price_cents: 12900,
      currency: 'eur',
    });
    expect(JSON.stringify(res.body)).not.toContain('sk_');
  });
});

describe('without STRIPE_SECRET_KEY', () => {
  it('answers 503 with a clear detail on every payment route (config still answers)', async () => {
    const off = await startTestApp({});
    const person = await seedUser(off);
    const calls: [string, string, string?][] = [
      ['POST', '/api/payments/kit-intent'],
      ['POST', '/api/payments/auth-intent'],
      ['POST', '/api/payments/setup-intent'],
      ['POST', '/api/subscriptions/create-subscription?plan=premium_monthly', person.token],
      ['POST', '/api/subscriptions/verify', person.token],
    ];
    for (const [method, path, token] of calls) {
      const res = await rest(off, method, path, { token, body: {} });
      expect([path, res.status, res.body]).toMatchObject([path, 503, {}]);
      expect(res.body.detail).toContain('STRIPE_SECRET_KEY');
      expect(res.headers.get('retry-after')).toBeTruthy();
    }
    const cancel = await rest(off, 'POST', '/api/payments/cancel-intent', {
      body: { client_secret: 'pi_1_secret_2' },
    });
    expect(cancel.status).toBe(503);
    const hook = await off.fetch('/api/subscriptions/webhook', { method: 'POST', body: '{}' });
    expect(hook.status).toBe(503);
    expect((await rest(off, 'GET', '/api/payments/config')).body.publishable_key).toBeNull();
  });
});

describe('POST /api/subscriptions/create-subscription', () => {
  it('is 401 without a bearer, before the plan is looked at', async () => {
    expect((await post('/api/subscriptions/create-subscription')).status).toBe(401);
    expect((await post('/api/subscriptions/create-subscription?plan=x')).status).toBe(401);
  });

  it('is 422 for a missing or unknown plan, located in the query', async () => {
    const person = await seedUser(app);
    const missing = await post('/api/subscriptions/create-subscription', { token: person.token });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['query', 'plan']);
    const unknown = await post('/api/subscriptions/create-subscription?plan=gold', {
      token: person.token,
    });
    expect(unknown.status).toBe(422);
  });

  it('refuses a personal token (a person subscribes from the app)', async () => {
    const person = await seedUser(app);
    const pat = await seedPersonalToken(app, person.user.id, ['orders:pay', 'orders:read']);
    const res = await post('/api/subscriptions/create-subscription?plan=premium_monthly', {
      token: pat,
    });
    expect([401, 403]).toContain(res.status);
  });

  it('creates the customer once and an incomplete subscription; answers the client secret', async () => {
    const person = await seedUser(app);
    const first = await subscribed(person);
    expect(first.client_secret).toMatch(/^in_\w+_secret_/);
    const second = await subscribed(person);
    expect(second.customer_id).toBe(first.customer_id);
    expect(stripe.customers.get(first.customer_id)).toMatchObject({
      email: person.user.email,
      metadata: { user_id: String(person.user.id) },
    });
    const created = stripe.requests.filter(
      (r) => r.path === '/v1/subscriptions' && r.form.customer === first.customer_id,
    );
    expect(created[0]?.form).toMatchObject({
      items: [{ price: 'price_monthly' }],
      payment_behavior: 'default_incomplete',
    });
    expect(await entitlement(person.user.id)).toMatchObject({
      plan: 'premium_monthly',
      status: 'incomplete',
    });
  });

  it('is 503 plan_unavailable for a plan without a configured price', async () => {
    const person = await seedUser(app);
    const res = await post('/api/subscriptions/create-subscription?plan=premium_yearly', {
      token: person.token,
    });
    expect(res.status).toBe(503);
  });

  it('is 502 when Stripe fails, and stores no subscription', async () => {
    const person = await seedUser(app);
    stripe.failNext(500, 2); // the SDK retries once
    const res = await post('/api/subscriptions/create-subscription?plan=premium_monthly', {
      token: person.token,
    });
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatchObject({ code: 'payment_provider_error' });
    const held = await prisma.entitlement.findUnique({ where: { userId: person.user.id } });
    expect(held?.stripeSubscriptionId ?? null).toBeNull();
  });
});

describe('POST /api/subscriptions/verify', () => {
  it('is 401 without a bearer', async () => {
    expect((await post('/api/subscriptions/verify')).status).toBe(401);
  });

  it('answers none for a person who never subscribed, without asking Stripe', async () => {
    const person = await seedUser(app);
    const before = stripe.requests.length;
    const res = await post('/api/subscriptions/verify', { token: person.token });
    expect(res.body).toEqual({
      plan: null,
      status: 'none',
      active: false,
      current_period_end: null,
    });
    expect(stripe.requests.length).toBe(before);
  });

  it("updates the entitlement from Stripe's answer; an older webhook does not undo it", async () => {
    const person = await seedUser(app);
    const sub = await subscribed(person);
    const periodEnd = now() + 30 * 86400;
    stripe.setSubscription(sub.subscription_id, 'active', periodEnd);
    const res = await post('/api/subscriptions/verify', { token: person.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      plan: 'premium_monthly',
      status: 'active',
      active: true,
      current_period_end: new Date(periodEnd * 1000).toISOString(),
    });
    const stale = signedEvent(
      'customer.subscription.updated',
      subscriptionObject(sub.subscription_id, sub.customer_id, 'incomplete', periodEnd),
      { created: now() - 60 },
    );
    expect((await deliver(stale)).status).toBe(200);
    expect((await entitlement(person.user.id)).status).toBe('active');
  });
});

describe('POST /api/subscriptions/webhook', () => {
  it('applies a signed event once; a repeated delivery is acknowledged without effect', async () => {
    const person = await seedUser(app);
    const sub = await subscribed(person);
    const event = signedEvent(
      'customer.subscription.updated',
      subscriptionObject(sub.subscription_id, sub.customer_id, 'active', now() + 86400),
    );
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, applied: true } });
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, applied: false } });
    expect(await prisma.stripeEvent.count({ where: { id: event.id } })).toBe(1);
    expect((await entitlement(person.user.id)).status).toBe('active');
  });

  it('acknowledges and ignores unknown event types', async () => {
    const event = signedEvent('charge.dispute.funds_withdrawn', { id: 'du_1', object: 'dispute' });
    expect(await deliver(event)).toEqual({ status: 200, body: { received: true, applied: true } });
  });

  it('is 400 and changes nothing for a bad, missing, stale, foreign or tampered signature', async () => {
    const person = await seedUser(app);
    const sub = await subscribed(person);
    const object = subscriptionObject(sub.subscription_id, sub.customer_id, 'active', now() + 1);
    const good = signedEvent('customer.subscription.updated', object);
    const stale = signedEvent('customer.subscription.updated', object, {
      timestamp: now() - 301,
    });
    const foreign = signedEvent('customer.subscription.updated', object, {
      secret: 'whsec_someone_else',
    });
    const tampered = { ...good, body: good.body.replace('"active"', '"trialing"') };
    const cases: [SignedEvent, string][] = [
      [good, 't=1,v1=00'],
      [good, ''],
      [stale, stale.signature],
      [foreign, foreign.signature],
      [tampered, good.signature],
    ];
    for (const [event, signature] of cases) {
      const res = await deliver(event, signature);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatchObject({ code: 'invalid_signature' });
    }
    const missing = await app.fetch('/api/subscriptions/webhook', {
      method: 'POST',
      body: good.body,
    });
    expect(missing.status).toBe(400);
    expect(await prisma.stripeEvent.count({ where: { id: good.id } })).toBe(0);
    expect((await entitlement(person.user.id)).status).toBe('incomplete');
  });

  it('has 0 effects from 1,000 forged signatures (rows counted before and after)', async () => {
    const person = await seedUser(app);
    const sub = await subscribed(person);
    const order = await prisma.order.create({
      data: {
        userId: person.user.id,
        product: 'kit',
        quantity: 1,
        amountCents: 12900,
        currency: 'eur',
        paymentIntentId: `pi_forged_${person.user.id}`,
      },
    });
    const counts = async () => ({
      events: await prisma.stripeEvent.count(),
      entitlements: await prisma.entitlement.findMany({ orderBy: { id: 'asc' } }),
      orders: await prisma.order.findMany({ orderBy: { id: 'asc' } }),
      intents: await prisma.paymentIntentRecord.count(),
    });
    const before = await counts();
    const forged = Array.from({ length: 1000 }, (_, i) => {
      const kind = i % 4;
      const object =
        kind % 2 === 0
          ? subscriptionObject(sub.subscription_id, sub.customer_id, 'active', now() + 86400)
          : { id: order.paymentIntentId, object: 'payment_intent', status: 'succeeded' };
      const type = kind % 2 === 0 ? 'customer.subscription.updated' : 'payment_intent.succeeded';
      const real = signedEvent(type, object, {
        secret: kind === 0 ? 'whsec_wrong' : FAKE_WEBHOOK_SECRET,
        ...(kind === 3 ? { timestamp: now() - 3600 } : {}),
      });
      // kind 0: wrong secret; 1: a signature of other bytes; 2: made-up digest; 3: too old
      const signature =
        kind === 1
          ? signedEvent(type, { id: 'x' }).signature
          : kind === 2
            ? `t=${now()},v1=${'ab'.repeat(32)}`
            : real.signature;
      return { event: real, signature };
    });
    const statuses = new Map<number, number>();
    for (let i = 0; i < forged.length; i += 25) {
      const batch = await Promise.all(
        forged.slice(i, i + 25).map(({ event, signature }) => deliver(event, signature)),
      );
      for (const r of batch) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 400: 1000 });
    expect(await counts()).toEqual(before);
  });

  it('ends 20x duplicated and shuffled deliveries in the state of one ordered delivery', async () => {
    // one clock for both stories: each taking its own now() put their period ends a second apart
    // whenever the two straddled a second (the states then differed by that second); 30 s ahead,
    // so that it is after both subscriptions' creation
    const t = now() + 30;
    /** The same story for one person: their subscription's life and two orders' payments. */
    async function story(person: SeededUser) {
      const sub = await subscribed(person);
      // one after another, so ids (and the state's order) follow the tags
      const orders = [];
      for (const tag of ['paid', 'canceled', 'late']) {
        orders.push(
          await prisma.order.create({
            data: {
              userId: person.user.id,
              product: 'kit',
              quantity: 1,
              amountCents: 12900,
              currency: 'eur',
              paymentIntentId: `pi_${tag}_${person.user.id}`,
            },
          }),
        );
      }
      // t: after the subscription was created (its creation is the state held until then)
      const s = (status: string, end: number) =>
        subscriptionObject(sub.subscription_id, sub.customer_id, status, end);
      const pi = (tag: string, status: string) => ({
        id: `pi_${tag}_${person.user.id}`,
        object: 'payment_intent',
        status,
      });
      const sequence = [
        signedEvent('customer.subscription.created', s('incomplete', t + 100), { created: t }),
        // the same second: a later stage ranks higher
        signedEvent('customer.subscription.updated', s('active', t + 100), { created: t }),
        signedEvent('payment_intent.processing', pi('paid', 'processing'), { created: t + 1 }),
        signedEvent('payment_intent.succeeded', pi('paid', 'succeeded'), { created: t + 2 }),
        signedEvent('payment_intent.canceled', pi('canceled', 'canceled'), { created: t + 2 }),
        signedEvent('customer.subscription.updated', s('past_due', t + 100), { created: t + 3 }),
        signedEvent('customer.subscription.updated', s('active', t + 200), { created: t + 4 }),
        signedEvent('payment_intent.canceled', pi('late', 'canceled'), { created: t + 5 }),
        // the money was taken after all: paid wins over canceled
        signedEvent('payment_intent.succeeded', pi('late', 'succeeded'), { created: t + 6 }),
        signedEvent('invoice.paid', { id: 'in_x', object: 'invoice' }, { created: t + 6 }),
        signedEvent('customer.subscription.updated', s('active', t + 300), { created: t + 7 }),
      ];
      return { sequence, orderIds: orders.map((o) => o.id) };
    }
    const state = async (person: SeededUser, orderIds: number[]) => ({
      entitlement: await entitlement(person.user.id).then(({ stripeSubscriptionId: _, ...e }) => e),
      orders: (
        await prisma.order.findMany({ where: { id: { in: orderIds } }, orderBy: { id: 'asc' } })
      ).map((o) => o.status),
    });

    const ordered = await seedUser(app);
    const one = await story(ordered);
    for (const event of one.sequence) expect((await deliver(event)).status).toBe(200);
    const expected = await state(ordered, one.orderIds);
    expect(expected).toMatchObject({
      entitlement: { status: 'active', plan: 'premium_monthly' },
      orders: ['paid', 'canceled', 'paid'],
    });

    const shuffled = await seedUser(app);
    const many = await story(shuffled);
    let seed = 15;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const deliveries = many.sequence.flatMap((e) => Array.from({ length: 20 }, () => e));
    for (let i = deliveries.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [deliveries[i], deliveries[j]] = [deliveries[j], deliveries[i]];
    }
    const applied: boolean[] = [];
    for (let i = 0; i < deliveries.length; i += 10) {
      const batch = await Promise.all(deliveries.slice(i, i + 10).map((e) => deliver(e)));
      for (const r of batch) {
        expect(r.status).toBe(200);
        applied.push(r.body.applied);
      }
    }
    expect(applied.filter(Boolean).length).toBe(many.sequence.length);
    expect(await state(shuffled, many.orderIds)).toEqual(expected);
  });
});

describe('intents for the payment sheet', () => {
  it('kit-intent charges the full kit price times the quantity, whatever amount is sent', async () => {
    const res = await post('/api/payments/kit-intent', { body: { quantity: '2', amount: 1 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      amount_cents: 25800,
      currency: 'eur',
      status: 'requires_payment_method',
      publishable_key: 'pk_test_fake',
    });
    expect(res.body.client_secret).toMatch(new RegExp(`^${res.body.id}_secret_`));
    expect(stripe.paymentIntents.get(res.body.id)).toMatchObject({ amount: 25800 });
    const empty = await post('/api/payments/kit-intent');
    expect(empty.body.amount_cents).toBe(12900);
  });

  it('is 422 for a quantity out of 1..5 or a bad email', async () => {
    expect((await post('/api/payments/kit-intent', { body: { quantity: 6 } })).status).toBe(422);
    expect((await post('/api/payments/kit-intent', { body: { quantity: 0 } })).status).toBe(422);
    expect((await post('/api/payments/kit-intent', { body: { email: 'nope' } })).status).toBe(422);
  });

  it('auth-intent holds the kit price (manual capture)', async () => {
    const res = await post('/api/payments/auth-intent', { body: {} });
    expect(res.status).toBe(200);
    expect(stripe.paymentIntents.get(res.body.id)).toMatchObject({
      amount: 12900,
      capture_method: 'manual',
    });
  });

  it("setup-intent saves to the signed-in person's customer, and to none anonymously", async () => {
    const anonymous = await post('/api/payments/setup-intent', { body: {} });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.id).toMatch(/^seti_/);
    expect(stripe.setupIntents.get(anonymous.body.id)?.customer).toBeNull();
    const person = await seedUser(app);
    const mine = await post('/api/payments/setup-intent', { token: person.token, body: {} });
    const customer = (
      await prisma.entitlement.findUniqueOrThrow({ where: { userId: person.user.id } })
    ).stripeCustomerId;
    expect(stripe.setupIntents.get(mine.body.id)?.customer).toBe(customer);
  });

  it('counts intents per client IP (429 beyond PAYMENTS_INTENTS_PER_IP_PER_HOUR)', async () => {
    const ip = fromNewIp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (await rest(app, 'POST', '/api/payments/kit-intent', { body: {}, headers: ip })).status,
      );
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });

  it('cancel-intent needs the client secret, or the bearer of the person who made it', async () => {
    const a = (await post('/api/payments/kit-intent', { body: {} })).body;
    const b = (await post('/api/payments/kit-intent', { body: {} })).body;
    // another intent's secret, or the id alone, names nothing the caller may cancel
    const foreign = await post('/api/payments/cancel-intent', {
      body: { intent_id: a.id, client_secret: b.client_secret },
    });
    expect(foreign.status).toBe(404);
    expect((await post('/api/payments/cancel-intent', { body: { intent_id: a.id } })).status).toBe(
      404,
    );
    expect(
      (await post('/api/payments/cancel-intent', { body: { client_secret: 'pi_nope_secret_x' } }))
        .status,
    ).toBe(404);
    expect((await post('/api/payments/cancel-intent', { body: {} })).status).toBe(422);
    expect(stripe.paymentIntents.get(a.id)?.status).toBe('requires_payment_method');

    const ok = await post('/api/payments/cancel-intent', {
      body: { client_secret: a.client_secret },
    });
    expect(ok).toMatchObject({ status: 200, body: { id: a.id, status: 'canceled' } });
    expect(stripe.paymentIntents.get(a.id)?.status).toBe('canceled');

    const owner = await seedUser(app);
    const other = await seedUser(app);
    const mine = (await post('/api/payments/setup-intent', { token: owner.token, body: {} })).body;
    const byOther = await post('/api/payments/cancel-intent', {
      token: other.token,
      body: { intent_id: mine.id },
    });
    expect(byOther.status).toBe(404);
    const byOwner = await post('/api/payments/cancel-intent', {
      token: owner.token,
      body: { intent_id: mine.id },
    });
    expect(byOwner.body).toEqual({ id: mine.id, status: 'canceled' });
  });
});

describe('MCP orders family', () => {
  const ALL = ['orders:read', 'orders:pay', 'orders:write'] as const;
  let keySeq = 0;
  const key = () => `order-key-${clock.ms()}-${++keySeq}`;
  const result = (r: { structuredContent?: unknown }) => r.structuredContent as any;

  async function client(person: SeededUser, scopes: readonly string[] = ALL) {
    const token = await seedPersonalToken(app, person.user.id, [...scopes] as never);
    return mcpClient(app, token);
  }

  it('reads the catalogue at the configured price', async () => {
    const c = await client(await seedUser(app), ['orders:read']);
    const res = await callTool(c, 'orders_catalog_read');
    expect(JSON.stringify(result(res))).toContain('"price_cents":12900');
  });

  it('creates an order only with confirm, once per idempotency key', async () => {
    const person = await seedUser(app);
    const c = await client(person);
    const refused = await callTool(c, 'orders_order_create', {
      product: 'kit',
      idempotency_key: key(),
    });
    expect(result(refused).error.code).toBe('CONFIRMATION_REQUIRED');
    expect(await prisma.order.count({ where: { userId: person.user.id } })).toBe(0);

    const k = key();
    const args = { product: 'kit', quantity: 2, confirm: true, idempotency_key: k };
    const first = await callTool(c, 'orders_order_create', args);
    expect(result(first)).toMatchObject({
      product: 'kit',
      quantity: 2,
      amount_cents: 25800,
      status: 'pending',
    });
    const retried = await callTool(c, 'orders_order_create', args);
    expect(result(retried).id).toBe(result(first).id);
    expect(await prisma.order.count({ where: { userId: person.user.id } })).toBe(1);
    const noKey = await callTool(c, 'orders_order_create', { product: 'kit', confirm: true });
    expect(result(noKey).error.code).toBe('VALIDATION_FAILED');
  });

  it('pays an order with one PaymentIntent for its total; the webhook marks it paid; 409 after', async () => {
    const person = await seedUser(app);
    const c = await client(person);
    const order = result(
      await callTool(c, 'orders_order_create', {
        product: 'kit',
        confirm: true,
        idempotency_key: key(),
      }),
    );
    const payArgs = () => ({ id: order.id, confirm: true, idempotency_key: key() });
    const paid = result(await callTool(c, 'orders_order_pay', payArgs()));
    expect(paid).toMatchObject({ payment_status: 'requires_payment_method' });
    expect(paid.client_secret).toMatch(/_secret_/);
    const again = result(await callTool(c, 'orders_order_pay', payArgs()));
    expect(again.payment_intent_id).toBe(paid.payment_intent_id);
    expect(
      [...stripe.paymentIntents.values()].filter(
        (p) => (p.metadata as any).order_id === String(order.id),
      ),
    ).toHaveLength(1);
    expect(stripe.paymentIntents.get(paid.payment_intent_id)).toMatchObject({
      amount: 12900,
      currency: 'eur',
    });

    const event = signedEvent('payment_intent.succeeded', {
      id: paid.payment_intent_id,
      object: 'payment_intent',
      status: 'succeeded',
    });
    expect((await deliver(event)).status).toBe(200);
    const read = result(await callTool(c, 'orders_order_read', { id: order.id }));
    expect(read.status).toBe('paid');
    const late = await callTool(c, 'orders_order_pay', payArgs());
    expect(result(late).error).toMatchObject({ code: 'CONFLICT' });
  });

  it('pays at once with a saved card; a declined card leaves the order pending', async () => {
    const person = await seedUser(app);
    const c = await client(person);
    const create = async () =>
      result(
        await callTool(c, 'orders_order_create', {
          product: 'kit',
          confirm: true,
          idempotency_key: key(),
        }),
      );
    // the person saves a card in the app first (their customer exists from the setup intent)
    await post('/api/payments/setup-intent', { token: person.token, body: {} });
    const customer = (
      await prisma.entitlement.findUniqueOrThrow({ where: { userId: person.user.id } })
    ).stripeCustomerId!;
    stripe.attachCard(customer);
    const declined = await create();
    stripe.declineNext();
    const refused = await callTool(c, 'orders_order_pay', {
      id: declined.id,
      confirm: true,
      idempotency_key: key(),
    });
    expect(result(refused).error).toMatchObject({
      code: 'BAD_REQUEST',
      detail: { code: 'insufficient_funds' },
    });
    expect((await prisma.order.findUniqueOrThrow({ where: { id: declined.id } })).status).toBe(
      'pending',
    );
    const order = await create();
    const paid = result(
      await callTool(c, 'orders_order_pay', {
        id: order.id,
        confirm: true,
        idempotency_key: key(),
      }),
    );
    expect(paid).toMatchObject({ payment_status: 'succeeded', client_secret: null });
    expect(paid.order.status).toBe('paid');
  });

  it("answers 404 for another person's order and lists only one's own", async () => {
    const owner = await seedUser(app);
    const other = await seedUser(app);
    const mine = result(
      await callTool(await client(owner), 'orders_order_create', {
        product: 'kit',
        confirm: true,
        idempotency_key: key(),
      }),
    );
    const c = await client(other);
    expect(result(await callTool(c, 'orders_order_read', { id: mine.id })).error.code).toBe(
      'NOT_FOUND',
    );
    const pay = await callTool(c, 'orders_order_pay', {
      id: mine.id,
      confirm: true,
      idempotency_key: key(),
    });
    expect(result(pay).error.code).toBe('NOT_FOUND');
    expect(JSON.stringify(result(await callTool(c, 'orders_list_read')))).not.toContain(
      `"id":${mine.id},`,
    );
    expect(
      JSON.stringify(result(await callTool(await client(owner), 'orders_list_read'))),
    ).toContain(`"id":${mine.id},`);
  });

  it('offers only the tools the token holds scopes for', async () => {
    const c = await client(await seedUser(app), ['orders:read']);
    const names = (await c.listTools()).tools
      .map((t) => t.name)
      .filter((n) => n.startsWith('orders_'));
    expect(names.sort()).toEqual([
      'orders_catalog_read',
      'orders_list_read',
      'orders_order_read',
      'orders_waitlist_list',
    ]);
  });

  it("joins, lists and leaves a product's waitlist under the person's address (leave needs confirm)", async () => {
    const person = await seedUser(app);
    const c = await client(person);
    expect(result(await callTool(c, 'orders_waitlist_join', { product: 'premium' }))).toEqual({
      ok: true,
    });
    await smtp.waitFor(person.user.email);
    const listed = JSON.stringify(result(await callTool(c, 'orders_waitlist_list')));
    expect(listed).toContain('"product":"premium"');
    expect(listed).toContain('"status":"pending"');
    const refused = await callTool(c, 'orders_waitlist_leave', { product: 'premium' });
    expect(result(refused).error.code).toBe('CONFIRMATION_REQUIRED');
    const left = await callTool(c, 'orders_waitlist_leave', { product: 'premium', confirm: true });
    expect(result(left)).toEqual({ ok: true });
    expect(
      await prisma.waitlistEntry.count({ where: { email: person.user.email, product: 'premium' } }),
    ).toBe(0);
    const again = await callTool(c, 'orders_waitlist_leave', { product: 'premium', confirm: true });
    expect(result(again).error.code).toBe('NOT_FOUND');
    const bad = await callTool(c, 'orders_waitlist_join', { product: 'yacht' });
    expect(result(bad).error.code).toBe('VALIDATION_FAILED');
  });

  it('never offers or runs the payment tools over OAuth, even with orders:pay granted', async () => {
    const person = await seedUser(app);
    const { accessToken } = await seedOAuthConnection(app, person.user.id, [...ALL]);
    const oauthPost = async (body: unknown) => {
      const res = await app.mcpFetch('/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${accessToken}`,
        },
        body: JSON.stringify(body),
      });
      return res.json();
    };
    const listed = ((await oauthPost(rpc('tools/list'))).result.tools as { name: string }[]).map(
      (t) => t.name,
    );
    expect(listed).toContain('orders_catalog_read');
    expect(listed).not.toContain('orders_order_create');
    expect(listed).not.toContain('orders_order_pay');
    for (const name of ['orders_order_create', 'orders_order_pay']) {
      const called = await oauthPost(
        rpc('tools/call', {
          name,
          arguments: { product: 'kit', id: 1, confirm: true, idempotency_key: key() },
        }),
      );
      expect(JSON.stringify(called)).toContain(`Unknown tool: ${name}`);
    }
    expect(await prisma.order.count({ where: { userId: person.user.id } })).toBe(0);
  });
});

describe('issue 45: a Stripe that answers null, or never answers', () => {
  let keySeq = 0;
  const key = () => `null-key-${clock.ms()}-${++keySeq}`;
  const payer = async (on: typeof app, person: SeededUser) =>
    mcpClient(on, await seedPersonalToken(on, person.user.id, ['orders:pay', 'orders:write']));
  const order = async (c: Awaited<ReturnType<typeof mcpClient>>) =>
    (
      (
        await callTool(c, 'orders_order_create', {
          product: 'kit',
          confirm: true,
          idempotency_key: key(),
        })
      ).structuredContent as { id: number }
    ).id;

  it('answers 502 UPSTREAM_FAILED, never 500, when Stripe answers JSON null on each payment route', async () => {
    const person = await seedUser(app);
    stripe.answerRaw('null', { request: /^POST \/v1\/payment_intents$/ });
    const kit = await post('/api/payments/kit-intent', { body: {} });
    stripe.answerRaw('null', { request: /^POST \/v1\/setup_intents$/ });
    const setup = await post('/api/payments/setup-intent', { body: {} });
    stripe.answerRaw('null', { request: /^POST \/v1\/customers$/ });
    const subscription = await post('/api/subscriptions/create-subscription?plan=premium_monthly', {
      token: person.token,
    });
    for (const res of [kit, setup, subscription]) {
      expect(res.status, JSON.stringify(res.body)).toBe(502);
      expect(res.body.detail).toEqual({
        code: 'payment_provider_error',
        message: expect.stringMatching(/^The payment provider answered unexpectedly when asked/),
      });
      expect(res.headers.get('retry-after')).toBe('5');
    }
    const c = await payer(app, person);
    const id = await order(c);
    stripe.answerRaw('null', { request: /^POST \/v1\/payment_intents$/ });
    const paid = await callTool(c, 'orders_order_pay', {
      id,
      confirm: true,
      idempotency_key: key(),
    });
    expect((paid.structuredContent as any).error).toMatchObject({
      code: 'UPSTREAM_FAILED',
      detail: { code: 'payment_provider_error' },
    });
    expect(await prisma.order.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: 'pending',
      paymentIntentId: null,
    });
  });

  it('answers 504 UPSTREAM_TIMEOUT after STRIPE_TIMEOUT_MS when Stripe never answers', async () => {
    stripe.neverAnswer(2, /^POST \/v1\/payment_intents$/); // the SDK tries once more
    const res = await rest(impatient, 'POST', '/api/payments/kit-intent', {
      body: {},
      headers: fromNewIp(),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(504);
    expect(res.body.detail).toEqual({
      code: 'payment_provider_error',
      message:
        'The payment provider did not answer in time when asked to create the payment; try again later',
    });
    expect(res.headers.get('retry-after')).toBe('5');

    const person = await seedUser(app);
    const c = await payer(impatient, person);
    const id = await order(c);
    stripe.neverAnswer(2, /^POST \/v1\/payment_intents$/);
    const paid = await callTool(c, 'orders_order_pay', {
      id,
      confirm: true,
      idempotency_key: key(),
    });
    expect((paid.structuredContent as any).error).toMatchObject({ code: 'UPSTREAM_TIMEOUT' });
    // the configured timeout reaches the SDK (the default is 10 s)
    expect(impatient.config.STRIPE_TIMEOUT_MS).toBe(200);
    expect(app.config.STRIPE_TIMEOUT_MS).toBe(10_000);
  });
});
