/**
 * The checks before a model call, in the documented order (REST "AI meal rules"; input limits
 * come first, in each operation's argument validation): the feature is on (503), the person's
 * consent when AI_CONSENT_ENFORCED (403 needs_consent), the per-account daily cap (429
 * rate_limited), the USD budget (429 ai_budget_exhausted with reset_at).
 *
 * Both counters are atomic, so concurrent calls cannot pass them together: the cap is a counter
 * in the shared limits store (Redis with REDIS_URL), and the budget is one row per UTC day whose
 * conditional upsert reserves a call's worst-case cost before the call (settled to the real cost
 * after it, in ai.call.ts). It must never call the model or read a cache: ai.call.ts does.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import type { ModelClient } from '../../integrations/openai.ts';
import { nextUtcMidnight, utcDate } from '../../platform/rate-limit.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { countLimitHit } from '../../platform/metrics.ts';
import { hasConsent } from '../consents/index.ts';
import type { AiFeature } from './ai.features.ts';
import { AI_FEATURES } from './ai.features.ts';
import { clock } from '../../base/clock.ts';

/** The model client, or 503 when no model is configured or MEAL_VISION_ENABLED is off. */
export function availableModel(ctx: AuthedContext): ModelClient {
  if (!ctx.models) {
    throw appError('UNAVAILABLE', 'AI is not configured on this server (no OPENAI_API_KEY)', {
      retryAfter: 3600,
    });
  }
  if (!ctx.config.MEAL_VISION_ENABLED) {
    throw appError('UNAVAILABLE', 'Meal AI is turned off on this server (MEAL_VISION_ENABLED)', {
      retryAfter: 3600,
    });
  }
  return ctx.models;
}

/** 403 `needs_consent` while AI_CONSENT_ENFORCED is on and the person has not consented. */
export async function ensureAiConsent(ctx: AuthedContext): Promise<void> {
  if (!ctx.config.AI_CONSENT_ENFORCED) return;
  if (await hasConsent(ctx, ctx.principal.userId, 'meal_photo')) return;
  throw appError(
    'FORBIDDEN',
    'AI consent needed: the person gives it with POST /api/v1/consents/meal_photo',
    {
      detail: {
        code: 'needs_consent',
        kind: 'meal_photo',
        message:
          'The person has not consented to AI processing of their meals. They give it in the app ' +
          '(POST /api/v1/consents/meal_photo); then retry.',
      },
    },
  );
}

function capRule(ctx: AuthedContext, feature: AiFeature): LimitRule {
  const rule = AI_FEATURES[feature];
  return { name: `ai:${rule.capName}`, points: rule.cap(ctx.config), seconds: 'utc-day' };
}

/** Counts one model call against the feature's daily cap (429 rate_limited once it is spent). */
export async function takeDailyCap(ctx: AuthedContext, feature: AiFeature): Promise<void> {
  const rule = capRule(ctx, feature);
  const decision = await ctx.limits.take(rule, String(ctx.principal.userId));
  if (decision.allowed) return;
  const capName = `${AI_FEATURES[feature].capName}_daily_cap`;
  throw appError('RATE_LIMITED', `Daily AI limit reached (${capName} = ${decision.limit})`, {
    retryAfter: decision.retryAfterSeconds,
    detail: {
      code: 'rate_limited',
      message: `This account used its ${decision.limit} calls of today (${capName}); try again after reset_at.`,
      limit: decision.limit,
      reset_at: decision.resetAt.toISOString(),
    },
  });
}

/** Gives back the call counted by takeDailyCap (the call did not happen). */
export async function refundDailyCap(ctx: AuthedContext, feature: AiFeature): Promise<void> {
  await ctx.limits.refund(capRule(ctx, feature), String(ctx.principal.userId));
}

/** A reservation of the day's budget, settled with the call's real cost. */
export interface BudgetReservation {
  /** the UTC day, YYYY-MM-DD */
  day: string;
  usd: number;
}

/**
 * Reserves `usd` of today's budget atomically (one conditional upsert of the day's row), or 429
 * `ai_budget_exhausted` with `reset_at` (the next 00:00 UTC) when it would go past
 * AI_DAILY_BUDGET_USD with what is spent and reserved.
 */
export async function reserveBudget(ctx: AuthedContext, usd: number): Promise<BudgetReservation> {
  const now = clock.now();
  const day = utcDate(now);
  const amount = usd.toFixed(6);
  const budget = ctx.config.AI_DAILY_BUDGET_USD;
  // NOTE: one statement: the day's first call inserts its row, later ones add to it; the conflict
  // path waits for a concurrent writer's row lock and re-checks the sum, so no two pass together
  const taken = await ctx.prisma.$executeRaw`
    INSERT INTO ai_budget_days AS d (day, reserved_usd)
    SELECT ${day}::date, ${amount}::numeric WHERE ${amount}::numeric <= ${budget}::numeric
    ON CONFLICT (day) DO UPDATE SET reserved_usd = d.reserved_usd + EXCLUDED.reserved_usd
    WHERE d.spent_usd + d.reserved_usd + EXCLUDED.reserved_usd <= ${budget}::numeric`;
  if (taken === 1) return { day, usd: Number(amount) };
  countLimitHit('ai:budget');
  const resetAt = nextUtcMidnight(now);
  throw appError(
    'AI_BUDGET_EXHAUSTED',
    "Today's AI budget is spent; AI answers resume at reset_at",
    {
      retryAfter: (resetAt.getTime() - now.getTime()) / 1000,
      detail: {
        code: 'ai_budget_exhausted',
        message: "The service's AI budget for today is spent. Try again after reset_at (UTC).",
        reset_at: resetAt.toISOString(),
      },
    },
  );
}

/** Replaces a reservation by the real cost (in the caller's transaction, with the ledger row). */
export function settleBudget(
  tx: Prisma.TransactionClient,
  reservation: BudgetReservation,
  costUsd: Prisma.Decimal,
): Prisma.PrismaPromise<number> {
  return tx.$executeRaw`
    UPDATE ai_budget_days
    SET reserved_usd = GREATEST(reserved_usd - ${reservation.usd.toFixed(6)}::numeric, 0),
        spent_usd = spent_usd + ${costUsd.toFixed(6)}::numeric
    WHERE day = ${reservation.day}::date`;
}
