/**
 * One error table drives GraphQL, REST and MCP (docs/architecture.md section 5).
 * Core code throws appError(CODE, message, options); anything else is masked as INTERNAL.
 */
import { GraphQLError } from 'graphql';

/** One validation issue in the documented FastAPI shape (a 422 answer's `detail[]`). */
export interface ValidationIssue {
  /** where: ['body', 'samples', 0, 'metric_type'], ['query', 'limit'], or a variable path */
  loc: (string | number)[];
  msg: string;
  /** Pydantic's error type, e.g. missing, greater_than_equal, string_too_long */
  type: string;
}

/** At most this many validation issues are answered; the rest are summarised by their count. */
export const MAX_ISSUES = 20;

/** How much of a refused input an error message may echo. */
export const MAX_ECHO_CHARS = 100;

/** Longest error message (a list of the allowed values fits). */
const MAX_MESSAGE_CHARS = 1_000;

/** Shortens a piece of input for an error message: at most MAX_ECHO_CHARS characters. */
export function clip(text: string, max = MAX_ECHO_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * An error message with every quoted stretch of input shortened to MAX_ECHO_CHARS, and the whole
 * capped (graphql-js and zod quote the refused value in full).
 */
export function clipMessage(message: string): string {
  const clipped = message.replace(/"(?:[^"\\]|\\.)*"/gs, (quoted) =>
    quoted.length <= MAX_ECHO_CHARS + 2 ? quoted : `"${clip(quoted.slice(1, -1))}"`,
  );
  return clip(clipped, MAX_MESSAGE_CHARS);
}

/** One row of the table: the HTTP status, whether a retry can succeed, the default message. */
export interface ErrorRow {
  status: number;
  retryable: boolean;
  /** the answer's text when nothing more is said (`{"detail": message}` over HTTP) */
  message?: string;
}

export const ERROR_TABLE = {
  UNAUTHENTICATED: { status: 401, retryable: false, message: 'Not authenticated' },
  BAD_REQUEST: { status: 400, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  INSUFFICIENT_SCOPE: { status: 403, retryable: false },
  NOT_FOUND: { status: 404, retryable: false, message: 'Not Found' },
  /** HTTP only: a known path asked with a method it does not serve (with `Allow`) */
  METHOD_NOT_ALLOWED: { status: 405, retryable: false, message: 'Method Not Allowed' },
  CONFLICT: { status: 409, retryable: false },
  PAYLOAD_TOO_LARGE: { status: 413, retryable: false, message: 'Request body too large' },
  VALIDATION_FAILED: { status: 422, retryable: false },
  RATE_LIMITED: { status: 429, retryable: true },
  AI_BUDGET_EXHAUSTED: { status: 429, retryable: true },
  UPSTREAM_FAILED: { status: 502, retryable: true },
  UNAVAILABLE: { status: 503, retryable: true },
  UPSTREAM_TIMEOUT: { status: 504, retryable: true },
  /** MCP facade only: a deletes/shares/payment tool called without confirm: true */
  CONFIRMATION_REQUIRED: { status: 400, retryable: false },
  /** NOTE: the only text an unknown error shows; the cause goes to the log, never to the client */
  INTERNAL: { status: 500, retryable: true, message: 'Internal Server Error' },
} as const satisfies Record<string, ErrorRow>;

export type ErrorCode = keyof typeof ERROR_TABLE;

export interface AppErrorOptions {
  /** Structured detail: the REST body's `detail` (validation issues, {code, kind}, ...) */
  detail?: unknown;
  /** Seconds until a retry may succeed (429, 503) */
  retryAfter?: number;
}

export interface AppErrorExtensions {
  code: ErrorCode;
  detail?: unknown;
  retryAfter?: number;
  requestId?: string;
}

/** The error every layer understands. */
export function appError(
  code: ErrorCode,
  message: string,
  options: AppErrorOptions = {},
): GraphQLError {
  const extensions: AppErrorExtensions = { code };
  if (options.detail !== undefined) extensions.detail = options.detail;
  if (options.retryAfter !== undefined)
    extensions.retryAfter = Math.max(1, Math.ceil(options.retryAfter));
  return new GraphQLError(message, {
    extensions: extensions as unknown as Record<string, unknown>,
  });
}

/**
 * A VALIDATION_FAILED error with its issue list. Answers stay small whatever the input: at most
 * MAX_ISSUES issues (then one saying how many more), each message echoing at most ~100 characters
 * of the refused input (src/platform/input-guards.ts).
 */
export function validationError(issues: ValidationIssue[]): GraphQLError {
  const shown: ValidationIssue[] = issues.slice(0, MAX_ISSUES).map((i) => ({
    loc: i.loc.map((p) => (typeof p === 'string' ? clip(p) : p)),
    msg: clipMessage(i.msg),
    type: i.type,
  }));
  if (issues.length > MAX_ISSUES) {
    shown.push({
      loc: [],
      msg: `${issues.length - MAX_ISSUES} more errors not shown`,
      type: 'too_many_errors',
    });
  }
  return appError(
    'VALIDATION_FAILED',
    clip(shown.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '), 2_000),
    {
      detail: shown,
    },
  );
}

/** The table entry of a code, or INTERNAL for codes we did not issue. */
export function errorInfo(code: unknown): ErrorRow & { code: ErrorCode } {
  const c = typeof code === 'string' && code in ERROR_TABLE ? (code as ErrorCode) : 'INTERNAL';
  return { code: c, ...ERROR_TABLE[c] };
}

/** The default message of a code (its HTTP reason phrase when the table names none). */
export function errorMessage(code: ErrorCode): string {
  const row: ErrorRow = ERROR_TABLE[code];
  return row.message ?? code;
}

/** An HTTP error body in the documented (FastAPI) form. */
export interface HttpErrorBody {
  /** a message, or structured detail (422: the issue list; 403/429: `{code, ...}`) */
  detail: unknown;
  /** INTERNAL: the id to quote when reporting the problem */
  request_id?: string;
}

/**
 * The one builder of HTTP error bodies: `{"detail": ...}` with the code's default message unless
 * `detail` says more, plus `request_id` when given (INTERNAL). The status is ERROR_TABLE[code].status
 * unless the answer keeps another 4xx of its own (e.g. a body parser's 415).
 */
export function httpErrorBody(
  code: ErrorCode,
  options: { detail?: unknown; requestId?: string } = {},
): HttpErrorBody {
  const body: HttpErrorBody = { detail: options.detail ?? errorMessage(code) };
  if (options.requestId !== undefined) body.request_id = options.requestId;
  return body;
}

/**
 * Masks anything that is not a deliberate GraphQLError (ours, or graphql-js' own parse and
 * validation errors): the client sees INTERNAL's message and a request id, the log sees the cause.
 */
export function maskError(
  error: unknown,
  requestId: string,
  log?: (err: unknown) => void,
): GraphQLError {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (!original || original instanceof GraphQLError) {
      // unwrap so the extensions of the thrown appError are kept, with the path of the located error
      if (original instanceof GraphQLError && original.extensions?.code) {
        return new GraphQLError(original.message, {
          nodes: error.nodes,
          path: error.path,
          extensions: original.extensions,
        });
      }
      return error;
    }
    log?.(original);
    return new GraphQLError(errorMessage('INTERNAL'), {
      nodes: error.nodes,
      path: error.path,
      extensions: { code: 'INTERNAL', requestId },
    });
  }
  log?.(error);
  return new GraphQLError(errorMessage('INTERNAL'), {
    extensions: { code: 'INTERNAL', requestId },
  });
}
