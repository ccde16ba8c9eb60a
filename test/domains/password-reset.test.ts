/**
 * Forgotten passwords (issue 3): POST /api/auth/forgot-password and /api/auth/reset-password,
 * with the reset link read from a real SMTP server.
 */
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/auth/credentials.ts';
import { seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });

function forgot(email: string, ip: Record<string, string>): Promise<Response> {
  return app.fetch('/api/auth/forgot-password', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ip },
    body: JSON.stringify({ email }),
  });
}

/** Asks for a reset link and reads the token from the delivered email. */
async function resetToken(email: string): Promise<string> {
  const since = smtp.messages.length;
  expect((await forgot(email, fromNewIp())).status).toBe(200);
  const mail = await smtp.waitFor(email, { since });
  return /\/reset-password\?token=([\w-]+)/.exec(mail.text)![1];
}

const reset = (token: string, newPassword = 'a brand new password') =>
  rest(app, 'POST', '/api/auth/reset-password', { body: { token, new_password: newPassword } });

const login = (email: string, password: string) =>
  rest(app, 'POST', '/api/auth/login', { body: { email, password }, headers: fromNewIp() });

describe('POST /api/auth/forgot-password', () => {
  it('answers {"ok":true} with the same bytes for a known and an unknown address; only the known one gets a link', async () => {
    const { user } = await seedUser(app);
    const unknown = `nobody.${clock.ms()}@example.com`;
    const since = smtp.messages.length;
    const stranger = await forgot(unknown, fromNewIp());
    const known = await forgot(user.email, fromNewIp());
    expect([known.status, stranger.status]).toEqual([200, 200]);
    expect(await known.text()).toBe('{"ok":true}');
    expect(await stranger.text()).toBe('{"ok":true}');
    const mail = await smtp.waitFor(user.email, { since });
    expect(mail.subject).toBe('Reset your password');
    expect(mail.text).toMatch(/http:\/\/127\.0\.0\.1:8000\/reset-password\?token=[\w-]{43}/);
    expect(mail.text).toContain('expires in 60 minutes');
    expect(smtp.to(unknown)).toEqual([]);
  });

  it('stores only the sha256 of the token, expiring after 60 minutes', async () => {
    const { user } = await seedUser(app);
    const token = await resetToken(user.email);
    const rows = await app.db.prisma.passwordResetToken.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(sha256(token));
    expect(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime()).toBeGreaterThan(59 * 60_000);
    expect(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime()).toBeLessThanOrEqual(
      60 * 60_000 + 1000,
    );
  });

  it('answers 429 after 5 requests per hour for one address, with the same bytes whether or not it has an account', async () => {
    const { user } = await seedUser(app);
    const unknown = `nobody.${clock.ms()}.b@example.com`;
    for (const email of [user.email, unknown]) {
      for (let i = 0; i < 5; i++) expect((await forgot(email, fromNewIp())).status).toBe(200);
    }
    const known = await forgot(user.email, fromNewIp());
    const stranger = await forgot(unknown, fromNewIp());
    expect([known.status, stranger.status]).toEqual([429, 429]);
    expect(Number(known.headers.get('retry-after'))).toBeGreaterThan(3000);
    const body = await known.text();
    expect(body).toBe('{"detail":{"code":"rate_limited"}}');
    expect(await stranger.text()).toBe(body);
  });

  it('answers 429 after 20 requests per hour from one IP', async () => {
    const ip = fromNewIp();
    for (let i = 0; i < 20; i++)
      expect((await forgot(`ip${i}.${clock.ms()}@example.com`, ip)).status).toBe(200);
    expect((await forgot(`ip-over.${clock.ms()}@example.com`, ip)).status).toBe(429);
    expect((await forgot(`ip-other.${clock.ms()}@example.com`, fromNewIp())).status).toBe(200);
  });

  it('answers 422 for an address that is not well-formed', async () => {
    expect((await forgot('nope', fromNewIp())).status).toBe(422);
  });
});

describe('POST /api/auth/reset-password', () => {
  it('sets the new password (argon2id), answers ok and the old password stops working', async () => {
    const { user, password } = await seedUser(app);
    const res = await reset(await resetToken(user.email));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    expect(
      (await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).passwordHash,
    ).toMatch(/^\$argon2id\$/);
    expect((await login(user.email, password)).status).toBe(401);
    expect((await login(user.email, 'a brand new password')).status).toBe(200);
  });

  it('bumps the session epoch', async () => {
    const { user } = await seedUser(app);
    await reset(await resetToken(user.email));
    expect(
      (await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).sessionEpoch,
    ).toBe(1);
  });

  it("answers 400 for a used token (single use), and uses up the account's other tokens", async () => {
    const { user } = await seedUser(app);
    const first = await resetToken(user.email);
    const second = await resetToken(user.email);
    expect((await reset(first)).status).toBe(200);
    const again = await reset(first, 'another new password');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: 'Invalid or expired reset token' });
    expect((await reset(second, 'another new password')).status).toBe(400);
  });

  it('answers 400 for an expired token and for an unknown one', async () => {
    const { user } = await seedUser(app);
    const token = await resetToken(user.email);
    await app.db.prisma.passwordResetToken.updateMany({
      where: { userId: user.id },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    expect((await reset(token)).status).toBe(400);
    expect((await reset('not-a-token')).status).toBe(400);
  });

  it('answers 422 for a new password that is too short, and keeps the token usable', async () => {
    const { user } = await seedUser(app);
    const token = await resetToken(user.email);
    const short = await reset(token, 'short');
    expect(short.status).toBe(422);
    expect(short.body.detail[0].loc).toEqual(['body', 'new_password']);
    expect((await reset(token)).status).toBe(200);
  });

  it('uses a token once even when two requests race', async () => {
    const { user } = await seedUser(app);
    const token = await resetToken(user.email);
    const answers = await Promise.all([
      reset(token, 'first new password'),
      reset(token, 'second new password'),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
  });
});
