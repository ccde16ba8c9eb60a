/**
 * The one call path of every MCP tool, in this order: scope -> declared arguments -> confirm ->
 * idempotency -> daily limit -> execute (-> page and cap the answer, health meta). Each step that
 * refuses answers an isError result the model can act on; only a call that passes all of them runs
 * its persisted operation, in process, with the caller's context.
 *
 * It must never hold business rules (validation, ownership and limits of the data live behind the
 * GraphQL fields), never import Prisma, a service or a domain module, and never leak an internal error.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../src/auth/principal.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { validationError } from '../src/base/errors.ts';
import { fingerprintOf } from '../src/platform/idempotency.ts';
import { unsafeInputIssues } from '../src/platform/input-guards.ts';
import type { IdempotencyKey, IdempotencyStore } from '../src/platform/idempotency.ts';
import type { Limiter } from '../src/platform/rate-limit.ts';
import { camelKeys } from '../src/base/wire.ts';
import {
  ANSWER_MAX_CHARS,
  capAnswer,
  CURSOR_ARG,
  cursorBinding,
  decodeCursor,
  encodeCursor,
  pageOf,
} from './answer-size.ts';
import type { Cut, PagePosition } from './answer-size.ts';
import {
  CONFIRM_ARG,
  HEALTH_META_OPERATION,
  IDEMPOTENCY_ARG,
  IDEMPOTENCY_KEY_LENGTH,
} from './registry.ts';
import type { RegisteredTool } from './registry.ts';
import { countToolCall } from '../src/platform/metrics.ts';
import {
  internalToolError,
  operationError,
  structuredOf,
  structuredResult,
  toolError,
} from './tool-results.ts';

export interface CallToolDeps {
  /** runs persisted operations: the tools' own, and healthDataSubject for health answers' meta */
  operations: Pick<OperationStore, 'execute'>;
  idempotency: IdempotencyStore;
  /** tool calls per token per UTC day */
  perDay: Limiter;
}

export type Arguments = Record<string, unknown>;

/**
 * What the limits count by: the personal token, or the OAuth connection (its access tokens rotate
 * hourly; the connection does not).
 */
export function limitKey(principal: Principal): string {
  switch (principal.kind) {
    case 'personal_token':
      return `pat:${principal.tokenId}`;
    case 'oauth':
      return `oauth:${principal.connectionId}`;
    case 'session':
      return `user:${principal.userId}`;
  }
}

/** The operation's arguments: without confirm, idempotency_key and (on tools the facade pages) cursor. */
function withoutFacadeArguments(tool: RegisteredTool, args: Arguments): Arguments {
  const { [CONFIRM_ARG]: _confirm, [IDEMPOTENCY_ARG]: _key, ...rest } = args;
  if (tool.paging === 'list' || tool.paging === 'page') delete rest[CURSOR_ARG];
  return rest;
}

/**
 * Arguments the tool does not declare (its inputSchema), refused whatever their name. NOTE:
 * `__proto__`, `constructor` and `prototype` too (issue 29): an own `__proto__` key (JSON.parse
 * makes one) is listed by Object.keys, and an argument object whose prototype is not a plain
 * object's had a `__proto__` key assigned by whatever parsed it, which counts as sending it.
 */
function undeclaredArguments(
  tool: RegisteredTool,
  args: Arguments,
  ctx: Context,
): CallToolResult | null {
  const extra = Object.keys(args).filter((k) => !tool.acceptedArguments.has(k));
  const proto: unknown = Object.getPrototypeOf(args);
  if (proto !== Object.prototype && proto !== null && !extra.includes('__proto__'))
    extra.unshift('__proto__');
  if (!extra.length) return null;
  const issues = extra.map((k) => ({
    loc: [k],
    msg: 'Extra inputs are not permitted',
    type: 'extra_forbidden',
  }));
  return operationError(validationError(issues), null, ctx.requestId);
}

function cursorIssue(): CallToolResult {
  const msg =
    'not a next_cursor of this tool for these arguments: send it with the same other arguments as the call that answered it';
  return toolError('VALIDATION_FAILED', `Invalid arguments: ${CURSOR_ARG}: ${msg}`, {
    detail: [{ loc: [CURSOR_ARG], msg, type: 'value_error' }],
  });
}

/** What health answers carry: when the person's phone last synced, and whose data it is while viewing as. */
async function healthMeta(ctx: Context, deps: CallToolDeps): Promise<Record<string, unknown>> {
  const result = await deps.operations.execute(HEALTH_META_OPERATION, {}, ctx);
  if (result.errors.length) throw result.errors[0];
  const subject = result.data?.healthDataSubject as
    | {
        userId: number;
        name: string | null;
        viewingAs: boolean;
        phoneLastSyncAt: Date | string | null;
      }
    | undefined;
  const synced = subject?.phoneLastSyncAt ? new Date(subject.phoneLastSyncAt).toISOString() : null;
  return {
    phone_last_sync_at: synced,
    // NOTE: whose data it is, whenever it is not the caller's own
    ...(subject?.viewingAs ? { subject: { user_id: subject.userId, name: subject.name } } : {}),
  };
}

/**
 * What an answer says when something was cut, and how to get more: a page (the items answered, how
 * many remain when known, call again with next_cursor) and lists shortened to fit (ask for less).
 */
function truncationNote(
  tool: RegisteredTool,
  page: { returned: number; remaining?: number } | null,
  cuts: Cut[],
): Record<string, unknown> {
  const notes: string[] = [];
  if (page)
    notes.push(
      `More items exist: call ${tool.row.name} again with the same arguments and ${CURSOR_ARG} set to next_cursor.`,
    );
  if (cuts.length) {
    notes.push(
      `Lists were cut to keep the answer under ${ANSWER_MAX_CHARS.toLocaleString('en')} characters (each keeps its first ` +
        'items, see cut): ask for less, e.g. a shorter range or a smaller limit.',
    );
  }
  return {
    ...(page ?? {}),
    ...(cuts.length
      ? { cut: cuts.map((c) => ({ path: c.path, returned: c.returned, total: c.total })) }
      : {}),
    note: notes.join(' '),
  };
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
  const paged = tool.paging === 'list' || tool.paging === 'page';
  const operationArgs = withoutFacadeArguments(tool, args);
  const binding = paged ? cursorBinding(tool.row.name, operationArgs) : '';
  const position = paged ? positionOf(args[CURSOR_ARG], binding) : FIRST_PAGE;
  if (!position) return cursorIssue();
  const camel = camelKeys({ ...operationArgs, ...tool.fixed }) as Arguments;
  if (tool.paging === 'page' && position.operationCursor)
    camel[CURSOR_ARG] = position.operationCursor;
  const variables = tool.flattened ? { [tool.flattened]: camel } : camel;
  const result = await deps.operations.execute(tool.row.operation, variables, ctx);
  if (result.errors.length) return operationError(result.errors[0], tool.flattened, ctx.requestId);
  const structured = structuredOf(result.data?.[tool.resultField] ?? null, tool.opaque);
  const page = paged ? pageAnswer(tool, structured, position, binding) : null;

  const meta: Record<string, unknown> = tool.healthData ? await healthMeta(ctx, deps) : {};
  if (page) meta.truncated = truncationNote(tool, page, []);
  if (Object.keys(meta).length) structured.meta = meta;
  if (tool.paging === 'own') return structuredResult(structured); // pages of its own shape: never cut here

  const cuts = capAnswer(structured, { keep: paged ? ['items'] : [] });
  if (!cuts) {
    return toolError(
      'PAYLOAD_TOO_LARGE',
      `The answer is larger than ${ANSWER_MAX_CHARS} characters: ask for less`,
    );
  }
  if (cuts.length) structured.meta = { ...meta, truncated: truncationNote(tool, page, cuts) };
  return structuredResult(structured);
}

const FIRST_PAGE: PagePosition = { operationCursor: null, offset: 0 };

/** Where a paged call starts: the first page, the cursor's position, or null for a bad cursor. */
function positionOf(cursor: unknown, binding: string): PagePosition | null {
  if (typeof cursor === 'string') return decodeCursor(cursor, binding);
  return cursor === undefined || cursor === null ? FIRST_PAGE : null;
}

/**
 * A page of a list answer: keeps the items from the position that fit and sets the cursor of the
 * rest; answers what the page returned (null when nothing is left).
 */
function pageAnswer(
  tool: RegisteredTool,
  structured: Record<string, unknown>,
  position: PagePosition,
  binding: string,
): { returned: number; remaining?: number } | null {
  if (!Array.isArray(structured.items)) return null;
  const all = structured.items as unknown[];
  const { items, nextOffset } = pageOf(all, position.offset);
  structured.items = items;
  const operationNext = tool.paging === 'page' ? structured.next_cursor : null;
  delete structured.next_cursor;
  const next: PagePosition | null =
    nextOffset !== null
      ? { operationCursor: position.operationCursor, offset: nextOffset }
      : typeof operationNext === 'string'
        ? { operationCursor: operationNext, offset: 0 }
        : null;
  if (!next) return null;
  structured.next_cursor = encodeCursor(binding, next);
  return {
    returned: items.length,
    ...(tool.paging === 'list' ? { remaining: all.length - position.offset - items.length } : {}),
  };
}

async function run(
  tool: RegisteredTool,
  args: Arguments,
  ctx: Context,
  deps: CallToolDeps,
): Promise<CallToolResult> {
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

  // only what the tool declares: confirm or idempotency_key sent to a tool without them is refused
  const undeclared = undeclaredArguments(tool, args, ctx);
  if (undeclared) return undeclared;

  if (tool.needsConfirm && args[CONFIRM_ARG] !== true) {
    return toolError('CONFIRMATION_REQUIRED', `Not run: ${tool.confirmNote}`);
  }

  const operationArgs = withoutFacadeArguments(tool, args);
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
        return toolError(
          'CONFLICT',
          `${IDEMPOTENCY_ARG} was already used with other arguments; use a new key`,
          {
            detail: { code: 'idempotency_key_reused' },
          },
        );
      case 'in_progress':
        return toolError(
          'CONFLICT',
          `An earlier call with this ${IDEMPOTENCY_ARG} is still running; retry shortly`,
          {
            detail: { code: 'idempotency_in_progress' },
            retryable: true,
            retryAfter: 1,
          },
        );
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
    const result = await execute(tool, args, ctx, deps);
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
  const start = performance.now();
  try {
    const result = await run(tool, args, ctx, deps);
    const error = (result.structuredContent as { error?: { code?: string } } | undefined)?.error;
    ctx.log.info(
      { tool: tool.row.name, error: result.isError ? error?.code : undefined },
      'mcp tool call',
    );
    const outcome = result.isError ? (error?.code ?? 'error') : 'ok';
    countToolCall(tool.row.name, outcome, (performance.now() - start) / 1000);
    return result;
  } catch (err) {
    ctx.log.error({ err, tool: tool.row.name }, 'mcp tool call failed');
    countToolCall(tool.row.name, 'internal', (performance.now() - start) / 1000);
    return internalToolError(ctx.requestId);
  }
}
