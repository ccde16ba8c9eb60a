/**
 * Issue 13: no input to the OAuth MCP host causes a 5xx. A property-based fuzz test (fast-check,
 * fixed seed) of every path of the host's listener: registration (RFC 7591 JSON), authorization (query
 * and form), token (both grants) and revocation (forms), the two discovery documents, `/mcp` (MCP
 * JSON-RPC with OAuth bearer tokens) and the sign-in and consent pages. It reuses the hostile value
 * classes of the no-5xx test (test/fuzz/inputs.ts) and adds the ones of a form: invalid UTF-8 bytes,
 * bogus charsets, repeated fields.
 *
 * Per endpoint: (a) a well-formed request with one field replaced by a hostile value of each class,
 * in a valid context (a real registered client, a live code, refresh token, access token, ticket, web
 * session where the field is another one) and in a garbage one (made-up ids and secrets); (b) raw
 * malformed bodies (broken JSON or forms, wrong content types, bodies beyond each limit: 16 kB for
 * registration, 8 kB for the OAuth forms, 16 kB for the pages' forms); (c) wrong methods.
 *
 * Asserted per request: an answer within 15 s, below 500; an OAuth endpoint's 4xx is JSON with an
 * `error` string (RFC 6749 section 5.2, RFC 7591 section 3.2.2), authorize and consent may redirect
 * (302/303); a page's 4xx is HTML (a wrong method on a page path may also get the host's JSON 404 or
 * 405: no page is served there); `/mcp` answers JSON, never a JSON-RPC internal error or an INTERNAL
 * tool result (a masked 500). After each endpoint GET /.well-known/oauth-authorization-server answers
 * 200. Failures are collected and reported together, grouped by problem and class.
 */
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { REGISTRATIONS_PER_IP } from '../../src/domains/oauth/index.ts';
import { AUTHORIZATIONS_PER_IP, TOKEN_REQUESTS_PER_CLIENT } from '../../src/oauth-host/host.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import {
  authorize,
  obtainCode,
  pkce,
  REDIRECT_URI,
  registerTestClient,
} from '../harness/oauth-client.ts';
import { rawRequest } from '../harness/raw-http.ts';
import type { RawResponse } from '../harness/raw-http.ts';
import {
  DEEP,
  INVALID_UTF8_JSON,
  LEAF_CLASSES,
  MALFORMED_JSON,
  deepArrays,
  deepObjects,
  excerpt,
  fieldsFor,
  fieldsOf,
  getAt,
  hostileUrlText,
  jsonText,
  mutate,
  setAt,
  valueArbitrary,
  copyValue,
} from './inputs.ts';
import type { JsonSchema, LeafClass } from './inputs.ts';
import { fuzzReport, statusCounts } from './report.ts';

/** Fixed base seed (the issue number); each (endpoint, context, class) derives its own from it. */
const SEED = 13;
const TIMEOUT_MS = 15_000;
/** Targets per failure group shown with an example input and answer (the others by name). */
/** Body limits of the host (src/oauth-host/host.ts) and of the pages' forms (web-pages/form-post.ts). */
const REGISTRATION_LIMIT = 16 * 1024;
const OAUTH_FORM_LIMIT = 8 * 1024;
const PAGE_FORM_LIMIT = 16 * 1024;

/** The field-level classes: the issue-10 leaf classes and the ones of a form or a JSON text. */
const FIELD_CLASSES = [...LEAF_CLASSES, 'invalid-utf8', 'repeated', 'charset-bogus'] as const;
type FieldClass = (typeof FIELD_CLASSES)[number];
/** Whole-body classes (b). */
const BODY_CLASSES = ['malformed-body', 'content-type', 'oversize'] as const;
type BodyClass = (typeof BODY_CLASSES)[number];
type InputClass = FieldClass | BodyClass | 'method' | 'discovery';

/**
 * Runs per (endpoint, context) of each class, over and above one per field for the field classes
 * in the valid context (every field gets each class once): tuned so the file takes about a minute.
 */
const EXTRA_RUNS: Record<FieldClass, number> = {
  nul: 2,
  'out-of-range': 1,
  'huge-string': 1,
  'wrong-type': 2,
  'deep-nesting': 1,
  'extra-fields': 0,
  'bad-encoding': 3,
  'invalid-utf8': 1,
  repeated: 0,
  'charset-bogus': 0,
};
/** The garbage context: fewer runs (most are refused at the first made-up id). */
const GARBAGE_RUNS = 3;
const BODY_RUNS: Record<BodyClass, number> = {
  'malformed-body': 8,
  'content-type': 6,
  oversize: 4,
};

// Limits that would answer 429 long before the inputs reach the code under test. The OAuth host's own
// per-IP limits have no setting: each request comes from its own X-Forwarded-For address (the
// listener trusts loopback proxies), and the per-client token limit is reset for the real clients.
const app = await startTestApp({
  LOGIN_FAILURES_PER_15_MINUTES: '1000000',
  EMAIL_CODES_PER_ADDRESS_PER_HOUR: '1000000',
  EMAIL_CODES_PER_IP_PER_HOUR: '1000000',
  EMAIL_CODE_GUESSES_PER_DAY: '1000000',
  MCP_CALLS_PER_MINUTE: '1000000',
  MCP_CALLS_PER_DAY: '1000000',
});
/** The listener itself (app.mcpUrl may name a public origin). */
const HOST = `http://127.0.0.1:${(app.oauthServer.address() as AddressInfo).port}`;
const RESOURCE = `${app.mcpUrl}/mcp`;
const OAUTH_SCOPES: Scope[] = SCOPES.filter((s) => s !== 'orders:pay');

// ---------------------------------------------------------------------------------------------
// Bookkeeping

type Shape = 'oauth' | 'page' | 'mcp';
type Ctx = 'valid' | 'garbage' | 'none';

interface Failure {
  target: string;
  ctx: Ctx;
  cls: InputClass;
  problem: string;
  status: number;
  input: string;
  answer: string;
}

const failures: Failure[] = [];
const stats = {
  requests: 0,
  endpoints: new Set<string>(),
  statuses: new Map<number, number>(),
  fiveXx: 0,
  discovery: 0,
  freshContexts: 0,
  byEndpoint: new Map<string, Map<number, number>>(),
  /** 429 answers per endpoint (a limit reached before the input reached the code under test) */
  limited: new Map<string, number>(),
};

function seedFor(...parts: string[]): number {
  let h = 2166136261 ^ SEED;
  for (const ch of parts.join('|')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h | 0;
}

let xff = 0;
/** A new client address per request: the per-IP limits of registration and authorization never bite. */
function forwardedFor(): string {
  xff += 1;
  return `10.13.${(xff >> 8) & 255}.${xff & 255}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const contentType = (res: RawResponse): string => String(res.headers['content-type'] ?? '');
const isJson = (res: RawResponse): boolean => /^application\/json/i.test(contentType(res));
const isHtml = (res: RawResponse): boolean => /^text\/html/i.test(contentType(res));

/** Bytes as text for the report (latin1 keeps every byte visible). */
const textOf = (body: string | Buffer): string =>
  typeof body === 'string' ? body : body.toString('latin1');

function answerExcerpt(res: RawResponse): string {
  if (res.status === 0)
    return res.timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : (res.error ?? 'no answer');
  return `${res.headers['content-type'] ?? '(no content-type)'} ${excerpt(res.body, 200)}`;
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** what the report shows of the input */
  shown: string;
}

async function send(target: string, req: Sent): Promise<RawResponse> {
  const res = await rawRequest(HOST, {
    method: req.method,
    path: req.path,
    headers: { 'x-forwarded-for': forwardedFor(), ...req.headers },
    body: req.body,
    timeoutMs: TIMEOUT_MS,
  });
  stats.requests += 1;
  stats.endpoints.add(target);
  stats.statuses.set(res.status, (stats.statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500) stats.fiveXx += 1;
  const mine = stats.byEndpoint.get(target) ?? new Map<number, number>();
  stats.byEndpoint.set(target, mine.set(res.status, (mine.get(res.status) ?? 0) + 1));
  if (res.status === 429) stats.limited.set(target, (stats.limited.get(target) ?? 0) + 1);
  return res;
}

/**
 * The answer's faults for an endpoint of `shape` (none: an empty list). `wrongMethod`: a page path
 * asked with a method no page serves may get the host's JSON 404/405 instead of a page.
 */
function faults(
  shape: Shape,
  res: RawResponse,
  options: { wrongMethod?: boolean; redirects?: boolean } = {},
): string[] {
  if (res.status === 0) return [noAnswer(res)];
  if (res.status >= 500) return ['5xx'];
  if (shape === 'mcp') return mcpFaults(res);
  if (res.status >= 300 && res.status < 400) {
    if (options.redirects && (res.status === 302 || res.status === 303)) return [];
    return [`unexpected redirect ${res.status}`];
  }
  if (res.status < 400) return [];
  if (shape === 'page') {
    if (isHtml(res)) return [];
    if (options.wrongMethod && isJson(res) && [404, 405].includes(res.status)) return [];
    return ['page 4xx is not HTML'];
  }
  if (!isJson(res)) return ['OAuth 4xx is not JSON'];
  const body = parseJson(res.body) as { error?: unknown } | undefined;
  if (!body || typeof body !== 'object' || typeof body.error !== 'string')
    return ['OAuth 4xx JSON has no error string'];
  return [];
}

/** Why there was no answer (a client that keeps to Node's 16 KB header limit could not read it). */
function noAnswer(res: RawResponse): string {
  if (res.timedOut) return `no answer within ${TIMEOUT_MS / 1000} s`;
  if (/header overflow/i.test(res.error ?? ''))
    return "answer headers over Node's 16 KB limit (unreadable by default clients and proxies)";
  return 'connection failed without an answer';
}

function mcpFaults(res: RawResponse): string[] {
  if ((res.status === 202 || res.status === 204) && res.body === '') return [];
  if (!isJson(res)) return ['/mcp answer is not JSON'];
  const body = parseJson(res.body) as { error?: { code?: unknown }; result?: any } | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return ['/mcp answer is neither a JSON-RPC error nor a result'];
  if (body.error) {
    if (typeof body.error.code !== 'number') return ['JSON-RPC error without a numeric code'];
    if (body.error.code === -32603) return ['JSON-RPC internal error (-32603): a masked 500'];
    return [];
  }
  if (!body.result) return ['/mcp answer is neither a JSON-RPC error nor a result'];
  if (res.status >= 400) return [`HTTP ${res.status} with a result`];
  if (body.result.isError === true && body.result.structuredContent?.error?.code === 'INTERNAL')
    return ['isError result with code INTERNAL: a masked 500'];
  return [];
}

function record(
  target: string,
  ctx: Ctx,
  cls: InputClass,
  req: Sent,
  res: RawResponse,
  problems: string[],
): void {
  for (const problem of problems) {
    failures.push({
      target,
      ctx,
      cls,
      problem,
      status: res.status,
      input: req.shown,
      answer: answerExcerpt(res),
    });
  }
}

async function checkDiscovery(target: string): Promise<void> {
  const req: Sent = {
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    headers: {},
    shown: '',
  };
  const res = await send('GET /.well-known/oauth-authorization-server', req);
  stats.discovery += 1;
  if (res.status !== 200) {
    req.shown = `after ${target}`;
    record(target, 'none', 'discovery', req, res, [
      'GET /.well-known/oauth-authorization-server not 200 after the endpoint',
    ]);
  }
}

// ---------------------------------------------------------------------------------------------
// Valid contexts: real clients, codes, tokens, tickets, sessions (fresh where one request spends them)

const person = await seedUser(app);
const publicClient = await registerTestClient(app, { client_name: 'Fuzz client' });
const confidentialClient = await registerTestClient(app, {
  client_name: 'Fuzz confidential client',
  token_endpoint_auth_method: 'client_secret_post',
});
const realClientIds = new Set([publicClient.client_id, confidentialClient.client_id]);

/** Authorization and token limits for the harness' own requests and the real clients. */
async function resetLimits(): Promise<void> {
  await Promise.all([
    ...['127.0.0.1', '::ffff:127.0.0.1', '::1'].flatMap((ip) => [
      app.limits.reset(AUTHORIZATIONS_PER_IP, ip),
      app.limits.reset(REGISTRATIONS_PER_IP, ip),
    ]),
    ...[...realClientIds].map((id) => app.limits.reset(TOKEN_REQUESTS_PER_CLIENT, id)),
  ]);
}

/** A live ticket of the public client (stateless: one serves every run). */
async function freshTicket(): Promise<string> {
  await resetLimits();
  const pair = pkce();
  const started = await authorize(app, {
    response_type: 'code',
    client_id: publicClient.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: pair.challenge,
    code_challenge_method: 'S256',
    state: 'fuzz-state',
  });
  const ticket = started.location?.searchParams.get('ticket');
  if (!ticket) throw new Error(`authorize ${started.status}: ${started.body}`);
  return ticket;
}
const ticket = await freshTicket();

async function freshCode(): Promise<{ code: string; verifier: string }> {
  stats.freshContexts += 1;
  await resetLimits();
  const { code, verifier } = await obtainCode(app, {
    clientId: publicClient.client_id,
    token: person.token,
  });
  return { code, verifier };
}

async function freshConnection() {
  stats.freshContexts += 1;
  const seeded = await seedOAuthConnection(app, person.user.id, OAUTH_SCOPES);
  realClientIds.add(seeded.clientId);
  return seeded;
}

let mcpConnection = await freshConnection();
const webSession = await seedWebSession(app, person.user.id);

// ---------------------------------------------------------------------------------------------
// Endpoints

/** A field of a request: a form or query pair, a JSON position, or the bearer token. */
interface FormField {
  name: string;
  value: string;
  /** filled from the context (a real id or secret, or garbage) */
  ctx?: boolean;
}

interface Prepared {
  /** form or query fields, in order (form and query endpoints) */
  fields?: FormField[];
  /** the JSON value (JSON endpoints) */
  json?: unknown;
  headers: Record<string, string>;
  /** the bearer token (/mcp): a target of the field classes too */
  bearer?: string;
}

interface Endpoint {
  key: string;
  method: string;
  path: string;
  shape: Shape;
  carrier: 'query' | 'form' | 'json';
  /** the body limit (form and JSON carriers) */
  limit: number;
  /** authorize and the consent page answer redirects */
  redirects?: boolean;
  /** the JSON body's schema (JSON carriers) */
  schema?: JsonSchema;
  /** a well-formed request in the valid context (fresh where one request spends it) */
  valid(): Prepared | Promise<Prepared>;
  /** the methods nobody serves at this path */
  wrongMethods: string[];
}

const base = (fields: Record<string, string>, ctxFields: string[] = []): FormField[] =>
  Object.entries(fields).map(([name, value]) => ({ name, value, ctx: ctxFields.includes(name) }));

const REGISTRATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['redirect_uris'],
  properties: {
    client_name: { type: 'string' },
    redirect_uris: { type: 'array', items: { type: 'string' } },
    token_endpoint_auth_method: { type: 'string', enum: ['none', 'client_secret_post'] },
    grant_types: { type: 'array', items: { type: 'string' } },
    response_types: { type: 'array', items: { type: 'string' } },
    scope: { type: 'string' },
    client_uri: { type: 'string' },
    logo_uri: { type: 'string' },
    contacts: { type: 'array', items: { type: 'string' } },
    software_id: { type: 'string' },
    software_version: { type: 'string' },
  },
};

/** The host's tools (the valid context's bearer); the tools/call target is the one with the most arguments. */
const listedTools = await rawRequest(HOST, {
  method: 'POST',
  path: '/mcp',
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${mcpConnection.accessToken}`,
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});
const TOOLS =
  (
    parseJson(listedTools.body) as {
      result?: { tools?: { name: string; inputSchema: JsonSchema }[] };
    }
  )?.result?.tools ?? [];
const richestTool = [...TOOLS].sort(
  (a, b) =>
    Object.keys(b.inputSchema.properties ?? {}).length -
    Object.keys(a.inputSchema.properties ?? {}).length,
)[0] ?? { name: 'get_profile', inputSchema: { type: 'object', properties: {} } };
const [richestArguments] = fc.sample(
  valueArbitrary(richestTool.inputSchema, richestTool.inputSchema),
  {
    seed: SEED,
    numRuns: 1,
  },
);

/** A JSON-RPC request of `method` whose params have `params` (all optional but the envelope). */
const rpcSchema = (params: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: ['jsonrpc', 'id', 'method'],
  properties: {
    jsonrpc: { type: 'string' },
    id: { type: 'integer' },
    method: { type: 'string' },
    params: {
      type: 'object',
      properties: {
        ...params,
        _meta: { type: 'object', properties: { progressToken: { type: 'string' } } },
      },
    },
  },
});

/** The /mcp requests fuzzed: a tools/call with arguments, tools/list with a cursor, initialize. */
const MCP_MESSAGES: { label: string; schema: JsonSchema; value: unknown }[] = [
  {
    label: `tools/call ${richestTool.name}`,
    schema: rpcSchema({
      name: { type: 'string' },
      arguments: richestTool.inputSchema,
    }),
    value: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: richestTool.name, arguments: richestArguments },
    },
  },
  {
    label: 'tools/list',
    schema: rpcSchema({ cursor: { type: 'string' } }),
    value: { jsonrpc: '2.0', id: 'list-1', method: 'tools/list', params: { cursor: 'abc' } },
  },
  {
    label: 'initialize',
    schema: rpcSchema({
      protocolVersion: { type: 'string' },
      capabilities: { type: 'object', properties: { roots: { type: 'object' } } },
      clientInfo: {
        type: 'object',
        properties: { name: { type: 'string' }, version: { type: 'string' } },
      },
    }),
    value: {
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'fuzz', version: '1.0' },
      },
    },
  },
];

const PAGE_HEADERS = { accept: 'text/html' };
const FORM = 'application/x-www-form-urlencoded';
const MCP_ACCEPT = 'application/json, text/event-stream';

const ENDPOINTS: Endpoint[] = [
  {
    key: 'POST /oauth/register',
    method: 'POST',
    path: '/oauth/register',
    shape: 'oauth',
    carrier: 'json',
    limit: REGISTRATION_LIMIT,
    schema: REGISTRATION_SCHEMA,
    valid: () => ({
      json: {
        client_name: 'Fuzz client',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'profile:read',
        client_uri: 'https://example.com',
        logo_uri: 'https://example.com/logo.png',
        contacts: ['fuzz@example.com'],
        software_id: 'fuzz',
        software_version: '1.0',
      },
      headers: {},
    }),
    wrongMethods: ['GET', 'PUT', 'DELETE', 'PATCH'],
  },
  ...(['GET', 'POST'] as const).map(
    (method): Endpoint => ({
      key: `${method} /oauth/authorize`,
      method,
      path: '/oauth/authorize',
      shape: 'oauth',
      carrier: method === 'GET' ? 'query' : 'form',
      limit: OAUTH_FORM_LIMIT,
      redirects: true,
      valid: () => ({
        fields: base(
          {
            response_type: 'code',
            client_id: publicClient.client_id,
            redirect_uri: REDIRECT_URI,
            code_challenge: pkce().challenge,
            code_challenge_method: 'S256',
            state: 'fuzz-state',
            scope: 'profile:read glucose:read',
            resource: RESOURCE,
          },
          ['client_id'],
        ),
        headers: {},
      }),
      wrongMethods: ['PUT', 'DELETE', 'PATCH'],
    }),
  ),
  {
    key: 'POST /oauth/token (authorization_code)',
    method: 'POST',
    path: '/oauth/token',
    shape: 'oauth',
    carrier: 'form',
    limit: OAUTH_FORM_LIMIT,
    valid: async () => {
      const { code, verifier } = await freshCode();
      return {
        fields: base(
          {
            grant_type: 'authorization_code',
            client_id: publicClient.client_id,
            code,
            code_verifier: verifier,
            redirect_uri: REDIRECT_URI,
            resource: RESOURCE,
          },
          ['client_id', 'code', 'code_verifier'],
        ),
        headers: {},
      };
    },
    wrongMethods: ['GET', 'PUT', 'DELETE', 'PATCH'],
  },
  {
    key: 'POST /oauth/token (refresh_token)',
    method: 'POST',
    path: '/oauth/token',
    shape: 'oauth',
    carrier: 'form',
    limit: OAUTH_FORM_LIMIT,
    valid: async () => {
      const seeded = await freshConnection();
      return {
        fields: base(
          {
            grant_type: 'refresh_token',
            client_id: seeded.clientId,
            refresh_token: seeded.refreshToken,
            scope: 'profile:read',
            resource: RESOURCE,
          },
          ['client_id', 'refresh_token'],
        ),
        headers: {},
      };
    },
    wrongMethods: [],
  },
  {
    key: 'POST /oauth/token (client_secret_post)',
    method: 'POST',
    path: '/oauth/token',
    shape: 'oauth',
    carrier: 'form',
    limit: OAUTH_FORM_LIMIT,
    valid: () => ({
      fields: base(
        {
          grant_type: 'refresh_token',
          client_id: confidentialClient.client_id,
          client_secret: confidentialClient.client_secret ?? 'none',
          refresh_token: 'hdp_ort_unknown',
        },
        ['client_id', 'client_secret', 'refresh_token'],
      ),
      headers: {},
    }),
    wrongMethods: [],
  },
  {
    key: 'POST /oauth/revoke',
    method: 'POST',
    path: '/oauth/revoke',
    shape: 'oauth',
    carrier: 'form',
    limit: OAUTH_FORM_LIMIT,
    valid: async () => {
      const seeded = await freshConnection();
      const refreshFirst = stats.freshContexts % 2 === 0;
      return {
        fields: base(
          {
            client_id: seeded.clientId,
            token: refreshFirst ? seeded.refreshToken : seeded.accessToken,
            token_type_hint: refreshFirst ? 'refresh_token' : 'access_token',
          },
          ['client_id', 'token'],
        ),
        headers: {},
      };
    },
    wrongMethods: ['GET', 'PUT', 'DELETE', 'PATCH'],
  },
  {
    key: 'GET /.well-known/oauth-authorization-server',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    shape: 'oauth',
    carrier: 'query',
    limit: 0,
    valid: () => ({ fields: base({ resource: RESOURCE }), headers: {} }),
    wrongMethods: ['POST', 'PUT', 'DELETE', 'PATCH'],
  },
  {
    key: 'GET /.well-known/oauth-protected-resource/mcp',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    shape: 'oauth',
    carrier: 'query',
    limit: 0,
    valid: () => ({ fields: base({ resource: RESOURCE }), headers: {} }),
    wrongMethods: ['POST', 'PUT', 'DELETE', 'PATCH'],
  },
  ...MCP_MESSAGES.map(
    (message): Endpoint => ({
      key: `POST /mcp (${message.label})`,
      method: 'POST',
      path: '/mcp',
      shape: 'mcp',
      carrier: 'json',
      limit: 1024 * 1024,
      schema: message.schema,
      valid: () => ({
        json: message.value,
        headers: { accept: MCP_ACCEPT },
        bearer: mcpConnection.accessToken,
      }),
      wrongMethods: message.label === 'tools/list' ? ['GET', 'DELETE', 'PUT', 'PATCH'] : [],
    }),
  ),
  {
    key: 'GET /oauth/consent',
    method: 'GET',
    path: '/oauth/consent',
    shape: 'page',
    carrier: 'query',
    limit: 0,
    redirects: true,
    valid: () => ({
      fields: base({ ticket }, ['ticket']),
      headers: { ...PAGE_HEADERS, cookie: webSession.cookie },
    }),
    wrongMethods: ['PUT', 'DELETE', 'PATCH'],
  },
  {
    key: 'POST /oauth/consent',
    method: 'POST',
    path: '/oauth/consent',
    shape: 'page',
    carrier: 'form',
    limit: PAGE_FORM_LIMIT,
    redirects: true,
    valid: () => ({
      fields: base({ ticket, csrf_token: webSession.csrf, action: 'approve', families: 'read' }, [
        'ticket',
        'csrf_token',
      ]),
      headers: { ...PAGE_HEADERS, cookie: webSession.cookie },
    }),
    wrongMethods: [],
  },
  ...(
    [
      ['password', { email: person.user.email, password: person.password }],
      ['code-start', { email: person.user.email }],
      ['code-verify', { email: person.user.email, code: '123456' }],
    ] as const
  ).map(
    ([action, fields]): Endpoint => ({
      key: `POST /oauth/sign-in (${action})`,
      method: 'POST',
      path: '/oauth/sign-in',
      shape: 'page',
      carrier: 'form',
      limit: PAGE_FORM_LIMIT,
      redirects: true,
      valid: () => ({
        fields: base({ ticket, action, ...fields }, ['ticket', 'email', 'password', 'code']),
        headers: PAGE_HEADERS,
      }),
      wrongMethods: action === 'password' ? ['GET', 'PUT', 'DELETE', 'PATCH'] : [],
    }),
  ),
];

// ---------------------------------------------------------------------------------------------
// Building requests

/** What one run is made of: made-up values for the garbage context and picks that steer the class. */
interface Material {
  garbage: string[];
  picks: number[];
}

const garbageString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.uuid(),
  fc.constantFrom(
    '',
    'hdp_oat_',
    'hdp_ort_AAAA',
    'hdp_oat_' + 'A'.repeat(43),
    'https://example.com/client.json',
    'https://10.0.0.1/client.json',
    'eyJhbGciOiJIUzI1NiJ9.e30.x',
    'null',
    '0',
  ),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const material: fc.Arbitrary<Material> = fc.record({
  garbage: fc.array(garbageString, { minLength: 8, maxLength: 8 }),
  picks: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
});

/** The bearer of the valid /mcp context (renewed when an answer says it stopped working). */
const enc = encodeURIComponent;
const BAD_UTF8 = Buffer.from([0xc0, 0xae, 0xed, 0xa0, 0x80, 0xff]);
const UNKNOWN_FIELDS: [string, string][] = [
  ['unknown_field', '1'],
  ['__proto__', 'x'],
  ['constructor', 'x'],
  ['is_admin', 'true'],
  ['hasOwnProperty', '1'],
  ['', '0'],
];

/** The field list of a prepared request in `ctx` (garbage: the context fields made up). */
function contextFields(prepared: Prepared, ctx: Ctx, m: Material): FormField[] {
  return (prepared.fields ?? []).map((f, i) =>
    ctx === 'garbage' && f.ctx ? { ...f, value: m.garbage[i % m.garbage.length] } : f,
  );
}

/** A text of pairs (each key and value already URL text), its bytes where invalid UTF-8 is in it. */
function pairsText(pairs: [string, string | Buffer][]): string | Buffer {
  const chunks = pairs.map(([k, v]) => [k, v] as const);
  if (!chunks.some(([, v]) => Buffer.isBuffer(v)))
    return chunks.map(([k, v]) => `${k}=${String(v)}`).join('&');
  const parts: Buffer[] = [];
  chunks.forEach(([k, v], i) => {
    if (i) parts.push(Buffer.from('&'));
    parts.push(Buffer.from(`${k}=`), Buffer.isBuffer(v) ? v : Buffer.from(v));
  });
  return Buffer.concat(parts);
}

/**
 * Puts `cls` into one field (the `index`-th, wrapping around) of a form or query: answers the pairs
 * (invalid UTF-8 as raw bytes), the content type's charset, and where the class went.
 */
function mutateFields(
  fields: FormField[],
  cls: FieldClass,
  index: number,
  pick: number,
  carrier: 'query' | 'form',
  limit: number,
): { pairs: [string, string | Buffer][]; charset?: string; where: string } {
  const pairs: [string, string | Buffer][] = fields.map((f) => [enc(f.name), enc(f.value)]);
  if (!pairs.length) pairs.push(['fuzz_field', 'x']);
  const at = index % pairs.length;
  const [name, value] = pairs[at] as [string, string];
  const where = `field ${decodeURIComponent(name)}`;
  switch (cls) {
    case 'extra-fields':
      return { pairs: [...pairs, ...UNKNOWN_FIELDS], where: 'unknown fields added' };
    case 'repeated': {
      const copies: [string, string][] = [
        [name, value],
        [name, pick % 2 ? value : 'other'],
      ];
      if (pick % 3 === 0) copies.push([name, '']);
      return { pairs: [...pairs.slice(0, at), ...copies, ...pairs.slice(at + 1)], where };
    }
    case 'charset-bogus':
      return {
        pairs,
        charset: ['bogus', 'utf-99', 'x-unknown-charset', 'utf-16'][pick % 4],
        where: 'charset',
      };
    case 'invalid-utf8': {
      // raw bytes in a body; in a URL (which must be ASCII) the same bytes percent-encoded
      const kept = value.slice(0, pick % (value.length + 1));
      pairs[at] = [
        name,
        carrier === 'form'
          ? Buffer.concat([Buffer.from(kept), BAD_UTF8])
          : kept + [...BAD_UTF8].map((b) => `%${b.toString(16).toUpperCase()}`).join(''),
      ];
      return { pairs, where };
    }
    case 'wrong-type':
      // a form has no types: a key the parser could read as an array or object, or a value of another shape
      if (pick % 3 === 0)
        pairs[at] = [`${name}${['%5B%5D', '%5Ba%5D', '[]', '[0]'][pick % 4]}`, value];
      else pairs[at] = [name, hostileUrlText('wrong-type', 'string', value, pick)];
      return { pairs, where };
    case 'huge-string':
      // beyond the body limit (413) or just below it (the handler reads it), and a URL's worth
      if (carrier === 'form' && pick % 2 === 0) {
        const room = limit - pairsText(pairs).length - 64;
        pairs[at] = [name, 'x'.repeat(Math.max(1, room))];
      } else pairs[at] = [name, hostileUrlText('huge-string', 'string', value, pick)];
      return { pairs, where };
    default:
      pairs[at] = [name, hostileUrlText(cls, 'string', value, pick)];
      return { pairs, where };
  }
}

/** Puts `cls` into a JSON value at one position: answers the body text (bytes for invalid UTF-8). */
function mutateJson(
  value: unknown,
  schema: JsonSchema,
  cls: FieldClass,
  index: number,
  pick: number,
): { text: string | Buffer; charset?: string; where: string } {
  const fields = fieldsOf(schema, schema);
  if ((LEAF_CLASSES as readonly string[]).includes(cls)) {
    const mutated = mutate(value, fields, cls as LeafClass, index, pick);
    return { text: jsonText(mutated.value), where: mutated.where };
  }
  const strings = fieldsFor('nul', fields);
  const field = strings[index % strings.length];
  if (cls === 'charset-bogus')
    return {
      text: jsonText(value),
      charset: ['bogus', 'utf-99', 'x-unknown-charset', 'utf-16'][pick % 4],
      where: 'charset',
    };
  if (cls === 'invalid-utf8') {
    const holder = { v: copyValue(value) };
    setAt(holder, field.path, '@@BAD@@');
    const [before, after] = jsonText(holder.v).split('@@BAD@@');
    return {
      text: Buffer.concat([Buffer.from(before), BAD_UTF8, Buffer.from(after)]),
      where: field.path.join('.'),
    };
  }
  // repeated: the top-level key of the field twice, the later one different (JSON.parse keeps it)
  const key = String(field.path[0]);
  const other = pick % 2 ? jsonText(getAt(value, [key]) ?? null) : jsonText(['x', 1]);
  const text = jsonText(value).replace(/^\{/, `{${JSON.stringify(key)}:${other},`);
  return {
    text: `${text.slice(0, -1)},${JSON.stringify(key)}:${other}}`,
    where: `${key} repeated`,
  };
}

function queryOf(pairs: [string, string | Buffer][]): string {
  if (!pairs.length) return '';
  const text = pairsText(pairs);
  return `?${typeof text === 'string' ? text : text.toString('latin1')}`;
}

function shown(req: Omit<Sent, 'shown'>): string {
  const type = req.headers['content-type'];
  const body =
    req.body === undefined
      ? ''
      : ` [${type ?? 'no content-type'}] ${excerpt(textOf(req.body), 160)}`;
  return `${req.method} ${excerpt(req.path, 160)}${body}`;
}

/** The positions of a JSON body `cls` can go to (the classes of a text go to strings). */
function jsonPositions(ep: Endpoint, cls: FieldClass): number {
  const leaf: LeafClass = (LEAF_CLASSES as readonly string[]).includes(cls)
    ? (cls as LeafClass)
    : 'nul';
  return fieldsFor(leaf, fieldsOf(ep.schema!, ep.schema!)).length;
}

/** The request of a field class in `ctx`. */
function fieldRequest(
  ep: Endpoint,
  prepared: Prepared,
  ctx: Ctx,
  cls: FieldClass,
  m: Material,
  run: number,
): Sent {
  const pick = m.picks[0];
  const headers: Record<string, string> = { ...prepared.headers };
  let bearer = prepared.bearer;
  if (bearer !== undefined && ctx === 'garbage')
    bearer = m.garbage[7].replace(/[^\x21-\x7e]/g, '') || 'x';
  if (ctx === 'garbage' && headers.cookie) headers.cookie = `hdp_session=${enc(m.garbage[6])}`;
  let path = ep.path;
  let body: string | Buffer | undefined;
  let where: string;
  if (ep.carrier === 'json') {
    // the bearer is one more target of /mcp (after the body's positions)
    const positions = jsonPositions(ep, cls);
    if (bearer !== undefined && run % (positions + 1) === positions && cls !== 'charset-bogus') {
      bearer = hostileUrlText(
        (LEAF_CLASSES as readonly string[]).includes(cls) ? (cls as LeafClass) : 'bad-encoding',
        'string',
        bearer,
        pick,
      );
      body = jsonText(prepared.json);
      headers['content-type'] = 'application/json';
      where = 'bearer';
    } else {
      const v = ctx === 'garbage' && ep.shape === 'oauth' ? garbageRegistration(m) : prepared.json;
      const mutated = mutateJson(v, ep.schema!, cls, run, pick);
      body = mutated.text;
      headers['content-type'] =
        `application/json${mutated.charset ? `; charset=${mutated.charset}` : ''}`;
      where = mutated.where;
    }
  } else {
    const fields = contextFields(prepared, ctx, m);
    const mutated = mutateFields(fields, cls, run, pick, ep.carrier, ep.limit);
    where = mutated.where;
    if (ep.carrier === 'query') {
      path += queryOf(mutated.pairs);
      if (mutated.charset) headers['content-type'] = `${FORM}; charset=${mutated.charset}`;
    } else {
      body = pairsText(mutated.pairs);
      headers['content-type'] = `${FORM}${mutated.charset ? `; charset=${mutated.charset}` : ''}`;
    }
  }
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  const req = { method: ep.method, path, headers, body };
  return { ...req, shown: `(${ctx}, ${where}) ${shown(req)}` };
}

/** A registration body of made-up values (the garbage context of registration). */
let garbageRegistrationSample: fc.Arbitrary<unknown> | null = null;
function garbageRegistration(m: Material): unknown {
  garbageRegistrationSample ??= valueArbitrary(REGISTRATION_SCHEMA, REGISTRATION_SCHEMA);
  const [value] = fc.sample(garbageRegistrationSample, {
    seed: seedFor('registration', String(m.picks[1])),
    numRuns: 1,
  });
  return value;
}

/** The request of a whole-body class (the valid context's fields, a broken or oversize body). */
function bodyRequest(
  ep: Endpoint,
  prepared: Prepared,
  cls: BodyClass,
  m: Material,
  run: number,
): Sent {
  const pick = m.picks[0];
  const headers: Record<string, string> = { ...prepared.headers };
  if (prepared.bearer !== undefined) headers.authorization = `Bearer ${prepared.bearer}`;
  const validText =
    ep.carrier === 'json'
      ? jsonText(prepared.json)
      : (prepared.fields ?? []).map((f) => `${enc(f.name)}=${enc(f.value)}`).join('&');
  const validType = ep.carrier === 'json' ? 'application/json' : FORM;
  let path = ep.path;
  let body: string | Buffer | undefined;
  let type: string | undefined = validType;
  if (cls === 'malformed-body') {
    const broken: (string | Buffer)[] =
      ep.carrier === 'json'
        ? [
            ...MALFORMED_JSON,
            INVALID_UTF8_JSON,
            validText.slice(0, Math.floor(validText.length / 2)),
            `${validText}garbage`,
            validText.replace(/"/g, "'"),
            (run % 2 ? deepArrays(DEEP) : deepObjects(DEEP)).text,
            '[]',
            'null',
            '"text"',
            '123',
          ]
        : [
            '%',
            '%%%',
            'a=%ZZ&b=%',
            '&&&==&=',
            '=',
            '\u0000',
            `${validText}&%E2%82`,
            Buffer.concat([Buffer.from(validText), Buffer.from('&x='), BAD_UTF8]),
            '%5B'.repeat(2_000),
            'a'.repeat(100),
            Array.from({ length: 40 }, (_, i) => `f${i}=1`).join('&'),
            validText.replace(/=/g, ''),
          ];
    body = broken[(pick + run) % broken.length];
  } else if (cls === 'content-type') {
    const types = [
      undefined,
      'text/plain',
      ep.carrier === 'json' ? FORM : 'application/json',
      'multipart/form-data; boundary=fuzz',
      'application/octet-stream',
      `${validType}; charset=utf-16`,
      `${validType}; charset=latin1`,
      'application/json; charset=%C0%AE',
      ';;;',
      `${validType}; boundary=x; charset=`,
    ];
    type = types[(pick + run) % types.length];
    body = validText;
  } else {
    // beyond the limit: a little, a lot, far (the parser must stop reading and answer 413)
    const limit = ep.limit || 16 * 1024;
    const sizes = [limit + 1, limit * 2, limit * 8, 2 * 1024 * 1024];
    const size = sizes[run % sizes.length];
    body =
      ep.carrier === 'json'
        ? validText.replace(/^\{/, `{"pad":"${'x'.repeat(size)}",`)
        : `${validText}&pad=${'x'.repeat(size)}`;
  }
  if (ep.carrier === 'query') {
    // no body is read here: the broken text goes into the query, the body rides along unread
    path += `?${typeof body === 'string' ? body.slice(0, 12_000) : body.toString('latin1').slice(0, 12_000)}`;
    if (!/^[\x21-\x7e]*$/.test(path)) path = ep.path + '?' + enc(textOf(body).slice(0, 4_000));
  }
  if (type !== undefined) headers['content-type'] = type;
  const req = { method: ep.method, path, headers, body };
  return { ...req, shown: `(${cls}) ${shown(req)}` };
}

// ---------------------------------------------------------------------------------------------
// Report

function report(): string {
  return fuzzReport(
    failures.map((f) => ({ ...f, who: f.ctx })),
    'failures',
    'endpoints',
  );
}

afterAll(() => {
  const statusList = statusCounts;
  const statuses = statusList(stats.statuses);
  console.log(
    [
      `oauth-host fuzz (seed ${SEED}): ${stats.requests} requests to ${stats.endpoints.size} endpoints` +
        ` (${stats.discovery} discovery checks, ${stats.freshContexts} fresh codes and connections)`,
      `  5xx: ${stats.fiveXx}; failures: ${failures.length}; statuses ${statuses}`,
      ...(stats.limited.size
        ? [`  429 answers: ${[...stats.limited].map(([k, n]) => `${k} x${n}`).join('; ')}`]
        : []),
      ...[...stats.byEndpoint].map(([k, m]) => `    ${k}: ${statusList(m)}`),
    ].join('\n'),
  );
});

// ---------------------------------------------------------------------------------------------

/** Sends one request; renews the /mcp bearer if the valid one stopped working. */
async function run(
  ep: Endpoint,
  ctx: Ctx,
  cls: InputClass,
  req: Sent,
  options: { wrongMethod?: boolean } = {},
): Promise<void> {
  const res = await send(ep.key, req);
  record(
    ep.key,
    ctx,
    cls,
    req,
    res,
    faults(ep.shape, res, { ...options, redirects: ep.redirects }),
  );
  if (ep.shape === 'mcp' && ctx === 'valid' && res.status === 401)
    mcpConnection = await freshConnection();
}

describe('issue 13: no input to the OAuth MCP host causes a 5xx', () => {
  it('has its valid contexts', async () => {
    expect(realClientIds.size).toBeGreaterThanOrEqual(3);
    expect(ticket.length).toBeGreaterThan(20);
    const res = await rawRequest(HOST, {
      method: 'POST',
      path: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: MCP_ACCEPT,
        authorization: `Bearer ${mcpConnection.accessToken}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status, res.body).toBe(200);
  });

  it('answers every endpoint below 500, in its error shape, for every input class', async () => {
    for (const ep of ENDPOINTS) {
      // (a) one hostile field per class, in the valid and in a garbage context
      for (const ctx of ['valid', 'garbage'] as const) {
        for (const cls of FIELD_CLASSES) {
          if (cls === 'charset-bogus' && ep.carrier === 'query') continue;
          const positions =
            ep.carrier === 'json'
              ? jsonPositions(ep, cls) + (ep.shape === 'mcp' ? 1 : 0)
              : ((await ep.valid()).fields ?? []).length;
          const once = cls === 'extra-fields' || cls === 'charset-bogus';
          const numRuns =
            ctx === 'garbage' ? GARBAGE_RUNS : (once ? 1 : positions) + EXTRA_RUNS[cls];
          let i = 0;
          await fc.assert(
            fc.asyncProperty(material, async (m) => {
              await resetLimits();
              const prepared = await ep.valid();
              await run(ep, ctx, cls, fieldRequest(ep, prepared, ctx, cls, m, i++));
            }),
            { seed: seedFor(ep.key, ctx, cls), numRuns },
          );
        }
      }
      // (b) raw malformed bodies
      for (const cls of BODY_CLASSES) {
        let i = 0;
        await fc.assert(
          fc.asyncProperty(material, async (m) => {
            await resetLimits();
            await run(ep, 'valid', cls, bodyRequest(ep, await ep.valid(), cls, m, i++));
          }),
          { seed: seedFor(ep.key, cls), numRuns: BODY_RUNS[cls] },
        );
      }
      // (c) wrong methods, with and without a body
      for (const method of ep.wrongMethods) {
        const prepared = await ep.valid();
        const headers = {
          ...prepared.headers,
          ...(prepared.bearer ? { authorization: `Bearer ${prepared.bearer}` } : {}),
        };
        const withBody = bodyRequest(
          ep,
          prepared,
          'content-type',
          { garbage: [], picks: [0, 0, 0, 0] },
          0,
        );
        for (const req of [
          { method, path: ep.path, headers },
          { method, path: ep.path, headers: { ...headers, 'content-type': FORM }, body: 'a=1' },
          {
            ...withBody,
            method,
            headers: {
              ...withBody.headers,
              'content-type': ep.carrier === 'json' ? 'application/json' : FORM,
            },
          },
        ]) {
          await run(ep, 'valid', 'method', { ...req, shown: shown(req) }, { wrongMethod: true });
        }
      }
      await checkDiscovery(ep.key);
    }
    expect(failures.length, report()).toBe(0);
  }, 600_000);
});
