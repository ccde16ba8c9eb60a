/**
 * Tool rows that fix some arguments (`McpTool.fixed`): one operation serving several tools, as the
 * spec's derived-score tools send a fixed `kind` and `order`. Tested on an existing operation.
 */
import { describe, expect, it } from 'vitest';
import { buildRegistry } from '../../mcp-facade/registry.ts';
import type { McpTool } from '../../mcp-facade/tool.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient, startMcpHost } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const ASCENDING: McpTool = {
  name: 'glucose_oldest_first_read',
  operation: 'glucoseReadings',
  scopes: ['health:glucose:read'],
  kind: 'read',
  fixed: { sort: 'asc', since_hours: 2 },
};

const operations = loadOperations(schema);
const app = await startTestApp();
const host = await startMcpHost(app, [...TOOLS, ASCENDING]);

describe('fixed tool arguments', () => {
  it('leaves fixed arguments out of the input schema', () => {
    const tool = buildRegistry([ASCENDING], { schema, operations }).tools[0];
    // cursor: the facade pages the list answer (issue 11)
    expect(Object.keys(tool.definition.inputSchema.properties ?? {}).sort()).toEqual([
      'cursor',
      'limit',
      'sensor_id',
    ]);
    expect(tool.argumentNames).toEqual(new Set(['limit', 'sensor_id']));
    expect(tool.fixed).toEqual({ sort: 'asc', since_hours: 2 });
  });

  it('refuses at start a fixed argument the operation does not take', () => {
    expect(() =>
      buildRegistry([{ ...ASCENDING, fixed: { order: 'asc' } }], { schema, operations }),
    ).toThrow('MCP tool glucose_oldest_first_read: glucoseReadings takes no argument order to fix');
  });

  it('sends the fixed values with every call and refuses them from the caller', async () => {
    const { user, token } = await seedUser(app);
    const minutesAgo = (m: number): string => new Date(clock.ms() - m * 60_000).toISOString();
    const body = [10, 20, 30, 200].map((m, i) => ({
      sensor_id: 1,
      timestamp: minutesAgo(m),
      value_mg_dl: 100 + i,
    }));
    expect((await rest(app, 'POST', '/api/glucose/readings/batch', { token, body })).body).toBe(4);
    const client = await mcpClient(
      host,
      await seedPersonalToken(app, user.id, ['health:glucose:read']),
    );

    const fixed = await callTool(client, 'glucose_oldest_first_read', { limit: 10 });
    // ascending and only the last 2 hours: the fixed sort and since_hours reached the operation
    expect((fixed.structuredContent as any).items.map((r: any) => r.value_mg_dl)).toEqual([
      102, 101, 100,
    ]);
    const plain = await callTool(client, 'glucose_readings_read', { limit: 10 });
    expect((plain.structuredContent as any).items.map((r: any) => r.value_mg_dl)).toEqual([
      100, 101, 102, 103,
    ]);

    const overridden = await callTool(client, 'glucose_oldest_first_read', { sort: 'desc' });
    expect(overridden.isError).toBe(true);
    expect((overridden.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['sort'], type: 'extra_forbidden' }],
    });
  });
});
