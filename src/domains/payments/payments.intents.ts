/**
 * One-off payments for the app's payment sheet: the kit at its full (fully refundable) price, an
 * authorisation hold of the kit price (captured later), saving a card (SetupIntent), and cancelling
 * one of those. The amount is always the server's, never the caller's. Anyone may create an intent
 * (the routes take no bearer; one signed in attaches it to their Stripe customer); only a holder of
 * the intent's client secret, or the signed-in person who created it, may cancel it.
 */
import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { callStripe, STRIPE_ANSWERS, stripeOf } from './payments.stripe.ts';
import { customerOf } from './payments.subscriptions.ts';

/** What the app's payment sheet needs (IntentOut). */
export interface IntentView {
  id: string;
  clientSecret: string;
  status: string;
  /** null for a SetupIntent (nothing is charged) */
  amountCents: number | null;
  currency: string | null;
  /** Stripe's publishable key for the sheet */
  publishableKey: string | null;
}

/** What GET /api/payments/config answers. */
export interface PaymentsConfigView {
  publishableKey: string | null;
  kitPriceCents: number;
  currency: string;
}

export interface KitIntentOptions {
  /** kits paid for (1..5) */
  quantity: number;
  /** where Stripe sends the receipt */
  email?: string | null;
}

export interface CancelIntentOptions {
  /** the intent's id (pi_... or seti_...); optional when the client secret is given */
  intentId?: string | null;
  /** the intent's client secret, as the app got it */
  clientSecret?: string | null;
}

/** The publishable key and the kit price (no secret). */
export function paymentsConfig(ctx: Context): PaymentsConfigView {
  return {
    publishableKey: ctx.config.STRIPE_PUBLISHABLE_KEY ?? null,
    kitPriceCents: ctx.config.KIT_PRICE_CENTS,
    currency: ctx.config.PAYMENTS_CURRENCY,
  };
}

/** Counts one intent created by this client IP (429 beyond PAYMENTS_INTENTS_PER_IP_PER_HOUR). */
async function spendIntent(ctx: Context): Promise<void> {
  const rule = {
    name: 'payments:intents-per-ip',
    points: ctx.config.PAYMENTS_INTENTS_PER_IP_PER_HOUR,
    seconds: 3600,
  };
  const decision = await ctx.limits.take(rule, ctx.ip ?? 'unknown');
  if (!decision.allowed)
    throw appError('RATE_LIMITED', 'Too many payment requests; try again later', {
      detail: { code: 'rate_limited' },
      retryAfter: decision.retryAfterSeconds,
    });
}

/** The signed-in person behind a public call, if any (only a session of their own, not view-as). */
function signedIn(ctx: Context): AuthedContext | null {
  const p = ctx.principal;
  return p && p.kind === 'session' && !p.viewAs ? (ctx as AuthedContext) : null;
}

async function remember(
  ctx: Context,
  kind: string,
  intent: { id: string; client_secret: string | null; status: string; amount?: number | null },
): Promise<void> {
  await ctx.prisma.paymentIntentRecord.create({
    data: {
      id: intent.id,
      userId: signedIn(ctx)?.principal.userId ?? null,
      kind,
      clientSecretHash: sha256(intent.client_secret ?? ''),
      status: intent.status,
      amountCents: intent.amount ?? null,
    },
  });
}

async function paymentIntent(
  ctx: Context,
  kind: 'kit' | 'auth',
  options: KitIntentOptions,
): Promise<IntentView> {
  const stripe = stripeOf(ctx);
  await spendIntent(ctx);
  const person = signedIn(ctx);
  const customer = person ? await customerOf(person) : undefined;
  const intent = await callStripe(ctx, 'create the payment', STRIPE_ANSWERS.paymentIntent, () =>
    stripe.paymentIntents.create({
      amount: ctx.config.KIT_PRICE_CENTS * options.quantity,
      currency: ctx.config.PAYMENTS_CURRENCY,
      automatic_payment_methods: { enabled: true },
      ...(kind === 'auth' ? { capture_method: 'manual' as const } : {}),
      ...(customer ? { customer } : {}),
      ...(options.email ? { receipt_email: options.email } : {}),
      metadata: { kind, quantity: String(options.quantity) },
    }),
  );
  await remember(ctx, kind, intent);
  return {
    id: intent.id,
    clientSecret: intent.client_secret ?? '',
    status: intent.status,
    amountCents: intent.amount,
    currency: intent.currency,
    publishableKey: ctx.config.STRIPE_PUBLISHABLE_KEY ?? null,
  };
}

/** A PaymentIntent for the kit's full, fully refundable price (times the quantity). */
export function createKitIntent(ctx: Context, options: KitIntentOptions): Promise<IntentView> {
  return paymentIntent(ctx, 'kit', options);
}

/** An authorisation hold of the kit price: authorised now, captured (or released) later. */
export function createAuthIntent(ctx: Context, options: KitIntentOptions): Promise<IntentView> {
  return paymentIntent(ctx, 'auth', options);
}

/** A SetupIntent saving a card for later payments (the signed-in person's customer, if any). */
export async function createSetupIntent(ctx: Context): Promise<IntentView> {
  const stripe = stripeOf(ctx);
  await spendIntent(ctx);
  const person = signedIn(ctx);
  const customer = person ? await customerOf(person) : undefined;
  const intent = await callStripe(ctx, 'create the card setup', STRIPE_ANSWERS.setupIntent, () =>
    stripe.setupIntents.create({
      usage: 'off_session',
      automatic_payment_methods: { enabled: true },
      ...(customer ? { customer } : {}),
    }),
  );
  await remember(ctx, 'setup', intent);
  return {
    id: intent.id,
    clientSecret: intent.client_secret ?? '',
    status: intent.status,
    amountCents: null,
    currency: null,
    publishableKey: ctx.config.STRIPE_PUBLISHABLE_KEY ?? null,
  };
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Cancels an intent this server created. NOTE: the caller must prove it is theirs: its client
 * secret (compared by hash), or a signed-in session of the person who created it. Anything else,
 * an unknown id included, is 404 (no answer tells whether an intent exists).
 */
export async function cancelIntent(
  ctx: Context,
  options: CancelIntentOptions,
): Promise<IntentView> {
  const stripe = stripeOf(ctx);
  const id = options.intentId ?? options.clientSecret?.split('_secret_')[0] ?? '';
  const row = id ? await ctx.prisma.paymentIntentRecord.findUnique({ where: { id } }) : null;
  const bySecret =
    !!row && !!options.clientSecret && sameHash(row.clientSecretHash, sha256(options.clientSecret));
  const byOwner = !!row && row.userId !== null && row.userId === signedIn(ctx)?.principal.userId;
  if (!row || !(bySecret || byOwner)) throw appError('NOT_FOUND', 'Payment not found');
  if (row.kind === 'order') {
    throw appError('CONFLICT', 'An order payment is not cancelled here', {
      detail: { code: 'order_payment' },
    });
  }
  const intent = row.id.startsWith('seti_')
    ? await callStripe(ctx, 'cancel the card setup', STRIPE_ANSWERS.setupIntent, () =>
        stripe.setupIntents.cancel(row.id),
      )
    : await callStripe(ctx, 'cancel the payment', STRIPE_ANSWERS.paymentIntent, () =>
        stripe.paymentIntents.cancel(row.id),
      );
  await ctx.prisma.paymentIntentRecord.update({
    where: { id: row.id },
    data: { status: intent.status },
  });
  return {
    id: intent.id,
    clientSecret: '',
    status: intent.status,
    amountCents: 'amount' in intent ? intent.amount : null,
    currency: 'currency' in intent ? intent.currency : null,
    publishableKey: ctx.config.STRIPE_PUBLISHABLE_KEY ?? null,
  };
}
