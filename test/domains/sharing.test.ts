/**
 * Access grants over REST (issue 3): share, list, accept, revoke, renew, with every rule and status
 * code. View-as across the three doors is in view-as.test.ts; the MCP tools in test/mcp-facade.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  GRANT_LIFETIME_DAYS,
  MAX_INVITATIONS_PER_DAY,
} from '../../src/domains/sharing/sharing.service.ts';
import { seedActiveGrant, seedInvitation } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const DATA_DIR = `/tmp/hdp-test/sharing-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const app = await startTestApp({ DATA_DIR });
const DAY_MS = 86_400_000;

/** The invitation emails written to this app's development outbox for `to`. */
function outboxFor(to: string): string[] {
  const dir = path.join(DATA_DIR, 'outbox');
  let files: string[] = [];
  try {
    files = readdirSync(dir);
  } catch {
    return [];
  }
  return files
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .filter((m) => m.includes(`To: ${to}`));
}

const grantOf = async (id: number) =>
  app.db.prisma.accessGrant.findUniqueOrThrow({ where: { id } });

describe('POST /api/auth/share', () => {
  it('creates a pending, read-only grant for 30 days and emails the invitee, who keeps their account', async () => {
    const owner = await seedUser(app, { name: 'Olga Owner' });
    const invitee = await seedUser(app);
    const before = clock.ms();
    const res = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: invitee.user.email.toUpperCase() },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      role: 'owner',
      status: 'pending',
      owner_email: owner.user.email,
      owner_name: 'Olga Owner',
      invitee_email: invitee.user.email,
      accepted_at: null,
      revoked_at: null,
      viewing: false,
    });
    expect(Object.keys(res.body).sort()).toEqual([
      'accepted_at',
      'created_at',
      'expires_at',
      'id',
      'invitee_email',
      'owner_email',
      'owner_name',
      'revoked_at',
      'role',
      'status',
      'viewing',
    ]);
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBe(GRANT_LIFETIME_DAYS * DAY_MS);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const row = await grantOf(res.body.id);
    expect(row).toMatchObject({
      ownerId: owner.user.id,
      granteeId: invitee.user.id,
      status: 'pending',
    });

    const [mail] = outboxFor(invitee.user.email);
    expect(mail).toContain('Olga Owner wants to share their health data with you');
    expect(mail).toContain(`invitation ${res.body.id}`);
    // nothing is shared until the invitee accepts
    expect(
      (
        await rest(app, 'POST', '/api/v1/view-as', {
          token: invitee.token,
          body: { grant_id: res.body.id },
        })
      ).status,
    ).toBe(409);
  });

  it('invites an address without an account the same way (the answer does not tell them apart)', async () => {
    const owner = await seedUser(app);
    const known = await seedUser(app);
    const email = `nobody-yet.${clock.ms()}@example.com`;
    const a = await rest(app, 'POST', '/api/auth/share', { token: owner.token, body: { email } });
    const b = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: known.user.email },
    });
    expect(a.status).toBe(200);
    expect(Object.keys(a.body)).toEqual(Object.keys(b.body));
    expect(a.body).toMatchObject({ status: 'pending', invitee_email: email });
    expect((await grantOf(a.body.id)).granteeId).toBeNull();
    expect(outboxFor(email)).toHaveLength(1);
  });

  it("answers 422 for the caller's own address and for a malformed one", async () => {
    const owner = await seedUser(app);
    const self = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: owner.user.email.toUpperCase() },
    });
    expect(self.status).toBe(422);
    expect(self.body.detail).toEqual([
      {
        loc: ['body', 'email'],
        msg: 'You cannot share your data with yourself',
        type: 'value_error',
      },
    ]);
    const bad = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: 'not-an-address' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'email']);
    const missing = await rest(app, 'POST', '/api/auth/share', { token: owner.token, body: {} });
    expect(missing.status).toBe(422);
    expect(await app.db.prisma.accessGrant.count({ where: { ownerId: owner.user.id } })).toBe(0);
  });

  it('answers 409 naming the grant while a pending or active grant to the same person lives; after it ends, shares again', async () => {
    const owner = await seedUser(app);
    const invitee = await seedUser(app);
    const first = await seedInvitation(app, owner, invitee.user.email);
    const again = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: invitee.user.email.toUpperCase() },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: { code: 'grant_exists', grant_id: first } });

    await rest(app, 'POST', `/api/auth/grants/${first}/accept`, { token: invitee.token });
    expect(
      (
        await rest(app, 'POST', '/api/auth/share', {
          token: owner.token,
          body: { email: invitee.user.email },
        })
      ).status,
    ).toBe(409);

    await rest(app, 'POST', `/api/auth/grants/${first}/revoke`, { token: owner.token });
    const second = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: invitee.user.email },
    });
    expect(second.status).toBe(200);

    await app.db.prisma.accessGrant.update({
      where: { id: second.body.id },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    expect(
      (
        await rest(app, 'POST', '/api/auth/share', {
          token: owner.token,
          body: { email: invitee.user.email },
        })
      ).status,
    ).toBe(200);
  });

  it('creates one grant when the same invitation arrives several times at once', async () => {
    const owner = await seedUser(app);
    const email = `race.${clock.ms()}@example.com`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        rest(app, 'POST', '/api/auth/share', { token: owner.token, body: { email } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await app.db.prisma.accessGrant.count({ where: { ownerId: owner.user.id } })).toBe(1);
  });

  it(`answers 429 with Retry-After after ${MAX_INVITATIONS_PER_DAY} invitations in 24 hours`, async () => {
    const owner = await seedUser(app);
    const old = new Date(clock.ms() - 23 * 3_600_000);
    await app.db.prisma.accessGrant.createMany({
      data: Array.from({ length: MAX_INVITATIONS_PER_DAY }, (_, i) => ({
        ownerId: owner.user.id,
        inviteeEmail: `bulk${i}@example.com`,
        status: 'revoked',
        createdAt: old,
        expiresAt: new Date(old.getTime() + 30 * DAY_MS),
      })),
    });
    const res = await rest(app, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: 'one-more@example.com' },
    });
    expect(res.status).toBe(429);
    expect(res.body.detail).toMatchObject({ code: 'rate_limited', limit: MAX_INVITATIONS_PER_DAY });
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(outboxFor('one-more@example.com')).toEqual([]);
  });

  it('answers 401 without a credential and 403 to a personal token without sharing:write', async () => {
    const owner = await seedUser(app);
    expect(
      (await rest(app, 'POST', '/api/auth/share', { body: { email: 'x@example.com' } })).status,
    ).toBe(401);
    const pat = await seedPersonalToken(app, owner.user.id, ['sharing:read']);
    const refused = await rest(app, 'POST', '/api/auth/share', {
      token: pat,
      body: { email: 'x@example.com' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toEqual({ code: 'insufficient_scope', scope: 'sharing:write' });
  });
});

describe('POST /api/auth/share when the invitation cannot be sent', async () => {
  // started in the describe body, not the test, so that its database is closed (and dropped) after the file
  const broken = await startTestApp({ SMTP_URL: 'smtp://127.0.0.1:9' });
  it('answers 502 and keeps no grant, so the owner can retry', async () => {
    const owner = await seedUser(broken);
    const res = await rest(broken, 'POST', '/api/auth/share', {
      token: owner.token,
      body: { email: 'friend@example.com' },
    });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'The invitation email could not be sent; try again later' });
    expect(await broken.db.prisma.accessGrant.count()).toBe(0);
  });
});

describe('GET /api/auth/grants', () => {
  it('lists both directions, newest first, with role and derived status; strangers see nothing', async () => {
    const ann = await seedUser(app);
    const bob = await seedUser(app);
    const cat = await seedUser(app);
    const annToBob = await seedActiveGrant(app, ann, bob);
    const bobToAnn = await seedInvitation(app, bob, ann.user.email);
    const annToCat = await seedInvitation(app, ann, cat.user.email);
    await rest(app, 'POST', `/api/auth/grants/${annToCat}/revoke`, { token: ann.token });
    const annToDan = await seedInvitation(app, ann, `dan.${clock.ms()}@example.com`);
    await app.db.prisma.accessGrant.update({
      where: { id: annToDan },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });

    const list = await rest(app, 'GET', '/api/auth/grants', { token: ann.token });
    expect(list.status).toBe(200);
    expect(list.body.map((g: any) => [g.id, g.role, g.status])).toEqual([
      [annToDan, 'owner', 'expired'],
      [annToCat, 'owner', 'revoked'],
      [bobToAnn, 'grantee', 'pending'],
      [annToBob, 'owner', 'active'],
    ]);
    const bobs = await rest(app, 'GET', '/api/auth/grants', { token: bob.token });
    expect(bobs.body.map((g: any) => [g.id, g.role, g.status])).toEqual([
      [bobToAnn, 'owner', 'pending'],
      [annToBob, 'grantee', 'active'],
    ]);
    expect(bobs.body[1]).toMatchObject({
      owner_email: ann.user.email,
      invitee_email: bob.user.email,
    });
    const stranger = await seedUser(app);
    expect((await rest(app, 'GET', '/api/auth/grants', { token: stranger.token })).body).toEqual(
      [],
    );
    expect((await rest(app, 'GET', '/api/auth/grants')).status).toBe(401);
  });

  it('shows an invitation to an address that registers later, as grantee', async () => {
    const owner = await seedUser(app);
    const email = `later.${clock.ms()}@example.com`;
    const id = await seedInvitation(app, owner, email);
    const later = await seedUser(app, { email });
    const list = await rest(app, 'GET', '/api/auth/grants', { token: later.token });
    expect(list.body).toEqual([
      expect.objectContaining({ id, role: 'grantee', status: 'pending' }),
    ]);
  });
});

describe('POST /api/auth/grants/{grant_id}/accept', () => {
  it('activates a pending grant for its invitee only; anyone else gets 404', async () => {
    const owner = await seedUser(app);
    const invitee = await seedUser(app);
    const stranger = await seedUser(app);
    const id = await seedInvitation(app, owner, invitee.user.email);
    for (const who of [stranger, owner]) {
      const res = await rest(app, 'POST', `/api/auth/grants/${id}/accept`, { token: who.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: 'Grant not found' });
    }
    expect(
      (await rest(app, 'POST', '/api/auth/grants/999999/accept', { token: invitee.token })).status,
    ).toBe(404);

    const ok = await rest(app, 'POST', `/api/auth/grants/${id}/accept`, { token: invitee.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id, role: 'grantee', status: 'active' });
    expect(Date.parse(ok.body.accepted_at)).toBeGreaterThan(clock.ms() - 60_000);

    const twice = await rest(app, 'POST', `/api/auth/grants/${id}/accept`, {
      token: invitee.token,
    });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ detail: { code: 'grant_not_pending', status: 'active' } });
  });

  it('lets an address invited before it had an account accept, naming the new account as grantee', async () => {
    const owner = await seedUser(app);
    const email = `joiner.${clock.ms()}@example.com`;
    const id = await seedInvitation(app, owner, email);
    const joiner = await seedUser(app, { email });
    const ok = await rest(app, 'POST', `/api/auth/grants/${id}/accept`, { token: joiner.token });
    expect(ok.status).toBe(200);
    expect((await grantOf(id)).granteeId).toBe(joiner.user.id);
  });

  it('answers 409 for an expired or revoked invitation, and 422 for a malformed id', async () => {
    const owner = await seedUser(app);
    const invitee = await seedUser(app);
    const id = await seedInvitation(app, owner, invitee.user.email);
    await app.db.prisma.accessGrant.update({
      where: { id },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const expired = await rest(app, 'POST', `/api/auth/grants/${id}/accept`, {
      token: invitee.token,
    });
    expect(expired.status).toBe(409);
    expect(expired.body.detail).toEqual({ code: 'grant_not_pending', status: 'expired' });

    const other = await seedUser(app);
    const id2 = await seedInvitation(app, other, invitee.user.email);
    await rest(app, 'POST', `/api/auth/grants/${id2}/revoke`, { token: other.token });
    const revoked = await rest(app, 'POST', `/api/auth/grants/${id2}/accept`, {
      token: invitee.token,
    });
    expect(revoked.status).toBe(409);
    expect(revoked.body.detail.status).toBe('revoked');

    const bad = await rest(app, 'POST', '/api/auth/grants/abc/accept', { token: invitee.token });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'grant_id']);
  });
});

describe('POST /api/auth/grants/{grant_id}/revoke', () => {
  it('lets the owner, the grantee, or an invitee declining revoke; is idempotent; 404 for anyone else', async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const stranger = await seedUser(app);
    const byOwner = await seedActiveGrant(app, owner, grantee);
    expect(
      (await rest(app, 'POST', `/api/auth/grants/${byOwner}/revoke`, { token: stranger.token }))
        .status,
    ).toBe(404);
    const revoked = await rest(app, 'POST', `/api/auth/grants/${byOwner}/revoke`, {
      token: owner.token,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: byOwner, role: 'owner', status: 'revoked' });
    const again = await rest(app, 'POST', `/api/auth/grants/${byOwner}/revoke`, {
      token: owner.token,
    });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);

    const byGrantee = await seedActiveGrant(app, owner, grantee);
    const ended = await rest(app, 'POST', `/api/auth/grants/${byGrantee}/revoke`, {
      token: grantee.token,
    });
    expect(ended.body).toMatchObject({ role: 'grantee', status: 'revoked' });

    const email = `decliner.${clock.ms()}@example.com`;
    const pending = await seedInvitation(app, owner, email);
    const decliner = await seedUser(app, { email });
    const declined = await rest(app, 'POST', `/api/auth/grants/${pending}/revoke`, {
      token: decliner.token,
    });
    expect(declined.body).toMatchObject({ role: 'grantee', status: 'revoked' });
    expect(
      (await rest(app, 'POST', `/api/auth/grants/${pending}/accept`, { token: decliner.token }))
        .status,
    ).toBe(409);
  });
});

describe('POST /api/v1/grants/{grant_id}/renew', () => {
  it('sets the end to 30 days from now, for the owner only (403 grantee, 404 others)', async () => {
    const owner = await seedUser(app);
    const grantee = await seedUser(app);
    const stranger = await seedUser(app);
    const id = await seedActiveGrant(app, owner, grantee);
    await app.db.prisma.accessGrant.update({
      where: { id },
      data: { expiresAt: new Date(clock.ms() + DAY_MS) },
    });

    expect(
      (await rest(app, 'POST', `/api/v1/grants/${id}/renew`, { token: stranger.token })).status,
    ).toBe(404);
    const byGrantee = await rest(app, 'POST', `/api/v1/grants/${id}/renew`, {
      token: grantee.token,
    });
    expect(byGrantee.status).toBe(403);
    expect(byGrantee.body).toEqual({ detail: 'Only the owner can renew a grant' });

    const before = clock.ms();
    const renewed = await rest(app, 'POST', `/api/v1/grants/${id}/renew`, { token: owner.token });
    expect(renewed.status).toBe(200);
    expect(renewed.body.status).toBe('active');
    const end = Date.parse(renewed.body.expires_at);
    expect(end).toBeGreaterThanOrEqual(before + GRANT_LIFETIME_DAYS * DAY_MS - 1000);
    expect(end).toBeLessThanOrEqual(clock.ms() + GRANT_LIFETIME_DAYS * DAY_MS);
    // from now, not from the old end: renewing twice does not stack
    const twice = await rest(app, 'POST', `/api/v1/grants/${id}/renew`, { token: owner.token });
    expect(Date.parse(twice.body.expires_at) - end).toBeLessThan(60_000);
  });

  it('renews a pending invitation; answers 409 once the grant is expired or revoked', async () => {
    const owner = await seedUser(app);
    const pending = await seedInvitation(app, owner, `renew.${clock.ms()}@example.com`);
    const ok = await rest(app, 'POST', `/api/v1/grants/${pending}/renew`, { token: owner.token });
    expect(ok.body.status).toBe('pending');

    await app.db.prisma.accessGrant.update({
      where: { id: pending },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    const expired = await rest(app, 'POST', `/api/v1/grants/${pending}/renew`, {
      token: owner.token,
    });
    expect(expired.status).toBe(409);
    expect(expired.body.detail).toEqual({ code: 'grant_not_live', status: 'expired' });

    const revokedId = await seedInvitation(app, owner, `renew2.${clock.ms()}@example.com`);
    await rest(app, 'POST', `/api/auth/grants/${revokedId}/revoke`, { token: owner.token });
    expect(
      (await rest(app, 'POST', `/api/v1/grants/${revokedId}/renew`, { token: owner.token })).body
        .detail.status,
    ).toBe('revoked');
  });
});
