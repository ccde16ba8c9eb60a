import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/credentials.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

describe('personal tokens (/api/v1/tokens)', () => {
  it('creates a token from a native login, shows the secret once and stores only its hash', async () => {
    const { token, user } = await seedUser(app);
    const created = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: {
        name: 'Claude',
        scopes: ['profile:read', 'account:read'],
        expires_at: '2099-01-01T00:00:00Z',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Claude',
      scopes: ['account:read', 'profile:read'],
      expires_at: '2099-01-01T00:00:00.000Z',
    });
    expect(created.body.token).toMatch(/^hdp_pat_[A-Za-z0-9_-]{43}$/);
    expect(created.body.hint).toBe(created.body.token.slice(0, 12));

    const row = await app.db.prisma.personalToken.findUniqueOrThrow({
      where: { id: created.body.id },
    });
    expect(row.tokenHash).toBe(sha256(created.body.token));
    expect(JSON.stringify(row)).not.toContain(created.body.token);

    const list = await rest(app, 'GET', '/api/v1/tokens', { token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty('token');
    expect(list.body[0]).toMatchObject({ id: created.body.id, last_used_at: null });

    const me = await rest(app, 'GET', '/api/auth/me', { token: created.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.id);
  });

  it('answers 422 for an unknown scope, no scope, an empty name or a past expiry', async () => {
    const { token } = await seedUser(app);
    const unknown = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: 'x', scopes: ['profile:read', 'root:all'] },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'scopes', 1]);
    const none = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: 'x', scopes: [] },
    });
    expect(none.status).toBe(422);
    const noName = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: ' ', scopes: ['profile:read'] },
    });
    expect(noName.status).toBe(422);
    expect(noName.body.detail[0].loc).toEqual(['body', 'name']);
    const past = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: 'x', scopes: ['profile:read'], expires_at: '2000-01-01T00:00:00Z' },
    });
    expect(past.status).toBe(422);
    expect(past.body.detail[0].loc).toEqual(['body', 'expires_at']);
    const badDate = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: 'x', scopes: ['profile:read'], expires_at: 'tomorrow' },
    });
    expect(badDate.status).toBe(422);
    expect(await app.db.prisma.personalToken.count({ where: { name: 'x' } })).toBe(0);
  });

  it('refuses creation from a web cookie session or a personal token with 403', async () => {
    const { user } = await seedUser(app);
    const web = await seedWebSession(app, user.id);
    const viaCookie = await rest(app, 'POST', '/api/v1/tokens', {
      headers: { cookie: web.cookie, 'x-csrf-token': web.csrf },
      body: { name: 'web', scopes: ['profile:read'] },
    });
    expect(viaCookie.status).toBe(403);
    const pat = await seedPersonalToken(app, user.id, ['profile:read', 'account:write']);
    const viaPat = await rest(app, 'POST', '/api/v1/tokens', {
      token: pat,
      body: { name: 'pat', scopes: ['profile:read'] },
    });
    expect(viaPat.status).toBe(403);
    const anonymous = await rest(app, 'POST', '/api/v1/tokens', {
      body: { name: 'anon', scopes: ['profile:read'] },
    });
    expect(anonymous.status).toBe(401);
  });

  it("revokes a token so it stops working at once; another user's token answers 404", async () => {
    const owner = await seedUser(app);
    const other = await seedUser(app);
    const pat = await seedPersonalToken(app, owner.user.id, ['profile:read']);
    const [row] = (await rest(app, 'GET', '/api/v1/tokens', { token: owner.token })).body;

    const foreign = await rest(app, 'DELETE', `/api/v1/tokens/${row.id}`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect((await rest(app, 'GET', '/api/auth/me', { token: pat })).status).toBe(200);

    const revoked = await rest(app, 'DELETE', `/api/v1/tokens/${row.id}`, { token: owner.token });
    expect(revoked.status).toBe(200);
    expect((await rest(app, 'GET', '/api/auth/me', { token: pat })).status).toBe(401);
    expect(
      (await rest(app, 'DELETE', `/api/v1/tokens/${row.id}`, { token: owner.token })).status,
    ).toBe(404);
    expect((await rest(app, 'GET', '/api/v1/tokens', { token: owner.token })).body).toEqual([]);
    const badId = await rest(app, 'DELETE', '/api/v1/tokens/abc', { token: owner.token });
    expect(badId.status).toBe(422);
    expect(badId.body.detail[0].loc).toEqual(['path', 'token_id']);
  });

  it('holds only the chosen scopes: 403 for a field outside them', async () => {
    const { user } = await seedUser(app);
    const readOnly = await seedPersonalToken(app, user.id, ['profile:read']);
    expect((await rest(app, 'GET', '/api/auth/me', { token: readOnly })).status).toBe(200);
    const patch = await rest(app, 'PATCH', '/api/auth/me', {
      token: readOnly,
      body: { name: 'x' },
    });
    expect(patch.status).toBe(403);
    expect(patch.body.detail).toMatchObject({ code: 'insufficient_scope', scope: 'profile:write' });
    const sessions = await rest(app, 'GET', '/api/auth/sessions', { token: readOnly });
    expect(sessions.status).toBe(403);
    // listing tokens needs a login session, whatever the token's scopes
    expect((await rest(app, 'GET', '/api/v1/tokens', { token: readOnly })).status).toBe(403);
  });

  it('stops accepting a token after its expiry', async () => {
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['profile:read']);
    await app.db.prisma.personalToken.updateMany({
      where: { tokenHash: sha256(pat) },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    expect((await rest(app, 'GET', '/api/auth/me', { token: pat })).status).toBe(401);
  });
});
