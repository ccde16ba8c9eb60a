import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.ts';
import { seedUser } from '../factories/users.ts';
import { startFakeIdp } from '../fakes/jwks.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const idp = await startFakeIdp();
const app = await startTestApp({
  IDP_GOOGLE_CLIENT_ID: 'google-web-client, google-ios-client',
  IDP_GOOGLE_JWKS_URL: idp.jwksUrl,
  IDP_APPLE_CLIENT_ID: 'com.example.health',
  IDP_APPLE_JWKS_URL: idp.jwksUrl,
  IDP_ACME_CLIENT_ID: 'acme-app',
  IDP_ACME_ISSUER: idp.url,
  IDP_ACME_JWKS_URL: idp.jwksUrl,
  IDP_BROKEN_CLIENT_ID: 'x',
  IDP_BROKEN_ISSUER: idp.url,
  IDP_BROKEN_JWKS_URL: idp.brokenJwksUrl,
  IDP_SLOW_CLIENT_ID: 'x',
  IDP_SLOW_ISSUER: idp.url,
  IDP_SLOW_JWKS_URL: idp.slowJwksUrl,
  IDP_TIMEOUT_MS: '300',
});

const GOOGLE = 'https://accounts.google.com';
const APPLE = 'https://appleid.apple.com';
const sub = (): string => randomBytes(8).toString('hex');
const newEmail = (): string => `idp.${sub()}@example.com`;

function googleToken(claims: Record<string, unknown> = {}): Promise<string> {
  return idp.sign({
    iss: GOOGLE,
    aud: 'google-web-client',
    sub: sub(),
    email: newEmail(),
    email_verified: true,
    name: 'Gia Google',
    ...claims,
  });
}

describe('POST /api/auth/idp', () => {
  it('creates the account on first sign-in and answers TokenOut with is_new_user; later sign-ins find it', async () => {
    const subject = sub();
    const email = newEmail();
    const token = await googleToken({ sub: subject, email: email.toUpperCase() });
    const first = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'google', id_token: token },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: 30 * 86400,
      is_new_user: true,
    });
    const me = await rest(app, 'GET', '/api/auth/me', { token: first.body.access_token });
    expect(me.body).toMatchObject({ email, name: 'Gia Google' });

    const again = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'Google', id_token: await googleToken({ sub: subject, email }) },
    });
    expect(again.body.is_new_user).toBe(false);
    const me2 = await rest(app, 'GET', '/api/auth/me', { token: again.body.access_token });
    expect(me2.body.id).toBe(me.body.id);
  });

  it("accepts every configured client id as audience, Apple's string email_verified, and a custom provider", async () => {
    const ios = await googleToken({ aud: 'google-ios-client' });
    expect(
      (await rest(app, 'POST', '/api/auth/idp', { body: { provider: 'google', id_token: ios } }))
        .status,
    ).toBe(200);
    const apple = await idp.sign({
      iss: APPLE,
      aud: 'com.example.health',
      sub: sub(),
      email: newEmail(),
      email_verified: 'true',
    });
    const res = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'apple', id_token: apple },
    });
    expect(res.status).toBe(200);
    expect(res.body.is_new_user).toBe(true);
    const acme = await idp.sign({
      iss: idp.url,
      aud: 'acme-app',
      sub: sub(),
      email: newEmail(),
      email_verified: true,
    });
    expect(
      (await rest(app, 'POST', '/api/auth/idp', { body: { provider: 'acme', id_token: acme } }))
        .status,
    ).toBe(200);
  });

  it('links by (provider, subject): a changed address at the provider still reaches the same account', async () => {
    const subject = sub();
    const first = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'google', id_token: await googleToken({ sub: subject }) },
    });
    const later = await rest(app, 'POST', '/api/auth/idp', {
      body: {
        provider: 'google',
        id_token: await googleToken({ sub: subject, email: newEmail(), email_verified: false }),
      },
    });
    expect(later.status).toBe(200);
    const a = await rest(app, 'GET', '/api/auth/me', { token: first.body.access_token });
    const b = await rest(app, 'GET', '/api/auth/me', { token: later.body.access_token });
    expect(b.body.id).toBe(a.body.id);
    // the same subject at another provider is another identity
    const apple = await idp.sign({
      iss: APPLE,
      aud: 'com.example.health',
      sub: subject,
      email: newEmail(),
      email_verified: 'true',
    });
    const other = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'apple', id_token: apple },
    });
    expect(other.body.is_new_user).toBe(true);
  });

  it('links to an existing account only when the provider verified the address', async () => {
    const { user, password } = await seedUser(app);
    const unverified = await rest(app, 'POST', '/api/auth/idp', {
      body: {
        provider: 'google',
        id_token: await googleToken({ email: user.email, email_verified: false }),
      },
    });
    expect(unverified.status).toBe(400);
    expect(unverified.body).toEqual({
      detail: 'The identity provider has not verified this email address',
    });
    expect(await app.db.prisma.identityLink.count({ where: { userId: user.id } })).toBe(0);

    const verified = await rest(app, 'POST', '/api/auth/idp', {
      body: {
        provider: 'google',
        id_token: await googleToken({ email: user.email, email_verified: true }),
      },
    });
    expect(verified.status).toBe(200);
    expect(verified.body.is_new_user).toBe(false);
    expect(
      (await rest(app, 'GET', '/api/auth/me', { token: verified.body.access_token })).body.id,
    ).toBe(user.id);
    expect(
      await app.db.prisma.identityLink.count({ where: { userId: user.id, provider: 'google' } }),
    ).toBe(1);
    // the password still works
    expect(
      (await rest(app, 'POST', '/api/auth/login', { body: { email: user.email, password } }))
        .status,
    ).toBe(200);
  });

  it('creates no account from an unverified or missing address (400)', async () => {
    const email = newEmail();
    const unverified = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'google', id_token: await googleToken({ email, email_verified: false }) },
    });
    expect(unverified.status).toBe(400);
    const noFlag = await rest(app, 'POST', '/api/auth/idp', {
      body: {
        provider: 'google',
        id_token: await googleToken({ email, email_verified: undefined }),
      },
    });
    expect(noFlag.status).toBe(400);
    const noEmail = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'google', id_token: await googleToken({ email: undefined }) },
    });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body).toEqual({ detail: 'The identity token carries no email address' });
    expect(await app.db.prisma.user.count({ where: { email } })).toBe(0);
  });

  it('answers 401 for a wrong issuer, audience, expiry, signature, key or algorithm', async () => {
    const cases: Record<string, string> = {
      issuer: await googleToken({ iss: 'https://evil.example.com' }),
      appleIssuerForGoogle: await googleToken({ iss: APPLE }),
      audience: await googleToken({ aud: 'someone-elses-client' }),
      expired: await idp.sign(
        {
          iss: GOOGLE,
          aud: 'google-web-client',
          sub: sub(),
          email: newEmail(),
          email_verified: true,
        },
        { expiresIn: -600 },
      ),
      signature: await idp.sign(
        { iss: GOOGLE, aud: 'google-web-client', sub: sub() },
        { key: idp.foreignKey },
      ),
      unknownKey: await idp.sign(
        { iss: GOOGLE, aud: 'google-web-client', sub: sub() },
        { kid: 'not-published' },
      ),
      hmac: await new SignJWT({ iss: GOOGLE, aud: 'google-web-client', sub: sub() })
        .setProtectedHeader({ alg: 'HS256', kid: 'test-key-1' })
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode('a shared secret anyone could guess')),
      noSubject: await idp.sign({
        iss: GOOGLE,
        aud: 'google-web-client',
        email: newEmail(),
        email_verified: true,
      }),
      garbage: 'not.a.jwt',
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await rest(app, 'POST', '/api/auth/idp', {
        body: { provider: 'google', id_token: token },
      });
      expect(res.status, name).toBe(401);
      expect(res.body, name).toEqual({ detail: 'Invalid identity token' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('answers 422 for a provider that is not enabled, and for missing fields', async () => {
    for (const provider of ['facebook', 'github', '']) {
      const res = await rest(app, 'POST', '/api/auth/idp', {
        body: { provider, id_token: await googleToken() },
      });
      expect(res.status, provider).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'provider']);
    }
    const unknown = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'facebook', id_token: 'x' },
    });
    expect(unknown.body.detail[0].msg).toBe(
      'Unknown identity provider; enabled: acme, apple, broken, google, slow',
    );
    const missing = await rest(app, 'POST', '/api/auth/idp', { body: { provider: 'google' } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'id_token'], type: 'missing' });
  });

  it('answers 502 when the key set cannot be fetched and 504 when it does not answer in time', async () => {
    const token = await idp.sign({ iss: idp.url, aud: 'x', sub: sub() });
    const broken = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'broken', id_token: token },
    });
    expect(broken.status).toBe(502);
    const started = clock.ms();
    const slow = await rest(app, 'POST', '/api/auth/idp', {
      body: { provider: 'slow', id_token: token },
    });
    expect(slow.status).toBe(504);
    expect(clock.ms() - started).toBeLessThan(5000);
  });

  it('caches the key set across sign-ins', async () => {
    const before = idp.fetches;
    for (let i = 0; i < 3; i++) {
      expect(
        (
          await rest(app, 'POST', '/api/auth/idp', {
            body: {
              provider: 'acme',
              id_token: await idp.sign({
                iss: idp.url,
                aud: 'acme-app',
                sub: sub(),
                email: newEmail(),
                email_verified: true,
              }),
            },
          })
        ).status,
      ).toBe(200);
    }
    expect(idp.fetches - before).toBeLessThanOrEqual(1);
  });
});

describe('POST /api/auth/web/idp', () => {
  it('sets the HttpOnly session cookie and answers WebSessionOut {user, csrf_token, expires_in}', async () => {
    const email = newEmail();
    const res = await rest(app, 'POST', '/api/auth/web/idp', {
      body: { provider: 'google', id_token: await googleToken({ email }) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      user: { email, name: 'Gia Google' },
      csrf_token: expect.any(String),
      expires_in: 30 * 86400,
      is_new_user: true,
    });
    expect(JSON.stringify(res.body)).not.toMatch(/eyJ/); // no token in the answer
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('hdp_session='))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    const cookie = session.split(';')[0];
    const me = await rest(app, 'GET', '/api/auth/me', { headers: { cookie } });
    expect(me.body.email).toBe(email);
    const patched = await rest(app, 'PATCH', '/api/auth/me', {
      headers: { cookie, 'x-csrf-token': res.body.csrf_token },
      body: { name: 'Web' },
    });
    expect(patched.status).toBe(200);
  });

  it('applies the same checks as the native sign-in', async () => {
    const res = await rest(app, 'POST', '/api/auth/web/idp', {
      body: { provider: 'google', id_token: await googleToken({ aud: 'other' }) },
    });
    expect(res.status).toBe(401);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

describe('GraphQL loginWithIdp', () => {
  it('is the same field behind the REST path', async () => {
    const res = await gql(
      app,
      'mutation($i: IdpLoginInput!) { loginWithIdp(input: $i) { tokenType isNewUser } }',
      {
        variables: { i: { provider: 'google', idToken: await googleToken() } },
      },
    );
    expect(res.body.data.loginWithIdp).toEqual({ tokenType: 'bearer', isNewUser: true });
  });
});

describe('identity-provider configuration', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hdp-idp-'));
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dir, ...env });

  it('enables Apple and Google by a client id, with their issuer and key-set presets', () => {
    expect(load({}).identityProviders).toEqual({});
    expect(load({ IDP_GOOGLE_JWKS_URL: 'https://keys.example.com' }).identityProviders).toEqual({});
    const c = load({ IDP_APPLE_CLIENT_ID: 'com.example.app', IDP_GOOGLE_CLIENT_ID: 'a, b' });
    expect(c.identityProviders).toEqual({
      apple: {
        name: 'apple',
        issuers: ['https://appleid.apple.com'],
        jwksUrl: 'https://appleid.apple.com/auth/keys',
        clientIds: ['com.example.app'],
      },
      google: {
        name: 'google',
        issuers: ['https://accounts.google.com', 'accounts.google.com'],
        jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
        clientIds: ['a', 'b'],
      },
    });
  });

  it('needs an issuer and a key-set URL for any other provider', () => {
    expect(() =>
      load({ IDP_OKTA_CLIENT_ID: 'x', IDP_OKTA_JWKS_URL: 'https://okta.example.com/keys' }),
    ).toThrow(/IDP_OKTA_ISSUER/);
    expect(() =>
      load({ IDP_OKTA_CLIENT_ID: 'x', IDP_OKTA_ISSUER: 'https://okta.example.com' }),
    ).toThrow(/IDP_OKTA_JWKS_URL/);
    expect(
      load({
        IDP_OKTA_CLIENT_ID: 'x',
        IDP_OKTA_ISSUER: 'https://okta.example.com',
        IDP_OKTA_JWKS_URL: 'https://okta.example.com/keys',
      }).identityProviders.okta,
    ).toMatchObject({ issuers: ['https://okta.example.com'] });
  });

  it('refuses an upload read limit below the photo limit', () => {
    expect(() => load({ PROFILE_PHOTO_MAX_BYTES: '2000000', UPLOAD_MAX_BYTES: '1000000' })).toThrow(
      /UPLOAD_MAX_BYTES/,
    );
    expect(load({}).UPLOAD_MAX_BYTES).toBe(10 * 1024 * 1024);
  });
});
