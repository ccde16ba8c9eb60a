/**
 * A fake identity provider: a real HTTP server publishing a JSON Web Key Set (keys made with jose's
 * generateKeyPair) and signing ID tokens with SignJWT. Other paths misbehave on purpose:
 * /broken answers 500, /slow never answers (for timeouts), /malformed (and any path under it, for
 * providers of their own) answers 200 with the body `answerMalformed` set (a key set that is not
 * JSON, of the wrong shape, or with unusable keys).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWTPayload } from 'jose';
import { afterAll } from 'vitest';
import { clock } from '../../src/base/clock.ts';

export interface SignOptions {
  /** key id in the header (default the published key's) */
  kid?: string;
  /** sign with another private key (a forged signature) */
  key?: CryptoKey;
  /** `exp` as seconds from now (default 600; negative for an expired token) */
  expiresIn?: number;
  alg?: string;
}

export interface FakeIdp {
  /** base URL, usable as a custom issuer */
  url: string;
  /** the published key set */
  jwksUrl: string;
  /** a key set URL answering 500 */
  brokenJwksUrl: string;
  /** a key set URL that never answers */
  slowJwksUrl: string;
  /** a key set URL answering 200 with the body of `answerMalformed` (also `<it>/<anything>`) */
  malformedJwksUrl: string;
  /** what /malformed answers from now on (JSON content type unless given) */
  answerMalformed(body: string, contentType?: string): void;
  /** the published key as a JWK (to build malformed variants of it) */
  publicJwk: Record<string, unknown>;
  /** how many times the key set was fetched */
  fetches: number;
  /** an ID token with these claims (iss, aud, sub, email ... as given) */
  sign(claims: JWTPayload, options?: SignOptions): Promise<string>;
  /** a private key that is not in the key set */
  foreignKey: CryptoKey;
}

export async function startFakeIdp(): Promise<FakeIdp> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const foreign = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const hanging = new Set<import('node:http').ServerResponse>();
  const fake = { fetches: 0 } as FakeIdp;
  let malformed = { body: '{}', contentType: 'application/json' };
  const server = createServer((req, res) => {
    if (req.url === '/keys') {
      fake.fetches++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [jwk] }));
    } else if (req.url?.startsWith('/malformed')) {
      res.writeHead(200, { 'content-type': malformed.contentType }).end(malformed.body);
    } else if (req.url === '/broken') {
      res.writeHead(500).end('oops');
    } else if (req.url === '/slow') {
      hanging.add(res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  afterAll(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return Object.assign(fake, {
    url,
    jwksUrl: `${url}/keys`,
    brokenJwksUrl: `${url}/broken`,
    slowJwksUrl: `${url}/slow`,
    malformedJwksUrl: `${url}/malformed`,
    answerMalformed: (body: string, contentType = 'application/json') =>
      void (malformed = { body, contentType }),
    publicJwk: jwk as Record<string, unknown>,
    foreignKey: foreign.privateKey,
    sign: (claims: JWTPayload, options: SignOptions = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? jwk.kid })
        .setIssuedAt()
        .setExpirationTime(Math.floor(clock.ms() / 1000) + (options.expiresIn ?? 600))
        .sign(options.key ?? privateKey),
  });
}
