/**
 * Issue 30 item 8: MCP answers JSON without the SDK transport's web-stream round trip
 * (mcp-facade/json-exchange.ts), keeping the Streamable HTTP transport's checks in its own words:
 * Accept (406), Content-Type (415), a JSON-RPC message (400, -32700), the protocol version header
 * (400), 202 for a message that asks for no answer, and the answer itself as one JSON body.
 */
import { describe, expect, it } from 'vitest';
import {
  CallToolResultSchema,
  ErrorCode,
  JSONRPCResponseSchema,
  LATEST_PROTOCOL_VERSION,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { mcpClient, mcpPost, rpc } from '../harness/mcp.ts';

const app = await startTestApp();
const { user } = await seedUser(app);
const token = await seedPersonalToken(app, user.id, ['profile:read']);

describe('the JSON exchange', () => {
  it('answers a call as one JSON body with the JSON-RPC id', async () => {
    const call = rpc('tools/call', { name: 'get_profile', arguments: {} });
    const res = await mcpPost(app, call, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: call.id });
    expect(res.body.result.isError).toBeFalsy();
    expect(res.body.result.structuredContent.email).toBe(user.email);
  });

  it('answers a call without the SDK Server in the shapes the SDK defines', async () => {
    const call = rpc('tools/call', { name: 'get_profile', arguments: {} });
    const res = await mcpPost(app, call, { token });
    expect(JSONRPCResponseSchema.safeParse(res.body).success).toBe(true);
    expect(CallToolResultSchema.safeParse(res.body.result).success).toBe(true);
    // a tool error is a result (isError), still in the SDK's result shape
    const refused = await mcpPost(
      app,
      rpc('tools/call', { name: 'get_profile', arguments: { x: 1 } }),
      {
        token,
      },
    );
    expect(refused.body.result.isError).toBe(true);
    expect(CallToolResultSchema.safeParse(refused.body.result).success).toBe(true);
  });

  it('answers an unknown tool as the SDK Server answers a thrown McpError', async () => {
    const call = rpc('tools/call', { name: 'no_such_tool', arguments: {} });
    const res = await mcpPost(app, call, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: call.id,
      error: {
        code: ErrorCode.InvalidParams,
        message: new McpError(ErrorCode.InvalidParams, 'Unknown tool: no_such_tool').message,
      },
    });
  });

  it('leaves a task-augmented call to the SDK Server, which offers no tasks', async () => {
    const call = rpc('tools/call', { name: 'get_profile', arguments: {}, task: { ttl: 60_000 } });
    const res = await mcpPost(app, call, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: call.id });
    expect(res.body.result).toBeUndefined();
    expect(res.body.error.message).toMatch(/task/i);
  });

  it('answers initialize whatever the version header, with the negotiated version', async () => {
    const init = rpc('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    const res = await mcpPost(app, init, {
      token,
      headers: { 'mcp-protocol-version': '1999-01-01' },
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({
      protocolVersion: LATEST_PROTOCOL_VERSION,
      serverInfo: { name: 'health-platform' },
      capabilities: { tools: {} },
    });
  });

  it('accepts a notification with 202 and no body', async () => {
    const res = await mcpPost(
      app,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { token },
    );
    expect(res.status).toBe(202);
    expect(res.body).toBeNull();
  });

  it.each([
    [
      'an Accept without text/event-stream',
      { accept: 'application/json' },
      406,
      'Not Acceptable: Client must accept both application/json and text/event-stream',
    ],
    [
      'a body that is not JSON by its Content-Type',
      { 'content-type': 'text/plain' },
      415,
      'Unsupported Media Type: Content-Type must be application/json',
    ],
    [
      'a protocol version the server does not speak',
      { 'mcp-protocol-version': '1999-01-01' },
      400,
      'Bad Request: Unsupported protocol version: 1999-01-01',
    ],
  ])('refuses %s as the SDK transport does', async (_what, headers, status, message) => {
    const res = await mcpPost(app, rpc('tools/list'), { token, headers });
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(res.body.error.message).toContain(message);
  });

  it('refuses a JSON body that is no JSON-RPC message with -32700', async () => {
    const res = await mcpPost(app, { hello: 'world' }, { token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Invalid JSON-RPC message' },
    });
  });

  it('serves a stock client end to end', async () => {
    const client = await mcpClient(app, token);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['get_profile']);
    const result = await client.callTool({ name: 'get_profile', arguments: {} });
    expect((result.structuredContent as any).email).toBe(user.email);
  });
});
