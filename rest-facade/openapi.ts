/**
 * The OpenAPI 3.1 document of the REST facade, derived once at start from the route table and the
 * GraphQL schema (nothing is written by hand): operationId is the persisted operation's name, the
 * summary and description its leading comment, parameters and request body its variables, the
 * answer the JSON Schema of its result, and the errors follow from the root field's auth scopes and
 * the one error table. Served at GET /api/openapi.json, with the human docs page at GET /api/docs.
 *
 * It describes what rest-facade/handler.ts does and must stay in step with it: variables come from
 * path placeholders (`rename` maps wire name -> variable), then the query, then the body. It never
 * adds a rule of its own.
 */
import express from 'express';
import type { Router } from 'express';
import {
  getNullableType,
  GraphQLNonNull,
  isInputObjectType,
  isListType,
  Kind,
  typeFromAST,
} from 'graphql';
import type { GraphQLInputType, GraphQLSchema } from 'graphql';
import type { Config } from '../src/base/config.ts';
import {
  inputTypeSchema,
  resultSchema,
  variableSchema,
  variablesSchema,
} from '../src/graphql/json-schema.ts';
import type { JsonSchema } from '../src/graphql/json-schema.ts';
import { declaredScopesOf, rootFieldsOf } from '../src/schema/operations.ts';
import type { OperationStore, PersistedOperation } from '../src/schema/operations.ts';
import { toCamel, toSnake } from '../src/base/wire.ts';
import { createDocsRouter } from './docs-page.ts';
import type { RestRoute } from './route.ts';

export interface OpenApiOptions {
  routes: readonly RestRoute[];
  operations: OperationStore;
  schema: GraphQLSchema;
  config: Config;
}

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/api/docs';
export const API_TITLE = 'Health-Data Platform API';
export const API_VERSION = '0.1.0';

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'patch';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

/** A Response Object or a reference to a shared one. */
export type OpenApiResponse =
  | { $ref: string }
  | {
      description: string;
      headers?: Record<string, unknown>;
      content?: Record<string, { schema: JsonSchema }>;
    };

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters?: OpenApiParameter[];
  requestBody?: {
    required: boolean;
    content: Partial<Record<'application/json' | 'multipart/form-data', { schema: JsonSchema }>>;
  };
  responses: Record<string, OpenApiResponse>;
  security: Record<string, string[]>[];
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers?: { url: string }[];
  tags: { name: string }[];
  paths: Record<string, Partial<Record<Method, OpenApiOperation>>>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
  };
}

interface AuthRequirement {
  public: boolean;
  /** scopes a personal token or OAuth grant must hold */
  scopes: string[];
  /** the kinds of credential that are refused with 403, in words */
  refused: string[];
}

const SCHEMA_REF = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const RESPONSE_REF = (name: string): OpenApiResponse => ({
  $ref: `#/components/responses/${name}`,
});

/** Shared parts: the FastAPI-shaped error bodies and the bearer scheme. */
function baseComponents(): OpenApiDocument['components'] {
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Authorization: Bearer <token>. Either a login token (a JWT from /api/auth/login and the other ' +
          'sign-ins; it holds every scope) or a personal token (`hdp_pat_...`, created under /api/v1/tokens; ' +
          'it holds the scopes chosen at creation). The scopes an operation lists are the ones the token needs.',
      },
    },
    schemas: {
      HTTPError: {
        type: 'object',
        properties: {
          detail: {
            description: 'a message, or an object with a lower_snake `code` and its fields',
            anyOf: [{ type: 'string' }, { type: 'object' }],
          },
        },
        required: ['detail'],
      },
      ValidationError: {
        type: 'object',
        properties: {
          loc: {
            type: 'array',
            items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
            description: 'where: "body", "query" or "path", then the field path',
          },
          msg: { type: 'string' },
          type: { type: 'string' },
        },
        required: ['loc', 'msg', 'type'],
      },
      HTTPValidationError: {
        type: 'object',
        properties: { detail: { type: 'array', items: SCHEMA_REF('ValidationError') } },
        required: ['detail'],
      },
    },
    responses: {
      Unauthenticated: {
        description: 'Not authenticated: no credential, or an expired, revoked or unknown one',
        headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } },
        content: {
          'application/json': {
            schema: { ...SCHEMA_REF('HTTPError'), examples: [{ detail: 'Not authenticated' }] },
          },
        },
      },
      Forbidden: {
        description:
          'The credential may not do this (a missing scope answers detail.code "insufficient_scope")',
        content: { 'application/json': { schema: SCHEMA_REF('HTTPError') } },
      },
      NotFound: {
        description: "No such item among the caller's own (another person's items answer 404 too)",
        content: { 'application/json': { schema: SCHEMA_REF('HTTPError') } },
      },
      ValidationFailed: {
        description: 'Validation Error',
        content: { 'application/json': { schema: SCHEMA_REF('HTTPValidationError') } },
      },
    },
  };
}

/** What the operation's root fields declare with plugin-scope-auth (a public operation is public in every field). */
function authOf(schema: GraphQLSchema, op: PersistedOperation): AuthRequirement {
  const out: AuthRequirement = { public: true, scopes: [], refused: [] };
  for (const field of rootFieldsOf(schema, op.definition)) {
    // a function (decided per request) or nothing: assume a credential is needed
    const scopes = declaredScopesOf(field);
    if (scopes.public === true) continue;
    out.public = false;
    if (scopes.scope && !out.scopes.includes(scopes.scope)) out.scopes.push(scopes.scope);
    if (scopes.loginSession) out.refused.push('a personal token (this needs a login session)');
    if (scopes.nativeSession) out.refused.push('anything but a native (phone app) login');
    if (scopes.admin) out.refused.push('a non-admin account');
  }
  return out;
}

/** "Reads the profile: name, ..." -> "Reads the profile" (the summary line); the rest stays in the description. */
function summaryOf(description: string): string {
  return description.split(/[.;:](?:\s|$)/)[0].trim() || description;
}

/** The schema of a wire parameter: the variable's type without null (an absent parameter is how null is sent). */

/**
 * Moves the first object schema under nullable/array wrappers into components.schemas under `name`
 * (the fragment the operation spreads: UserOut, PersonalTokenOut) and refers to it.
 */
function nameResult(
  result: JsonSchema,
  name: string,
  schemas: Record<string, JsonSchema>,
): JsonSchema {
  const types = Array.isArray(result.type) ? (result.type as string[]) : [result.type];
  const orNull = types.includes('null');
  if (types.includes('array')) {
    const items = nameResult(result.items as JsonSchema, name, schemas);
    return { ...result, items };
  }
  if (!types.includes('object')) return result;
  const component = { ...result, type: 'object' };
  const known = schemas[name];
  if (known && JSON.stringify(known) !== JSON.stringify(component)) return result; // same name, other shape: keep inline
  schemas[name] = component;
  return orNull ? { anyOf: [SCHEMA_REF(name), { type: 'null' }] } : SCHEMA_REF(name);
}

/** The single fragment the root field spreads, if its selection is exactly one spread. */
function spreadFragment(op: PersistedOperation, rootField: string): string | null {
  const sel = op.definition.selectionSet.selections.find(
    (s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === rootField,
  );
  const inner = sel?.kind === Kind.FIELD ? sel.selectionSet?.selections : undefined;
  return inner?.length === 1 && inner[0].kind === Kind.FRAGMENT_SPREAD ? inner[0].name.value : null;
}

/** A `preflight` row (OPTIONS): no parameters, no body, an empty 200 naming the path's methods. */
/** The success answer's schema: a `cached` row any JSON, a `stream` row the array of its chunks' rows. */
function answerSchema(route: RestRoute, result: JsonSchema): JsonSchema {
  if (route.responder === 'cached') return {};
  if (route.responder === 'stream') {
    const properties = result.properties as Record<string, JsonSchema> | undefined;
    return properties?.rows ?? { type: 'array' };
  }
  return result;
}

function preflightOperation(route: RestRoute, op: PersistedOperation): OpenApiOperation {
  const header = { schema: { type: 'string' } };
  return {
    operationId: `${route.operation}_preflight`,
    summary: `CORS preflight of ${summaryOf(op.description).replace(/^./, (c) => c.toLowerCase())}`,
    description:
      'Answers 200 with no body, naming the methods this path serves and the request headers clients may send.',
    tags: [route.tag],
    responses: {
      '200': {
        description: 'Successful Response',
        headers: {
          Allow: header,
          'Access-Control-Allow-Methods': header,
          'Access-Control-Allow-Headers': header,
        },
      },
    },
    security: [],
  };
}

/** What the parts of one row's operation are built from. */
interface RowFacts {
  route: RestRoute;
  op: PersistedOperation;
  schema: GraphQLSchema;
  byName: Map<string, PersistedOperation['variables'][number]>;
  /** the variables already placed (path, headers, body) */
  used: Set<string>;
}

function noVariable(route: RestRoute, variable: string): Error {
  return new Error(
    `route ${route.method} ${route.path}: ${route.operation} has no variable $${variable}`,
  );
}

/** The path parameters and the row's header parameters. */
function pathAndHeaderParameters(row: RowFacts): OpenApiParameter[] {
  const { route, op, schema, byName, used } = row;
  const parameters: OpenApiParameter[] = [];
  for (const [, wire] of route.path.matchAll(/\{(\w+)\}/g)) {
    const variable = route.rename?.[wire] ?? toCamel(wire);
    const v = byName.get(variable);
    used.add(variable);
    parameters.push({
      name: wire,
      in: 'path',
      required: true,
      schema: v ? variableSchema(schema, op.definition, v, { required: true }) : { type: 'string' },
    });
  }
  for (const [header, variable] of Object.entries(route.headers ?? {})) {
    const v = byName.get(variable);
    if (!v) throw noVariable(route, variable);
    used.add(variable);
    parameters.push({
      name: header,
      in: 'header',
      required: v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue,
      schema: variableSchema(schema, op.definition, v, { required: true }),
    });
  }
  return parameters;
}

/** The body of a row that names its `body` variable (the raw bytes, or one input object). */
function namedBody(row: RowFacts, doc: OpenApiDocument): OpenApiOperation['requestBody'] {
  const { route, schema, byName, used } = row;
  if (!route.body) return undefined;
  const v = byName.get(route.body);
  if (!v) throw noVariable(route, route.body);
  used.add(route.body);
  // the bytes as sent (a signed provider event): any JSON the sender signed
  if (route.responder === 'raw')
    return { required: true, content: { 'application/json': { schema: {} } } };
  const named = getNullableType(typeFromAST(schema, v.type) as GraphQLInputType);
  let bodySchema = inputTypeSchema(new GraphQLNonNull(named));
  if (isInputObjectType(named)) {
    doc.components.schemas[named.name] ??= bodySchema;
    bodySchema = SCHEMA_REF(named.name);
  }
  return {
    required: v.type.kind === Kind.NON_NULL_TYPE,
    content: { 'application/json': { schema: bodySchema } },
  };
}

/**
 * The variables left: the body's fields for a row that reads its body without a `body` variable,
 * else query parameters (input objects cannot travel in a query string; the handler could not fill
 * them either).
 */
function restOfVariables(
  row: RowFacts,
  parameters: OpenApiParameter[],
): OpenApiOperation['requestBody'] {
  const { route, op, schema, used } = row;
  const rest = op.variables.filter((v) => !used.has(v.variable.name.value));
  const readsBody =
    !['GET', 'DELETE', 'OPTIONS'].includes(route.method) && route.variablesIn !== 'query';
  if (readsBody && !route.body && rest.length) {
    const bodySchema = variablesSchema(schema, rest, { operation: op.definition });
    const mediaType =
      route.responder === 'multipart' || route.responder === 'upload'
        ? 'multipart/form-data'
        : 'application/json';
    return {
      required: Array.isArray(bodySchema.required),
      content: { [mediaType]: { schema: bodySchema } },
    };
  }
  const wireNameOf = new Map(
    Object.entries(route.rename ?? {}).map(([wire, variable]) => [variable, wire]),
  );
  for (const v of rest) {
    const named = getNullableType(typeFromAST(schema, v.type) as GraphQLInputType);
    if (
      isInputObjectType(named) ||
      (isListType(named) && isInputObjectType(getNullableType(named.ofType)))
    )
      continue;
    const name = v.variable.name.value;
    parameters.push({
      name: wireNameOf.get(name) ?? toSnake(name),
      in: 'query',
      required: v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue,
      // with its bounds (minimum, maximum, pattern) from the argument's validator
      schema: variableSchema(schema, op.definition, v, { required: true }),
    });
  }
  return undefined;
}

/** The success answer, as the row's responder writes it, and the statuses its responder adds. */
function successResponses(row: RowFacts, doc: OpenApiDocument): Record<string, OpenApiResponse> {
  const { route, op, schema } = row;
  const rootField = route.result ?? op.rootField;
  let result = resultSchema(schema, op.definition, op.fragments, rootField);
  const fragment = spreadFragment(op, rootField);
  if (fragment) result = nameResult(result, fragment, doc.components.schemas);
  const status = String(route.status ?? 200);
  const responses: Record<string, OpenApiResponse> = {
    [status]: {
      description: status === '201' ? 'Created' : 'Successful Response',
      // a `cached` row answers the field's `document` (any JSON), with an ETag
      // a `stream` row answers the rows of every chunk as one array; a `file` row the file's bytes
      content:
        route.responder === 'file'
          ? {
              'application/zip': { schema: { type: 'string', format: 'binary' } },
              'application/json': { schema: {} },
            }
          : { 'application/json': { schema: answerSchema(route, result) } },
    },
  };
  if (route.responder === 'upload') {
    responses['413'] = { description: 'The file is larger than the route allows' };
  }
  if (route.responder === 'cached') {
    responses['304'] = { description: 'Not Modified (If-None-Match names the current ETag)' };
    responses['503'] = { description: 'Not built yet; retry after Retry-After seconds' };
  }
  return responses;
}

/** The statuses authentication adds (401, 403) and the sentences that say what it needs. */
function authParts(
  schema: GraphQLSchema,
  op: PersistedOperation,
  responses: Record<string, OpenApiResponse>,
): { lines: string[]; auth: ReturnType<typeof authOf> } {
  const auth = authOf(schema, op);
  const lines = [op.description];
  if (auth.public) return { lines, auth };
  responses['401'] = RESPONSE_REF('Unauthenticated');
  if (auth.scopes.length)
    lines.push(
      `Needs the scope${auth.scopes.length > 1 ? 's' : ''} ${auth.scopes.map((s) => `\`${s}\``).join(', ')}.`,
    );
  if (auth.refused.length) lines.push(`Refused (403) for ${auth.refused.join('; ')}.`);
  if (auth.scopes.length || auth.refused.length) responses['403'] = RESPONSE_REF('Forbidden');
  return { lines, auth };
}

function operationFor(
  route: RestRoute,
  op: PersistedOperation,
  options: OpenApiOptions,
  doc: OpenApiDocument,
): OpenApiOperation {
  if (route.responder === 'preflight') return preflightOperation(route, op);
  const { schema } = options;
  const row: RowFacts = {
    route,
    op,
    schema,
    byName: new Map(op.variables.map((v) => [v.variable.name.value, v])),
    used: new Set<string>(),
  };
  const parameters = pathAndHeaderParameters(row);
  const named = namedBody(row, doc);
  // a row with a `body` variable takes the rest from the query string
  const requestBody = named ?? restOfVariables(row, parameters);
  if (named) restOfVariables(row, parameters);
  const responses = successResponses(row, doc);
  const { lines, auth } = authParts(schema, op, responses);
  if (parameters.some((p) => p.in === 'path')) responses['404'] = RESPONSE_REF('NotFound');
  if (op.variables.length || requestBody) responses['422'] = RESPONSE_REF('ValidationFailed');
  return {
    operationId: route.operation,
    summary: summaryOf(op.description),
    description: lines.join('\n\n'),
    tags: [route.tag],
    ...(parameters.length && { parameters }),
    ...(requestBody && { requestBody }),
    responses,
    security: auth.public ? [] : [{ bearerAuth: auth.scopes }],
  };
}

/** Builds the whole document (pure: same routes and schema, same document). */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description:
        'The REST interface of the health-data platform: snake_case JSON, errors as `{"detail": ...}`, ' +
        'validation errors as 422 `{"detail": [{"loc", "msg", "type"}]}`. Every operation runs a persisted ' +
        'GraphQL operation (named by its operationId) of the schema served at /graphql.',
    },
    ...(options.config.PUBLIC_URL && {
      servers: [{ url: options.config.PUBLIC_URL.replace(/\/$/, '') }],
    }),
    tags: [],
    paths: {},
    components: baseComponents(),
  };
  const operationIds = new Map<string, number>();
  for (const route of options.routes) {
    const op = options.operations.byName.get(route.operation);
    if (!op)
      throw new Error(`route ${route.method} ${route.path}: unknown operation ${route.operation}`);
    const operation = operationFor(route, op, options, doc);
    // operationIds must be unique: a second row running the same operation gets a numbered id
    const seen = (operationIds.get(route.operation) ?? 0) + 1;
    operationIds.set(route.operation, seen);
    if (seen > 1) operation.operationId = `${route.operation}_${seen}`;
    if (!doc.tags.some((t) => t.name === route.tag)) doc.tags.push({ name: route.tag });
    const method = route.method.toLowerCase() as Method;
    doc.paths[route.path] = { ...doc.paths[route.path], [method]: operation };
  }
  return doc;
}

/** GET /api/openapi.json (built and serialised on its first request) and the docs page at GET /api/docs. */
export function createOpenApiRouter(options: OpenApiOptions): Router {
  // built on the first request, not at start: it took 0.2 s of the 1 s start-up goal (issue 18)
  let body: string | undefined;
  const router = express.Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    body ??= JSON.stringify(buildOpenApiDocument(options));
    res.type('json').send(body);
  });
  router.use(
    createDocsRouter({ path: DOCS_PATH, specUrl: OPENAPI_PATH, title: `${API_TITLE} docs` }),
  );
  return router;
}
