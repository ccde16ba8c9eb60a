/**
 * The Stripe client (official `stripe` SDK), built from config alone and once per config: the
 * secret key never leaves the backend. STRIPE_API_BASE points the SDK at another host (in tests,
 * the suite's own server: test/fakes/stripe.ts). Without STRIPE_SECRET_KEY payments answer 503.
 * SDK failures become the error table's codes here, so no Stripe error reaches a caller as a 500;
 * every answer is checked for the fields this server reads (STRIPE_ANSWERS), so a malformed one is
 * a 502 too (issue 29), even one the SDK itself trips over (JSON `null`, issue 45). A request waits
 * STRIPE_TIMEOUT_MS for Stripe (504 beyond), as the other third parties' calls do.
 */
import type { GraphQLError } from 'graphql';
import Stripe from 'stripe';
import { z } from 'zod';
import type { Config } from '../../base/config.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { checkedAnswer, upstreamError } from '../../integrations/upstream.ts';

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
      timeout: config.STRIPE_TIMEOUT_MS,
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
/** Who answered, as a person reads it. */
const SERVICE = 'the payment provider';

/** Whether the SDK gave up waiting for Stripe (STRIPE_TIMEOUT_MS, on its last try). */
function timedOut(error: InstanceType<typeof Stripe.errors.StripeError>): boolean {
  const cause = error.detail as { code?: unknown } | undefined;
  return error.type === 'StripeConnectionError' && cause?.code === 'ETIMEDOUT';
}

/** The error table's answer to a failure the SDK reported (a StripeError). */
function stripeFailure(
  error: InstanceType<typeof Stripe.errors.StripeError>,
  what: string,
): GraphQLError {
  if (error.type === 'StripeCardError') {
    return appError('BAD_REQUEST', error.message, {
      detail: { code: error.decline_code ?? error.code ?? 'card_error' },
    });
  }
  const message = timedOut(error)
    ? `The payment provider did not answer in time when asked to ${what}; try again later`
    : `The payment provider could not ${what}; try again later`;
  return appError(timedOut(error) ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_FAILED', message, {
    detail: { code: PROVIDER_ERROR, message },
    retryAfter: 5,
  });
}

/**
 * Runs one Stripe call whose answer has the fields of `answer` (STRIPE_ANSWERS): a card decline
 * is a 400 with its decline code; no answer within STRIPE_TIMEOUT_MS a 504; anything else Stripe
 * or the network refuses, and an answer without those fields, is a 502 (the caller cannot fix
 * it), never a 500. `run` makes the SDK call and nothing else: whatever else it throws is the SDK
 * tripping over Stripe's answer (JSON `null` has no `error` field to read), so a 502 as well.
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
    if (!(error instanceof Stripe.errors.StripeError)) {
      ctx.log.warn({ err: (error as Error).message }, `stripe: unreadable answer to ${what}`);
      throw upstreamError(SERVICE, what, { code: PROVIDER_ERROR });
    }
    ctx.log.warn({ err: error.message, type: error.type, code: error.code }, `stripe: ${what}`);
    throw stripeFailure(error, what);
  }
  return checkedAnswer(result, answer, {
    service: SERVICE,
    what,
    code: PROVIDER_ERROR,
    log: ctx.log,
  });
}
