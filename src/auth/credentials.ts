/**
 * Secrets: argon2id password hashes, login JWTs (jose, HS256), personal-token and OAuth access-token
 * secrets, emailed
 * sign-in codes and password-reset tokens.
 * NOTE: personal-token secrets and reset tokens are 256 random bits, so a plain sha256 is the right
 * at-rest hash (no dictionary to slow down); passwords are low-entropy and get argon2id; six-digit
 * codes are too low-entropy for any hash to protect, so they are keyed with the server secret and
 * a per-row nonce (a database dump alone cannot test guesses) and guarded by attempt limits.
 */
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { jwtVerify, SignJWT } from 'jose';
import { clock } from '../base/clock.ts';

/** Recognisable prefix of personal tokens (secret scanners can match it). */
export const PERSONAL_TOKEN_PREFIX = 'hdp_pat_';
/** Recognisable prefix of OAuth access tokens of the MCP host (docs/mcp-oauth.md section 5). */
export const OAUTH_ACCESS_TOKEN_PREFIX = 'hdp_oat_';

/** argon2id (the library's default algorithm; m=19 MiB, t=2, p=1 as OWASP recommends). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verifying against this when the account does not exist keeps both cases equally slow.
const dummyHash = hashPassword(randomBytes(16).toString('hex'));

/** argon2id verify; with no stored hash it still spends the same time and answers false. */
export async function verifyPassword(
  stored: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!stored) {
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

export interface AccessClaims {
  sub: string;
  sid: string;
  epoch: number;
}

export async function signAccessToken(
  secret: Uint8Array,
  claims: AccessClaims,
  ttlSeconds: number,
): Promise<string> {
  return new SignJWT({ sid: claims.sid, epoch: claims.epoch })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(Math.floor(clock.ms() / 1000) + ttlSeconds)
    .sign(secret);
}

/** A login token's verified claims and when it expires. */
export interface VerifiedClaims extends AccessClaims {
  expiresAtMs: number;
}

/** Verified claims, or null for any malformed, forged or expired token. */
export async function verifyAccessToken(
  secret: Uint8Array,
  token: string,
): Promise<VerifiedClaims | null> {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'] });
    if (
      typeof payload.sub !== 'string' ||
      typeof payload.sid !== 'string' ||
      typeof payload.epoch !== 'number' ||
      typeof payload.exp !== 'number'
    ) {
      return null;
    }
    const { sub, sid, epoch, exp } = payload;
    return { sub, sid, epoch, expiresAtMs: exp * 1000 };
  } catch {
    return null;
  }
}

export function newSessionId(): string {
  return randomBytes(18).toString('base64url');
}

export function newPersonalTokenSecret(): string {
  return PERSONAL_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** An OAuth access token: 256 random bits behind its prefix (only its sha256 is stored). */
export function newOAuthAccessToken(): string {
  return OAUTH_ACCESS_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** A six-digit sign-in code, uniformly random (leading zeros kept). */
export function newEmailCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

function emailCodeMac(secret: Uint8Array, email: string, nonce: string, code: string): string {
  return createHmac('sha256', secret)
    .update(`email-code\0${email}\0${nonce}\0${code}`)
    .digest('base64url');
}

/** The stored form of a code: `nonce.hmac`, bound to this row (fresh nonce) and its address. */
export function hashEmailCode(secret: Uint8Array, email: string, code: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${nonce}.${emailCodeMac(secret, email, nonce, code)}`;
}

/** Whether `code` is the one `stored` (from hashEmailCode) was made from, in constant time. */
export function emailCodeMatches(
  secret: Uint8Array,
  stored: string,
  email: string,
  code: string,
): boolean {
  const [nonce, mac] = stored.split('.');
  return !!nonce && !!mac && safeEqual(emailCodeMac(secret, email, nonce, code), mac);
}

/** A password-reset token for an emailed link: 256 random bits (only its sha256 is stored). */
export function newResetToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** CSRF token of a web session: derived, so nothing extra is stored. */
export function csrfTokenFor(secret: Uint8Array, sessionId: string): string {
  return createHmac('sha256', secret).update(`csrf:${sessionId}`).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
