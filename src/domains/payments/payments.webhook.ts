/**
 * The Stripe webhook: the signature is checked on the raw body before anything is read or
 * written; each event is applied exactly once (its id stored in the transaction of its effect) and
 * in any order (subscription facts by their ordering facts, orders only move forward).
 */
import type Stripe from 'stripe';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { markIntent, settleOrder } from './payments.orders.ts';
import { WEBHOOK_TOLERANCE_SECONDS, stripeOf } from './payments.stripe.ts';
import { applySubscription } from './payments.subscriptions.ts';

export interface WebhookAck {
  received: true;
  /** false when the event was applied before (a repeated delivery) */
  applied: boolean;
}

export interface HandleWebhookOptions {
  /** the request body exactly as sent (the signature covers these bytes) */
  body: string;
  /** the Stripe-Signature header */
  signature?: string | null;
}

/** The event's effect inside the transaction that also records its id. */
async function applyEvent(
  ctx: Context,
  tx: Prisma.TransactionClient,
  event: Stripe.Event,
): Promise<void> {
  switch (event.type) {
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed':
      await applySubscription(ctx, tx, {
        subscription: event.data.object,
        statedAt: event.created,
      });
      return;
    case 'payment_intent.succeeded':
    case 'payment_intent.canceled':
    case 'payment_intent.payment_failed':
    case 'payment_intent.processing':
    case 'payment_intent.requires_action':
    case 'payment_intent.amount_capturable_updated':
      await settleOrder(tx, event.data.object);
      await markIntent(tx, event.data.object.id, event.data.object.status);
      return;
    default:
      // unknown or unused types: acknowledged (so Stripe stops retrying) and ignored
      return;
  }
}

/**
 * Verifies and applies one Stripe event. A bad or missing signature, or one older than five
 * minutes, is a 400 that changes nothing; a repeated event is acknowledged without effect.
 */
export async function handleStripeWebhook(
  ctx: Context,
  options: HandleWebhookOptions,
): Promise<WebhookAck> {
  const secret = ctx.config.STRIPE_WEBHOOK_SECRET;
  if (!secret) {
    throw appError(
      'UNAVAILABLE',
      'The payment webhook is not configured (no STRIPE_WEBHOOK_SECRET)',
      {
        retryAfter: 3600,
      },
    );
  }
  const stripe = stripeOf(ctx);
  let event: Stripe.Event;
  try {
    // NOTE: the signature is verified on the raw body before anything is parsed, read or written.
    event = stripe.webhooks.constructEvent(
      options.body,
      options.signature ?? '',
      secret,
      WEBHOOK_TOLERANCE_SECONDS,
    );
  } catch {
    throw appError('BAD_REQUEST', 'Invalid webhook signature', {
      detail: { code: 'invalid_signature' },
    });
  }
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || !event.data?.object) {
    throw appError('BAD_REQUEST', 'Not a Stripe event', { detail: { code: 'invalid_event' } });
  }
  const applied = await ctx.prisma.$transaction(async (tx) => {
    // NOTE: exactly once: only the transaction that records the id applies the effect (a
    // concurrent duplicate waits on the key, then finds it taken).
    const recorded = await tx.stripeEvent.createMany({
      data: [{ id: event.id, type: event.type, created: Math.trunc(Number(event.created) || 0) }],
      skipDuplicates: true,
    });
    if (recorded.count === 0) return false;
    await applyEvent(ctx, tx, event);
    return true;
  });
  return { received: true, applied };
}
