/**
 * The changes and records MCP families (issue 4): the spec's no-scope tools are listed for every
 * token, yet the sync fields still need their health scopes, and each table its own read scope
 * (issue 10); answers keep the wire names.
 */
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const rid = (): string => `mcp${Math.random().toString(36).slice(2, 10)}`;
const errorOf = (result: { structuredContent?: unknown }): any =>
  (result.structuredContent as any).error;

async function agentWithEntry(scopes: Scope[]) {
  const seeded = await seedUser(app);
  const entry = {
    id: `mcp${Math.random().toString(36).slice(2, 10)}`,
    body: 'walked',
    happened_at: 1_763_000_000_000,
    mood: 3,
  };
  const pushed = await rest(app, 'POST', '/api/sync/push', {
    token: seeded.token,
    body: {
      changes: { journal_entries: { created: [entry], updated: [], deleted: [] } },
      last_pulled_at: null,
    },
  });
  expect(pushed.status).toBe(200);
  const client = await mcpClient(app, await seedPersonalToken(app, seeded.user.id, scopes));
  return { client, entry, seeded };
}

/** The phone (a login session, every scope) pushes one record of `table`. */
async function pushAsPhone(
  token: string,
  table: string,
  record: Record<string, unknown>,
): Promise<void> {
  const res = await rest(app, 'POST', '/api/sync/push', {
    token,
    body: {
      changes: { [table]: { created: [record], updated: [], deleted: [] } },
      last_pulled_at: null,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('changes and records tools', () => {
  it('answers the changes and the raw rows with the health scopes, keeping wire names', async () => {
    const { client, entry } = await agentWithEntry(['health:summary:read', 'health:metrics:read']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'list_changes',
        'list_records',
        'sync_changes_read',
        'synced_records_read',
      ]),
    );
    const changes = await callTool(client, 'sync_changes_read', {});
    expect(changes.isError).toBeFalsy();
    expect((changes.structuredContent as any).changes.journal_entries).toEqual({
      created: [entry],
      updated: [],
      deleted: [],
    });
    const listed = await callTool(client, 'list_changes', {});
    expect((listed.structuredContent as any).changes).toEqual(
      (changes.structuredContent as any).changes,
    );
    const records = await callTool(client, 'synced_records_read', { table: 'journal_entries' });
    expect((records.structuredContent as any).records).toEqual([
      expect.objectContaining({
        ...entry,
        deleted_at: null,
        server_updated_at: expect.any(Number),
      }),
    ]);
  });

  it("lists the no-scope tools only with their fields' health scopes, which a call still needs (issue 11)", async () => {
    const { client } = await agentWithEntry(['profile:read']);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('list_changes');
    expect(names).not.toContain('list_records');
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

  it('list_changes gives a token only the tables its read scopes cover, naming the rest (issue 10)', async () => {
    const { client, entry, seeded } = await agentWithEntry(['health:summary:read']);
    await pushAsPhone(seeded.token, 'glucose_readings', {
      id: rid(),
      sensor_id: 1,
      timestamp: 1_763_000_000_000,
      value_mg_dl: 120,
    });
    await pushAsPhone(seeded.token, 'meals', {
      id: rid(),
      meal_name: 'Oats',
      eaten_at: 1_763_000_000_000,
    });
    for (const tool of ['list_changes', 'sync_changes_read']) {
      const res = await callTool(client, tool, {});
      expect(res.isError, tool).toBeFalsy();
      const body = res.structuredContent as any;
      expect(body.changes, tool).toEqual({
        journal_entries: { created: [entry], updated: [], deleted: [] },
      });
      expect(body.omitted_tables, tool).toEqual(
        expect.arrayContaining(['glucose_readings', 'raw_sensor_data', 'health_metrics', 'meals']),
      );
      expect(body.omitted_tables, tool).not.toContain('journal_entries');
    }
  });

  it('list_records refuses a table whose read scope the token lacks with INSUFFICIENT_SCOPE (issue 10)', async () => {
    const { client, seeded } = await agentWithEntry(['health:metrics:read']);
    await pushAsPhone(seeded.token, 'glucose_readings', {
      id: rid(),
      sensor_id: 1,
      timestamp: 1_763_000_000_000,
      value_mg_dl: 120,
    });
    for (const tool of ['list_records', 'synced_records_read']) {
      const res = await callTool(client, tool, { table: 'glucose_readings' });
      expect(res.isError, tool).toBe(true);
      expect(errorOf(res), tool).toMatchObject({
        code: 'INSUFFICIENT_SCOPE',
        detail: { code: 'insufficient_scope', scope: 'health:glucose:read' },
      });
    }
    const metrics = await callTool(client, 'list_records', { table: 'health_metrics' });
    expect(metrics.isError).toBeFalsy();
  });
});

describe('sync tool pages (issue 11, item 10)', () => {
  /** The characters of a tool answer (its text block: the JSON of the structured content). */
  const answerChars = (result: { content?: unknown }): number =>
    ((result.content as { text: string }[])[0]?.text ?? '').length;

  it('keeps every list_changes and list_records page under 50,000 characters, saying when there is more', async () => {
    const { client, seeded, entry } = await agentWithEntry([
      'health:summary:read',
      'health:metrics:read',
    ]);
    // 1,200 entries of ~300 characters: a 1,000-record page was ~350,000 characters
    const records = Array.from({ length: 1_200 }, (_, i) => ({
      id: `pg${String(i).padStart(5, '0')}${rid()}`,
      body: `day ${i}: ${'walked along the river, then read for an hour before sleeping. '.repeat(5)}`,
      happened_at: 1_763_000_000_000 + i,
      mood: (i % 5) + 1,
    }));
    const pushed = await rest(app, 'POST', '/api/sync/push', {
      token: seeded.token,
      body: { journal_entries: { created: records, updated: [], deleted: [] } },
    });
    expect(pushed.status).toBe(200);
    const expected = [entry.id, ...records.map((r) => r.id)].sort();

    for (const tool of ['list_changes', 'sync_changes_read']) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const res = await callTool(client, tool, cursor ? { cursor } : {});
        expect(res.isError, tool).toBeFalsy();
        expect(answerChars(res), tool).toBeLessThan(50_000);
        const body = res.structuredContent as any;
        seen.push(...body.changes.journal_entries.created.map((r: { id: string }) => r.id));
        pages++;
        if (!body.has_more) {
          expect(body.next_cursor).toBeNull();
          expect(typeof body.timestamp).toBe('number');
          break;
        }
        expect(typeof body.next_cursor, tool).toBe('string');
        expect(body.timestamp).toBeNull();
        cursor = body.next_cursor;
      }
      expect(pages, tool).toBeGreaterThan(5);
      expect(seen.sort(), tool).toEqual(expected);
    }

    for (const tool of ['list_records', 'synced_records_read']) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const res = await callTool(client, tool, {
          table: 'journal_entries',
          limit: 500,
          ...(cursor ? { cursor } : {}),
        });
        expect(res.isError, tool).toBeFalsy();
        expect(answerChars(res), tool).toBeLessThan(50_000);
        const body = res.structuredContent as any;
        seen.push(...body.records.map((r: { id: string }) => r.id));
        if (body.next_cursor === null) break;
        cursor = body.next_cursor;
      }
      expect(seen.sort(), tool).toEqual(expected);
    }
    // the page budget is the row's: an agent cannot lift it
    const lifted = await callTool(client, 'list_changes', { max_chars: 10_000_000 });
    expect(lifted.isError).toBe(true);
  });
});
