/**
 * One guarded model call of an AI feature: the checks of ai.guard.ts in their order, the cache
 * (a repeat of the same request by the same account answers without a model call, before the cap
 * and budget), the call itself through the openai SDK with a JSON-schema answer, and one ledger
 * row per call (failed calls included) written with the budget's settlement.
 *
 * It never invents a result: a timeout is 504; an API error, a malformed answer (not JSON, no
 * choices: src/integrations/openai.ts) or an answer that does not fit the feature's schema is 502. It must never decide what a feature asks: the prompt and the answer's
 * shape come from the feature (ai.meals.ts).
 */
import { zodResponseFormat } from 'openai/helpers/zod';
import { APIConnectionTimeoutError, OpenAIError } from 'openai';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { appError } from '../../base/errors.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { createCompletion } from '../../integrations/openai.ts';
import type { ModelClient } from '../../integrations/openai.ts';
import { isUpstreamError } from '../../integrations/upstream.ts';
import { fingerprintOf } from '../../platform/idempotency.ts';
import { countAiUsage } from '../../platform/metrics.ts';
import type { AiFeature } from './ai.features.ts';
import { AI_FEATURES } from './ai.features.ts';
import type { BudgetReservation } from './ai.guard.ts';
import {
  availableModel,
  ensureAiConsent,
  refundDailyCap,
  reserveBudget,
  settleBudget,
  takeDailyCap,
} from './ai.guard.ts';
import { clock } from '../../base/clock.ts';

/**
 * Input tokens reserved per image: the most a large photo counts at high detail on the costliest
 * vision pricing (images are billed as tokens). Only the reservation uses it; the ledger records
 * what the API reports.
 */
export const IMAGE_TOKENS_RESERVED = 40_000;

/** Tokens reserved per message beside its text (the chat format's own tokens). */
const MESSAGE_TOKENS = 20;

export interface ModelRequest<T> {
  feature: AiFeature;
  /** the instructions (system message) */
  instructions: string;
  /** the person's part (user message text) */
  text: string;
  /** images for the model, as data: URLs */
  images?: string[];
  /** the answer's shape, sent as a strict JSON schema; an answer that does not fit is a 502 */
  answer: z.ZodType<T>;
  /** everything the answer depends on beside the instructions and model; omitted: no cache */
  cacheOn?: unknown;
  /** cache hits are also ledger rows (cached, no cost): "every call is recorded" (analyze) */
  ledgerCacheHits?: boolean;
}

/** ok; failed: an API error or an unusable answer; timeout: no answer in OPENAI_TIMEOUT_MS */
type Outcome = 'ok' | 'failed' | 'timeout';

interface CallRecord {
  feature: AiFeature;
  model: string;
  tokensIn: number;
  tokensOut: number;
  outcome: Outcome;
  reservation: BudgetReservation;
}

/** USD of a call: tokens times the model's price per 1M (AI_PRICES). */
function costOf(ctx: AuthedContext, model: string, tokensIn: number, tokensOut: number) {
  const price = ctx.config.aiPrices[model];
  return new Prisma.Decimal(tokensIn)
    .mul(price.input)
    .add(new Prisma.Decimal(tokensOut).mul(price.output))
    .div(1_000_000)
    .toDecimalPlaces(6, Prisma.Decimal.ROUND_UP);
}

/**
 * The most a call can cost: every UTF-8 byte of its texts as a token (a token is at least one
 * byte), MESSAGE_TOKENS per message, each image at IMAGE_TOKENS_RESERVED, and `maxOutputTokens`.
 */
export function worstCaseUsd(
  ctx: AuthedContext,
  model: string,
  input: { texts: string[]; images: number; maxOutputTokens: number },
): number {
  const tokensIn =
    input.texts.reduce((n, t) => n + Buffer.byteLength(t) + MESSAGE_TOKENS, 0) +
    input.images * IMAGE_TOKENS_RESERVED;
  return costOf(ctx, model, tokensIn, input.maxOutputTokens).toNumber();
}

const worstCaseOf = <T>(ctx: AuthedContext, model: string, request: ModelRequest<T>): number =>
  worstCaseUsd(ctx, model, {
    texts: [request.instructions, request.text],
    images: request.images?.length ?? 0,
    maxOutputTokens: AI_FEATURES[request.feature].maxOutputTokens,
  });

/** The ledger row of a call, the budget's settlement and the cached answer, in one transaction. */
async function record(
  ctx: AuthedContext,
  call: CallRecord,
  cache?: { key: string; answer: unknown },
): Promise<void> {
  const cost = costOf(ctx, call.model, call.tokensIn, call.tokensOut);
  const writes: Prisma.PrismaPromise<unknown>[] = [
    settleBudget(ctx.prisma, call.reservation, cost),
    ctx.prisma.aiUsage.create({
      data: {
        userId: ctx.principal.userId,
        feature: call.feature,
        model: call.model,
        tokensIn: call.tokensIn,
        tokensOut: call.tokensOut,
        costUsd: cost,
        outcome: call.outcome,
      },
    }),
  ];
  if (cache) {
    const answer = cache.answer as Prisma.InputJsonValue;
    const where = { userId: ctx.principal.userId, feature: call.feature, key: cache.key };
    writes.push(
      ctx.prisma.aiCache.upsert({
        where: { userId_feature_key: where },
        create: { ...where, answer },
        update: { answer, createdAt: clock.now() },
      }),
    );
  }
  await ctx.prisma.$transaction(writes);
  countAiUsage({ ...call, cached: false, costUsd: cost.toNumber() });
}

/** The cached answer of `key` if it is younger than AI_CACHE_DAYS and still fits the schema. */
async function cachedAnswer<T>(
  ctx: AuthedContext,
  feature: AiFeature,
  key: string,
  answer: z.ZodType<T>,
): Promise<T | null> {
  const row = await ctx.prisma.aiCache.findUnique({
    where: { userId_feature_key: { userId: ctx.principal.userId, feature, key } },
    select: { answer: true, createdAt: true },
  });
  if (!row || row.createdAt.getTime() < clock.ms() - ctx.config.AI_CACHE_DAYS * 86_400_000)
    return null;
  const parsed = answer.safeParse(row.answer);
  return parsed.success ? parsed.data : null;
}

function userContent(text: string, images: string[]): string | ChatCompletionContentPart[] {
  if (!images.length) return text;
  return [
    { type: 'text', text },
    ...images.map((url) => ({
      type: 'image_url' as const,
      image_url: { url, detail: 'auto' as const },
    })),
  ];
}

/** The answer's JSON if it parses and fits the schema, else null. */
function parseAnswer<T>(content: string | null | undefined, answer: z.ZodType<T>): T | null {
  if (!content) return null;
  try {
    const parsed = answer.safeParse(JSON.parse(content));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const failed = (): Error =>
  appError('UPSTREAM_FAILED', 'The AI model failed to answer usably; try again in a moment', {
    retryAfter: 5,
  });

/** What one model call used, as the API reports it. */
export interface ModelUsage {
  tokensIn: number;
  tokensOut: number;
}

/** The result of one SDK call inside guardedCall: its value (null: unusable, 502) and usage. */
export interface CallResult<R> {
  value: R | null;
  usage: ModelUsage;
}

export interface GuardedCallOptions {
  feature: AiFeature;
  /** the most the call can cost (reserved from the day's budget before it) */
  worstCaseUsd: number;
  /** kept with the answer when the call succeeds (askModel's cache) */
  cacheKey?: string | null;
}

/**
 * One model call of `feature` after the cap and budget checks (availability and consent are the
 * caller's, before its cache), recorded in the ledger whatever happens: `call` gets the client and
 * the feature's model and answers the value and usage; a null value is a 502, an SDK timeout a
 * 504, any other API error a 502. The assistant uses it per model round; askModel for one answer.
 */
export async function guardedCall<R>(
  ctx: AuthedContext,
  options: GuardedCallOptions,
  call: (client: ModelClient, model: string) => Promise<CallResult<R>>,
): Promise<R> {
  const client = availableModel(ctx);
  const { feature } = options;
  const model = AI_FEATURES[feature].model(ctx.config);
  await takeDailyCap(ctx, feature);
  let reservation: BudgetReservation;
  try {
    reservation = await reserveBudget(ctx, options.worstCaseUsd);
  } catch (error) {
    await refundDailyCap(ctx, feature);
    throw error;
  }
  const base = { feature, model, reservation, tokensIn: 0, tokensOut: 0 };
  let result: CallResult<R>;
  try {
    result = await call(client, model);
  } catch (error) {
    // the SDK's errors (an API error, a timeout, a stream it could not read) and answers the
    // integration found malformed (src/integrations/openai.ts); anything else is ours
    if (!(error instanceof OpenAIError) && !isUpstreamError(error)) throw error;
    const timedOut = error instanceof APIConnectionTimeoutError;
    const status = (error as { status?: unknown }).status;
    ctx.log.warn({ feature, model, status, timedOut }, 'AI model call failed');
    await record(ctx, { ...base, outcome: timedOut ? 'timeout' : 'failed' });
    if (timedOut) {
      throw appError('UPSTREAM_TIMEOUT', 'The AI model did not answer in time; try again', {
        retryAfter: 5,
      });
    }
    throw failed();
  }
  if (result.value === null) {
    ctx.log.warn({ feature, model }, 'AI model answer did not fit its schema');
    await record(ctx, { ...base, ...result.usage, outcome: 'failed' });
    throw failed();
  }
  const cache = options.cacheKey ? { key: options.cacheKey, answer: result.value } : undefined;
  await record(ctx, { ...base, ...result.usage, outcome: 'ok' }, cache);
  return result.value;
}

/** Asks the feature's model for one JSON answer: checked, cached and recorded (module comment). */
export async function askModel<T>(ctx: AuthedContext, request: ModelRequest<T>): Promise<T> {
  availableModel(ctx);
  await ensureAiConsent(ctx);
  const { feature } = request;
  const model = AI_FEATURES[feature].model(ctx.config);
  const key =
    request.cacheOn === undefined
      ? null
      : fingerprintOf({ model, instructions: request.instructions, input: request.cacheOn });
  if (key) {
    const hit = await cachedAnswer(ctx, feature, key, request.answer);
    if (hit) {
      if (request.ledgerCacheHits) {
        await ctx.prisma.aiUsage.create({
          data: { userId: ctx.principal.userId, feature, model, cached: true, outcome: 'ok' },
        });
        countAiUsage({
          feature,
          outcome: 'ok',
          cached: true,
          tokensIn: 0,
          tokensOut: 0,
          costUsd: 0,
        });
      }
      return hit;
    }
  }
  const worstCaseUsd = worstCaseOf(ctx, model, request);
  return guardedCall(ctx, { feature, worstCaseUsd, cacheKey: key }, async (client) => {
    const completion = await createCompletion(
      client,
      {
        model,
        messages: [
          { role: 'system', content: request.instructions },
          { role: 'user', content: userContent(request.text, request.images ?? []) },
        ],
        response_format: zodResponseFormat(request.answer, feature),
        max_completion_tokens: AI_FEATURES[feature].maxOutputTokens,
      },
      ctx.log,
    );
    return {
      value: parseAnswer(completion.choices[0]?.message?.content, request.answer),
      usage: {
        tokensIn: completion.usage?.prompt_tokens ?? 0,
        tokensOut: completion.usage?.completion_tokens ?? 0,
      },
    };
  });
}
