/**
 * Subscriptions: creating one for the payment sheet, verifying it with Stripe, and the person's
 * entitlement (plan, status, period end) that both and the webhook keep. An entitlement only moves
 * forward: a Stripe fact applies when its ordering facts (time, status rank, period end) are newer
 * than those held, so webhooks in any order, repeated or late, end in the same state.
 */
import type Stripe from 'stripe';
import type { Prisma } from '../../generated/prisma/client.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { callStripe, STRIPE_ANSWERS, stripeOf } from './payments.stripe.ts';
import { clock } from '../../base/clock.ts';

/** The plans one can subscribe to, and the config naming each one's Stripe price. */
export const PLANS = ['premium_monthly', 'premium_yearly'] as const;
export type Plan = (typeof PLANS)[number];

const PRICE_SETTING = {
  premium_monthly: 'STRIPE_PRICE_PREMIUM_MONTHLY',
  premium_yearly: 'STRIPE_PRICE_PREMIUM_YEARLY',
} as const satisfies Record<Plan, string>;

/**
 * Rank of a subscription status within one second: later stages rank higher, `canceled` last (it
 * is final for a subscription).
 */
const STATUS_RANK: Record<string, number> = {
  incomplete: 1,
  trialing: 2,
  active: 3,
  past_due: 4,
  unpaid: 5,
  paused: 5,
  incomplete_expired: 6,
  canceled: 7,
};

/** What the person's entitlement says (EntitlementOut). */
export interface EntitlementView {
  plan: string | null;
  status: string;
  /** true while the plan is paid up (active or trialing, period not over) */
  active: boolean;
  currentPeriodEnd: Date | null;
}

/** What the payment sheet needs to pay the first invoice of a new subscription. */
export interface SubscriptionCheckoutView {
  subscriptionId: string;
  clientSecret: string | null;
  customerId: string;
  publishableKey: string | null;
  plan: Plan;
  status: string;
}

type Db = Prisma.TransactionClient;

function viewOf(
  row: { plan: string | null; status: string; currentPeriodEnd: Date | null } | null,
): EntitlementView {
  if (!row) return { plan: null, status: 'none', active: false, currentPeriodEnd: null };
  const inPeriod = !row.currentPeriodEnd || row.currentPeriodEnd.getTime() > clock.ms();
  return {
    plan: row.plan,
    status: row.status,
    active: (row.status === 'active' || row.status === 'trialing') && inPeriod,
    currentPeriodEnd: row.currentPeriodEnd,
  };
}

/** The plan whose price a subscription carries (null: a price this server does not know). */
function planOfPrice(ctx: Context, sub: Stripe.Subscription): Plan | null {
  const price = sub.items?.data?.[0]?.price?.id;
  return PLANS.find((plan) => ctx.config[PRICE_SETTING[plan]] === price) ?? null;
}

function periodEndOf(sub: Stripe.Subscription): number {
  return sub.items?.data?.[0]?.current_period_end ?? 0;
}

/**
 * The Stripe customer of the signed-in person, created once (Stripe's idempotency key is the
 * person's id, so two concurrent first calls create one customer).
 */
export async function customerOf(ctx: AuthedContext): Promise<string> {
  const userId = ctx.principal.userId;
  const held = await ctx.prisma.entitlement.findUnique({ where: { userId } });
  if (held?.stripeCustomerId) return held.stripeCustomerId;
  const user = await ctx.prisma.user.findUniqueOrThrow({ where: { id: userId } });
  const stripe = stripeOf(ctx);
  const customer = await callStripe(ctx, 'create the customer', STRIPE_ANSWERS.customer, () =>
    stripe.customers.create(
      { email: user.email, metadata: { user_id: String(userId) } },
      { idempotencyKey: `customer-${userId}` },
    ),
  );
  await ctx.prisma.entitlement.upsert({
    where: { userId },
    create: { userId, stripeCustomerId: customer.id },
    update: { stripeCustomerId: customer.id },
  });
  return customer.id;
}

export interface ApplySubscriptionOptions {
  /** the subscription as Stripe sent or answered it */
  subscription: Stripe.Subscription;
  /** when Stripe stated it (unix seconds): the event's `created`, or now for a live read */
  statedAt: number;
}

/**
 * Applies one Stripe fact about a subscription to its customer's entitlement, only when it is
 * newer than the state held: (time, status rank, period end) compared in one conditional update,
 * so concurrent deliveries cannot let an older fact win. A customer we do not know changes nothing.
 */
export async function applySubscription(
  ctx: Context,
  db: Db,
  options: ApplySubscriptionOptions,
): Promise<number> {
  const sub = options.subscription;
  const customer = typeof sub.customer === 'string' ? sub.customer : sub.customer?.id;
  if (!customer) return 0;
  const at = options.statedAt;
  const rank = STATUS_RANK[sub.status] ?? 0;
  const periodEnd = periodEndOf(sub);
  const updated = await db.entitlement.updateMany({
    where: {
      stripeCustomerId: customer,
      OR: [
        { stateAt: { lt: at } },
        { stateAt: at, stateRank: { lt: rank } },
        { stateAt: at, stateRank: rank, statePeriodEnd: { lt: periodEnd } },
      ],
    },
    data: {
      plan: planOfPrice(ctx, sub),
      status: sub.status,
      currentPeriodEnd: periodEnd ? new Date(periodEnd * 1000) : null,
      stripeSubscriptionId: sub.id,
      stateAt: at,
      stateRank: rank,
      statePeriodEnd: periodEnd,
    },
  });
  return updated.count;
}

export interface CreateSubscriptionOptions {
  /** the plan to subscribe to */
  plan: Plan;
}

/**
 * Creates a subscription (incomplete until its first invoice is paid) for the signed-in person and
 * answers the client secret the app's payment sheet confirms. 503 when the plan has no price.
 */
export async function createSubscription(
  ctx: AuthedContext,
  options: CreateSubscriptionOptions,
): Promise<SubscriptionCheckoutView> {
  const stripe = stripeOf(ctx);
  const price = ctx.config[PRICE_SETTING[options.plan]];
  if (!price) {
    throw appError('UNAVAILABLE', `The plan ${options.plan} is not offered on this server`, {
      detail: { code: 'plan_unavailable' },
      retryAfter: 3600,
    });
  }
  const customer = await customerOf(ctx);
  const sub = await callStripe(ctx, 'create the subscription', STRIPE_ANSWERS.subscription, () =>
    stripe.subscriptions.create({
      customer,
      items: [{ price }],
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      expand: ['latest_invoice.confirmation_secret'],
      metadata: { user_id: String(ctx.principal.userId) },
    }),
  );
  await applySubscription(ctx, ctx.prisma, {
    subscription: sub,
    statedAt: sub.created ?? Math.floor(clock.ms() / 1000),
  });
  const invoice = sub.latest_invoice;
  const clientSecret =
    invoice && typeof invoice !== 'string'
      ? (invoice.confirmation_secret?.client_secret ?? null)
      : null;
  return {
    subscriptionId: sub.id,
    clientSecret,
    customerId: customer,
    publishableKey: ctx.config.STRIPE_PUBLISHABLE_KEY ?? null,
    plan: options.plan,
    status: sub.status,
  };
}

/**
 * Asks Stripe for the person's subscription and updates the entitlement with what it says now;
 * answers the entitlement (status `none` when the person never subscribed).
 */
export async function verifySubscription(ctx: AuthedContext): Promise<EntitlementView> {
  const stripe = stripeOf(ctx);
  const userId = ctx.principal.userId;
  const held = await ctx.prisma.entitlement.findUnique({ where: { userId } });
  if (held?.stripeSubscriptionId) {
    const id = held.stripeSubscriptionId;
    const sub = await callStripe(ctx, 'read the subscription', STRIPE_ANSWERS.subscription, () =>
      stripe.subscriptions.retrieve(id),
    );
    await applySubscription(ctx, ctx.prisma, {
      subscription: sub,
      statedAt: Math.floor(clock.ms() / 1000),
    });
  }
  return viewOf(await ctx.prisma.entitlement.findUnique({ where: { userId } }));
}

/** The signed-in person's entitlement as held (no Stripe call). */
export async function entitlementOf(ctx: AuthedContext): Promise<EntitlementView> {
  const userId = ctx.principal.userId;
  return viewOf(await ctx.prisma.entitlement.findUnique({ where: { userId } }));
}
