/**
 * MCP clients over the real stack: the SDK's own Client on a Streamable HTTP transport carrying a
 * bearer token, a raw JSON-RPC POST for HTTP-level checks, and a second MCP host serving custom
 * tool rows (for mechanisms no shipped tool exercises yet) on the same app's database and operations.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pinoHttp } from 'pino-http';
import { afterAll, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpRouter, MCP_PATH } from '../../mcp-facade/server.ts';
import type { McpTool } from '../../mcp-facade/tool.ts';
import { schema } from '../../src/schema/schema.ts';
import { createLogger } from '../../src/base/logger.ts';
import { createIdempotencyStore } from '../../src/platform/idempotency.ts';
import { createMcpLimits, limitNamespace } from '../../src/platform/rate-limit.ts';
import type { TestApp } from './app.ts';
import type { JsonResponse } from './clients.ts';

export interface McpTarget {
  baseUrl: string;
}

export interface McpClientOptions {
  headers?: Record<string, string>;
  /** the endpoint path and query (default MCP_PATH), e.g. `/api/mcp?toolsets=glucose` */
  path?: string;
}

/** Runs `close` after the current test, or after the file when called outside a test. */
function closeAfter(close: () => Promise<void>): void {
  try {
    onTestFinished(close);
  } catch {
    afterAll(close);
  }
}

/** An initialized SDK client for `token` (closed after the test that opened it, or after the file). */
export async function mcpClient(
  target: McpTarget,
  token: string,
  options: McpClientOptions = {},
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(options.path ?? MCP_PATH, target.baseUrl),
    {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...options.headers } },
    },
  );
  const client = new Client({ name: 'hdp-test', version: '1.0.0' });
  await client.connect(transport);
  closeAfter(() => client.close());
  return client;
}

/** Calls a tool; the result typed as the plain (non-task) tool result. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export interface McpPostOptions {
  token?: string;
  headers?: Record<string, string>;
  method?: string;
  /** the endpoint path and query (default MCP_PATH) */
  path?: string;
}

/** A raw JSON-RPC request to /api/mcp with the headers a conforming client sends. */
export async function mcpPost(
  target: McpTarget,
  body: unknown,
  options: McpPostOptions = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...options.headers,
  };
  const method = options.method ?? 'POST';
  const res = await fetch(new URL(options.path ?? MCP_PATH, target.baseUrl), {
    method,
    headers,
    body:
      method === 'GET' || method === 'HEAD'
        ? undefined
        : typeof body === 'string'
          ? body
          : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

let rpcId = 0;

/** A JSON-RPC request body for `method`. */
export function rpc(method: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id: ++rpcId, method, params };
}

/**
 * A second MCP host on its own port serving `tools` (custom rows) with the app's operations,
 * database and config: the real facade, router and call path, only the tool table differs.
 */
export async function startMcpHost(app: TestApp, tools: readonly McpTool[]): Promise<McpTarget> {
  const prisma = app.db.prisma;
  const host = express();
  host.use(pinoHttp({ logger: createLogger('silent') }));
  host.use(
    createMcpRouter({
      schema,
      operations: app.operations,
      config: app.config,
      context: (req) => app.contextFor(req, 'mcp'),
      idempotency: createIdempotencyStore(prisma),
      limits: createMcpLimits(app.config, { namespace: `${limitNamespace(app.db.target)}:custom` }),
      tools,
    }),
  );
  const server = createServer(host);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
