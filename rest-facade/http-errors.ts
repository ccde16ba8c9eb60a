/**
 * GraphQL errors -> the documented HTTP answers: status from the one error table, FastAPI-style
 * bodies (`{"detail": ...}`, 422 `{"detail": [{loc, msg, type}]}`), Retry-After and
 * WWW-Authenticate headers. Never a stack trace; INTERNAL carries the request id.
 */
import type { GraphQLError, GraphQLInputType } from 'graphql';
import { errorInfo, httpErrorBody } from '../src/base/errors.ts';
import type { ValidationIssue } from '../src/base/errors.ts';
import { toCamel } from '../src/base/wire.ts';
import { wirePath } from './wire-input.ts';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Where one variable came from on the wire. */
export interface VariableOrigin {
  in: 'path' | 'query' | 'header' | 'body';
  /** its wire name; none for the variable that receives the whole body */
  name?: string;
  /** its GraphQL type: locations inside it are mapped to wire names along the type */
  type?: GraphQLInputType;
}

/**
 * Where each variable came from on the wire, to map a GraphQL location back to FastAPI's `loc`.
 * `arguments` maps the root fields' argument names to the variables feeding them (a rule locates
 * its issue at its argument); `fallback` is where a location naming neither belongs.
 */
export interface VariableOrigins {
  variables: Map<string, VariableOrigin>;
  arguments?: ReadonlyMap<string, string>;
  fallback?: 'query' | 'body';
}

/** The variable a location starts with: a variable, an argument, or either spelled in snake_case. */
function variableOf(first: string, origins: VariableOrigins): string | undefined {
  for (const name of [first, toCamel(first)]) {
    if (origins.variables.has(name)) return name;
    const fed = origins.arguments?.get(name);
    if (fed !== undefined && origins.variables.has(fed)) return fed;
  }
  return undefined;
}

/**
 * One `loc` form for every 422: `["body", "samples", 0, "metric_type"]`, `["query", "limit"]`,
 * `["path", "meal_id"]`, wire (snake_case) names only, never a GraphQL variable name.
 */
export function wireLoc(
  loc: readonly (string | number)[],
  origins: VariableOrigins,
): (string | number)[] {
  const [first, ...rest] = loc;
  const variable = typeof first === 'string' ? variableOf(first, origins) : undefined;
  if (variable === undefined) {
    // a location naming no variable (e.g. a summary issue): where this route's input is sent
    return [origins.fallback ?? 'body', ...wirePath(undefined, loc)];
  }
  const origin = origins.variables.get(variable)!;
  const tail = wirePath(origin.type, rest);
  return origin.name === undefined ? [origin.in, ...tail] : [origin.in, origin.name, ...tail];
}

/** The HTTP answer for the first error of a failed operation. */
export function httpAnswerFor(error: GraphQLError, origins: VariableOrigins): HttpAnswer {
  const ext = error.extensions as {
    code?: string;
    detail?: unknown;
    retryAfter?: number;
    requestId?: string;
  };
  const info = errorInfo(ext.code);
  const headers: Record<string, string> = {};
  if (ext.retryAfter) headers['retry-after'] = String(ext.retryAfter);
  switch (info.code) {
    case 'UNAUTHENTICATED':
      headers['www-authenticate'] = 'Bearer';
      return {
        status: info.status,
        headers,
        body: httpErrorBody(info.code, { detail: error.message }),
      };
    case 'VALIDATION_FAILED': {
      const issues = (Array.isArray(ext.detail) ? ext.detail : []) as ValidationIssue[];
      const detail = issues.map((i) => ({
        loc: wireLoc(i.loc, origins),
        msg: i.msg,
        type: i.type,
      }));
      return { status: info.status, headers, body: httpErrorBody(info.code, { detail }) };
    }
    case 'INTERNAL':
      return {
        status: info.status,
        headers,
        body: httpErrorBody(info.code, { requestId: ext.requestId }),
      };
    default:
      return {
        status: info.status,
        headers,
        body: httpErrorBody(info.code, { detail: ext.detail ?? error.message }),
      };
  }
}
