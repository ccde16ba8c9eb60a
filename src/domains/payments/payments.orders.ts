/**
 * Orders (MCP `orders` family): the catalogue, the person's own orders, creating one and paying it
 * with a Stripe PaymentIntent for its total. The webhook moves an order to paid; an order only
 * moves forward (pending -> paid | canceled; a payment that succeeds after a cancel still wins).
 */
import type Stripe from 'stripe';
import { sha256 } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { callStripe, STRIPE_ANSWERS, stripeOf } from './payments.stripe.ts';
import { customerOf } from './payments.subscriptions.ts';
import { clock } from '../../base/clock.ts';

/** Products one can order. */
export const PRODUCTS = ['kit'] as const;
export type Product = (typeof PRODUCTS)[number];

/** Most orders one list answers (newest first). */
export const ORDERS_PAGE_MAX = 100;

/** A catalogue entry (ProductOut). */
export interface ProductView {
  product: Product;
  name: string;
  description: string;
  priceCents: number;
  currency: string;
  /** the kit price is fully refundable */
  refundable: boolean;
}

/** An order (OrderOut). */
export interface OrderView {
  id: number;
  product: string;
  quantity: number;
  amountCents: number;
  currency: string;
  status: string;
  createdAt: Date;
  paidAt: Date | null;
}

/** What paying an order answers: the order and the PaymentIntent to finish it in the app. */
export interface OrderPaymentView {
  order: OrderView;
  paymentIntentId: string;
  /** Stripe's PaymentIntent status (`succeeded` when a saved card paid it at once) */
  paymentStatus: string;
  /** for the app's payment sheet when the person still has to confirm (null once succeeded) */
  clientSecret: string | null;
}

/**
 * Rank of a PaymentIntent status: a recorded status only moves to a higher one, whatever order
 * the webhook's events arrive in.
 */
const INTENT_RANK: Record<string, number> = {
  requires_payment_method: 0,
  requires_confirmation: 1,
  requires_action: 2,
  processing: 3,
  requires_capture: 4,
  canceled: 5,
  succeeded: 6,
};

/** The catalogue (prices from config). */
export function productCatalog(ctx: Context): ProductView[] {
  return [
    {
      product: 'kit',
      name: 'Sensor starter kit',
      description: 'Two glucose sensors and the starter guide; the full price is refundable.',
      priceCents: ctx.config.KIT_PRICE_CENTS,
      currency: ctx.config.PAYMENTS_CURRENCY,
      refundable: true,
    },
  ];
}

function viewOf(row: OrderView): OrderView {
  const { id, product, quantity, amountCents, currency, status, createdAt, paidAt } = row;
  return { id, product, quantity, amountCents, currency, status, createdAt, paidAt };
}

export interface ListOrdersOptions {
  /** most orders answered, newest first (1..ORDERS_PAGE_MAX) */
  limit: number;
}

/** The person's own orders, newest first. */
export async function orders(ctx: AuthedContext, options: ListOrdersOptions): Promise<OrderView[]> {
  const rows = await ctx.prisma.order.findMany({
    // NOTE: ownership: only the credential's own person's orders
    where: { userId: ctx.principal.userId },
    orderBy: { id: 'desc' },
    take: options.limit,
  });
  return rows.map(viewOf);
}

export interface GetOrderOptions {
  /** the order's id */
  id: number;
}

/** One of the person's orders; another's (or none) is 404. */
export async function order(ctx: AuthedContext, options: GetOrderOptions): Promise<OrderView> {
  // NOTE: ownership is part of the where: another person's order id answers 404
  const row = await ctx.prisma.order.findFirst({
    where: { id: options.id, userId: ctx.principal.userId },
  });
  if (!row) throw appError('NOT_FOUND', 'Order not found');
  return viewOf(row);
}

export interface CreateOrderOptions {
  /** the product ordered */
  product: Product;
  /** how many (1..5) */
  quantity: number;
}

/** Creates a pending order at the catalogue price (nothing is charged until it is paid). */
export async function createOrder(
  ctx: AuthedContext,
  options: CreateOrderOptions,
): Promise<OrderView> {
  const item = productCatalog(ctx).find((p) => p.product === options.product);
  if (!item) throw appError('NOT_FOUND', 'Product not found');
  const row = await ctx.prisma.order.create({
    data: {
      userId: ctx.principal.userId,
      product: item.product,
      quantity: options.quantity,
      amountCents: item.priceCents * options.quantity,
      currency: item.currency,
    },
  });
  return viewOf(row);
}

/** A saved card of the customer, to pay at once (null: the person confirms in the app). */
async function savedCardOf(
  ctx: AuthedContext,
  stripe: Stripe,
  customer: string,
): Promise<string | null> {
  const cards = await callStripe(ctx, 'read the saved cards', STRIPE_ANSWERS.paymentMethods, () =>
    stripe.customers.listPaymentMethods(customer, { type: 'card', limit: 1 }),
  );
  return cards.data[0]?.id ?? null;
}

/** The order's PaymentIntent, made before (a retried pay answers it again). */
async function retrieveIntent(
  ctx: AuthedContext,
  stripe: Stripe,
  id: string,
): Promise<Stripe.PaymentIntent> {
  return callStripe(ctx, 'read the payment', STRIPE_ANSWERS.paymentIntent, () =>
    stripe.paymentIntents.retrieve(id),
  );
}

/** A new PaymentIntent for the order's total, confirmed with a saved card when there is one. */
async function createIntent(
  ctx: AuthedContext,
  stripe: Stripe,
  order: OrderView,
): Promise<Stripe.PaymentIntent> {
  const customer = await customerOf(ctx);
  const card = await savedCardOf(ctx, stripe, customer);
  return callStripe(ctx, 'take the payment', STRIPE_ANSWERS.paymentIntent, () =>
    stripe.paymentIntents.create(
      {
        amount: order.amountCents,
        currency: order.currency,
        customer,
        metadata: { order_id: String(order.id), user_id: String(ctx.principal.userId) },
        ...(card
          ? { payment_method: card, confirm: true, off_session: true }
          : { automatic_payment_methods: { enabled: true } }),
      },
      // NOTE: one intent per order at Stripe too: a retry never charges twice
      { idempotencyKey: `order-${order.id}-pay` },
    ),
  );
}

export interface PayOrderOptions {
  /** the order's id */
  id: number;
}

/**
 * Pays one of the person's pending orders: one PaymentIntent per order, ever (Stripe's idempotency
 * key is the order's id, and a retried call answers the intent already made), confirmed at once
 * with the customer's saved card when there is one. 409 when the order is paid or canceled.
 */
export async function payOrder(
  ctx: AuthedContext,
  options: PayOrderOptions,
): Promise<OrderPaymentView> {
  const stripe = stripeOf(ctx);
  const pending = await order(ctx, options);
  if (pending.status !== 'pending') {
    throw appError('CONFLICT', `The order is ${pending.status}`, {
      detail: { code: `order_${pending.status}` },
    });
  }
  const held = await ctx.prisma.order.findFirst({
    where: { id: pending.id, userId: ctx.principal.userId },
    select: { paymentIntentId: true },
  });
  const intent = held?.paymentIntentId
    ? await retrieveIntent(ctx, stripe, held.paymentIntentId)
    : await createIntent(ctx, stripe, pending);
  await ctx.prisma.$transaction(async (tx) => {
    await tx.order.updateMany({
      where: { id: pending.id, paymentIntentId: null },
      data: { paymentIntentId: intent.id },
    });
    await tx.paymentIntentRecord.upsert({
      where: { id: intent.id },
      create: {
        id: intent.id,
        userId: ctx.principal.userId,
        kind: 'order',
        clientSecretHash: sha256(intent.client_secret ?? ''),
        status: intent.status,
        amountCents: intent.amount,
      },
      update: {},
    });
    await settleOrder(tx, intent);
  });
  return {
    order: await order(ctx, options),
    paymentIntentId: intent.id,
    paymentStatus: intent.status,
    clientSecret: intent.status === 'succeeded' ? null : intent.client_secret,
  };
}

/**
 * Moves the order of a PaymentIntent forward: succeeded -> paid (also after a cancel: the money
 * was taken), canceled -> canceled (only while pending). Other statuses change nothing.
 */
export async function settleOrder(
  tx: Prisma.TransactionClient,
  intent: Pick<Stripe.PaymentIntent, 'id' | 'status' | 'created'>,
): Promise<void> {
  if (intent.status === 'succeeded') {
    await tx.order.updateMany({
      where: { paymentIntentId: intent.id, status: { in: ['pending', 'canceled'] } },
      data: { status: 'paid', paidAt: clock.now() },
    });
  } else if (intent.status === 'canceled') {
    await tx.order.updateMany({
      where: { paymentIntentId: intent.id, status: 'pending' },
      data: { status: 'canceled' },
    });
  }
}

/** Records a PaymentIntent's newer status (a lower-ranked status never replaces a higher one). */
export async function markIntent(
  tx: Prisma.TransactionClient,
  id: string,
  status: string,
): Promise<void> {
  const rank = INTENT_RANK[status];
  if (rank === undefined) return;
  const lower = Object.keys(INTENT_RANK).filter((s) => (INTENT_RANK[s] ?? 0) < rank);
  await tx.paymentIntentRecord.updateMany({
    where: { id, status: { in: lower } },
    data: { status },
  });
}
