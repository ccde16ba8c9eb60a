/**
 * The Stripe client (official `stripe` SDK), built from config alone and once per config: the
 * secret key never leaves the backend. STRIPE_API_BASE points the SDK at another host (in tests,
 * the suite's own server: test/fakes/stripe.ts). Without STRIPE_SECRET_KEY payments answer 503.
 * SDK failures become the error table's codes here, so no Stripe error reaches a caller as a 500;
 * every answer is checked for the fields this server reads (STRIPE_ANSWERS), so a malformed one is
 * a 502 too (issue 29).
 */
import Stripe from 'stripe';
import { z } from 'zod';
import type { Config } from '../../base/config.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { checkedAnswer } from '../../integrations/upstream.ts';

export type StripeClient = Stripe;

/** Seconds a webhook's signed timestamp may be old (Stripe's own default). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const clients = new WeakMap<Config, Stripe>();

/** The SDK's host/port/protocol options from STRIPE_API_BASE (unset: Stripe's defaults). */
export function apiBaseOptions(base: string | undefined): Stripe.StripeConfig {
  if (!base) return {};
  const url = new URL(base);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    protocol,
    host: url.hostname,
    port: url.port || (protocol === 'http' ? 80 : 443),
  };
}

/** The Stripe client, or 503 when no secret key is configured. */
export function stripeOf(ctx: Context): Stripe {
  const config = ctx.config;
  if (!config.STRIPE_SECRET_KEY) {
    throw appError(
      'UNAVAILABLE',
      'Payments are not configured on this server (no STRIPE_SECRET_KEY)',
      {
        retryAfter: 3600,
      },
    );
  }
  let client = clients.get(config);
  if (!client) {
    client = new Stripe(config.STRIPE_SECRET_KEY, {
      ...apiBaseOptions(config.STRIPE_API_BASE),
      maxNetworkRetries: 1,
      timeout: 20_000,
      telemetry: false,
    });
    clients.set(config, client);
  }
  return client;
}

const stripeId = z.string().min(1);

/** The fields of Stripe's answers this server reads: each call names the one it expects. */
export const STRIPE_ANSWERS = {
  customer: z.object({ id: stripeId }),
  paymentMethods: z.object({ data: z.array(z.object({ id: stripeId })) }),
  paymentIntent: z.object({
    id: stripeId,
    status: z.string(),
    client_secret: z.string().nullable(),
    amount: z.number().int(),
    currency: z.string(),
  }),
  setupIntent: z.object({
    id: stripeId,
    status: z.string(),
    client_secret: z.string().nullable(),
  }),
  subscription: z.object({
    id: stripeId,
    status: z.string(),
    customer: z.union([stripeId, z.object({ id: stripeId })]),
    created: z.number().optional(),
    items: z
      .object({
        data: z.array(
          z.object({
            price: z.object({ id: z.string() }).nullish(),
            current_period_end: z.number().optional(),
          }),
        ),
      })
      .optional(),
    latest_invoice: z
      .union([
        z.string(),
        z.object({
          confirmation_secret: z.object({ client_secret: z.string() }).nullish(),
        }),
      ])
      .nullish(),
  }),
} as const;

/** What a Stripe failure that is not the caller's answers in its detail. */
const PROVIDER_ERROR = 'payment_provider_error';

/**
 * Runs one Stripe call whose answer has the fields of `answer` (STRIPE_ANSWERS): a card decline
 * is a 400 with its decline code; anything else Stripe or the network refuses, and an answer
 * without those fields, is a 502 (the caller cannot fix it), never a 500.
 */
export async function callStripe<T>(
  ctx: Context,
  what: string,
  answer: z.ZodType,
  run: () => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeError)) throw error;
    ctx.log.warn({ err: error.message, type: error.type, code: error.code }, `stripe: ${what}`);
    if (error.type === 'StripeCardError') {
      throw appError('BAD_REQUEST', error.message, {
        detail: { code: error.decline_code ?? error.code ?? 'card_error' },
      });
    }
    const message = `The payment provider could not ${what}; try again later`;
    throw appError('UPSTREAM_FAILED', message, {
      detail: { code: PROVIDER_ERROR, message },
      retryAfter: 5,
    });
  }
  return checkedAnswer(result, answer, {
    service: 'the payment provider',
    what,
    code: PROVIDER_ERROR,
    log: ctx.log,
  });
}
