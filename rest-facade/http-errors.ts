/**
 * GraphQL errors -> the documented HTTP answers: status from the one error table, FastAPI-style
 * bodies (`{"detail": ...}`, 422 `{"detail": [{loc, msg, type}]}`), Retry-After and
 * WWW-Authenticate headers. Never a stack trace; INTERNAL carries the request id.
 */
import type { GraphQLError } from 'graphql';
import { errorInfo } from '../src/errors.ts';
import type { ValidationIssue } from '../src/errors.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Where each variable came from on the wire: maps a GraphQL location back to FastAPI's `loc`. */
export type VariableOrigins = Map<string, { in: 'path' | 'query' | 'body'; name?: string }>;

function wireLoc(loc: (string | number)[], origins: VariableOrigins, toWire: (k: string) => string): (string | number)[] {
  const [variable, ...rest] = loc;
  const origin = origins.get(String(variable));
  const tail = rest.map((p) => (typeof p === 'string' ? toWire(p) : p));
  if (!origin) return ['body', ...(variable === undefined ? [] : [toWire(String(variable))]), ...tail];
  if (origin.in === 'body' && !origin.name) return ['body', ...tail];
  return [origin.in, origin.name ?? toWire(String(variable)), ...tail];
}

/** The HTTP answer for the first error of a failed operation. */
export function httpAnswerFor(error: GraphQLError, origins: VariableOrigins, toWire: (k: string) => string): HttpAnswer {
  const ext = error.extensions as { code?: string; detail?: unknown; retryAfter?: number; requestId?: string };
  const info = errorInfo(ext.code);
  const headers: Record<string, string> = {};
  if (ext.retryAfter) headers['retry-after'] = String(ext.retryAfter);
  switch (info.code) {
    case 'UNAUTHENTICATED':
      headers['www-authenticate'] = 'Bearer';
      return { status: 401, headers, body: { detail: error.message } };
    case 'VALIDATION_FAILED': {
      const issues = (Array.isArray(ext.detail) ? ext.detail : []) as ValidationIssue[];
      return {
        status: 422,
        headers,
        body: { detail: issues.map((i) => ({ loc: wireLoc(i.loc, origins, toWire), msg: i.msg, type: i.type })) },
      };
    }
    case 'INTERNAL':
      return { status: 500, headers, body: { detail: 'Internal Server Error', request_id: ext.requestId } };
    default:
      return { status: info.status, headers, body: { detail: ext.detail ?? error.message } };
  }
}
