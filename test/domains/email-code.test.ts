/**
 * Emailed sign-in codes (issue 3): POST /api/auth/email/start, /api/auth/email/verify and
 * /api/auth/web/email/verify through the real stack, codes read from a real SMTP server.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { cookiesFrom, fromNewIp, gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });

let seq = 0;
const newAddress = (): string => `code${++seq}.${clock.ms()}@example.com`;

function start(target: TestApp, email: string, ip: Record<string, string>): Promise<Response> {
  return target.fetch('/api/auth/email/start', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ip },
    body: JSON.stringify({ email }),
  });
}

/** Requests a code and reads it from the delivered email. */
async function requestCode(email: string, ip = fromNewIp(), target = app): Promise<string> {
  const since = smtp.messages.length;
  const res = await start(target, email, ip);
  expect(res.status, await res.clone().text()).toBe(200);
  const mail = await smtp.waitFor(email, { since });
  return /\b(\d{6})\b/.exec(mail.text)![1];
}

const verify = (email: string, code: string, target = app) =>
  rest(target, 'POST', '/api/auth/email/verify', { body: { email, code } });

/** A six-digit code that is certainly not `code`. */
const wrong = (code: string): string => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('POST /api/auth/email/start', () => {
  it('answers {"ok":true} with the same bytes whether or not the address has an account, and emails both a code', async () => {
    const { user } = await seedUser(app);
    const unknown = newAddress();
    const known = await start(app, user.email, fromNewIp());
    const stranger = await start(app, unknown, fromNewIp());
    expect(known.status).toBe(200);
    expect(stranger.status).toBe(200);
    const body = await known.text();
    expect(body).toBe('{"ok":true}');
    expect(await stranger.text()).toBe(body);
    const toKnown = await smtp.waitFor(user.email);
    const toStranger = await smtp.waitFor(unknown);
    expect(toKnown.subject).toMatch(/^Your sign-in code: \d{6}$/);
    expect(toKnown.text.replace(/\d{6}/g, 'CODE')).toBe(toStranger.text.replace(/\d{6}/g, 'CODE'));
    expect(toKnown.text).toContain('expires in 10 minutes');
  });

  it('answers 422 for an address that is not well-formed', async () => {
    const res = await rest(app, 'POST', '/api/auth/email/start', {
      body: { email: 'not-an-address' },
      headers: fromNewIp(),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'email']);
  });

  it('stores only a keyed hash of the code, expiring after 10 minutes', async () => {
    const email = newAddress();
    const before = clock.ms();
    const code = await requestCode(email);
    const row = await app.db.prisma.emailCode.findFirstOrThrow({ where: { email } });
    expect(row.codeHash).not.toContain(code);
    expect(row.codeHash).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect(row.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 10 * 60_000 - 1000);
    expect(row.expiresAt.getTime()).toBeLessThanOrEqual(clock.ms() + 10 * 60_000 + 1000);
    expect(row).toMatchObject({ usedAt: null, failedAttempts: 0 });
  });

  it('answers 429 with Retry-After after 5 codes per hour for one address, from any IP', async () => {
    const email = newAddress();
    for (let i = 0; i < 5; i++) expect((await start(app, email, fromNewIp())).status).toBe(200);
    const over = await start(app, email, fromNewIp());
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ detail: { code: 'rate_limited' } });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await start(app, newAddress(), fromNewIp())).status).toBe(200);
  });

  it('answers 429 after 20 codes per hour from one IP, for any addresses', async () => {
    const ip = fromNewIp();
    for (let i = 0; i < 20; i++)
      expect((await start(app, newAddress(), ip)).status, `code ${i + 1}`).toBe(200);
    const over = await start(app, newAddress(), ip);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await start(app, newAddress(), fromNewIp())).status).toBe(200);
  });

  it('answers the limit with the same bytes whether or not the address has an account', async () => {
    const { user } = await seedUser(app);
    const unknown = newAddress();
    for (const email of [user.email, unknown]) {
      for (let i = 0; i < 5; i++) await start(app, email, fromNewIp());
    }
    const known = await start(app, user.email, fromNewIp());
    const stranger = await start(app, unknown, fromNewIp());
    expect([known.status, stranger.status]).toEqual([429, 429]);
    expect(await known.text()).toBe(await stranger.text());
  });
});

describe('POST /api/auth/email/verify', () => {
  it('creates the account on first sign-in (no password, is_new_user) and answers a working bearer token', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    const res = await verify(email.toUpperCase(), code);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      token_type: 'bearer',
      expires_in: 30 * 86_400,
      is_new_user: true,
    });
    const user = await app.db.prisma.user.findUniqueOrThrow({ where: { email } });
    expect(user.passwordHash).toBeNull();
    const me = await rest(app, 'GET', '/api/auth/me', { token: res.body.access_token });
    expect(me.body).toMatchObject({ id: user.id, email });
  });

  it('signs an existing account in with is_new_user false', async () => {
    const { user } = await seedUser(app);
    const res = await verify(user.email, await requestCode(user.email));
    expect(res.status).toBe(200);
    expect(res.body.is_new_user).toBe(false);
    expect((await rest(app, 'GET', '/api/auth/me', { token: res.body.access_token })).body.id).toBe(
      user.id,
    );
  });

  it('answers 400 for a wrong code', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    const res = await verify(email, wrong(code));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Invalid or expired code' });
    expect(
      (await app.db.prisma.emailCode.findFirstOrThrow({ where: { email } })).failedAttempts,
    ).toBe(1);
    expect((await verify(email, code)).status).toBe(200);
  });

  it('answers 400 when no code was requested for the address', async () => {
    expect((await verify(newAddress(), '123456')).status).toBe(400);
  });

  it('answers 400 for an expired code', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    await app.db.prisma.emailCode.updateMany({
      where: { email },
      data: { expiresAt: new Date(clock.ms() - 1000) },
    });
    expect((await verify(email, code)).status).toBe(400);
    expect(await app.db.prisma.user.findUnique({ where: { email } })).toBeNull();
  });

  it('answers 400 for a code that was used (single use)', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    expect((await verify(email, code)).status).toBe(200);
    const again = await verify(email, code);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: 'Invalid or expired code' });
  });

  it('accepts only the newest code: a new code supersedes the earlier one', async () => {
    const email = newAddress();
    const first = await requestCode(email);
    const second = await requestCode(email);
    if (first !== second) expect((await verify(email, first)).status).toBe(400);
    expect((await verify(email, second)).status).toBe(200);
  });

  it('answers 429 after 5 wrong guesses on one code, even for the right code, until a new code is requested', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    for (let i = 0; i < 5; i++)
      expect((await verify(email, wrong(code))).status, `guess ${i + 1}`).toBe(400);
    const locked = await verify(email, code);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ detail: { code: 'rate_limited' } });
    // a new code may be requested at once: Retry-After says so (1 s)
    expect(locked.headers.get('retry-after')).toBe('1');
    expect(
      (await app.db.prisma.emailCode.findFirstOrThrow({ where: { email } })).failedAttempts,
    ).toBe(5);
    const fresh = await requestCode(email);
    expect((await verify(email, fresh)).status).toBe(200);
  });

  it('says in Retry-After when a new code can be requested once the address spent its hourly codes', async () => {
    const email = newAddress();
    let code = '';
    for (let i = 0; i < 5; i++) code = await requestCode(email);
    for (let i = 0; i < 5; i++)
      expect((await verify(email, wrong(code))).status, `guess ${i + 1}`).toBe(400);
    const locked = await verify(email, code);
    expect(locked.status).toBe(429);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('counts parallel guesses atomically: never more than 5 wrong guesses are evaluated on one code', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    const answers = await Promise.all(Array.from({ length: 12 }, () => verify(email, wrong(code))));
    expect(answers.filter((a) => a.status === 400)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(7);
    expect(
      (await app.db.prisma.emailCode.findFirstOrThrow({ where: { email } })).failedAttempts,
    ).toBe(5);
  });

  it('answers 422 for a missing code', async () => {
    const res = await rest(app, 'POST', '/api/auth/email/verify', {
      body: { email: newAddress() },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { loc: ['body', 'code'], msg: 'Field required', type: 'missing' },
    ]);
  });
});

describe('the daily guess cap (100 evaluated guesses per address)', async () => {
  // hourly code limits raised so that one test can reach the daily cap
  const busy = await startTestApp({
    SMTP_URL: smtp.url,
    EMAIL_CODES_PER_ADDRESS_PER_HOUR: '1000',
    EMAIL_CODES_PER_IP_PER_HOUR: '1000',
  });

  it('answers 429 once 100 guesses were evaluated for the address, even for a fresh, right code', async () => {
    const email = newAddress();
    for (let round = 0; round < 20; round++) {
      const code = await requestCode(email, fromNewIp(), busy);
      for (let i = 0; i < 5; i++) expect((await verify(email, wrong(code), busy)).status).toBe(400);
    }
    const code = await requestCode(email, fromNewIp(), busy);
    const capped = await verify(email, code, busy);
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({ detail: { code: 'rate_limited' } });
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(23 * 3600);
    // the guess was refused before it was evaluated: the code is untouched
    const row = await busy.db.prisma.emailCode.findFirstOrThrow({
      where: { email },
      orderBy: { id: 'desc' },
    });
    expect(row).toMatchObject({ failedAttempts: 0, usedAt: null });
  });
});

describe('POST /api/auth/web/email/verify', () => {
  it('sets the HttpOnly session cookie and answers the user, the CSRF token and is_new_user, but no token', async () => {
    const email = newAddress();
    const res = await rest(app, 'POST', '/api/auth/web/email/verify', {
      body: { email, code: await requestCode(email) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: { email, glucose_unit: 'mg/dL' },
      is_new_user: true,
      expires_in: 30 * 86_400,
    });
    expect(res.body.csrf_token).toMatch(/^[\w-]{43}$/);
    expect(res.body).not.toHaveProperty('access_token');
    const [session, csrf] = res.headers.getSetCookie();
    expect(session).toMatch(
      /^hdp_session=[\w.-]+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(csrf).toBe(`hdp_csrf=${res.body.csrf_token}; Max-Age=2592000; Path=/; SameSite=Lax`);
    const cookie = cookiesFrom(res.headers);
    expect((await rest(app, 'GET', '/api/auth/me', { headers: { cookie } })).body.email).toBe(
      email,
    );
    const graphql = await gql(app, '{ me { email } }', {
      headers: { cookie, 'x-csrf-token': res.body.csrf_token },
    });
    expect(graphql.body.data.me.email).toBe(email);
  });

  it('follows the same rules: 400 for a wrong or used code, 429 after 5 wrong guesses', async () => {
    const email = newAddress();
    const code = await requestCode(email);
    const web = (c: string) =>
      rest(app, 'POST', '/api/auth/web/email/verify', { body: { email, code: c } });
    for (let i = 0; i < 5; i++) {
      const res = await web(wrong(code));
      expect(res.status).toBe(400);
      expect(res.headers.getSetCookie()).toEqual([]);
    }
    expect((await web(code)).status).toBe(429);
    const fresh = await requestCode(email);
    expect((await web(fresh)).status).toBe(200);
    expect((await web(fresh)).status).toBe(400);
  });
});
