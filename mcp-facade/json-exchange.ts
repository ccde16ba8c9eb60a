/**
 * Streamable HTTP's JSON answer without the web-stream round trip (issue 30 item 8). The SDK's node
 * transport turns each express request into a web `Request`, its answer into a web `Response` and a
 * `ReadableStream`, and back; for one JSON-RPC message answered as one JSON body that round trip was
 * the largest part of an MCP call beyond the operation itself. Here the SDK `Server` is connected to a
 * transport that hands it the message already parsed by express and gives back its answer.
 *
 * It applies the SDK transport's own checks (Streamable HTTP, stateless, JSON responses) in the same
 * order and words: Accept must name application/json and text/event-stream (406), Content-Type must be
 * JSON (415), the body must be a JSON-RPC message (400, -32700), an Mcp-Protocol-Version header must
 * name a supported version (400), and a message that is not a request (a notification or a response)
 * is accepted with 202 and no body. A tools/call is answered by the registry without the Server
 * (answerCall); every other request by the Server. It must never answer a streaming call
 * (server-sent events stay with the SDK's StreamableHTTPServerTransport) and never handle more than
 * the one message it is given.
 */
import type { Request, Response } from 'express';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  CallToolRequest,
  CallToolResult,
  JSONRPCMessage,
  JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * An HTTP-level refusal in the JSON-RPC error shape the transport itself answers with (code -32000,
 * the SDK's, unless the refusal is a JSON-RPC one such as -32600 Invalid Request).
 */
export function refuse(
  res: Response,
  status: number,
  message: string,
  { code = -32000, data }: { code?: number; data?: unknown } = {},
): void {
  const error = { code, message, ...(data === undefined ? {} : { data }) };
  res.status(status).json({ jsonrpc: '2.0', error, id: null });
}

/** A transport for one request: the message goes in through `onmessage`, the answer out through `send`. */
class OneExchange implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly answer: Promise<JSONRPCMessage>;
  private answered!: (message: JSONRPCMessage) => void;

  constructor() {
    this.answer = new Promise((resolve) => (this.answered = resolve));
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }

  /** The answer to the one request; a notification of a non-streaming call has nowhere to go. */
  send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message)) this.answered(message);
    return Promise.resolve();
  }
}

/** Why the transport would refuse this POST before reading its message, or null. */
function headerProblem(req: Request): { status: number; message: string } | null {
  const accept = req.get('accept') ?? '';
  // a comma-separated list: the SDK's substring test is the intended reading
  if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
    return {
      status: 406,
      message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
    };
  if (!isJsonContentType(req.get('content-type')))
    return {
      status: 415,
      message: 'Unsupported Media Type: Content-Type must be application/json',
    };
  return null;
}

/** The Mcp-Protocol-Version header's refusal (every message but initialize), or null. */
function versionProblem(req: Request): string | null {
  const version = req.get('mcp-protocol-version');
  if (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
}

/** What answers a POST's message: the SDK Server, and tools/call without it. */
export interface JsonAnswers {
  /** the SDK Server of this request, made only for a message it answers */
  server(): Server;
  /**
   * A tools/call's result, given params already checked against the SDK's CallToolRequestSchema
   * (server.ts paramsProblem, the check the SDK Server makes); an McpError it throws is answered
   * as the Server answers it.
   */
  callTool(params: CallToolRequest['params']): Promise<CallToolResult>;
}

/**
 * A tools/call answered without the SDK Server (issue 30 item 8: its per-request set-up and its
 * three more schema parses of the same message were a fifth of a call's CPU). The answer is what
 * the Server's Protocol sends: the result, or an error with the thrown code (-32603 without one),
 * message and data. The result is not parsed again against CallToolResultSchema: call-tool.ts
 * builds every result, and the suite's SDK clients check each one they receive.
 */
async function answerCall(message: JSONRPCRequest, answers: JsonAnswers): Promise<JSONRPCMessage> {
  const { id } = message;
  try {
    const result = await answers.callTool(message.params as CallToolRequest['params']);
    return { jsonrpc: '2.0', id, result };
  } catch (err) {
    const {
      code,
      message: text,
      data,
    } = err as { code?: unknown; message?: string; data?: unknown };
    const error = {
      code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError,
      message: text ?? 'Internal error',
      ...(data === undefined ? {} : { data }),
    };
    return { jsonrpc: '2.0', id, error };
  }
}

/**
 * Answers the POST's one JSON-RPC message (`req.body`, parsed by express): the answer as a JSON
 * body, 202 for a message that asks for none, or the transport's refusal. A tools/call goes to
 * `answers.callTool`, every other message to the SDK Server.
 */
export async function answerAsJson(
  req: Request,
  res: Response,
  answers: JsonAnswers,
): Promise<void> {
  const header = headerProblem(req);
  if (header) return refuse(res, header.status, header.message);
  const parsed = JSONRPCMessageSchema.safeParse(req.body);
  if (!parsed.success)
    return refuse(res, 400, 'Parse error: Invalid JSON-RPC message', { code: -32700 });
  const message = parsed.data;
  if (!isInitializeRequest(message)) {
    const version = versionProblem(req);
    if (version) return refuse(res, 400, version);
  }
  // NOTE: a task-augmented call (params.task) stays with the Server, which refuses it (no tasks)
  if (isJSONRPCRequest(message) && message.method === 'tools/call' && !message.params?.task) {
    res.status(200).json(await answerCall(message, answers));
    return;
  }
  const server = answers.server();
  res.on('close', () => void server.close());
  const exchange = new OneExchange();
  await server.connect(exchange);
  exchange.onmessage?.(message);
  if (!isJSONRPCRequest(message)) {
    res.status(202).end();
    return;
  }
  res.status(200).json(await exchange.answer);
}
