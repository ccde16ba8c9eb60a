/**
 * The changes and records MCP families (issue 4): the spec's no-scope tools are listed for every
 * token, yet the sync fields still need their health scopes; answers keep the wire names.
 */
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const errorOf = (result: { structuredContent?: unknown }): any => (result.structuredContent as any).error;

async function agentWithEntry(scopes: Scope[]) {
  const seeded = await seedUser(app);
  const entry = { id: `mcp${Math.random().toString(36).slice(2, 10)}`, body: 'walked', happened_at: 1_763_000_000_000, mood: 3 };
  const pushed = await rest(app, 'POST', '/api/sync/push', {
    token: seeded.token,
    body: { changes: { journal_entries: { created: [entry], updated: [], deleted: [] } }, last_pulled_at: null },
  });
  expect(pushed.status).toBe(200);
  const client = await mcpClient(app, await seedPersonalToken(app, seeded.user.id, scopes));
  return { client, entry };
}

describe('changes and records tools', () => {
  it('answers the changes and the raw rows with the health scopes, keeping wire names', async () => {
    const { client, entry } = await agentWithEntry(['health:summary:read', 'health:metrics:read']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_changes', 'list_records', 'sync_changes_read', 'synced_records_read']));
    const changes = await callTool(client, 'sync_changes_read', {});
    expect(changes.isError).toBeFalsy();
    expect((changes.structuredContent as any).changes.journal_entries).toEqual({ created: [entry], updated: [], deleted: [] });
    const listed = await callTool(client, 'list_changes', {});
    expect((listed.structuredContent as any).changes).toEqual((changes.structuredContent as any).changes);
    const records = await callTool(client, 'synced_records_read', { table: 'journal_entries' });
    expect((records.structuredContent as any).records).toEqual([
      expect.objectContaining({ ...entry, deleted_at: null, server_updated_at: expect.any(Number) }),
    ]);
  });

  it('lists the no-scope tools to any token, but their fields still need the health scopes', async () => {
    const { client } = await agentWithEntry(['profile:read']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_changes', 'list_records']));
    expect(names).not.toContain('synced_records_read');
    const records = await callTool(client, 'list_records', { table: 'journal_entries' });
    expect(records.isError).toBe(true);
    expect(errorOf(records).code).toBe('INSUFFICIENT_SCOPE');
    const changes = await callTool(client, 'list_changes', {});
    expect(errorOf(changes).code).toBe('INSUFFICIENT_SCOPE');
  });

  it('answers VALIDATION_FAILED for an unknown table', async () => {
    const { client } = await agentWithEntry(['health:metrics:read']);
    const res = await callTool(client, 'synced_records_read', { table: 'not_a_table' });
    expect(errorOf(res)).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});
