/**
 * The refresh-token grace (issue 29, item 4; docs/mcp-oauth.md section 8): a rotated refresh token
 * may be presented once more within 120 s, for one lost answer. That use ends the successor it
 * replaces, with the successor's access token; a second reuse is theft and ends the connection,
 * every refresh and access token of it. Concurrent reuses cannot both get a pair.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/credentials.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import {
  exchange,
  mcpStatus,
  obtainCode,
  refresh,
  registerTestClient,
} from '../harness/oauth-client.ts';

const app = await startTestApp();
const prisma = app.db.prisma;

/** A public client and the first tokens of one approved authorization. */
async function connected(): Promise<{ clientId: string; tokens: Record<string, string> }> {
  const person = await seedUser(app);
  const client = await registerTestClient(app);
  const { code, verifier } = await obtainCode(app, {
    clientId: client.client_id,
    token: person.token,
  });
  const res = await exchange(app, client.client_id, code, verifier);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { clientId: client.client_id, tokens: res.body };
}

async function connectionOf(accessToken: string) {
  const row = await prisma.oAuthToken.findUniqueOrThrow({
    where: { tokenHash: sha256(accessToken) },
    include: { connection: true },
  });
  return row.connection;
}

/** How many tokens of the connection are still unrevoked. */
async function liveTokensOf(connectionId: number): Promise<number> {
  return prisma.oAuthToken.count({ where: { connectionId, revokedAt: null } });
}

describe('the refresh grace (issue 29)', () => {
  it('gives a client that lost the answer one more pair; the lost refresh and access token end', async () => {
    const { clientId, tokens } = await connected();
    const lost = await refresh(app, clientId, tokens.refresh_token);
    expect(await mcpStatus(app, lost.body.access_token)).toBe(200);
    const retry = await refresh(app, clientId, tokens.refresh_token);
    expect(retry.status).toBe(200);
    expect(await mcpStatus(app, retry.body.access_token)).toBe(200);
    expect(await mcpStatus(app, lost.body.access_token)).toBe(401);
    // the retried pair goes on rotating
    const next = await refresh(app, clientId, retry.body.refresh_token);
    expect(next.status).toBe(200);
    expect(await mcpStatus(app, next.body.access_token)).toBe(200);
    expect((await connectionOf(tokens.access_token)).revokedAt).toBeNull();
  });

  it('ends the connection at a second reuse within the grace: every refresh and access token', async () => {
    const { clientId, tokens } = await connected();
    const lost = await refresh(app, clientId, tokens.refresh_token);
    const retry = await refresh(app, clientId, tokens.refresh_token);
    expect(retry.status).toBe(200);
    const again = await refresh(app, clientId, tokens.refresh_token);
    expect([again.status, again.body.error]).toEqual([400, 'invalid_grant']);
    for (const access of [tokens.access_token, lost.body.access_token, retry.body.access_token])
      expect(await mcpStatus(app, access)).toBe(401);
    expect((await refresh(app, clientId, retry.body.refresh_token)).status).toBe(400);
    const connection = await connectionOf(tokens.access_token);
    expect(connection.revokedReason).toBe('refresh_reuse');
    expect(await liveTokensOf(connection.id)).toBe(0);
  });

  it('accepts a rotated token once, not ten times, and no access token minted from it survives', async () => {
    const { clientId, tokens } = await connected();
    const minted = [(await refresh(app, clientId, tokens.refresh_token)).body.access_token];
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await refresh(app, clientId, tokens.refresh_token);
      statuses.push(res.status);
      if (res.status === 200) minted.push(res.body.access_token);
    }
    expect(statuses).toEqual([200, ...Array<number>(9).fill(400)]);
    for (const access of minted) expect(await mcpStatus(app, access)).toBe(401);
    expect(await liveTokensOf((await connectionOf(tokens.access_token)).id)).toBe(0);
  });

  it('lets at most one of concurrent reuses within the grace get a pair, and ends the connection', async () => {
    const { clientId, tokens } = await connected();
    const first = await refresh(app, clientId, tokens.refresh_token);
    const reuses = await Promise.all(
      [1, 2, 3, 4, 5].map(() => refresh(app, clientId, tokens.refresh_token)),
    );
    const won = reuses.filter((r) => r.status === 200);
    expect(won.length).toBeLessThanOrEqual(1);
    expect(reuses.filter((r) => r.status !== 200).map((r) => r.body.error)).toEqual(
      Array<string>(5 - won.length).fill('invalid_grant'),
    );
    for (const access of [first, ...won].map((r) => r.body.access_token as string))
      expect(await mcpStatus(app, access)).toBe(401);
    const connection = await connectionOf(tokens.access_token);
    expect(connection.revokedReason).toBe('refresh_reuse');
    expect(await liveTokensOf(connection.id)).toBe(0);
  });

  it('gives concurrent first uses of one refresh token at most the use and its one grace', async () => {
    const { clientId, tokens } = await connected();
    const uses = await Promise.all(
      [1, 2, 3, 4].map(() => refresh(app, clientId, tokens.refresh_token)),
    );
    expect(uses.filter((r) => r.status === 200).length).toBeLessThanOrEqual(2);
    expect(uses.filter((r) => r.status !== 200).map((r) => r.body.error)).toEqual(
      Array<string>(uses.filter((r) => r.status !== 200).length).fill('invalid_grant'),
    );
    // four presentations of one token are more than one lost answer: the connection ends
    expect((await connectionOf(tokens.access_token)).revokedReason).toBe('refresh_reuse');
    for (const use of uses.filter((r) => r.status === 200))
      expect(await mcpStatus(app, use.body.access_token)).toBe(401);
  });
});
