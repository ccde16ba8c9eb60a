/**
 * The token endpoint's rules (docs/mcp-oauth.md section 8) and revocation (section 9): a code is
 * exchanged once for a new connection and its first tokens; a refresh token rotates on every use;
 * a replayed code or a reused rotated refresh token ends the connection. Tokens are opaque, 256
 * random bits behind a prefix; only their sha256 is stored.
 *
 * NOTE: every claim (a code's `used_at`, a refresh token's `rotated_at`, a grace retry's revocation
 * of the successor) is a conditional update, so two concurrent requests with one secret cannot both
 * win.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { newOAuthAccessToken, sha256 } from '../../auth/credentials.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { ConnectionRevokedReason } from './oauth.connections.ts';
import { clock } from '../../base/clock.ts';

/** Recognisable prefix of refresh tokens. */
export const OAUTH_REFRESH_TOKEN_PREFIX = 'hdp_ort_';
/** Access tokens live an hour (never past their connection). */
export const ACCESS_TOKEN_TTL_MS = 3_600_000;
/** A connection lasts at most 365 days; then the person approves again. */
export const CONNECTION_TTL_MS = 365 * 86_400_000;
/**
 * A rotated refresh token presented again within this time, while its successor is unused, is a
 * client that lost our answer: it gets a new pair once, and only once (docs/decisions.md).
 */
export const REFRESH_GRACE_MS = 120_000;
/** Housekeeping at each refresh: expired access tokens and old rotated refresh tokens go. */
const EXPIRED_ACCESS_KEEP_MS = 86_400_000;
const ROTATED_REFRESH_KEEP_MS = 30 * 86_400_000;

/** An OAuth error the token and revocation endpoints answer with 400. */
export type GrantRefusalCode = 'invalid_grant' | 'invalid_target' | 'invalid_scope';

export class OAuthGrantRefused extends Error {
  constructor(
    readonly code: GrantRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'OAuthGrantRefused';
  }
}

const refused = (code: GrantRefusalCode, message: string) => new OAuthGrantRefused(code, message);
const secretLooksValid = (secret: string, prefix: string) =>
  secret.startsWith(prefix) && secret.length <= 100;

/** The PKCE challenge of a live code of this client (the SDK verifies the verifier against it). */
export async function challengeForCode(db: Db, clientId: string, code: string): Promise<string> {
  const row = secretLooksValid(code, 'hdp_oac_')
    ? await db.oAuthAuthorizationCode.findUnique({ where: { codeHash: sha256(code) } })
    : null;
  if (!row || row.clientId !== clientId)
    throw refused('invalid_grant', 'Unknown authorization code');
  return row.codeChallenge;
}

/** Ends a connection and every token of it, inside the caller's transaction. */
export async function endConnection(
  tx: DbTx,
  connectionId: number,
  reason: ConnectionRevokedReason,
): Promise<void> {
  const at = clock.now();
  await tx.oAuthConnection.updateMany({
    where: { id: connectionId, revokedAt: null },
    data: { revokedAt: at, revokedReason: reason },
  });
  await tx.oAuthToken.updateMany({
    where: { connectionId, revokedAt: null },
    data: { revokedAt: at },
  });
}

interface Grant {
  connectionId: number;
  userId: number;
  scopes: string[];
  resource: string;
  connectionExpiresAt: Date;
}

/** A new access and refresh token pair of a connection, answered as the token response. */
async function issueTokens(
  tx: DbTx,
  grant: Grant,
): Promise<{ tokens: OAuthTokens; refreshId: number }> {
  const now = clock.ms();
  const accessToken = newOAuthAccessToken();
  const refreshToken = OAUTH_REFRESH_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const accessExpires = Math.min(now + ACCESS_TOKEN_TTL_MS, grant.connectionExpiresAt.getTime());
  const common = {
    connectionId: grant.connectionId,
    userId: grant.userId,
    scopes: grant.scopes,
    resource: grant.resource,
  };
  const refresh = await tx.oAuthToken.create({
    data: {
      ...common,
      tokenHash: sha256(refreshToken),
      kind: 'refresh',
      expiresAt: grant.connectionExpiresAt,
    },
  });
  await tx.oAuthToken.create({
    data: {
      ...common,
      tokenHash: sha256(accessToken),
      kind: 'access',
      expiresAt: new Date(accessExpires),
      refreshId: refresh.id,
    },
  });
  return {
    refreshId: refresh.id,
    tokens: {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.floor((accessExpires - now) / 1000)),
      refresh_token: refreshToken,
      scope: grant.scopes.join(' '),
    },
  };
}

export interface ExchangeCodeOptions {
  clientId: string;
  code: string;
  /** redirect_uri of the token request (required when /authorize named one) */
  redirectUri?: string;
  /** resource of the token request (must equal the code's when sent) */
  resource?: string;
}

/**
 * Exchanges a code (PKCE already verified by the caller) for a new connection of 365 days and its
 * first tokens. A code is single use: presenting it again ends the connection it made.
 */
export async function exchangeCode(db: Db, options: ExchangeCodeOptions): Promise<OAuthTokens> {
  const codeHash = sha256(options.code);
  const now = clock.now();
  const outcome = await db.$transaction(async (tx) => {
    const row = await tx.oAuthAuthorizationCode.findUnique({ where: { codeHash } });
    if (!row || row.clientId !== options.clientId) {
      return refused('invalid_grant', 'Unknown authorization code');
    }
    const claimed = await tx.oAuthAuthorizationCode.updateMany({
      where: { id: row.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (claimed.count === 0) {
      // NOTE: a replayed code means it leaked: what it issued ends (RFC 6749 section 4.1.2).
      if (row.connectionId !== null) await endConnection(tx, row.connectionId, 'code_replay');
      return refused('invalid_grant', 'Authorization code expired or already used');
    }
    if (row.redirectUriGiven && options.redirectUri !== row.redirectUri) {
      throw refused('invalid_grant', 'redirect_uri differs from the authorization request');
    }
    if (options.resource !== undefined && options.resource !== row.resource) {
      throw refused('invalid_target', 'resource differs from the authorization request');
    }
    const client = await tx.oAuthClient.findUniqueOrThrow({
      select: { name: true },
      where: { id: row.clientId },
    });
    const connection = await tx.oAuthConnection.create({
      data: {
        userId: row.userId,
        clientId: row.clientId,
        clientName: client.name ?? row.clientId,
        redirectUri: row.redirectUri,
        scopes: row.scopes,
        resource: row.resource,
        expiresAt: new Date(now.getTime() + CONNECTION_TTL_MS),
      },
    });
    await tx.oAuthAuthorizationCode.update({
      where: { id: row.id },
      data: { connectionId: connection.id },
    });
    const { tokens } = await issueTokens(tx, {
      connectionId: connection.id,
      userId: row.userId,
      scopes: row.scopes,
      resource: row.resource,
      connectionExpiresAt: connection.expiresAt,
    });
    return tokens;
  });
  // the refusals that end a connection must commit, so they are answered, not thrown, above
  if (outcome instanceof OAuthGrantRefused) throw outcome;
  return outcome;
}

export interface RefreshOptions {
  clientId: string;
  refreshToken: string;
  /** a narrower set of the grant's scopes (never wider) */
  scopes?: string[];
  resource?: string;
}

/**
 * Rotates a refresh token: a new pair, the old one spent. A spent token presented again within the
 * grace while its successor is unused gets a new pair once more (the successor and its access token
 * end); any other reuse, a second one within the grace included, ends the connection.
 */
export async function refreshTokens(db: Db, options: RefreshOptions): Promise<OAuthTokens> {
  const now = clock.now();
  const row = secretLooksValid(options.refreshToken, OAUTH_REFRESH_TOKEN_PREFIX)
    ? await db.oAuthToken.findUnique({
        where: { tokenHash: sha256(options.refreshToken) },
        include: { connection: true },
      })
    : null;
  const connection = row?.connection;
  const invalid = refused('invalid_grant', 'Refresh token is not valid: authorize again');
  if (!row || !connection || row.kind !== 'refresh' || connection.clientId !== options.clientId) {
    throw invalid;
  }
  if (connection.revokedAt !== null || connection.expiresAt <= now || row.expiresAt <= now) {
    throw invalid;
  }
  if (row.revokedAt !== null) {
    // NOTE: a live connection's refresh token is revoked only as the successor a grace retry
    // replaced: someone else holds it, so the connection ends (docs/mcp-oauth.md section 8).
    await db.$transaction((tx) => endConnection(tx, connection.id, 'refresh_reuse'));
    throw invalid;
  }
  if (options.resource !== undefined && options.resource !== row.resource) {
    throw refused('invalid_target', 'resource differs from the grant');
  }
  const scopes = options.scopes ?? row.scopes;
  if (scopes.some((s) => !row.scopes.includes(s))) {
    throw refused('invalid_scope', 'A refresh may only narrow the granted scopes');
  }
  const grant: Grant = {
    connectionId: connection.id,
    userId: row.userId,
    scopes: [...new Set(scopes)],
    resource: row.resource,
    connectionExpiresAt: connection.expiresAt,
  };
  const outcome = await db.$transaction(async (tx) => {
    const claimed = await tx.oAuthToken.updateMany({
      where: { id: row.id, rotatedAt: null, revokedAt: null },
      data: { rotatedAt: now },
    });
    if (claimed.count === 0 && !(await withinGrace(tx, row.id, now))) {
      await endConnection(tx, connection.id, 'refresh_reuse');
      return refused('invalid_grant', 'Refresh token was already used: authorize again');
    }
    const { tokens, refreshId } = await issueTokens(tx, grant);
    // NOTE: a grace retry leaves `successorId` on the successor it ended, so the spent token's next
    // presentation finds that one revoked and ends the connection: the grace serves once.
    if (claimed.count === 1) {
      await tx.oAuthToken.update({ where: { id: row.id }, data: { successorId: refreshId } });
    }
    await tx.oAuthToken.deleteMany({
      where: {
        connectionId: connection.id,
        OR: [
          { kind: 'access', expiresAt: { lt: new Date(now.getTime() - EXPIRED_ACCESS_KEEP_MS) } },
          {
            kind: 'refresh',
            rotatedAt: { lt: new Date(now.getTime() - ROTATED_REFRESH_KEEP_MS) },
          },
        ],
      },
    });
    return tokens;
  });
  if (outcome instanceof OAuthGrantRefused) throw outcome;
  return outcome;
}

/**
 * Whether a spent refresh token may be used once more: rotated within the grace and its successor
 * neither used nor revoked (a revoked successor means its grace was already used). If so the
 * successor ends, with the access token issued beside it (the client never received them).
 */
async function withinGrace(tx: DbTx, tokenId: number, now: Date): Promise<boolean> {
  const spent = await tx.oAuthToken.findUniqueOrThrow({ where: { id: tokenId } });
  if (!spent.rotatedAt || now.getTime() - spent.rotatedAt.getTime() > REFRESH_GRACE_MS)
    return false;
  if (spent.successorId === null) return false;
  // NOTE: conditional, so of concurrent retries one ends the successor and the others end the connection
  const ended = await tx.oAuthToken.updateMany({
    where: { id: spent.successorId, rotatedAt: null, revokedAt: null },
    data: { revokedAt: now },
  });
  if (ended.count === 0) return false;
  await tx.oAuthToken.updateMany({
    where: {
      connectionId: spent.connectionId,
      kind: 'access',
      refreshId: spent.successorId,
      revokedAt: null,
    },
    data: { revokedAt: now },
  });
  return true;
}

/**
 * RFC 7009: an access or refresh token of this client ends its whole connection (reason `client`);
 * an unknown token, or another client's, changes nothing and is no error.
 */
export async function revokeToken(
  db: Db,
  options: { clientId: string; token: string },
): Promise<void> {
  const { token } = options;
  if (!secretLooksValid(token, 'hdp_o')) return;
  const row = await db.oAuthToken.findUnique({
    select: { connection: { select: { id: true, clientId: true } } },
    where: { tokenHash: sha256(token) },
  });
  if (!row || row.connection.clientId !== options.clientId) return;
  await db.$transaction((tx) => endConnection(tx, row.connection.id, 'client'));
}
