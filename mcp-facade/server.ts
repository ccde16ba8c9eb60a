/**
 * MCP facade entry, Streamable HTTP, stateless, JSON answers, for two doors (docs/mcp-oauth.md
 * section 10): POST /api/mcp for personal tokens (`door: 'pat'`), and the OAuth host's /mcp for OAuth
 * access tokens (`door: 'oauth'`): one registry and one call path, the OAuth door hiding payment tools
 * and rows with `oauth: false`, naming its resource metadata in its challenges, answering a missing
 * scope with a 403 step-up challenge and counting limits per connection.
 * Per request: Host and Origin checks -> authentication (the door's credential only) and the method
 * check (POST only; the OAuth door authenticates first) -> per-minute limit -> the toolsets the URL
 * chooses (`?toolsets=glucose,nutrition`; an unknown name answers 400) -> body (one JSON-RPC
 * message, no batches) -> a fresh low-level SDK Server (cheap) whose tools/list and tools/call
 * handlers read the registry built once here, within the chosen toolsets, answering as JSON through
 * json-exchange.ts. Other methods answer 405: there are no sessions and no standalone SSE streams;
 * only a call of a streaming tool (McpTool.stream) goes through the SDK's Streamable HTTP transport
 * and is answered as server-sent events (its progress notifications, then its result).
 *
 * It must never accept another door's credential (login tokens and cookies get 401 on both; an OAuth
 * token is no credential on /api/mcp, a personal token none on /mcp), never serve a `Host` it was not
 * configured for (DNS rebinding), never run more than one message per counted POST, never import
 * Prisma, a service or a domain module, and never hold business rules: every tool runs a persisted
 * GraphQL operation in process.
 */
import { readFileSync } from 'node:fs';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError } from 'graphql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ClientRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  CallToolRequest,
  CallToolResult,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../src/auth/principal.ts';
import { hostNameOf } from '../src/base/config.ts';
import type { Config } from '../src/base/config.ts';
import { clip, errorMessage } from '../src/base/errors.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/schema/operations.ts';
import { countRequestStatements } from '../src/graphql/statement-metrics.ts';
import type { IdempotencyStore } from '../src/platform/idempotency.ts';
import { jsonBodyParser, TOO_DEEP } from '../src/platform/input-guards.ts';
import { withProgress } from '../src/platform/progress.ts';
import type { McpLimits } from '../src/platform/rate-limit.ts';
import { callTool, limitKey } from './call-tool.ts';
import { answerAsJson, refuse } from './json-exchange.ts';
import type { CallToolDeps } from './call-tool.ts';
import { ALL_TOOLSETS, buildRegistry, chooseToolsets } from './registry.ts';
import type { ToolRegistry, ToolsetChoice } from './registry.ts';
import type { McpDoor, McpTool } from './tool.ts';
import { TOOLS } from './tools.ts';
import { fromRoot } from '../src/base/paths.ts';

export const MCP_PATH = '/api/mcp';
/** Largest request body: the biggest argument is a 5 MB profile photo sent as base64 (6.7 MB). */
export const MCP_BODY_LIMIT = '8mb';

const PACKAGE = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as {
  version: string;
};

/** The query parameter naming the toolsets a client chose (`/api/mcp?toolsets=glucose,nutrition`). */
export const TOOLSETS_PARAM = 'toolsets';

const INSTRUCTIONS =
  "Tools read and change one person's own health-platform data, within the scopes of their personal token. " +
  'Tools that delete, share or pay refuse to run until you ask the person and call again with confirm: true. ' +
  'Tools that create entries take an idempotency_key: a new one per entry, the same one when retrying the same call. ' +
  'A list answer with next_cursor has more items: call again with the same arguments and cursor set to it.';

/** The server's instructions; a connection that chose toolsets is told which, and how to get others. */
function instructionsFor(toolsets: ToolsetChoice): string {
  if (!toolsets) return INSTRUCTIONS;
  return (
    `${INSTRUCTIONS} This connection offers the toolsets ${[...toolsets].sort().join(', ')} only; ` +
    `the person adds others to ${TOOLSETS_PARAM}= in the MCP URL (${TOOLSETS_PARAM}=${ALL_TOOLSETS} for every tool).`
  );
}

export interface McpFacadeOptions {
  schema: GraphQLSchema;
  operations: OperationStore;
  config: Config;
  /** builds the GraphQL context of one request (authenticates the caller) */
  context(req: Request): Promise<Context>;
  /** claims and stored results of creating tools (src/platform/idempotency.ts) */
  idempotency: IdempotencyStore;
  /** per-token call limits (src/platform/rate-limit.ts) */
  limits: McpLimits;
  /** tool rows to serve (default: every row of mcp-facade/tools/); tests pass their own */
  tools?: readonly McpTool[];
  /** a registry built already (both doors of one app share one: it is built once, at start) */
  registry?: ToolRegistry;
  /**
   * which door this router serves (default `pat`, the personal-token host): the OAuth door lists
   * and calls only the tools offered over OAuth (registry.visibleTo / find)
   */
  door?: McpDoor;
  /** the endpoint's path (default MCP_PATH, /api/mcp) */
  path?: string;
  /**
   * the OAuth door's protected-resource metadata URL (RFC 9728): its 401 and 403 challenges name it,
   * and `host` is served beside the configured hosts (the OAuth host's public one)
   */
  oauth?: { resourceMetadataUrl: string; host: string };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/** The arguments object of a tools/call message as parsed from the body (own keys as sent). */
function sentArguments(message: unknown): Record<string, unknown> | undefined {
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params))
    return undefined;
  const args = message.params.arguments;
  return isObject(args) ? args : undefined;
}

/** The SDK's schema of each request a client sends (initialize, tools/list, tools/call, ...). */
const REQUEST_SCHEMAS: ReadonlyMap<string, (typeof ClientRequestSchema.options)[number]> = new Map(
  ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
);

/**
 * What is wrong with a request's params, said for the client, or null. NOTE: the SDK answers params
 * that fail its own schema with -32603 (an internal error) and a raw schema dump, so every request
 * is checked against that same schema here first and refused with -32602 Invalid params.
 */
function paramsProblem(message: unknown): string | null {
  if (!isObject(message) || message.id === undefined) return null;
  if (message.params !== undefined && !isObject(message.params)) return 'params must be an object';
  const args = message.params?.arguments;
  if (message.method === 'tools/call' && args !== undefined && !isObject(args)) {
    return "arguments must be an object of the tool's named arguments (see its inputSchema in tools/list)";
  }
  const schema =
    typeof message.method === 'string' ? REQUEST_SCHEMAS.get(message.method) : undefined;
  const parsed = schema?.safeParse({ method: message.method, params: message.params });
  const issue = parsed?.success === false ? parsed.error.issues[0] : undefined;
  if (!issue) return null;
  const at = ['params', ...issue.path.slice(1).map(String)].join('.');
  return `${at}: ${issue.message}`;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The host names this endpoint answers under (any port): loopback, MCP_ALLOWED_HOSTS and its public
 * host (PUBLIC_URL's for /api/mcp, MCP_PUBLIC_URL's for the OAuth host's /mcp).
 */
function allowedHosts(config: Config, publicHost: string | undefined): Set<string> {
  const hosts = new Set([...LOCAL_HOSTS, ...config.mcpAllowedHosts]);
  if (publicHost) hosts.add(publicHost);
  return hosts;
}

/** Whether the request presented a bearer (RFC 6750 section 3.1: only then the challenge has an error). */
function bearerPresented(req: Request): boolean {
  return /^bearer(\s|$)/i.test(req.get('authorization') ?? '');
}

/** A `WWW-Authenticate` value; on the OAuth door it names the resource metadata (RFC 9728). */
function bearerChallenge(params: string[], resourceMetadataUrl?: string): string {
  const all = resourceMetadataUrl
    ? [...params, `resource_metadata="${resourceMetadataUrl}"`]
    : params;
  return all.length ? `Bearer ${all.join(', ')}` : 'Bearer';
}

/** Same origin, PUBLIC_URL, MCP_ALLOWED_ORIGINS, or a page served from this machine. */
function originAllowed(origin: string, req: Request, config: Config): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTS.has(url.hostname))
    return true;
  const own = [
    `${req.protocol}://${req.get('host')}`,
    config.PUBLIC_URL,
    ...config.mcpAllowedOrigins,
  ];
  return own.some((o) => {
    try {
      return !!o && new URL(o).origin === url.origin;
    } catch {
      return false;
    }
  });
}

// A Server builds its own Ajv instance unless given one (about 10% of a call's CPU when done per
// request); ours never validates anything with it, so one shared instance serves every request.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * Why a tools/call names no tool of this connection: -32602 Unknown tool; for a tool the door offers
 * in a toolset the connection did not choose, the message says how to choose it (a tool the door
 * hides reads exactly as a name that is no tool).
 */
function unknownTool(
  registry: ToolRegistry,
  name: string,
  door: McpDoor,
  toolsets: ToolsetChoice,
): McpError {
  const toolset = toolsets && registry.find(name, door)?.toolset;
  return new McpError(
    ErrorCode.InvalidParams,
    toolset
      ? `Unknown tool: ${name} is in the toolset ${toolset}, which this connection did not choose: ` +
        `add ${toolset} to ${TOOLSETS_PARAM}= in the MCP URL (or use ${TOOLSETS_PARAM}=${ALL_TOOLSETS})`
      : `Unknown tool: ${name}`,
  );
}

/**
 * The SDK server of one request: tools/list and tools/call read the registry through `door` and the
 * connection's `toolsets`, so a tool the door does not offer, or outside the chosen toolsets, is
 * neither listed nor callable (-32602 Unknown tool). `message` is the request's one JSON-RPC message
 * as parsed from its body: a call's arguments are taken from it as sent.
 */
export function mcpServer(
  registry: ToolRegistry,
  ctx: Context,
  deps: CallToolDeps,
  door: McpDoor = 'pat',
  message?: unknown,
  toolsets: ToolsetChoice = null,
): Server {
  const server = new Server(
    { name: 'health-platform', version: PACKAGE.version },
    { capabilities: { tools: {} }, instructions: instructionsFor(toolsets), jsonSchemaValidator },
  );
  const scopes = ctx.principal!.scopes;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry.visibleTo(scopes, door, toolsets).map((t) => t.definition),
  }));
  const call = toolCaller(registry, ctx, deps, door, message, toolsets);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => call(request.params, extra));
  return server;
}

/** What a call's answer may send on the way (an SSE stream's notifications); none when answered as JSON. */
type CallExtra = Pick<RequestHandlerExtra<ServerRequest, ServerNotification>, 'sendNotification'>;

/**
 * The tools/call handler of one request, in the SDK Server (above) and straight from the exchange
 * (json-exchange.ts `callTool`): the tool this door and toolset choice offer, run by call-tool.ts.
 * A streaming tool called with a progressToken and `extra` reports each piece of text as a progress
 * notification.
 */
export function toolCaller(
  registry: ToolRegistry,
  ctx: Context,
  deps: CallToolDeps,
  door: McpDoor,
  message: unknown,
  toolsets: ToolsetChoice,
): (params: CallToolRequest['params'], extra?: CallExtra) => Promise<CallToolResult> {
  return async (params, extra) => {
    const tool = registry.find(params.name, door, toolsets);
    if (!tool) throw unknownTool(registry, params.name, door, toolsets);
    // NOTE: the arguments as the client sent them (the POST's one message): the SDK's own parse
    // drops a `__proto__` key, which the call path must see to refuse it like any undeclared one
    const args = sentArguments(message) ?? params.arguments ?? {};
    const call = () => callTool(tool, args, ctx, deps);
    const progressToken = params._meta?.progressToken;
    if (!tool.row.stream || progressToken === undefined || !extra) return call();
    // a streaming tool: each piece of text is a progress notification on this call's SSE stream
    let progress = 0;
    const report = (message: string): void =>
      void extra
        .sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: ++progress, message },
        })
        .catch(() => undefined); // the client went away: the call still finishes and is stored
    return withProgress(report, call);
  };
}

/**
 * Whether the door takes this credential. NOTE: /api/mcp takes personal tokens only; the OAuth door
 * takes OAuth access tokens only (for its resource: its context passes `oauthResource`, and
 * src/auth/authenticate.ts knows no OAuth token without it).
 */
function doorAccepts(principal: Principal, door: McpDoor): boolean {
  switch (door) {
    case 'pat':
      return principal.kind === 'personal_token';
    case 'oauth':
      return principal.kind === 'oauth';
  }
}

/** What the door asks for when a presented bearer is not its credential. */
const CREDENTIAL_NAME: Record<McpDoor, string> = {
  pat: 'an active personal token',
  oauth: 'an active OAuth access token',
};

/** What a door's handlers share: its name, its tools and where its OAuth metadata is. */
interface DoorFacts {
  door: McpDoor;
  registry: ToolRegistry;
  resourceMetadataUrl?: string;
}

/**
 * NOTE: DNS-rebinding defence. A page on evil.example whose name is re-pointed at this machine
 * calls us as same-origin: its Host (and Origin) name evil.example. The raw Host header, never
 * X-Forwarded-Host: with TRUST_PROXY=loopback the rebound browser itself is a "trusted proxy".
 * Not the SDK's hostHeaderValidation (same rule, but its 403 echoes the whole Host header) nor the
 * transport's deprecated allowedHosts (exact host:port, so no ephemeral or proxied ports).
 * NOTE: cross-site defence (MCP transports: servers MUST validate Origin).
 */
function guardHostAndOrigin(
  hosts: Set<string>,
  config: McpFacadeOptions['config'],
): RequestHandler {
  return (req, res, next) => {
    const host = hostNameOf(req.headers.host ?? '');
    if (host === null || !hosts.has(host)) return refuse(res, 403, 'Host not allowed');
    const origin = req.get('origin');
    if (origin !== undefined && !originAllowed(origin, req, config))
      return refuse(res, 403, 'Origin not allowed');
    next();
  };
}

function onlyPost(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'POST') return next();
  res.set('allow', 'POST');
  refuse(res, 405, 'Method not allowed: this MCP endpoint is stateless and answers POST only');
}

/** The door's credential, else 401 with the challenge that starts discovery (res.locals.mcpContext). */
function authenticateFor(
  facts: DoorFacts,
  context: McpFacadeOptions['context'],
): (req: Request, res: Response, next: NextFunction) => Promise<void> {
  return async (req, res, next) => {
    let ctx: Context | null = null;
    try {
      ctx = await context(req);
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err; // e.g. a cookie without its CSRF token: not authenticated here
    }
    // NOTE: the door's credential only; a login token or a web session is not a credential here.
    // A presented bearer that is not an active credential of the door (unknown, revoked, expired, a
    // login token, another door's token) is invalid *for this resource*: invalid_token, not
    // insufficient_scope (no scope fixes it).
    if (!ctx?.principal || !doorAccepts(ctx.principal, facts.door)) {
      const presented = bearerPresented(req);
      res.set(
        'www-authenticate',
        bearerChallenge(presented ? ['error="invalid_token"'] : [], facts.resourceMetadataUrl),
      );
      return presented
        ? refuse(res, 401, `Invalid token: send ${CREDENTIAL_NAME[facts.door]}`, {
            data: { code: 'invalid_token' },
          })
        : refuse(res, 401, errorMessage('UNAUTHENTICATED'));
    }
    res.locals.mcpContext = ctx;
    next();
  };
}

/** The per-minute limit of the credential: 429 with Retry-After past it. */
function perMinuteOf(
  limits: McpFacadeOptions['limits'],
): (req: Request, res: Response, next: NextFunction) => Promise<void> {
  return async (_req, res, next) => {
    const ctx = res.locals.mcpContext as Context;
    const minute = await limits.perMinute.take(limitKey(ctx.principal!));
    if (!minute.allowed) {
      res.set('retry-after', String(minute.retryAfterSeconds));
      return refuse(res, 429, `Too many calls: ${minute.limit} per minute per token`, {
        data: { code: 'rate_limited', retry_after: minute.retryAfterSeconds },
      });
    }
    next();
  };
}

/**
 * The toolsets the URL chooses (`?toolsets=glucose,nutrition`, res.locals.mcpToolsets): an unknown
 * name (or a value naming nothing) answers 400 listing every valid name, in the JSON-RPC error
 * shape the transport answers bad requests with.
 */
function toolsetsOfUrl(registry: ToolRegistry): RequestHandler {
  return (req, res, next) => {
    const raw = req.query[TOOLSETS_PARAM];
    const values =
      raw === undefined
        ? undefined
        : typeof raw === 'string'
          ? [raw]
          : Array.isArray(raw) && raw.every((v) => typeof v === 'string')
            ? raw
            : [''];
    const choice = chooseToolsets(values, registry.toolsets);
    if ('toolsets' in choice) {
      res.locals.mcpToolsets = choice.toolsets;
      return next();
    }
    const valid = [ALL_TOOLSETS, ...registry.toolsets];
    const problem =
      'unknown' in choice
        ? `unknown toolset ${clip(choice.unknown.join(', '))}`
        : `${TOOLSETS_PARAM} names no toolset`;
    refuse(res, 400, `Bad Request: ${problem}; the toolsets are ${valid.join(', ')}`, {
      data: { code: 'unknown_toolset', toolsets: valid },
    });
  };
}

/**
 * One message per POST, so the per-minute limit counts every call (JSON-RPC batches left MCP in
 * 2025-06-18; the SDK transport still runs up to 100 of them whatever the version); on the OAuth
 * door, a call of a tool whose scopes the token lacks is a 403 step-up; params of the wrong shape
 * say what to send (the SDK answers -32603 with a raw schema dump).
 */
function checkMessage(facts: DoorFacts): RequestHandler {
  return (req, res, next) => {
    if (Array.isArray(req.body)) {
      return refuse(
        res,
        400,
        'Invalid Request: JSON-RPC batches are not supported; send one message per POST',
        {
          code: ErrorCode.InvalidRequest,
        },
      );
    }
    const message = req.body as { id?: unknown };
    const stepUp = facts.door === 'oauth' ? insufficientScope(facts, message, res) : null;
    if (stepUp) {
      res.set(
        'www-authenticate',
        bearerChallenge(
          ['error="insufficient_scope"', `scope="${stepUp.scope}"`],
          facts.resourceMetadataUrl,
        ),
      );
      return refuse(res, 403, stepUp.message, {
        data: { code: 'insufficient_scope', scope: stepUp.missing.join(' ') },
      });
    }
    const problem = paramsProblem(message);
    if (!problem) return next();
    const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
    res.json({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` },
    });
  };
}

/**
 * Whether the message calls a streaming tool this door offers with a progressToken (only then is
 * there anything to stream): answered as SSE. Without a token the call is answered as JSON.
 */
function streamsAnswer(facts: DoorFacts, message: unknown, toolsets: ToolsetChoice): boolean {
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params))
    return false;
  const { name, _meta: meta } = message.params;
  const token = isObject(meta) ? meta.progressToken : undefined;
  if (typeof token !== 'string' && typeof token !== 'number') return false;
  return (
    typeof name === 'string' && facts.registry.find(name, facts.door, toolsets)?.row.stream === true
  );
}

/**
 * A tools/call of a tool the door offers whose scopes the credential lacks: on the OAuth door an
 * HTTP 403 whose challenge names the scopes held and needed, so the client can ask for more
 * (step-up); /api/mcp answers an isError INSUFFICIENT_SCOPE result instead (call-tool.ts).
 */
function insufficientScope(
  facts: DoorFacts,
  message: unknown,
  res: Response,
): { missing: string[]; scope: string; message: string } | null {
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params))
    return null;
  const name = message.params.name;
  const toolsets = res.locals.mcpToolsets as ToolsetChoice;
  const tool =
    typeof name === 'string' ? facts.registry.find(name, facts.door, toolsets) : undefined;
  if (!tool) return null;
  const held = (res.locals.mcpContext as Context).principal!.scopes;
  const missing = tool.row.scopes.filter((s) => !held.has(s));
  if (!missing.length) return null;
  return {
    missing,
    scope: [...new Set([...held, ...missing])].join(' '),
    message: `This token lacks the scope ${missing.join(', ')} that ${tool.row.name} needs`,
  };
}

/**
 * The answer: JSON straight from the parsed body (json-exchange.ts), a tools/call without the SDK
 * Server; the SDK's transport only for a call of a streaming tool (McpTool.stream), answered as
 * server-sent events.
 */
function answerMessage(
  facts: DoorFacts,
  deps: CallToolDeps,
): (req: Request, res: Response) => Promise<void> {
  const { registry, door } = facts;
  return async (req, res) => {
    const toolsets = res.locals.mcpToolsets as ToolsetChoice;
    const ctx = res.locals.mcpContext as Context;
    const server = () => mcpServer(registry, ctx, deps, door, req.body, toolsets);
    if (!streamsAnswer(facts, req.body, toolsets)) {
      const callTool = toolCaller(registry, ctx, deps, door, req.body, toolsets);
      return answerAsJson(req, res, { server, callTool });
    }
    const sdkServer = server();
    res.on('close', () => void sdkServer.close());
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await sdkServer.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };
}

/** Body errors in the JSON-RPC shape: a parse error, too deep, too large, a bad encoding. */
function bodyErrors(
  err: Error & { type?: string; status?: number },
  _req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (err.type === 'entity.parse.failed') {
    refuse(res, 400, 'Parse error', { code: ErrorCode.ParseError });
  } else if (err.type === TOO_DEEP) {
    refuse(res, 400, `Invalid Request: ${err.message}`, { code: ErrorCode.InvalidRequest });
  } else if (err.type === 'entity.too.large') {
    refuse(res, 413, `Request body larger than ${MCP_BODY_LIMIT}`);
  } else if (err.status && err.status >= 400 && err.status < 500) {
    // an unsupported charset or content encoding (415), an aborted body (400)
    refuse(res, err.status, clip(err.message));
  } else {
    next(err);
  }
}

/** The express router serving POST /api/mcp, or `path` (and 405 for other methods). */
export function createMcpRouter(options: McpFacadeOptions): Router {
  const door = options.door ?? 'pat';
  const path = options.path ?? MCP_PATH;
  const registry = options.registry ?? buildRegistry(options.tools ?? TOOLS, options);
  const facts: DoorFacts = {
    door,
    registry,
    resourceMetadataUrl: options.oauth?.resourceMetadataUrl,
  };
  const deps: CallToolDeps = {
    operations: options.operations,
    idempotency: options.idempotency,
    perDay: options.limits.perDay,
  };
  const { PUBLIC_URL } = options.config;
  const hosts = allowedHosts(
    options.config,
    options.oauth ? options.oauth.host : PUBLIC_URL && new URL(PUBLIC_URL).hostname,
  );
  const authenticate = authenticateFor(facts, (req) => options.context(req));
  const perMinute = perMinuteOf(options.limits);
  const router = express.Router();
  // each request's SQL statements on /metrics
  router.all(path, countRequestStatements('mcp'));
  router.all(path, guardHostAndOrigin(hosts, options.config));
  // NOTE: the OAuth door authenticates before the method check, so an unauthenticated GET also gets
  // the challenge that starts discovery (docs/mcp-oauth.md section 10); /api/mcp answers 405 first.
  if (door === 'oauth')
    router.all(path, authenticate, onlyPost, perMinute, toolsetsOfUrl(registry));
  else router.all(path, onlyPost, authenticate, perMinute, toolsetsOfUrl(registry));
  router.post(path, jsonBodyParser(MCP_BODY_LIMIT), checkMessage(facts));
  router.post(path, answerMessage(facts, deps));
  router.use(path, bodyErrors);
  return router;
}
