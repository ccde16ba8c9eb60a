/**
 * MCP facade entry for personal tokens: POST /api/mcp, Streamable HTTP, stateless, JSON answers.
 * Per request: Origin check -> personal-token authentication -> per-minute limit -> a fresh
 * low-level SDK Server and transport (cheap) whose tools/list and tools/call handlers read the
 * registry built once here. GET and DELETE answer 405: there are no sessions and no SSE streams.
 *
 * It must never accept a credential other than a personal token (login tokens and cookies get 401,
 * without resource_metadata: this host has no OAuth), never import Prisma, a service or a domain
 * module, and never hold business rules: every tool runs a persisted GraphQL operation in process.
 */
import { readFileSync } from 'node:fs';
import express from 'express';
import type { NextFunction, Request, Response, Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import { GraphQLError } from 'graphql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../src/config.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/graphql/operations.ts';
import type { IdempotencyStore } from '../src/platform/idempotency.ts';
import type { McpLimits } from '../src/platform/rate-limit.ts';
import { callTool, limitKey } from './call-tool.ts';
import type { CallToolDeps } from './call-tool.ts';
import { buildRegistry } from './registry.ts';
import type { ToolRegistry } from './registry.ts';
import type { McpTool } from './tool.ts';
import { TOOLS } from './tools.ts';

export const MCP_PATH = '/api/mcp';
/** Largest request body: the biggest argument is a 5 MB profile photo sent as base64 (6.7 MB). */
export const MCP_BODY_LIMIT = '8mb';

const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const INSTRUCTIONS =
  "Tools read and change one person's own health-platform data, within the scopes of their personal token. " +
  'Tools that delete, share or pay refuse to run until you ask the person and call again with confirm: true. ' +
  'Tools that create entries take an idempotency_key: reuse it when retrying the same call.';

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
  /** when the person's phone last synced; health-data answers carry it */
  phoneLastSyncAt(userId: number): Promise<Date | null>;
  /** tool rows to serve (default: every row of mcp-facade/tools/); tests pass their own */
  tools?: readonly McpTool[];
}

/** An HTTP-level refusal in the JSON-RPC error shape the transport itself answers with. */
function refuse(res: Response, status: number, message: string, data?: unknown): void {
  res
    .status(status)
    .json({ jsonrpc: '2.0', error: { code: -32000, message, ...(data === undefined ? {} : { data }) }, id: null });
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Same origin, PUBLIC_URL, MCP_ALLOWED_ORIGINS, or a page served from this machine. */
function originAllowed(origin: string, req: Request, config: Config): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && LOCAL_HOSTS.has(url.hostname)) return true;
  const own = [`${req.protocol}://${req.get('host')}`, config.PUBLIC_URL, ...config.mcpAllowedOrigins];
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

function mcpServer(registry: ToolRegistry, ctx: Context, deps: CallToolDeps): Server {
  const server = new Server(
    { name: 'health-platform', version: PACKAGE.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator },
  );
  const scopes = ctx.principal!.scopes;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry.visibleTo(scopes).map((t) => t.definition),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const tool = registry.byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return callTool(tool, request.params.arguments ?? {}, ctx, deps);
  });
  return server;
}

/** The express router serving POST /api/mcp (and 405 for other methods). */
export function createMcpRouter(options: McpFacadeOptions): Router {
  const registry = buildRegistry(options.tools ?? TOOLS, options);
  const deps: CallToolDeps = {
    operations: options.operations,
    idempotency: options.idempotency,
    perDay: options.limits.perDay,
    phoneLastSyncAt: options.phoneLastSyncAt,
  };
  const router = express.Router();

  router.all(MCP_PATH, (req, res, next) => {
    const origin = req.get('origin');
    // NOTE: DNS-rebinding and cross-site defence (MCP transports: servers MUST validate Origin).
    if (origin !== undefined && !originAllowed(origin, req, options.config))
      return refuse(res, 403, 'Origin not allowed');
    if (req.method !== 'POST') {
      res.set('allow', 'POST');
      return refuse(res, 405, 'Method not allowed: this MCP endpoint is stateless and answers POST only');
    }
    next();
  });

  router.post(MCP_PATH, async (req, res, next) => {
    let ctx: Context | null = null;
    try {
      ctx = await options.context(req);
    } catch (err) {
      if (!(err instanceof GraphQLError)) throw err; // e.g. a cookie without its CSRF token: not authenticated here
    }
    // NOTE: personal tokens only; a login token or a web session is not a credential of this host.
    if (ctx?.principal?.kind !== 'personal_token') {
      res.set('www-authenticate', 'Bearer');
      return refuse(res, 401, 'Not authenticated');
    }
    const minute = await options.limits.perMinute.take(limitKey(ctx.principal));
    if (!minute.allowed) {
      res.set('retry-after', String(minute.retryAfterSeconds));
      return refuse(res, 429, `Too many calls: ${minute.limit} per minute per token`, {
        code: 'rate_limited',
        retry_after: minute.retryAfterSeconds,
      });
    }
    res.locals.mcpContext = ctx;
    next();
  });

  router.post(MCP_PATH, express.json({ limit: MCP_BODY_LIMIT }), async (req, res) => {
    const server = mcpServer(registry, res.locals.mcpContext as Context, deps);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  router.use(MCP_PATH, (err: Error & { type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (err.type === 'entity.parse.failed') {
      res.status(400).json({ jsonrpc: '2.0', error: { code: ErrorCode.ParseError, message: 'Parse error' }, id: null });
    } else if (err.type === 'entity.too.large') {
      refuse(res, 413, `Request body larger than ${MCP_BODY_LIMIT}`);
    } else {
      next(err);
    }
  });

  return router;
}
