/**
 * Payments (issue 15): subscriptions and their entitlement, the Stripe webhook, one-off intents
 * for the app's payment sheet (kit, authorisation hold, card setup, cancel), the public payment
 * config, and the MCP `orders` family (catalogue, the person's orders, paying one, waitlists).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { PRODUCT_KEYS } from '../outreach/index.ts';
import type { Ack, WaitlistPlaceView } from '../outreach/index.ts';
import type { IntentView, PaymentsConfigView } from './payments.intents.ts';
import {
  cancelIntent,
  createAuthIntent,
  createKitIntent,
  createSetupIntent,
  paymentsConfig,
} from './payments.intents.ts';
import type { OrderPaymentView, OrderView, ProductView } from './payments.orders.ts';
import {
  ORDERS_PAGE_MAX,
  PRODUCTS,
  productCatalog,
  createOrder,
  order,
  orders,
  payOrder,
} from './payments.orders.ts';
import type { EntitlementView, SubscriptionCheckoutView } from './payments.subscriptions.ts';
import { PLANS, createSubscription, verifySubscription } from './payments.subscriptions.ts';
import type { WebhookAck } from './payments.webhook.ts';
import { handleStripeWebhook } from './payments.webhook.ts';
import { joinProductWaitlist, leaveProductWaitlist, waitlistPlaces } from './payments.waitlist.ts';

/** Kits per intent or order. */
const QUANTITY_MAX = 5;
/** Longest webhook body and signature header read (Stripe's events are far smaller). */
const WEBHOOK_BODY_MAX = 512 * 1024;
const SIGNATURE_MAX = 2048;

const email = z.email({ message: 'value is not a valid email address' }).max(254);
const quantity = z.number().int().min(1).max(QUANTITY_MAX);

const SubscriptionPlan = builder.enumType('SubscriptionPlan', {
  description: 'A subscription plan',
  values: {
    premium_monthly: { value: 'premium_monthly', description: 'premium, billed monthly' },
    premium_yearly: { value: 'premium_yearly', description: 'premium, billed yearly' },
  } as const,
});

const OrderProduct = builder.enumType('OrderProduct', {
  description: 'A product one can order',
  values: { kit: { value: 'kit', description: 'the sensor starter kit' } } as const,
});

const SubscriptionCheckout = builder
  .objectRef<SubscriptionCheckoutView>('SubscriptionCheckout')
  .implement({
    description: "A new subscription and what the app's payment sheet needs to pay it",
    fields: (t) => ({
      subscriptionId: t.exposeString('subscriptionId'),
      clientSecret: t.exposeString('clientSecret', {
        nullable: true,
        description: "the first invoice's client secret for the payment sheet",
      }),
      customerId: t.exposeString('customerId'),
      publishableKey: t.exposeString('publishableKey', { nullable: true }),
      plan: t.field({ type: SubscriptionPlan, resolve: (s) => s.plan }),
      status: t.exposeString('status', { description: "Stripe's subscription status" }),
    }),
  });

const Entitlement = builder.objectRef<EntitlementView>('Entitlement').implement({
  description: "The person's subscription entitlement",
  fields: (t) => ({
    plan: t.exposeString('plan', { nullable: true }),
    status: t.exposeString('status', {
      description: "Stripe's subscription status; none before the first subscription",
    }),
    active: t.exposeBoolean('active', { description: 'true while the plan is paid up' }),
    currentPeriodEnd: t.expose('currentPeriodEnd', { type: 'DateTime', nullable: true }),
  }),
});

const StripeWebhookAck = builder.objectRef<WebhookAck>('StripeWebhookAck').implement({
  description: 'A webhook delivery acknowledged',
  fields: (t) => ({
    received: t.exposeBoolean('received'),
    applied: t.exposeBoolean('applied', {
      description: 'false when this event was applied before (a repeated delivery)',
    }),
  }),
});

const PaymentIntentOut = builder.objectRef<IntentView>('PaymentIntentOut').implement({
  description: "A payment or setup intent for the app's payment sheet",
  fields: (t) => ({
    id: t.exposeString('id', { description: "Stripe's id (pi_... or seti_...)" }),
    clientSecret: t.exposeString('clientSecret', {
      description: 'for the payment sheet; keep it: it also cancels the intent',
    }),
    status: t.exposeString('status'),
    amountCents: t.exposeInt('amountCents', { nullable: true }),
    currency: t.exposeString('currency', { nullable: true }),
    publishableKey: t.exposeString('publishableKey', { nullable: true }),
  }),
});

const CanceledIntent = builder
  .objectRef<Pick<IntentView, 'id' | 'status'>>('CanceledIntent')
  .implement({
    description: 'An intent after cancelling',
    fields: (t) => ({ id: t.exposeString('id'), status: t.exposeString('status') }),
  });

const PaymentsConfig = builder.objectRef<PaymentsConfigView>('PaymentsConfig').implement({
  description: 'What the app needs to show prices and open the payment sheet',
  fields: (t) => ({
    publishableKey: t.exposeString('publishableKey', { nullable: true }),
    kitPriceCents: t.exposeInt('kitPriceCents', { description: 'the full, refundable kit price' }),
    currency: t.exposeString('currency'),
  }),
});

const CatalogueProduct = builder.objectRef<ProductView>('CatalogueProduct').implement({
  description: 'A product in the catalogue',
  fields: (t) => ({
    product: t.field({ type: OrderProduct, resolve: (p) => p.product }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    priceCents: t.exposeInt('priceCents'),
    currency: t.exposeString('currency'),
    refundable: t.exposeBoolean('refundable'),
  }),
});

const Order = builder.objectRef<OrderView>('Order').implement({
  description: "One of the person's orders",
  fields: (t) => ({
    id: t.exposeInt('id'),
    product: t.exposeString('product'),
    quantity: t.exposeInt('quantity'),
    amountCents: t.exposeInt('amountCents', { description: 'the total' }),
    currency: t.exposeString('currency'),
    status: t.exposeString('status', { description: 'pending, paid or canceled' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true }),
  }),
});

const OrderPayment = builder.objectRef<OrderPaymentView>('OrderPayment').implement({
  description: 'An order and the payment taking its total',
  fields: (t) => ({
    order: t.field({ type: Order, resolve: (p) => p.order }),
    paymentIntentId: t.exposeString('paymentIntentId'),
    paymentStatus: t.exposeString('paymentStatus', {
      description: 'succeeded when a saved card paid at once; else the person confirms in the app',
    }),
    clientSecret: t.exposeString('clientSecret', { nullable: true }),
  }),
});

const WaitlistPlace = builder.objectRef<WaitlistPlaceView>('WaitlistPlace').implement({
  description: "The person's place on a product's waitlist",
  fields: (t) => ({
    product: t.exposeString('product', { description: 'the product ("" : the general list)' }),
    status: t.exposeString('status', {
      description: 'pending until the emailed link is confirmed',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    confirmedAt: t.expose('confirmedAt', { type: 'DateTime', nullable: true }),
  }),
});

const OrdersAck = builder.objectRef<Ack>('OrdersAck').implement({
  description: 'The answer {"ok": true}',
  fields: (t) => ({ ok: t.exposeBoolean('ok') }),
});

const KitIntentInput = builder.inputType('KitIntentInput', {
  description: 'A kit payment (KitIntentIn; also AuthIntentIn): the price is always the server’s',
  fields: (t) => ({
    quantity: t.int({ defaultValue: 1, description: `kits (1..${QUANTITY_MAX})` }),
    email: t.string({ description: 'where Stripe sends the receipt' }),
  }),
  validate: z.object({ quantity: quantity.nullish(), email: email.nullish() }),
});

const SetupIntentInput = builder.inputType('SetupIntentInput', {
  description: 'Saving a card (SetupIntentIn): signed in, it is saved to the person',
  fields: (t) => ({
    usage: t.string({ description: 'off_session (the only usage offered)' }),
  }),
  validate: z.object({ usage: z.enum(['off_session']).nullish() }),
});

const CancelIntentInput = builder.inputType('CancelIntentInput', {
  description:
    'The intent to cancel (CancelIntentIn): its client secret, or its id from the signed-in person who made it',
  fields: (t) => ({
    clientSecret: t.string({ description: 'the client secret the intent was created with' }),
    intentId: t.string({ description: "the intent's id (pi_... or seti_...)" }),
  }),
  validate: z
    .object({
      clientSecret: z.string().min(1).max(255).nullish(),
      intentId: z
        .string()
        .regex(/^(pi|seti)_[A-Za-z0-9]{1,100}$/)
        .nullish(),
    })
    .refine((v) => !!v.clientSecret || !!v.intentId, {
      message: 'client_secret or intent_id is required',
    }),
});

const CreateOrderInput = builder.inputType('CreateOrderInput', {
  description: 'An order of a catalogue product',
  fields: (t) => ({
    product: t.field({ type: OrderProduct, required: true, description: 'the product (kit)' }),
    quantity: t.int({ defaultValue: 1, description: `how many (1..${QUANTITY_MAX})` }),
  }),
  validate: z.object({ product: z.enum(PRODUCTS), quantity: quantity.nullish() }),
});

const waitlistProduct = {
  type: 'String',
  required: true,
  description: `the product's waitlist: ${PRODUCT_KEYS.join(', ')}`,
  validate: z.enum(PRODUCT_KEYS),
} as const;

builder.queryFields((t) => ({
  paymentsConfig: t.withAuth({ public: true }).field({
    type: PaymentsConfig,
    description: 'The publishable key and the kit price',
    resolve: (_root, _args, ctx) => paymentsConfig(ctx),
  }),
  productCatalog: t.withAuth({ scope: 'orders:read' }).field({
    type: [CatalogueProduct],
    description: 'The products one can order, with prices',
    resolve: (_root, _args, ctx) => productCatalog(ctx),
  }),
  orders: t.withAuth({ scope: 'orders:read' }).field({
    type: [Order],
    description: "The person's orders, newest first",
    args: {
      limit: t.arg.int({
        required: true,
        defaultValue: 50,
        description: `most orders answered (1..${ORDERS_PAGE_MAX})`,
        validate: z.number().int().min(1).max(ORDERS_PAGE_MAX),
      }),
    },
    resolve: (_root, args, ctx) => orders(ctx, args),
  }),
  order: t.withAuth({ scope: 'orders:read' }).field({
    type: Order,
    description: "One of the person's orders (another's id is 404)",
    args: {
      id: t.arg.int({
        required: true,
        description: "the order's id",
        validate: z.number().int().min(1),
      }),
    },
    resolve: (_root, args, ctx) => order(ctx, args),
  }),
  waitlistPlaces: t.withAuth({ scope: 'orders:read' }).field({
    type: [WaitlistPlace],
    description: "The person's places on product waitlists",
    resolve: (_root, _args, ctx) => waitlistPlaces(ctx),
  }),
}));

builder.mutationFields((t) => ({
  createSubscription: t.withAuth({ loginSession: true }).field({
    type: SubscriptionCheckout,
    description: 'Creates a subscription; answers the client secret for the payment sheet',
    args: {
      plan: t.arg({
        type: SubscriptionPlan,
        required: true,
        description: 'the plan',
        validate: z.enum(PLANS),
      }),
    },
    resolve: (_root, args, ctx) => createSubscription(ctx, args),
  }),
  verifySubscription: t.withAuth({ loginSession: true }).field({
    type: Entitlement,
    description: "Asks Stripe for the person's subscription and updates the entitlement",
    resolve: (_root, _args, ctx) => verifySubscription(ctx),
  }),
  handleStripeWebhook: t.withAuth({ public: true }).field({
    type: StripeWebhookAck,
    description: 'Applies one signed Stripe event (exactly once, in any order)',
    args: {
      body: t.arg.string({
        required: true,
        description: 'the request body exactly as sent',
        validate: z.string().max(WEBHOOK_BODY_MAX),
      }),
      signature: t.arg.string({
        description: 'the Stripe-Signature header',
        validate: z.string().max(SIGNATURE_MAX),
      }),
    },
    resolve: (_root, args, ctx) => handleStripeWebhook(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createSetupIntent: t.withAuth({ public: true }).field({
    type: PaymentIntentOut,
    description: 'Creates a SetupIntent that saves a card for later payments',
    args: { input: t.arg({ type: SetupIntentInput }) },
    resolve: (_root, _args, ctx) => createSetupIntent(ctx),
  }),
  createAuthIntent: t.withAuth({ public: true }).field({
    type: PaymentIntentOut,
    description: 'Authorises (holds) the kit price now, captured or released later',
    args: { input: t.arg({ type: KitIntentInput }) },
    resolve: (_root, { input }, ctx) =>
      createAuthIntent(ctx, { quantity: input?.quantity ?? 1, email: input?.email }),
  }),
  createKitIntent: t.withAuth({ public: true }).field({
    type: PaymentIntentOut,
    description: 'Creates a payment intent for the full, fully refundable kit price',
    args: { input: t.arg({ type: KitIntentInput }) },
    resolve: (_root, { input }, ctx) =>
      createKitIntent(ctx, { quantity: input?.quantity ?? 1, email: input?.email }),
  }),
  cancelIntent: t.withAuth({ public: true }).field({
    type: CanceledIntent,
    description: 'Cancels an intent its client secret (or its signed-in creator) names',
    args: { input: t.arg({ type: CancelIntentInput, required: true }) },
    resolve: (_root, { input }, ctx) => cancelIntent(ctx, input),
  }),
  createOrder: t.withAuth({ scope: 'orders:pay' }).field({
    type: Order,
    description: 'Creates a pending order at the catalogue price',
    args: { input: t.arg({ type: CreateOrderInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      createOrder(ctx, { product: input.product, quantity: input.quantity ?? 1 }),
  }),
  payOrder: t.withAuth({ scope: 'orders:pay' }).field({
    type: OrderPayment,
    description: "Pays one of the person's pending orders (one payment per order, ever)",
    args: {
      id: t.arg.int({
        required: true,
        description: "the pending order's id",
        validate: z.number().int().min(1),
      }),
    },
    resolve: (_root, args, ctx) => payOrder(ctx, args),
  }),
  joinProductWaitlist: t.withAuth({ scope: 'orders:write' }).field({
    type: OrdersAck,
    description: "Puts the person on a product's waitlist (emails a confirmation link)",
    args: { product: t.arg(waitlistProduct) },
    resolve: (_root, args, ctx) => joinProductWaitlist(ctx, args),
  }),
  leaveProductWaitlist: t.withAuth({ scope: 'orders:write' }).field({
    type: OrdersAck,
    description: "Takes the person off a product's waitlist (404 when not on it)",
    args: { product: t.arg(waitlistProduct) },
    resolve: (_root, args, ctx) => leaveProductWaitlist(ctx, args),
  }),
}));
