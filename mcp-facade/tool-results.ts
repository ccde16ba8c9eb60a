/**
 * The shapes of tool answers. Success: `structuredContent` is the operation's answer in snake_case
 * (an object; lists come as `{ items }`), plus the same JSON as a text block for older clients.
 * Failure: an `isError` result whose `structuredContent.error` carries the code of the one error
 * table (src/base/errors.ts), the message, the detail, and whether a retry can succeed.
 *
 * It must never show a stack trace or an internal message: INTERNAL answers only the request id.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLError } from 'graphql';
import { errorInfo, errorMessage } from '../src/base/errors.ts';
import type { AppErrorExtensions, ErrorCode, ValidationIssue } from '../src/base/errors.ts';
import { snakeKeys, toSnake } from '../src/base/wire.ts';
import type { OpaqueKeys } from '../src/base/wire.ts';

export interface ToolErrorBody {
  code: ErrorCode;
  message: string;
  detail?: unknown;
  /** whether the same call can succeed later (from the error table unless stated) */
  retryable: boolean;
  /** seconds to wait before retrying, when known */
  retry_after?: number;
  /** INTERNAL only: quote it when reporting the problem */
  request_id?: string;
}

export interface ToolErrorOptions {
  detail?: unknown;
  retryable?: boolean;
  retryAfter?: number;
  requestId?: string;
}

function withText(structured: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}

/** An isError result with the given code. */
export function toolError(
  code: ErrorCode,
  message: string,
  options: ToolErrorOptions = {},
): CallToolResult {
  const error: ToolErrorBody = {
    code,
    message,
    retryable: options.retryable ?? errorInfo(code).retryable,
  };
  if (options.detail !== undefined) error.detail = options.detail;
  if (options.retryAfter !== undefined) error.retry_after = options.retryAfter;
  if (options.requestId !== undefined) error.request_id = options.requestId;
  return withText({ error }, true);
}

/** The INTERNAL result: the table's message and the request id, never the cause. */
export function internalToolError(requestId: string): CallToolResult {
  return toolError('INTERNAL', errorMessage('INTERNAL'), { requestId });
}

/**
 * An operation's answer as the structured content of a tool: snake_case keys (JSON values, at
 * `opaque`, keep theirs), Dates as ISO strings
 * (one JSON round trip, so what is stored for replays equals what is sent), and always an object
 * (`{ items }` for lists, `{ result }` for anything that is not an object).
 */
export function structuredOf(value: unknown, opaque?: OpaqueKeys | true): Record<string, unknown> {
  const wire = JSON.parse(JSON.stringify(snakeKeys(value, opaque) ?? null)) as unknown;
  return Array.isArray(wire)
    ? { items: wire }
    : wire && typeof wire === 'object'
      ? (wire as Record<string, unknown>)
      : { result: wire };
}

/** A successful result carrying `structured` (already an object) and the same JSON as text. */
export function structuredResult(structured: Record<string, unknown>): CallToolResult {
  return withText(structured, false);
}

/** A successful result: any value becomes an object (`{ items }` for lists, `{ result }` for the rest). */
export function toolResult(value: unknown, meta?: Record<string, unknown>): CallToolResult {
  const structured = structuredOf(value);
  return withText(meta ? { ...structured, meta } : structured, false);
}

/** A validation issue with its location in tool arguments (snake_case; a flattened `input` dropped). */
function argumentLoc(loc: (string | number)[], flattened: string | null): (string | number)[] {
  const rest = flattened && loc[0] === flattened ? loc.slice(1) : loc;
  return rest.map((p) => (typeof p === 'string' ? toSnake(p) : p));
}

/**
 * The isError result of a failed operation (its first error, whose code the error table knows).
 * `flattened` is the variable spread into top-level arguments; `requestId` is quoted for INTERNAL.
 */
export function operationError(
  error: GraphQLError,
  flattened: string | null,
  requestId: string,
): CallToolResult {
  const ext = error.extensions as Partial<AppErrorExtensions>;
  const { code } = errorInfo(ext.code);
  const retryAfter = ext.retryAfter;
  switch (code) {
    case 'VALIDATION_FAILED': {
      const issues = (Array.isArray(ext.detail) ? ext.detail : []) as ValidationIssue[];
      const detail = issues.map((i) => ({
        loc: argumentLoc(i.loc, flattened),
        msg: i.msg,
        type: i.type,
      }));
      const listed = detail.map((d) => `${d.loc.join('.') || 'arguments'}: ${d.msg}`);
      return toolError(code, `Invalid arguments: ${listed.join('; ')}`, { detail });
    }
    case 'INTERNAL':
      return internalToolError(ext.requestId ?? requestId);
    default:
      return toolError(code, error.message, { detail: ext.detail, retryAfter });
  }
}
