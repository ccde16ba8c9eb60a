/**
 * The sessions family over MCP (issue 3): sessions_all_revoke and sessions_one_revoke with a
 * personal token. A personal token has no session of its own: revoking one session signs that phone
 * or browser out and leaves the token working; revoking all ends every credential, the calling
 * token included (issue 10).
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';

const app = await startTestApp();

async function person(): Promise<{
  userId: number;
  token: string;
  sessionId: string;
  pat: string;
}> {
  const { user, token, sessionId } = await seedUser(app);
  return {
    userId: user.id,
    token,
    sessionId,
    pat: await seedPersonalToken(app, user.id, ['account:read', 'account:write']),
  };
}

describe('sessions_all_revoke', () => {
  it('is a deletes tool: destructive, and refused without confirm', async () => {
    const { pat, token } = await person();
    const client = await mcpClient(app, pat);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'sessions_all_revoke')!;
    expect(tool.annotations).toMatchObject({ destructiveHint: true });
    expect(tool.annotations?.readOnlyHint).not.toBe(true);
    expect(tool.inputSchema.required).toEqual(['confirm']);
    expect(tool.description).toMatch(
      /^Signs the person out of every phone and browser.*Ask the person first/s,
    );
    // issue 11: revoking sessions deletes no data; the refusal says what it does (issue 30 item 6:
    // the description says it once)
    expect(tool.description).not.toContain('deletes data');
    expect(tool.description).not.toContain('It signs');
    const refused = await callTool(client, 'sessions_all_revoke');
    expect((refused.structuredContent as any).error.code).toBe('CONFIRMATION_REQUIRED');
    expect((refused.structuredContent as any).error.message).toContain(
      'It signs the person out of every phone and browser at once and revokes every personal token.',
    );
    expect((await rest(app, 'GET', '/api/auth/me', { token })).status).toBe(200);
  });

  it('signs every login session out and revokes the calling personal token too (issue 10)', async () => {
    const { userId, pat, token } = await person();
    const web = await seedWebSession(app, userId);
    const client = await mcpClient(app, pat);
    const result = await callTool(client, 'sessions_all_revoke', { confirm: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ ok: true });
    expect((await rest(app, 'GET', '/api/auth/me', { token })).status).toBe(401);
    expect(
      (await rest(app, 'GET', '/api/auth/me', { headers: { cookie: web.cookie } })).status,
    ).toBe(401);
    expect((await mcpPost(app, rpc('tools/list'), { token: pat })).status).toBe(401);
  });
});

describe('sessions_one_revoke', () => {
  it('revokes one session by its id and answers it', async () => {
    const { userId, pat, token, sessionId } = await person();
    const web = await seedWebSession(app, userId);
    const client = await mcpClient(app, pat);
    const result = await callTool(client, 'sessions_one_revoke', {
      sid: web.sessionId,
      confirm: true,
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      id: web.sessionId,
      kind: 'web',
      current: false,
    });
    expect(
      (await rest(app, 'GET', '/api/auth/me', { headers: { cookie: web.cookie } })).status,
    ).toBe(401);
    expect((await rest(app, 'GET', '/api/auth/me', { token })).status).toBe(200);
    const items = (
      (await callTool(client, 'sessions_list_read')).structuredContent as {
        items: { id: string }[];
      }
    ).items;
    expect(items.map((s) => s.id)).toEqual([sessionId]);
  });

  it("answers isError NOT_FOUND for another person's session and an unknown id", async () => {
    const { pat } = await person();
    const other = await person();
    const client = await mcpClient(app, pat);
    for (const sid of [other.sessionId, 'no-such-session']) {
      const result = await callTool(client, 'sessions_one_revoke', { sid, confirm: true });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as any).error).toMatchObject({
        code: 'NOT_FOUND',
        message: 'Session not found',
      });
    }
    expect((await rest(app, 'GET', '/api/auth/me', { token: other.token })).status).toBe(200);
  });

  it('needs account:write', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(app, await seedPersonalToken(app, user.id, ['account:read']));
    const result = await callTool(client, 'sessions_one_revoke', { sid: 'x', confirm: true });
    expect((result.structuredContent as any).error.code).toBe('INSUFFICIENT_SCOPE');
  });
});
