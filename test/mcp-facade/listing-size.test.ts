/**
 * What the tool list costs an agent (issue 30 item 7): the JSON of tools/list for a personal token
 * holding every scope, as the SDK's own client receives it, measured in characters (tokens =
 * characters / 4). At the spec's 225 tools the list must stay within 40,000 tokens, so the average
 * tool may cost at most 40,000 * 4 / 225 (about 711) characters; the test prints the figures.
 *
 * And what the descriptions say (issue 30 item 6): no description repeats itself (a sentence twice,
 * or its first clause again, as the ask-the-person note of confirm tools once did).
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { CONFIRM_NOTE, firstClause } from '../../mcp-facade/registry.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();

/** The spec's tool count (docs/spec/mcp-tools.tsv) and the budget of the whole list there. */
const SPEC_TOOLS = 225;
const TOKEN_BUDGET = 40_000;

async function listing(): Promise<{ tools: Tool[]; chars: number }> {
  const { user } = await seedUser(app);
  const client = await mcpClient(app, await seedPersonalToken(app, user.id, [...SCOPES]));
  const result = await client.listTools();
  return { tools: result.tools, chars: JSON.stringify(result).length };
}

/** Words only, so that "It signs one session out." and "Signs one session out;" compare equal. */
const words = (text: string): string =>
  text
    .toLowerCase()
    .replace(/^it\s+/, '')
    .replace(/[^a-z0-9_]+/g, ' ')
    .trim();

/** The sentences of a description ("a. B" splits; "e.g. x", "0.5" and "{deleted: 1}." do not). */
const sentences = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+(?=[A-Z])/)
    .map(words)
    .filter(Boolean);

describe('the tool list an agent reads (issue 30 item 7)', () => {
  it('costs at most 40,000 tokens at 225 tools, as the SDK client receives it', async () => {
    const { tools, chars } = await listing();
    expect(tools.length).toBeGreaterThan(150);
    const tokens = chars / 4;
    const at225 = Math.round((tokens / tools.length) * SPEC_TOOLS);
    console.log(
      `MCP tool list (all scopes): ${tools.length} tools, ${chars} characters, ` +
        `${Math.round(tokens)} tokens (characters / 4), ${Math.round(chars / tools.length)} characters a tool; ` +
        `at ${SPEC_TOOLS} tools: ${at225} tokens (budget ${TOKEN_BUDGET})`,
    );
    expect(at225).toBeLessThanOrEqual(TOKEN_BUDGET);
  });

  it('keeps what an agent needs: a title, a distinct description, described arguments', async () => {
    const { tools } = await listing();
    const descriptions = new Set(tools.map((t) => t.description));
    expect(descriptions.size).toBe(tools.length);
    for (const t of tools) {
      expect(t.title, t.name).toMatch(/^\S.{2,60}$/);
      expect(t.description!.length, t.name).toBeGreaterThan(20);
      for (const [name, arg] of Object.entries(t.inputSchema.properties ?? {}))
        expect((arg as { description?: string }).description, `${t.name}.${name}`).toBeTruthy();
    }
  });
});

describe('descriptions that say each thing once (issue 30 item 6)', () => {
  it('repeats no sentence and no first clause in any description', async () => {
    const { tools } = await listing();
    const repeating: string[] = [];
    for (const t of tools) {
      const description = t.description!;
      const all = sentences(description);
      const first = words(firstClause(description));
      const rest = words(description).slice(first.length);
      if (new Set(all).size !== all.length || rest.includes(first)) repeating.push(t.name);
    }
    expect(repeating).toEqual([]);
  });

  it("ends each confirm tool's description with the short note, and says what the tool does when it refuses", async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(app, await seedPersonalToken(app, user.id, ['account:write']));
    const { tools } = await client.listTools();
    const confirmTools = tools.filter((t) => (t.inputSchema.required ?? []).includes('confirm'));
    expect(confirmTools.map((t) => t.name)).toContain('sessions_one_revoke');
    for (const t of confirmTools) {
      expect(t.description!.endsWith(` ${CONFIRM_NOTE}`), t.name).toBe(true);
      expect(t.description!.match(/Ask the person/g), t.name).toHaveLength(1);
    }
    const refused = await callTool(client, 'sessions_one_revoke', { sid: 'x' });
    const message = (refused.structuredContent as { error: { message: string } }).error.message;
    expect(message).toBe(
      'Not run: It signs one session (a phone or a browser, by its id from the session list) out. ' +
        'Ask the person first and call again with confirm: true only after they agreed.',
    );
  });
});
