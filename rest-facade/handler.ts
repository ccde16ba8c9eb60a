/**
 * The one generic REST handler. For each route row: gather variables (path, then query, then
 * body; snake_case -> camelCase), run the persisted operation in process, answer the chosen root
 * field in snake_case, or the mapped error. No business rules here: validation, auth and limits
 * all happen behind the GraphQL fields.
 */
import express from 'express';
import type { Request, Response, Router } from 'express';
import { GraphQLError, Kind } from 'graphql';
import type { TypeNode } from 'graphql';
import { appError } from '../src/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/graphql/operations.ts';
import { jsonBodyParser } from '../src/platform/input-guards.ts';
import { camelKeys, snakeKeys, toCamel, toSnake } from '../src/wire.ts';
import { httpAnswerFor } from './http-errors.ts';
import { cachedResponder, preflightResponder, readMultipart } from './responders.ts';
import type { CachedAnswer } from './responders.ts';
import type { VariableOrigins } from './http-errors.ts';
import type { RestRoute } from './route.ts';

export interface RestFacadeOptions {
  routes: readonly RestRoute[];
  operations: OperationStore;
  /** builds the GraphQL context of one request (authenticates the caller) */
  context(req: Request): Promise<Context>;
  /** largest file part a multipart route reads (UPLOAD_MAX_BYTES); beyond it 413 */
  uploadMaxBytes: number;
}

/** Query strings are text; turn them into the scalar the variable expects (bad text stays text and fails coercion). */
function fromQueryString(raw: unknown, type: TypeNode): unknown {
  if (type.kind === Kind.NON_NULL_TYPE) return fromQueryString(raw, type.type);
  if (type.kind === Kind.LIST_TYPE) {
    const items = Array.isArray(raw) ? raw : String(raw).split(',');
    return items.map((v) => fromQueryString(v, type.type));
  }
  if (typeof raw !== 'string') return raw;
  switch (type.name.value) {
    case 'Int':
      return /^-?\d+$/.test(raw) ? Number(raw) : raw;
    case 'Float':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
    case 'Boolean':
      return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
    default:
      return raw;
  }
}

/** express path from the documented one: /api/x/{id} -> /api/x/:id */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function handlerFor(route: RestRoute, options: RestFacadeOptions) {
  const op = options.operations.byName.get(route.operation);
  if (!op) throw new Error(`route ${route.method} ${route.path}: unknown operation ${route.operation}`);
  const types = new Map(op.variables.map((v) => [v.variable.name.value, v.type]));
  const rootField = route.result ?? op.rootField;
  const variableName = (wire: string) => route.rename?.[wire] ?? toCamel(wire);
  const wireNames = new Map(Object.entries(route.rename ?? {}).map(([wire, name]) => [name, wire]));
  const cached = route.responder === 'cached' ? cachedResponder() : null;

  return async (req: Request, res: Response): Promise<void> => {
    const variables: Record<string, unknown> = {};
    const origins: VariableOrigins = new Map();
    const fail = (error: GraphQLError): void => {
      const answer = httpAnswerFor(error, origins, toSnake);
      res.status(answer.status).set(answer.headers).json(answer.body);
    };
    // NOTE: authentication comes before validation (FastAPI runs its security dependencies first):
    // a caller without a credential learns nothing about a protected route's parameters.
    let ctx: Context;
    try {
      ctx = await options.context(req);
    } catch (e) {
      // authentication itself refused the request (e.g. a cookie state change without CSRF)
      if (!(e instanceof GraphQLError)) throw e;
      return fail(e);
    }
    if (op.needsCredential && !ctx.principal) return fail(appError('UNAUTHENTICATED', 'Not authenticated'));

    const take = (wire: string, value: unknown, where: 'path' | 'query') => {
      const name = variableName(wire);
      const type = types.get(name);
      if (!type || name in variables) return; // parameters the operation does not take are ignored
      variables[name] = fromQueryString(value, type);
      origins.set(name, { in: where, name: wire });
    };
    for (const [k, v] of Object.entries(req.params)) take(k, v, 'path');
    for (const [k, v] of Object.entries(req.query)) take(k, v, 'query');
    let raw: unknown = req.body;
    if (route.responder === 'multipart') {
      const form = await readMultipart(req, { maxFileBytes: options.uploadMaxBytes });
      if (!form.ok) return void res.status(form.status).json({ detail: form.detail });
      // text fields are text, like query parameters; file parts pass through as Files
      raw = Object.fromEntries(
        Object.entries(form.body).map(([k, v]) => {
          const type = types.get(variableName(k));
          return [k, typeof v === 'string' && type ? fromQueryString(v, type) : v];
        }),
      );
    }
    const body = raw === undefined ? undefined : camelKeys(raw);
    if (route.body) {
      if (body !== undefined) variables[route.body] = body;
      origins.set(route.body, { in: 'body' });
    } else if (body && typeof body === 'object' && !Array.isArray(body)) {
      for (const [k, v] of Object.entries(body)) {
        if (!types.has(k) || k in variables) continue;
        variables[k] = v;
        origins.set(k, { in: 'body', name: toSnake(k) });
      }
    }
    // Variables nobody sent are located where the client should have sent them: the query string,
    // unless this route takes its variables from a JSON body (FastAPI's `loc` for a missing field).
    const absentIn = !route.body && body !== undefined && !['GET', 'DELETE', 'OPTIONS'].includes(route.method) ? 'body' : 'query';
    for (const name of types.keys()) {
      if (origins.has(name)) continue;
      const wire = wireNames.get(name) ?? toSnake(name);
      origins.set(name, absentIn === 'body' ? { in: 'body', name: wire } : { in: 'query', name: wire });
    }

    const result = await options.operations.execute(route.operation, variables, ctx);
    for (const cookie of ctx.responseCookies) res.append('set-cookie', cookie);
    if (result.errors.length) return fail(result.errors[0]);
    if (cached) return cached(req, res, result.data?.[rootField] as CachedAnswer);
    res.status(route.status ?? 200).json(snakeKeys(result.data?.[rootField] ?? null));
  };
}

/**
 * JSON body parsers for the rows with their own `bodyLimit`. Mount it before the global
 * express.json(): a body it has parsed is not parsed again (body-parser marks it read).
 */
export function createRouteBodyParsers(routes: readonly RestRoute[]): Router {
  const router = express.Router();
  for (const route of routes) {
    if (!route.bodyLimit) continue;
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';
    router[method](expressPath(route.path), jsonBodyParser(route.bodyLimit));
  }
  return router;
}

/** An express router serving every route row. */
export function createRestRouter(options: RestFacadeOptions): Router {
  const router = express.Router();
  for (const route of options.routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options';
    const methods = options.routes.filter((r) => r.path === route.path).map((r) => r.method);
    router[method](expressPath(route.path), route.responder === 'preflight' ? preflightResponder(methods) : handlerFor(route, options));
  }
  return router;
}
