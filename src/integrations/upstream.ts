/**
 * Answers of third parties (Stripe, the AI model, the room-monitor cloud, identity providers),
 * checked where they enter: each integration states the fields it relies on as a zod schema, and
 * an answer without them (not JSON, the wrong shape, a field missing) is the third party's fault,
 * a 502 UPSTREAM_FAILED whose message says who answered and what to do, never an INTERNAL 500 from
 * reading a field that is not there (issue 29).
 *
 * It must never echo the third party's answer to the caller (the log gets the paths of the
 * fields that were wrong, never their values).
 */
import type { GraphQLError } from 'graphql';
import type { z } from 'zod';
import { appError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';

/** Seconds after which a retry may find the third party answering normally again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The 502 of a third party that answered unusably: `service` as a person reads it ("the payment
 * provider"), `what` it was asked to do ("read the saved cards"). With `code`, the detail is
 * `{code, message}` (an integration whose other failures answer a code); else the message.
 */
export function upstreamError(
  service: string,
  what: string,
  options: { code?: string } = {},
): GraphQLError {
  const who = service.charAt(0).toUpperCase() + service.slice(1);
  const message = `${who} answered unexpectedly when asked to ${what}; try again later`;
  return appError('UPSTREAM_FAILED', message, {
    retryAfter: RETRY_AFTER_SECONDS,
    ...(options.code ? { detail: { code: options.code, message } } : {}),
  });
}

/** Whether `error` is an UPSTREAM_FAILED error (from upstreamError or an integration). */
export function isUpstreamError(error: unknown): boolean {
  return (
    !!error &&
    typeof error === 'object' &&
    (error as { extensions?: { code?: unknown } }).extensions?.code === 'UPSTREAM_FAILED'
  );
}

export interface UpstreamAnswer {
  /** who answered, as a person reads it: "the payment provider" */
  service: string;
  /** what it was asked to do: "read the saved cards" */
  what: string;
  /** the detail code of the integration's failures, if it has one (upstreamError) */
  code?: string;
  /** where to note which fields were wrong */
  log?: Pick<Logger, 'warn'>;
}

/** `answer` parsed by `shape` (its fields only), else the 502 of upstreamError. */
export function parsedAnswer<T>(answer: unknown, shape: z.ZodType<T>, about: UpstreamAnswer): T {
  const parsed = shape.safeParse(answer);
  if (parsed.success) return parsed.data;
  about.log?.warn(
    {
      service: about.service,
      fields: parsed.error.issues.slice(0, 5).map((i) => i.path.join('.')),
    },
    `unexpected answer when asked to ${about.what}`,
  );
  throw upstreamError(about.service, about.what, { code: about.code });
}

/**
 * `answer` itself when it has the fields `shape` states (extra fields are fine and kept), else
 * the 502 of upstreamError. The answer is returned as it came, so an SDK's own types still apply.
 */
export function checkedAnswer<T>(answer: T, shape: z.ZodType, about: UpstreamAnswer): T {
  parsedAnswer(answer, shape, about);
  return answer;
}
