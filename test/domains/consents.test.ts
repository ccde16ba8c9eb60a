import { describe, expect, it } from 'vitest';
import { hasConsent } from '../../src/domains/consents/consents.service.ts';
import { seedPersonalToken, seedUser, seedWebSession } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();

const errorOf = (result: { structuredContent?: unknown }): any =>
  (result.structuredContent as any).error;

describe('POST /api/v1/consents/meal_photo', () => {
  it('gives the consent and answers {kind, given_at}; giving it again keeps the first time', async () => {
    const { user, token } = await seedUser(app);
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(false);
    const given = await rest(app, 'POST', '/api/v1/consents/meal_photo', { token });
    expect(given.status).toBe(200);
    expect(given.body).toEqual({
      kind: 'meal_photo',
      given: true,
      given_at: expect.any(String),
      withdrawn_at: null,
    });
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(true);
    const again = await rest(app, 'POST', '/api/v1/consents/meal_photo', { token });
    expect(again.body.given_at).toBe(given.body.given_at);
  });

  it('works from a web session with its CSRF token, and refuses a cookie without it', async () => {
    const { user } = await seedUser(app);
    const web = await seedWebSession(app, user.id);
    const refused = await rest(app, 'POST', '/api/v1/consents/meal_photo', {
      headers: { cookie: web.cookie },
    });
    expect(refused.status).toBe(403);
    const ok = await rest(app, 'POST', '/api/v1/consents/meal_photo', {
      headers: { cookie: web.cookie, 'x-csrf-token': web.csrf },
    });
    expect(ok.status).toBe(200);
  });

  it('refuses a personal token, even one with consents:write: only the person gives consent', async () => {
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['consents:write', 'consents:read']);
    const res = await rest(app, 'POST', '/api/v1/consents/meal_photo', { token: pat });
    expect(res.status).toBe(403);
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(false);
  });

  it('answers 422 for an unknown kind and 401 without a credential', async () => {
    const { token } = await seedUser(app);
    const unknown = await rest(app, 'POST', '/api/v1/consents/dna', { token });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['path', 'kind']);
    const anonymous = await rest(app, 'POST', '/api/v1/consents/meal_photo');
    expect(anonymous.status).toBe(401);
  });
});

describe('GET and DELETE /api/v1/consents', () => {
  it('reads every kind and withdraws one; a withdrawn consent can be given again', async () => {
    const { user, token } = await seedUser(app);
    const read = await seedPersonalToken(app, user.id, ['consents:read']);
    const none = await rest(app, 'GET', '/api/v1/consents', { token: read });
    expect(none.status).toBe(200);
    expect(none.body).toEqual([
      { kind: 'meal_photo', given: false, given_at: null, withdrawn_at: null },
      { kind: 'assistant', given: false, given_at: null, withdrawn_at: null },
    ]);

    await rest(app, 'POST', '/api/v1/consents/meal_photo', { token });
    const withdrawn = await rest(app, 'DELETE', '/api/v1/consents/meal_photo', { token });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({
      kind: 'meal_photo',
      given: false,
      withdrawn_at: expect.any(String),
    });
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(false);

    const regiven = await rest(app, 'POST', '/api/v1/consents/meal_photo', { token });
    expect(regiven.body).toMatchObject({ given: true, withdrawn_at: null });
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(true);
  });

  it('needs consents:read to read and consents:write to withdraw', async () => {
    const { user } = await seedUser(app);
    const other = await seedPersonalToken(app, user.id, ['profile:read']);
    const read = await rest(app, 'GET', '/api/v1/consents', { token: other });
    expect(read.status).toBe(403);
    expect(read.body.detail).toEqual({ code: 'insufficient_scope', scope: 'consents:read' });
    const write = await rest(app, 'DELETE', '/api/v1/consents/meal_photo', { token: other });
    expect(write.body.detail).toEqual({ code: 'insufficient_scope', scope: 'consents:write' });
  });

  it("never touches another person's consent", async () => {
    const a = await seedUser(app);
    const b = await seedUser(app);
    await rest(app, 'POST', '/api/v1/consents/meal_photo', { token: a.token });
    await rest(app, 'DELETE', '/api/v1/consents/meal_photo', { token: b.token });
    expect(await hasConsent({ prisma: app.db.prisma }, a.user.id, 'meal_photo')).toBe(true);
    const list = await gql(app, '{ consents { kind given } }', { token: b.token });
    expect(list.body.data.consents).toEqual([
      { kind: 'meal_photo', given: false },
      { kind: 'assistant', given: false },
    ]);
  });
});

describe('MCP consent_read and account_ai_consent_revoke', () => {
  it('reads the consents and, once the person confirmed, withdraws the AI consent', async () => {
    const { user, token } = await seedUser(app);
    await rest(app, 'POST', '/api/v1/consents/meal_photo', { token });
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['consents:read', 'consents:write']),
    );

    const read = await callTool(client, 'consent_read');
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual({
      items: [
        { kind: 'meal_photo', given: true, given_at: expect.any(String), withdrawn_at: null },
        { kind: 'assistant', given: false, given_at: null, withdrawn_at: null },
      ],
    });

    const tools = (await client.listTools()).tools;
    const revoke = tools.find((t) => t.name === 'account_ai_consent_revoke')!;
    expect(revoke.annotations).toMatchObject({ destructiveHint: true });
    expect(revoke.annotations?.readOnlyHint).not.toBe(true);
    expect(revoke.inputSchema.required).toEqual(['confirm']);
    expect(revoke.inputSchema.properties?.kind).toMatchObject({
      enum: ['assistant', 'meal_photo'],
      default: 'meal_photo',
    });

    const unconfirmed = await callTool(client, 'account_ai_consent_revoke', {});
    expect(errorOf(unconfirmed).code).toBe('CONFIRMATION_REQUIRED');
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(true);

    const done = await callTool(client, 'account_ai_consent_revoke', { confirm: true });
    expect(done.structuredContent).toMatchObject({
      kind: 'meal_photo',
      given: false,
      withdrawn_at: expect.any(String),
    });
    expect(await hasConsent({ prisma: app.db.prisma }, user.id, 'meal_photo')).toBe(false);
  });

  it('answers insufficient_scope for a token without consents:write', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(app, await seedPersonalToken(app, user.id, ['consents:read']));
    const result = await callTool(client, 'account_ai_consent_revoke', { confirm: true });
    expect(errorOf(result)).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'consents:write' },
    });
  });
});
