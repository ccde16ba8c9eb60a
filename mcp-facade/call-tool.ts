/**
 * The one call path of every MCP tool, in this order: scope -> confirm -> idempotency -> daily
 * limit -> execute. Each step that refuses answers an isError result the model can act on; only a
 * call that passes all of them runs its persisted operation, in process, with the caller's context.
 *
 * It must never hold business rules (validation, ownership and limits of the data live behind the
 * GraphQL fields), never import Prisma, a service or a domain module, and never leak an internal error.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../src/auth/principal.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/graphql/operations.ts';
import { validationError } from '../src/errors.ts';
import { fingerprintOf } from '../src/platform/idempotency.ts';
import { unsafeInputIssues } from '../src/platform/input-guards.ts';
import type { IdempotencyKey, IdempotencyStore } from '../src/platform/idempotency.ts';
import type { Limiter } from '../src/platform/rate-limit.ts';
import { camelKeys } from '../src/wire.ts';
import { CONFIRM_ARG, IDEMPOTENCY_ARG, IDEMPOTENCY_KEY_LENGTH } from './registry.ts';
import type { RegisteredTool } from './registry.ts';
import { operationError, toolError, toolResult } from './tool-results.ts';

export interface CallToolDeps {
  operations: Pick<OperationStore, 'execute'>;
  idempotency: IdempotencyStore;
  /** tool calls per token per UTC day */
  perDay: Limiter;
  /** when the person's phone last synced (health answers carry it as meta.phone_last_sync_at) */
  phoneLastSyncAt(userId: number): Promise<Date | null>;
}

export type Arguments = Record<string, unknown>;

/** What the limits count by: the personal token (OAuth will count by connection). */
export function limitKey(principal: Principal): string {
  return principal.kind === 'personal_token' ? `pat:${principal.tokenId}` : `user:${principal.userId}`;
}

function withoutFacadeArguments(args: Arguments): Arguments {
  const { [CONFIRM_ARG]: _confirm, [IDEMPOTENCY_ARG]: _key, ...rest } = args;
  return rest;
}

/** The idempotency key of the call, or the validation failure that refuses it. */
function idempotencyKeyOf(args: Arguments): string | CallToolResult {
  const key = args[IDEMPOTENCY_ARG];
  const { min, max } = IDEMPOTENCY_KEY_LENGTH;
  const issue =
    key === undefined || key === null
      ? { msg: 'Field required', type: 'missing' }
      : typeof key !== 'string'
        ? { msg: 'Input should be a valid string', type: 'string_type' }
        : key.length < min
          ? { msg: `String should have at least ${min} characters`, type: 'string_too_short' }
          : key.length > max
            ? { msg: `String should have at most ${max} characters`, type: 'string_too_long' }
            : null;
  if (!issue) return key as string;
  return toolError('VALIDATION_FAILED', `Invalid arguments: ${IDEMPOTENCY_ARG}: ${issue.msg}`, {
    detail: [{ loc: [IDEMPOTENCY_ARG], ...issue }],
  });
}

async function execute(
  tool: RegisteredTool,
  args: Arguments,
  ctx: Context,
  deps: CallToolDeps,
): Promise<CallToolResult> {
  const extra = Object.keys(args).filter((k) => !tool.argumentNames.has(k));
  if (extra.length) {
    const error = validationError(extra.map((k) => ({ loc: [k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' })));
    return operationError(error, null, ctx.requestId);
  }
  const camel = camelKeys({ ...args, ...tool.fixed }) as Arguments;
  const variables = tool.flattened ? { [tool.flattened]: camel } : camel;
  const result = await deps.operations.execute(tool.row.operation, variables, ctx);
  if (result.errors.length) return operationError(result.errors[0], tool.flattened, ctx.requestId);
  const value = result.data?.[tool.resultField] ?? null;
  if (!tool.healthData) return toolResult(value);
  const synced = await deps.phoneLastSyncAt(ctx.principal!.userId);
  return toolResult(value, { phone_last_sync_at: synced ? synced.toISOString() : null });
}

async function run(tool: RegisteredTool, args: Arguments, ctx: Context, deps: CallToolDeps): Promise<CallToolResult> {
  const principal = ctx.principal!;

  // NOTE: the scope check. The GraphQL field checks again; this one answers before anything runs.
  const missing = tool.row.scopes.filter((s) => !principal.scopes.has(s));
  if (missing.length) {
    const message = `This token lacks the scope ${missing.join(', ')} that ${tool.row.name} needs`;
    const detail = { code: 'insufficient_scope', scope: missing.join(' ') };
    return toolError('INSUFFICIENT_SCOPE', message, { detail });
  }

  // NOTE: before the idempotency store (or the operation) sees them: text that cannot be stored, nesting
  const unsafe = unsafeInputIssues(args);
  if (unsafe.length) return operationError(validationError(unsafe), null, ctx.requestId);

  if (tool.needsConfirm && args[CONFIRM_ARG] !== true) {
    return toolError('CONFIRMATION_REQUIRED', `Not run: ${tool.confirmNote}`);
  }

  const operationArgs = withoutFacadeArguments(args);
  let claimed: IdempotencyKey | null = null;
  if (tool.creates) {
    const key = idempotencyKeyOf(args);
    if (typeof key !== 'string') return key;
    const id: IdempotencyKey = { userId: principal.userId, tool: tool.row.name, key };
    const claim = await deps.idempotency.claim(id, fingerprintOf(operationArgs));
    switch (claim.state) {
      case 'replay':
        return claim.result as CallToolResult;
      case 'conflict':
        return toolError('CONFLICT', `${IDEMPOTENCY_ARG} was already used with other arguments; use a new key`, {
          detail: { code: 'idempotency_key_reused' },
        });
      case 'in_progress':
        return toolError('CONFLICT', `An earlier call with this ${IDEMPOTENCY_ARG} is still running; retry shortly`, {
          detail: { code: 'idempotency_in_progress' },
          retryable: true,
          retryAfter: 1,
        });
      case 'claimed':
        claimed = id;
    }
  }

  try {
    const day = await deps.perDay.take(limitKey(principal));
    if (!day.allowed) {
      const resetAt = day.resetAt.toISOString();
      const message = `Daily limit of ${day.limit} tool calls reached for this token; it resets at ${resetAt}`;
      return toolError('RATE_LIMITED', message, {
        detail: { code: 'rate_limited', limit: day.limit, reset_at: resetAt },
        retryAfter: day.retryAfterSeconds,
      });
    }
    const result = await execute(tool, operationArgs, ctx, deps);
    if (claimed && !result.isError) {
      const id = claimed;
      claimed = null; // if storing fails, the claim stays in progress rather than letting a retry run twice
      await deps.idempotency.complete(id, result);
    }
    return result;
  } finally {
    if (claimed) await deps.idempotency.release(claimed);
  }
}

/** Runs one tool call for the caller in `ctx` (a personal token, checked by the server). */
export async function callTool(
  tool: RegisteredTool,
  args: Arguments,
  ctx: Context,
  deps: CallToolDeps,
): Promise<CallToolResult> {
  try {
    const result = await run(tool, args, ctx, deps);
    const error = (result.structuredContent as { error?: { code?: string } } | undefined)?.error;
    ctx.log.info({ tool: tool.row.name, error: result.isError ? error?.code : undefined }, 'mcp tool call');
    return result;
  } catch (err) {
    ctx.log.error({ err, tool: tool.row.name }, 'mcp tool call failed');
    return toolError('INTERNAL', 'Internal Server Error', { requestId: ctx.requestId });
  }
}
