/**
 * Resolves the caller once per request: `Authorization: Bearer <login JWT | personal token | OAuth
 * access token>` or the web session cookie. An OAuth access token counts only on a door that names
 * its resource (`oauthResource`: the OAuth host's /mcp). Invalid or revoked credentials resolve to
 * no principal (the field's auth scopes then answer UNAUTHENTICATED); a cookie-authenticated state
 * change without the CSRF header is refused outright.
 *
 * NOTE: every check that makes revocation immediate lives here: the session row must exist, be
 * unrevoked and unexpired, and its epoch must equal the user's current session epoch. The same goes
 * for view-as: a credential's `viewAsGrantId` is honoured only while its grant is active, unexpired
 * and names the caller as grantee (src/auth/view-as.ts); otherwise view-as ends here, silently, and
 * the principal reads its own data.
 * A session or personal token found valid is then served from the credential cache for up to
 * TOUCH_INTERVAL (src/auth/credential-cache.ts), which every revocation ends at once through the
 * account's epoch; credentials with view-as are never cached. Cached principals are shared between
 * requests: never mutate one. Each principal carries the account's profile zone, read with the
 * credential (no statement of its own), which a zone change ends through the same epoch.
 */
import type { Db } from '../db/client.ts';
import { appError } from '../base/errors.ts';
import { msValue } from '../db/sql-time.ts';
import {
  csrfTokenFor,
  OAUTH_ACCESS_TOKEN_PREFIX,
  PERSONAL_TOKEN_PREFIX,
  safeEqual,
  sha256,
  verifyAccessToken,
} from './credentials.ts';
import type { Principal, ViewAs } from './principal.ts';
import { NEVER_OVER_OAUTH } from './scope-families.ts';
import { ALL_SCOPES, isScope } from './scopes.ts';
import { CREDENTIAL_CACHE_MS } from './credential-cache.ts';
import type { CredentialCache } from './credential-cache.ts';
import { grantPermitsViewAs } from './view-as.ts';
import { clock } from '../base/clock.ts';

export const SESSION_COOKIE = 'hdp_session';
export const CSRF_HEADER = 'x-csrf-token';

/** How often last-used timestamps are written (not on every request); the credential cache's life. */
const TOUCH_INTERVAL_MS = CREDENTIAL_CACHE_MS;

export interface CredentialInput {
  authorization?: string | null;
  cookie?: string | null;
  csrfToken?: string | null;
  method: string;
  /**
   * The protected resource this door serves (`<origin>/mcp` on the OAuth host): only then is an
   * OAuth access token (`hdp_oat_`) a credential, and only one issued for exactly this resource.
   * Every other door passes none, so an OAuth token there is no credential (401).
   */
  oauthResource?: string | null;
}

export interface AuthDeps {
  prisma: Db;
  jwtSecret: Uint8Array;
  /** credentials recently found valid (src/auth/credential-cache.ts) */
  credentials: CredentialCache;
}

function bearerOf(header: string | null | undefined): string | null {
  const m = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return m ? m[1] : null;
}

function cookieValue(header: string | null | undefined, name: string): string | null {
  for (const part of header?.split(';') ?? []) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name)
      return decodeURIComponent(part.slice(i + 1).trim());
  }
  return null;
}

/**
 * The view-as of a credential whose `viewAsGrantId` is `grantId`, or null. A grant that no longer
 * permits it (revoked, expired, not the caller's) ends view-as: `clear` forgets it on the credential.
 */
async function viewAsOf(
  deps: AuthDeps,
  userId: number,
  grantId: number | null,
  clear: () => Promise<unknown>,
): Promise<ViewAs | null> {
  if (grantId === null) return null;
  const grant = await deps.prisma.accessGrant.findUnique({
    where: { id: grantId },
    select: { ownerId: true, granteeId: true, status: true, expiresAt: true },
  });
  if (grant && grantPermitsViewAs(grant, userId)) return { grantId, ownerId: grant.ownerId };
  await clear();
  return null;
}

async function sessionPrincipal(
  deps: AuthDeps,
  token: string,
  via: 'native' | 'web',
): Promise<Principal | null> {
  const now = clock.ms();
  const cached = (await deps.credentials.get(token, now))?.principal;
  if (cached) return cached.kind === 'session' && cached.sessionKind === via ? cached : null;
  const claims = await verifyAccessToken(deps.jwtSecret, token);
  if (!claims) return null;
  // read before the session: a revocation committed after this read bumps past it (credential-cache.ts)
  const epoch = await deps.credentials.epochOf(Number(claims.sub));
  const session = await deps.prisma.session.findUnique({
    where: { id: claims.sid },
    select: {
      userId: true,
      kind: true,
      epoch: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      viewAsGrantId: true,
      user: { select: { sessionEpoch: true, isAdmin: true, timezone: true } },
    },
  });
  if (
    !session ||
    session.revokedAt ||
    session.expiresAt.getTime() <= now ||
    String(session.userId) !== claims.sub ||
    session.epoch !== claims.epoch ||
    session.user.sessionEpoch !== claims.epoch ||
    session.kind !== via
  ) {
    return null;
  }
  if (now - session.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await deps.prisma.session.update({
      where: { id: claims.sid },
      data: { lastUsedAt: new Date(now) },
    });
  }
  const viewAs = await viewAsOf(deps, session.userId, session.viewAsGrantId, () =>
    deps.prisma.session.updateMany({
      where: { id: claims.sid, viewAsGrantId: session.viewAsGrantId },
      data: { viewAsGrantId: null },
    }),
  );
  const principal: Principal = {
    kind: 'session',
    userId: session.userId,
    sessionId: claims.sid,
    sessionKind: via,
    isAdmin: session.user.isAdmin,
    scopes: ALL_SCOPES,
    viewAs,
    zone: session.user.timezone,
  };
  if (session.viewAsGrantId === null) {
    const expiresAtMs = Math.min(session.expiresAt.getTime(), claims.expiresAtMs);
    deps.credentials.set(token, { principal, expiresAtMs }, epoch);
  }
  return principal;
}

async function personalTokenPrincipal(deps: AuthDeps, secret: string): Promise<Principal | null> {
  const now = clock.ms();
  const cached = (await deps.credentials.get(secret, now))?.principal;
  if (cached) return cached.kind === 'personal_token' ? cached : null;
  const token = await deps.prisma.personalToken.findUnique({
    where: { tokenHash: sha256(secret) },
    select: {
      id: true,
      userId: true,
      scopes: true,
      expiresAt: true,
      revokedAt: true,
      lastUsedAt: true,
      viewAsGrantId: true,
    },
  });
  if (!token || token.revokedAt || (token.expiresAt && token.expiresAt.getTime() <= now))
    return null;
  // the account is known only now: its epoch is read after the lookup, so caching waits for a
  // second look at the row below (a revocation between the two would otherwise be missed)
  const epoch = await deps.credentials.epochOf(token.userId);
  if (!token.lastUsedAt || now - token.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await deps.prisma.personalToken.update({
      where: { id: token.id },
      data: { lastUsedAt: new Date(now) },
    });
  }
  const viewAs = await viewAsOf(deps, token.userId, token.viewAsGrantId, () =>
    deps.prisma.personalToken.updateMany({
      where: { id: token.id, viewAsGrantId: token.viewAsGrantId },
      data: { viewAsGrantId: null },
    }),
  );
  const principal: Principal = {
    kind: 'personal_token',
    userId: token.userId,
    tokenId: token.id,
    isAdmin: false,
    scopes: new Set(token.scopes.filter(isScope)),
    viewAs,
  };
  if (token.viewAsGrantId === null && epoch !== null) {
    // the second look also reads the account's zone: after the epoch, so a zone change racing
    // this lookup is either seen here or bumps past the epoch it is cached under
    const live = await deps.prisma.personalToken.findFirst({
      where: { id: token.id, revokedAt: null },
      select: { user: { select: { timezone: true } } },
    });
    const expiresAtMs = token.expiresAt?.getTime() ?? Number.MAX_SAFE_INTEGER;
    if (live) {
      const withZone: Principal = { ...principal, zone: live.user.timezone };
      deps.credentials.set(secret, { principal: withZone, expiresAtMs }, epoch);
      return withZone;
    }
  }
  return principal;
}

/**
 * An OAuth access token for `resource` (docs/mcp-oauth.md section 5): the token unrevoked and
 * unexpired, its connection unrevoked and unexpired, the resource equal. Scopes are the token's
 * within the connection's (known ones, never orders:pay). NOTE: view-as is not offered over OAuth
 * yet: the principal reads its own data.
 */
async function oauthPrincipal(
  deps: AuthDeps,
  secret: string,
  resource: string,
): Promise<Principal | null> {
  // NOTE: one statement (token joined to its connection and account, every validity rule in the
  // WHERE), so an OAuth call costs the database what a personal-token call does (docs/benchmarks.md).
  const now = clock.ms();
  const rows = await deps.prisma.$queryRaw<OAuthAccessRow[]>`
    SELECT t.id AS token_id, t.user_id, t.scopes AS token_scopes, c.id AS connection_id,
           c.client_id, c.scopes AS connection_scopes, u.timezone,
           floor(extract(epoch from c.last_used_at) * 1000)::float8 AS last_used_ms
      FROM oauth_tokens t JOIN oauth_connections c ON c.id = t.connection_id
      JOIN users u ON u.id = t.user_id
     WHERE t.token_hash = ${sha256(secret)} AND t.kind = 'access'
       AND t.revoked_at IS NULL AND t.expires_at > ${msValue(now)} AND t.resource = ${resource}
       AND c.revoked_at IS NULL AND c.expires_at > ${msValue(now)} AND c.resource = ${resource}
       AND c.user_id = t.user_id`;
  const row = rows[0];
  if (!row) return null;
  if (row.last_used_ms === null || now - row.last_used_ms > TOUCH_INTERVAL_MS) {
    await deps.prisma.oAuthConnection.update({
      where: { id: row.connection_id },
      data: { lastUsedAt: new Date(now) },
    });
  }
  const approved = new Set(row.connection_scopes);
  return {
    kind: 'oauth',
    userId: row.user_id,
    connectionId: row.connection_id,
    tokenId: row.token_id,
    clientId: row.client_id,
    isAdmin: false,
    scopes: new Set(
      row.token_scopes.filter(isScope).filter((s) => approved.has(s) && !NEVER_OVER_OAUTH.has(s)),
    ),
    viewAs: null,
    zone: row.timezone,
  };
}

/** One live access token of a connection for the door's resource (oauthPrincipal's statement). */
interface OAuthAccessRow {
  token_id: number;
  user_id: number;
  token_scopes: string[];
  connection_id: number;
  client_id: string;
  connection_scopes: string[];
  /** the account's profile time zone */
  timezone: string | null;
  last_used_ms: number | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request presents a credential at all: an Authorization header, or the session cookie
 * (a door that refuses invalid credentials answers 401 when it presents one that is not valid).
 */
export function presentsCredential(
  input: Pick<CredentialInput, 'authorization' | 'cookie'>,
): boolean {
  return Boolean(input.authorization) || Boolean(cookieValue(input.cookie, SESSION_COOKIE));
}

/** The caller of one request, or null when no valid credential was presented. */
export async function authenticate(
  deps: AuthDeps,
  input: CredentialInput,
): Promise<Principal | null> {
  const bearer = bearerOf(input.authorization);
  if (bearer) {
    if (bearer.startsWith(OAUTH_ACCESS_TOKEN_PREFIX)) {
      return input.oauthResource ? oauthPrincipal(deps, bearer, input.oauthResource) : null;
    }
    return bearer.startsWith(PERSONAL_TOKEN_PREFIX)
      ? personalTokenPrincipal(deps, bearer)
      : sessionPrincipal(deps, bearer, 'native');
  }
  const cookie = cookieValue(input.cookie, SESSION_COOKIE);
  if (!cookie) return null;
  const principal = await sessionPrincipal(deps, cookie, 'web');
  // NOTE: a cookie rides along on cross-site requests; state changes must prove same-origin intent.
  if (principal?.kind === 'session' && !SAFE_METHODS.has(input.method.toUpperCase())) {
    const expected = csrfTokenFor(deps.jwtSecret, principal.sessionId);
    if (!input.csrfToken || !safeEqual(input.csrfToken, expected)) {
      throw appError('FORBIDDEN', 'CSRF token missing or invalid', {
        detail: 'CSRF token missing or invalid',
      });
    }
  }
  return principal;
}
