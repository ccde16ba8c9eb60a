/**
 * The one generic REST handler. For each route row: gather variables (path, then query, then
 * body), each read from its wire value along its GraphQL type as the legacy FastAPI server read
 * it (wire-input.ts: snake_case names only, undeclared keys ignored, Pydantic's lax scalars), run
 * the persisted operation in process, answer the chosen root field in snake_case, or the mapped
 * error. A known path asked with another method answers 405. No business rules here: validation,
 * auth and limits all happen behind the GraphQL fields.
 */
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { GraphQLError, Kind, typeFromAST } from 'graphql';
import type { GraphQLInputType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import {
  appError,
  ERROR_TABLE,
  errorMessage,
  httpErrorBody,
  validationError,
} from '../src/base/errors.ts';
import type { ValidationIssue } from '../src/base/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore, PersistedOperation } from '../src/schema/operations.ts';
import { jsonStreamBodyParser } from '../src/platform/json-stream.ts';
import { photoMaxBytes, photoTooLarge } from '../src/platform/photos.ts';
import { snakeKeys, toCamel, toSnake } from '../src/base/wire.ts';
import type { OpaqueKeys } from '../src/base/wire.ts';
import { httpAnswerFor } from './http-errors.ts';
import type { VariableOrigin, VariableOrigins } from './http-errors.ts';
import {
  cachedResponder,
  fileResponder,
  openStreamedForm,
  preflightResponder,
  readMultipart,
  streamResponder,
} from './responders.ts';
import type { CachedAnswer, FileAnswer, StreamChunk } from './responders.ts';
import type { RestRoute } from './route.ts';
import { changesResponder, wantsOneAnswer } from './changes-responder.ts';
import type { ChangesPage } from './changes-responder.ts';
import { readWireValue } from './wire-input.ts';

export interface RestFacadeOptions {
  routes: readonly RestRoute[];
  operations: OperationStore;
  /** the schema the operations run against: variables are read along their input types */
  schema: GraphQLSchema;
  /** builds the GraphQL context of one request (authenticates the caller) */
  context(req: Request): Promise<Context>;
  /** largest file part a multipart route reads (UPLOAD_MAX_BYTES; a `photo` row: its photo's limit); beyond it 413 */
  uploadMaxBytes: number;
}

/** express path from the documented one: /api/x/{id} -> /api/x/:id */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The variable each argument of the operation's root fields is fed by (`limit: $limit`). */
function argumentVariables(definition: OperationDefinitionNode): Map<string, string> {
  const out = new Map<string, string>();
  for (const selection of definition.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    for (const arg of selection.arguments ?? []) {
      if (arg.value.kind === Kind.VARIABLE && !out.has(arg.name.value))
        out.set(arg.name.value, arg.value.name.value);
    }
  }
  return out;
}

/** res.locals key of a request's context once authenticated ahead of its body (bulk routes). */
const AUTHENTICATED = 'restContext';

/**
 * The request's context, or null once it was answered: the credential refused (e.g. a cookie state
 * change without CSRF), or none presented to an operation that needs one (401).
 */
async function authenticateRequest(
  req: Request,
  res: Response,
  op: PersistedOperation,
  options: Pick<RestFacadeOptions, 'context'>,
): Promise<Context | null> {
  const refuse = (error: GraphQLError): null => {
    const answer = httpAnswerFor(error, { variables: new Map(), arguments: new Map() });
    res.status(answer.status).set(answer.headers).json(answer.body);
    return null;
  };
  let ctx: Context;
  try {
    ctx = await options.context(req);
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    return refuse(e);
  }
  if (op.needsCredential && !ctx.principal)
    return refuse(appError('UNAUTHENTICATED', errorMessage('UNAUTHENTICATED')));
  return ctx;
}

/** What a route's handler reads of its operation: its variables' types and wire names. */
interface RoutePlan {
  types: Map<string, GraphQLInputType>;
  /** variables a request must send: non-null without a default */
  required: string[];
  args: ReturnType<typeof argumentVariables>;
  rootField: string;
  opaque: OpaqueKeys[string];
  /** variable name -> its wire name, where the row renames it */
  wireNames: Map<string, string>;
  /** wire name -> variable name */
  byWire: Map<string, string>;
}

function routePlan(
  route: RestRoute,
  op: PersistedOperation,
  options: RestFacadeOptions,
): RoutePlan {
  const types = new Map(
    op.variables.map((v) => [
      v.variable.name.value,
      typeFromAST(options.schema, v.type) as GraphQLInputType,
    ]),
  );
  const required = op.variables
    .filter((v) => v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue)
    .map((v) => v.variable.name.value);
  const rootField = route.result ?? op.rootField;
  const wireNames = new Map(Object.entries(route.rename ?? {}).map(([wire, name]) => [name, wire]));
  // NOTE: each variable has one wire name (snake_case, or the row's rename); no other spelling fills it
  // (the variable receiving the whole body is filled by the body only)
  const byWire = new Map(
    [...types.keys()]
      .filter((name) => name !== route.body)
      .map((name) => [wireNames.get(name) ?? toSnake(name), name]),
  );
  return {
    types,
    required,
    args: argumentVariables(op.definition),
    rootField,
    opaque: op.opaque[rootField],
    wireNames,
    byWire,
  };
}

/** A request's variables as they are read: their values, where each came from, the issues. */
interface VariableReading {
  variables: Record<string, unknown>;
  origins: VariableOrigins;
  issues: ValidationIssue[];
}

/**
 * Each variable is read from its wire value along its GraphQL type (wire-input.ts): lax scalars,
 * snake_case keys, undeclared keys ignored, issues located. The first source wins.
 */
function take(
  reading: VariableReading,
  plan: RoutePlan,
  name: string | undefined,
  value: unknown,
  origin: VariableOrigin,
  text: boolean,
): void {
  const type = name === undefined ? undefined : plan.types.get(name);
  if (name === undefined || !type || reading.origins.variables.has(name)) return; // parameters the operation does not take are ignored
  reading.variables[name] = readWireValue(value, type, {
    text,
    variable: name,
    issues: reading.issues,
  });
  reading.origins.variables.set(name, { ...origin, type });
}

/**
 * The body as the row's responder reads it (`text`: its values are text, like query parameters),
 * or null when it could not be read and the answer is sent.
 */
async function readBody(
  route: RestRoute,
  req: Request,
  res: Response,
  maxFileBytes: number,
): Promise<{ body: unknown; text: boolean } | null> {
  if (route.responder === 'raw') {
    // the bytes exactly as sent (a body the raw parser did not read, e.g. none at all, is empty)
    return { body: Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '', text: true };
  }
  if (route.responder === 'multipart') {
    const form = await readMultipart(req, { maxFileBytes });
    if (!form.ok && form.status === 413) {
      // NOTE: the rest of an over-limit body is never read: the connection ends with the answer
      res.set('connection', 'close');
      // a photo row answers as its field does (the same limit, the same words)
      const detail = route.photo ? photoTooLarge(maxFileBytes).message : form.detail;
      res.status(413).json(httpErrorBody('PAYLOAD_TOO_LARGE', { detail }));
      return null;
    }
    if (!form.ok) {
      res.status(form.status).json(httpErrorBody('VALIDATION_FAILED', { detail: form.detail }));
      return null;
    }
    // text fields are text, like query parameters; file parts pass through as Files
    return { body: form.body, text: true };
  }
  if (route.responder === 'upload') {
    const form = await openStreamedForm(req);
    if (!form.ok) {
      res.status(form.status).json(httpErrorBody('VALIDATION_FAILED', { detail: form.detail }));
      return null;
    }
    // the field reads the file part as it arrives; what it leaves unread goes once it answered
    res.once('finish', form.release).once('close', form.release);
    return { body: form.body, text: true };
  }
  return { body: req.body as unknown, text: false };
}

/** Reads the variables from the path, the query, the row's headers and the body, in that order. */
function readVariables(
  route: RestRoute,
  plan: RoutePlan,
  req: Request,
  body: { body: unknown; text: boolean },
): VariableReading {
  const reading: VariableReading = {
    variables: {},
    origins: { variables: new Map(), arguments: plan.args },
    issues: [],
  };
  const pathVariable = (param: string) => route.rename?.[param] ?? toCamel(param);
  for (const [k, v] of Object.entries(req.params))
    take(reading, plan, pathVariable(k), v, { in: 'path', name: k }, true);
  for (const [k, v] of Object.entries(req.query))
    take(reading, plan, plan.byWire.get(k), v, { in: 'query', name: k }, true);
  for (const [header, name] of Object.entries(route.headers ?? {})) {
    const value = req.get(header);
    if (value !== undefined) take(reading, plan, name, value, { in: 'header', name: header }, true);
  }
  if (route.body) {
    if (body.body !== undefined)
      take(reading, plan, route.body, body.body, { in: 'body' }, body.text);
    else
      reading.origins.variables.set(route.body, { in: 'body', type: plan.types.get(route.body) });
  } else if (body.body && typeof body.body === 'object' && !Array.isArray(body.body)) {
    for (const [k, v] of Object.entries(body.body))
      take(reading, plan, plan.byWire.get(k), v, { in: 'body', name: k }, body.text);
  }
  locateAbsent(route, plan, reading, body.body);
  return reading;
}

/**
 * Variables nobody sent are located where the client should have sent them: the query string,
 * unless this route takes its variables from a JSON body (FastAPI's `loc` for a missing field);
 * a required one that is missing is an issue.
 */
function locateAbsent(
  route: RestRoute,
  plan: RoutePlan,
  reading: VariableReading,
  body: unknown,
): void {
  const { origins } = reading;
  const absentIn =
    !route.body &&
    route.variablesIn !== 'query' &&
    body !== undefined &&
    !['GET', 'DELETE', 'OPTIONS'].includes(route.method)
      ? 'body'
      : 'query';
  origins.fallback = route.body || absentIn === 'body' ? 'body' : 'query';
  for (const [name, type] of plan.types) {
    if (origins.variables.has(name)) continue;
    origins.variables.set(name, {
      in: absentIn,
      name: plan.wireNames.get(name) ?? toSnake(name),
      type,
    });
  }
  for (const name of plan.required) {
    if (!Object.hasOwn(reading.variables, name))
      reading.issues.push({ loc: [name], msg: 'Field required', type: 'missing' });
  }
}

/** Answers the operation's result as the row's responder writes it (JSON by default). */
async function respond(
  route: RestRoute,
  plan: RoutePlan,
  options: RestFacadeOptions,
  exchange: { req: Request; res: Response; ctx: Context; variables: Record<string, unknown> },
  data: Record<string, unknown> | null | undefined,
  cached: ReturnType<typeof cachedResponder> | null,
): Promise<void> {
  const { req, res, ctx, variables } = exchange;
  const answer = data?.[plan.rootField];
  if (cached) return cached(req, res, answer as CachedAnswer);
  /** The operation run again with the variable `name` set to the cursor the last part gave. */
  const runAgainWith =
    <T>(name: string) =>
    async (cursor: string): Promise<T> => {
      const more = await options.operations.execute(
        route.operation,
        { ...variables, [name]: cursor },
        ctx,
      );
      if (more.errors.length) throw more.errors[0];
      return more.data?.[plan.rootField] as T;
    };
  if (route.responder === 'stream') {
    const cut = (error: unknown) =>
      ctx.log.error({ err: error }, 'stream cut after its first chunk');
    return streamResponder(res, answer as StreamChunk, runAgainWith<StreamChunk>('after'), cut);
  }
  if (route.responder === 'changes' && wantsOneAnswer(variables)) {
    const cut = (error: unknown) =>
      ctx.log.error({ err: error }, 'pull answer cut after its first page');
    return changesResponder(res, answer as ChangesPage, runAgainWith<ChangesPage>('cursor'), cut);
  }
  if (route.responder === 'file') {
    return fileResponder(res, ctx.config.DATA_DIR, answer as FileAnswer);
  }
  res.status(route.status ?? 200).json(snakeKeys(answer ?? null, plan.opaque));
}

/** The handler of one row: authenticate, read the variables, run the operation, answer. */
function handlerFor(route: RestRoute, options: RestFacadeOptions) {
  const op = options.operations.byName.get(route.operation);
  if (!op)
    throw new Error(`route ${route.method} ${route.path}: unknown operation ${route.operation}`);
  const cached = route.responder === 'cached' ? cachedResponder() : null;
  // prepared on the route's first request, not at start (issue 18: start-up time)
  let plan: RoutePlan | undefined;

  return async (req: Request, res: Response): Promise<void> => {
    plan ??= routePlan(route, op, options);
    let origins: VariableOrigins = { variables: new Map(), arguments: plan.args };
    const fail = (error: GraphQLError): void => {
      const answer = httpAnswerFor(error, origins);
      res.status(answer.status).set(answer.headers).json(answer.body);
    };
    // NOTE: authentication comes before validation (FastAPI runs its security dependencies first):
    // a caller without a credential learns nothing about a protected route's parameters. A bulk
    // route authenticated before its body was read (createRouteBodyParsers) reuses that context.
    const ctx =
      (res.locals[AUTHENTICATED] as Context | undefined) ??
      (await authenticateRequest(req, res, op, options));
    if (!ctx) return;
    const maxFileBytes = route.photo
      ? photoMaxBytes(route.photo, ctx.config)
      : options.uploadMaxBytes;
    const body = await readBody(route, req, res, maxFileBytes);
    if (!body) return;
    const reading = readVariables(route, plan, req, body);
    origins = reading.origins;
    if (reading.issues.length) return fail(validationError(reading.issues));

    const result = await options.operations.execute(route.operation, reading.variables, ctx);
    for (const cookie of ctx.responseCookies) res.append('set-cookie', cookie);
    if (result.errors.length) return fail(result.errors[0]);
    const exchange = { req, res, ctx, variables: reading.variables };
    return respond(route, plan, options, exchange, result.data, cached);
  };
}

/** Mounts `handlers` on `router` at a row's method and path. */
function mount(router: Router, route: RestRoute, ...handlers: RequestHandler[]): void {
  const method = route.method.toLowerCase() as
    | 'get'
    | 'post'
    | 'put'
    | 'patch'
    | 'delete'
    | 'options';
  router[method](expressPath(route.path), ...handlers);
}

/**
 * Body parsers for the rows that read their bodies themselves: `raw` rows (the bytes as sent) and
 * JSON rows with their own `bodyLimit` (bulk routes). Mount it before the
 * global express.json(): a body it has read is not read again. The caller is authenticated first,
 * so nobody without a credential makes the server read up to a bulk route's limit (the handler
 * reuses that context). Their bodies are parsed as a stream (src/platform/json-stream.ts: the text
 * is never held whole, the depth guard runs on the bytes as they arrive), and text/plain is read
 * as JSON too, as a fetch() with a string body sends it.
 */
export function createRouteBodyParsers(
  options: Pick<RestFacadeOptions, 'routes' | 'operations' | 'context'>,
): Router {
  const router = express.Router();
  for (const route of options.routes) {
    if (route.responder === 'raw') {
      // every content type as bytes; a public webhook needs no credential before its body
      mount(router, route, express.raw({ type: () => true, limit: route.bodyLimit ?? '1mb' }));
      continue;
    }
    if (!route.bodyLimit) continue;
    const op = options.operations.byName.get(route.operation);
    if (!op)
      throw new Error(`route ${route.method} ${route.path}: unknown operation ${route.operation}`);
    const authenticateFirst = async (
      req: Request,
      res: Response,
      next: NextFunction,
    ): Promise<void> => {
      const ctx = await authenticateRequest(req, res, op, options);
      if (!ctx) return;
      res.locals[AUTHENTICATED] = ctx;
      next();
    };
    mount(router, route, authenticateFirst, jsonStreamBodyParser(route.bodyLimit));
  }
  return router;
}

/** The `Allow` value of paths whose rows serve `methods` (express answers HEAD wherever GET is served). */
function allowHeader(methods: Iterable<string>): string {
  const set = new Set(methods);
  if (set.has('GET')) set.add('HEAD');
  return [...set].sort().join(', ');
}

/**
 * An express router serving every route row. A known path asked with a method no row serves
 * answers 405 `{"detail": "Method Not Allowed"}` with `Allow` naming the methods the table serves
 * there (every path pattern the request matches counts), as FastAPI does; unknown paths fall through.
 */
export function createRestRouter(options: RestFacadeOptions): Router {
  const router = express.Router();
  const methodsByPath = new Map<string, string[]>();
  for (const route of options.routes)
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  for (const route of options.routes) {
    const methods = methodsByPath.get(route.path)!;
    mount(
      router,
      route,
      route.responder === 'preflight' ? preflightResponder(methods) : handlerFor(route, options),
    );
  }
  // reached only when no row served the request: collect the methods of every matching path
  for (const [path, methods] of methodsByPath) {
    router.all(expressPath(path), (_req: Request, res: Response, next: NextFunction) => {
      const allowed = ((res.locals.allowedMethods as Set<string> | undefined) ??=
        new Set<string>());
      for (const m of methods) allowed.add(m);
      next();
    });
  }
  router.use((_req: Request, res: Response, next: NextFunction) => {
    const allowed = res.locals.allowedMethods as Set<string> | undefined;
    if (!allowed) return next();
    res
      .status(ERROR_TABLE.METHOD_NOT_ALLOWED.status)
      .set('allow', allowHeader(allowed))
      .json(httpErrorBody('METHOD_NOT_ALLOWED'));
  });
  return router;
}
