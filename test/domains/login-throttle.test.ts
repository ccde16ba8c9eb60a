/**
 * The password-login throttle (10 failures per client IP and address per 15 minutes, shared by
 * POST /api/auth/login, /api/auth/web/login and /api/admin/auth/login) and the admin login (issue 3).
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const DOORS = ['/api/auth/login', '/api/auth/web/login', '/api/admin/auth/login'] as const;

function attempt(
  path: string,
  email: string,
  password: string,
  ip: Record<string, string>,
): Promise<Response> {
  return app.fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...ip },
    body: JSON.stringify({ email, password }),
  });
}

describe('login throttle', () => {
  it('answers 429 with Retry-After after 10 failures for one IP and address, even for the right password', async () => {
    const { user, password } = await seedUser(app);
    const ip = fromNewIp();
    for (let i = 0; i < 10; i++)
      expect(
        (await attempt('/api/auth/login', user.email, 'wrong password', ip)).status,
        `failure ${i + 1}`,
      ).toBe(401);
    const over = await attempt('/api/auth/login', user.email, password, ip);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ detail: { code: 'rate_limited' } });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(await app.db.prisma.session.count({ where: { userId: user.id } })).toBe(1); // only the factory's
  });

  it('counts per IP and address: another IP, or another address from the same IP, still signs in', async () => {
    const { user, password } = await seedUser(app);
    const other = await seedUser(app);
    const ip = fromNewIp();
    for (let i = 0; i < 10; i++) await attempt('/api/auth/login', user.email, 'wrong password', ip);
    expect((await attempt('/api/auth/login', user.email, password, ip)).status).toBe(429);
    expect((await attempt('/api/auth/login', user.email, password, fromNewIp())).status).toBe(200);
    expect((await attempt('/api/auth/login', other.user.email, other.password, ip)).status).toBe(
      200,
    );
  });

  it('is shared by the app, web and admin logins', async () => {
    const { user, password } = await seedUser(app, { isAdmin: true });
    const ip = fromNewIp();
    for (const [door, failures] of [
      [DOORS[0], 4],
      [DOORS[1], 3],
      [DOORS[2], 3],
    ] as const) {
      for (let i = 0; i < failures; i++)
        expect((await attempt(door, user.email, 'wrong password', ip)).status).toBe(401);
    }
    for (const door of DOORS)
      expect((await attempt(door, user.email, password, ip)).status, door).toBe(429);
  });

  it('answers the throttle with the same bytes whether or not the address has an account', async () => {
    const { user } = await seedUser(app);
    const ip = fromNewIp();
    const unknown = `nobody.${clock.ms()}@example.com`;
    for (const email of [user.email, unknown]) {
      for (let i = 0; i < 10; i++) await attempt('/api/auth/login', email, 'wrong password', ip);
    }
    const known = await attempt('/api/auth/login', user.email, 'wrong password', ip);
    const stranger = await attempt('/api/auth/login', unknown, 'wrong password', ip);
    expect([known.status, stranger.status]).toEqual([429, 429]);
    expect(await known.text()).toBe(await stranger.text());
  });

  it('forgets the failures of an IP and address after a successful login', async () => {
    const { user, password } = await seedUser(app);
    const ip = fromNewIp();
    for (let i = 0; i < 9; i++) await attempt('/api/auth/login', user.email, 'wrong password', ip);
    expect((await attempt('/api/auth/login', user.email, password, ip)).status).toBe(200);
    for (let i = 0; i < 10; i++)
      expect((await attempt('/api/auth/login', user.email, 'wrong password', ip)).status).toBe(401);
    expect((await attempt('/api/auth/login', user.email, password, ip)).status).toBe(429);
  });

  it('does not count requests refused by validation (422)', async () => {
    const { user, password } = await seedUser(app);
    const ip = fromNewIp();
    for (let i = 0; i < 12; i++)
      expect((await attempt('/api/auth/login', user.email, '', ip)).status).toBe(422);
    expect((await attempt('/api/auth/login', user.email, password, ip)).status).toBe(200);
  });
});

describe('the client IP behind proxies (TRUST_PROXY=false)', async () => {
  const direct = await startTestApp({ TRUST_PROXY: 'false' });

  it('ignores X-Forwarded-For from an untrusted peer, so a client cannot pose as new IPs', async () => {
    const { user, password } = await seedUser(direct);
    const post = (ip: Record<string, string>, pw: string) =>
      rest(direct, 'POST', '/api/auth/login', {
        body: { email: user.email, password: pw },
        headers: ip,
      });
    for (let i = 0; i < 10; i++)
      expect((await post(fromNewIp(), 'wrong password')).status).toBe(401);
    expect((await post(fromNewIp(), password)).status).toBe(429);
  });
});

describe('POST /api/admin/auth/login', () => {
  it('answers a bearer token of a session of the admin', async () => {
    const { user, password } = await seedUser(app, { isAdmin: true });
    const res = await rest(app, 'POST', '/api/admin/auth/login', {
      body: { email: user.email, password },
      headers: fromNewIp(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'bearer', expires_in: 30 * 86_400 });
    const me = await rest(app, 'GET', '/api/auth/me', { token: res.body.access_token });
    expect(me.body).toMatchObject({ id: user.id, is_admin: true });
  });

  it('answers a wrong password, an unknown address and a non-admin account with the same status and bytes', async () => {
    const admin = await seedUser(app, { isAdmin: true });
    const member = await seedUser(app);
    const cases = [
      { email: admin.user.email, password: 'wrong password' },
      { email: `nobody.${clock.ms()}@example.com`, password: 'wrong password' },
      { email: member.user.email, password: member.password },
    ];
    const answers = await Promise.all(
      cases.map((c) => attempt('/api/admin/auth/login', c.email, c.password, fromNewIp())),
    );
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401]);
    const bodies = await Promise.all(answers.map((a) => a.text()));
    expect(bodies[0]).toBe('{"detail":"Incorrect email or password"}');
    expect(new Set(bodies).size).toBe(1);
    expect(new Set(answers.map((a) => a.headers.get('www-authenticate'))).size).toBe(1);
    expect(await app.db.prisma.session.count({ where: { userId: member.user.id } })).toBe(1); // only the factory's
  });

  it('answers 422 for a body without the fields', async () => {
    const res = await rest(app, 'POST', '/api/admin/auth/login', {
      body: { email: 'a@example.com' },
      headers: fromNewIp(),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'missing' });
  });
});

describe('OPTIONS /api/admin/auth/login', () => {
  it("answers the admin panel's preflight with 200 and the methods of the path", async () => {
    const res = await app.fetch('/api/admin/auth/login', {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('allow')).toBe('OPTIONS, POST');
    expect(res.headers.get('access-control-allow-methods')).toBe('OPTIONS, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, x-csrf-token',
    );
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.text()).toBe('');
  });
});

describe('an admin panel on another origin (ADMIN_ALLOWED_ORIGINS)', async () => {
  const PANEL = 'https://admin.example.com';
  const panelApp = await startTestApp({
    ADMIN_ALLOWED_ORIGINS: `${PANEL}/, https://ops.example.com`,
  });
  const preflight = (path: string, origin: string, method = 'POST') =>
    panelApp.fetch(path, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, authorization',
      },
    });

  it('grants the configured origin on the login preflight and on the login answer itself', async () => {
    const pre = await preflight('/api/admin/auth/login', PANEL);
    expect(pre.status).toBe(200);
    expect(pre.headers.get('access-control-allow-origin')).toBe(PANEL);
    expect(pre.headers.get('vary')).toMatch(/origin/i);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();

    const { user, password } = await seedUser(panelApp, { isAdmin: true });
    const login = await panelApp.fetch('/api/admin/auth/login', {
      method: 'POST',
      headers: { origin: PANEL, 'content-type': 'application/json', ...fromNewIp() },
      body: JSON.stringify({ email: user.email, password }),
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('access-control-allow-origin')).toBe(PANEL);
  });

  it("answers the granted origin's preflight on every admin path, and no other origin anywhere", async () => {
    const users = await preflight('/api/admin/users', PANEL, 'GET');
    expect(users.status).toBe(200);
    expect(users.headers.get('access-control-allow-origin')).toBe(PANEL);

    for (const origin of [
      'https://evil.example.com',
      'https://admin.example.com.evil.com',
      'null',
    ]) {
      const login = await preflight('/api/admin/auth/login', origin);
      expect(login.status, origin).toBe(200); // the documented OPTIONS row, without a grant
      expect(login.headers.get('access-control-allow-origin'), origin).toBeNull();
      const other = await preflight('/api/admin/users', origin, 'GET');
      expect(other.status, origin).toBeGreaterThanOrEqual(400); // not answered for an ungranted origin
      expect(other.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
    // the app's own routes are not opened by the admin setting
    const app = await preflight('/api/auth/login', PANEL);
    expect(app.headers.get('access-control-allow-origin')).toBeNull();
  });
});
