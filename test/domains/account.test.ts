import { describe, expect, it } from 'vitest';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { seedUser } from '../factories/users.ts';

const app = await startTestApp();

describe('register, login and me over REST', () => {
  it('registers, logs in and reads the profile in snake_case', async () => {
    const reg = await rest(app, 'POST', '/api/auth/register', {
      body: { email: 'Ann@Example.com', password: 'long enough', name: 'Ann' },
    });
    expect(reg.status).toBe(200);
    expect(reg.body).toMatchObject({
      email: 'ann@example.com',
      name: 'Ann',
      glucose_unit: 'mg/dL',
      onboarding_completed: false,
    });
    expect(reg.body).not.toHaveProperty('password_hash');

    const login = await rest(app, 'POST', '/api/auth/login', {
      body: { email: 'ann@example.com', password: 'long enough' },
    });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ token_type: 'bearer', expires_in: 30 * 86400 });

    const me = await rest(app, 'GET', '/api/auth/me', { token: login.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(reg.body.id);
  });

  it('answers 409 for an address that is taken', async () => {
    const { user } = await seedUser(app);
    const again = await rest(app, 'POST', '/api/auth/register', {
      body: { email: user.email.toUpperCase(), password: 'long enough' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: 'Email already registered' });
  });

  it('answers 422 with located issues for bad input', async () => {
    const res = await rest(app, 'POST', '/api/auth/register', {
      body: { email: 'not-an-email', password: 'short' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['body', 'email'] }),
        expect.objectContaining({ loc: ['body', 'password'] }),
      ]),
    );
  });

  it('answers 422 when the body is missing or not JSON', async () => {
    const missing = await rest(app, 'POST', '/api/auth/register');
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
    const broken = await app.fetch('/api/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(broken.status).toBe(422);
    expect((await broken.json()).detail[0].type).toBe('json_invalid');
  });

  it('answers wrong password and unknown address identically with 401', async () => {
    const { user } = await seedUser(app);
    const wrong = await app.fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: 'nope nope' }),
    });
    const unknown = await app.fetch('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'nope nope' }),
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.text()).toBe(await unknown.text());
  });

  it('answers 401 Not authenticated with WWW-Authenticate without a token or with a forged one', async () => {
    for (const token of [
      undefined,
      'garbage',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    ]) {
      const res = await rest(app, 'GET', '/api/auth/me', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('patches the profile and validates each field', async () => {
    const { token } = await seedUser(app);
    const ok = await rest(app, 'PATCH', '/api/auth/me', {
      token,
      body: { timezone: 'Europe/Berlin', height_cm: 172.5, glucose_unit: 'mmol/L' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      timezone: 'Europe/Berlin',
      height_cm: 172.5,
      glucose_unit: 'mmol/L',
      name: 'Test User',
    });
    const bad = await rest(app, 'PATCH', '/api/auth/me', {
      token,
      body: { height_cm: 5000, glucose_unit: 'mg' },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: any) => d.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'height_cm'],
        ['body', 'glucose_unit'],
      ]),
    );
    const typed = await rest(app, 'PATCH', '/api/auth/me', { token, body: { height_cm: 'tall' } });
    expect(typed.status).toBe(422);
    expect(typed.body.detail[0].loc).toEqual(['body', 'height_cm']);
  });

  it('stores only real IANA time zones: an unknown name or an offset is 422 and changes nothing', async () => {
    const { token } = await seedUser(app);
    expect(
      (
        await rest(app, 'PATCH', '/api/auth/me', {
          token,
          body: { timezone: 'America/Argentina/Buenos_Aires' },
        })
      ).status,
    ).toBe(200);
    for (const timezone of ['Mars/Olympus', '+01:00', 'Europe/Berlin\u0000', '']) {
      const res = await rest(app, 'PATCH', '/api/auth/me', { token, body: { timezone } });
      expect(res.status, timezone).toBe(422);
      expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'timezone'] })]);
    }
    expect((await rest(app, 'GET', '/api/auth/me', { token })).body.timezone).toBe(
      'America/Argentina/Buenos_Aires',
    );
    expect(
      (await rest(app, 'PATCH', '/api/auth/me', { token, body: { timezone: null } })).body.timezone,
    ).toBeNull();
  });

  it('records onboarding progress sent with the profile (the legacy app PATCHes /me), bounded like its own operation', async () => {
    const { token } = await seedUser(app);
    const ok = await rest(app, 'PATCH', '/api/auth/me', {
      token,
      body: { onboarding_step: '3', onboarding_completed: 'true', name: 'Ada' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ onboarding_step: 3, onboarding_completed: true, name: 'Ada' });
    const bad = await rest(app, 'PATCH', '/api/auth/me', { token, body: { onboarding_step: 101 } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'onboarding_step']);
    expect((await rest(app, 'GET', '/api/auth/me', { token })).body).toMatchObject({
      onboarding_step: 3,
      onboarding_completed: true,
    });
  });
});

describe('the same operations over GraphQL', () => {
  it('registers, logs in and reads me', async () => {
    const reg = await gql(
      app,
      'mutation($i: RegisterInput!) { register(input: $i) { id email } }',
      {
        variables: { i: { email: 'gq@example.com', password: 'long enough' } },
      },
    );
    expect(reg.body.errors).toBeUndefined();
    const login = await gql(
      app,
      'mutation { login(input: {email: "gq@example.com", password: "long enough"}) { accessToken } }',
    );
    const token = login.body.data.login.accessToken;
    const me = await gql(app, '{ me { id email } }', { token });
    expect(me.body.data.me).toEqual(reg.body.data.register);
  });

  it('answers UNAUTHENTICATED without a credential', async () => {
    const me = await gql(app, '{ me { id } }');
    expect(me.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('masks unexpected errors with a request id', async () => {
    const res = await gql(app, '{ me { id } }', { headers: { authorization: 'Bearer x' } });
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
