/**
 * Login sessions: creating them (bearer token for the phone, cookie for the web), the current web
 * session, web sign-out, the session list, revoking one session, and revokeAllCredentials (every
 * credential of an account at once).
 * Session tokens are JWTs naming a session row; see src/auth/authenticate.ts for how they are checked.
 */
import { clearedSessionCookies, sessionCookies } from '../../auth/cookies.ts';
import { csrfTokenFor, newSessionId, signAccessToken } from '../../auth/credentials.ts';
import type { DbTx } from '../../db/client.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { revokeAllOAuthConnections } from '../oauth/index.ts';
import { revokeAllPersonalTokens } from '../tokens/index.ts';
import { ACK } from './account.shared.ts';
import type { Ack } from './account.shared.ts';
import { clock } from '../../base/clock.ts';

export interface CreateSessionOptions {
  userId: number;
  /** native: bearer token for the phone; web: cookie */
  kind: 'native' | 'web';
}

export interface IssuedSession {
  token: string;
  sessionId: string;
  expiresIn: number;
}

/** Records a session row under the user's current epoch and signs its token. */
export async function createSession(
  ctx: Context,
  options: CreateSessionOptions,
): Promise<IssuedSession> {
  const ttl = ctx.config.ACCESS_TOKEN_TTL_DAYS * 86_400;
  const user = await ctx.prisma.user.findUniqueOrThrow({
    where: { id: options.userId },
    select: { sessionEpoch: true },
  });
  const sessionId = newSessionId();
  await ctx.prisma.session.create({
    data: {
      id: sessionId,
      userId: options.userId,
      kind: options.kind,
      userAgent: ctx.userAgent?.slice(0, 300) ?? null,
      ip: ctx.ip,
      epoch: user.sessionEpoch,
      expiresAt: new Date(clock.ms() + ttl * 1000),
    },
  });
  const token = await signAccessToken(
    ctx.config.jwtSecret,
    { sub: String(options.userId), sid: sessionId, epoch: user.sessionEpoch },
    ttl,
  );
  return { token, sessionId, expiresIn: ttl };
}

export interface WebSessionStart {
  sessionId: string;
  /** echo it in the X-CSRF-Token header on state-changing requests (also set as the hdp_csrf cookie) */
  csrfToken: string;
  expiresIn: number;
  userId: number;
}

/**
 * Starts a web session: the token goes only into the HttpOnly cookie (ctx.responseCookies), never
 * into the answer; the CSRF token is answered and also set as a readable cookie.
 */
export async function startWebSession(ctx: Context, userId: number): Promise<WebSessionStart> {
  const issued = await createSession(ctx, { userId, kind: 'web' });
  const csrfToken = csrfTokenFor(ctx.config.jwtSecret, issued.sessionId);
  ctx.responseCookies.push(
    ...sessionCookies(issued.token, csrfToken, issued.expiresIn, {
      secure: ctx.config.cookieSecure,
    }),
  );
  return { sessionId: issued.sessionId, csrfToken, expiresIn: issued.expiresIn, userId };
}

/** The caller's session as WebSessionOut: a CSRF token only for a web (cookie) session. */
export interface WebSessionView {
  userId: number;
  /** null for a bearer (phone) session, which needs no CSRF token */
  csrfToken: string | null;
  /** seconds until the session expires */
  expiresIn: number;
}

/** The current login session (GET /api/auth/web/session): who is signed in, and the CSRF token. */
export async function webSession(ctx: AuthedContext): Promise<WebSessionView> {
  const principal = ctx.principal;
  if (principal.kind !== 'session')
    throw appError('FORBIDDEN', 'Not allowed for this kind of credential');
  const session = await ctx.prisma.session.findUniqueOrThrow({
    where: { id: principal.sessionId },
    select: { expiresAt: true },
  });
  return {
    userId: principal.userId,
    csrfToken:
      principal.sessionKind === 'web'
        ? csrfTokenFor(ctx.config.jwtSecret, principal.sessionId)
        : null,
    expiresIn: Math.max(0, Math.floor((session.expiresAt.getTime() - clock.ms()) / 1000)),
  };
}

/** Clears the session cookies when the caller is a web (cookie) session whose session just ended. */
export function clearCookiesOfWebCaller(ctx: Context): void {
  if (ctx.principal?.kind === 'session' && ctx.principal.sessionKind === 'web') {
    ctx.responseCookies.push(...clearedSessionCookies({ secure: ctx.config.cookieSecure }));
  }
}

/**
 * Web sign-out: revokes the cookie's session, if the request carries a live one, and clears the
 * cookies; answers ok in every case. A bearer token sent here is left alone (phones revoke
 * their session through POST /api/auth/sessions/{sid}/revoke).
 */
export async function webLogout(ctx: Context): Promise<Ack> {
  const principal = ctx.principal;
  if (principal?.kind === 'session' && principal.sessionKind === 'web') {
    await ctx.prisma.session.updateMany({
      where: { id: principal.sessionId, revokedAt: null },
      data: { revokedAt: clock.now() },
    });
    await ctx.credentials.revoked(principal.userId);
  }
  ctx.responseCookies.push(...clearedSessionCookies({ secure: ctx.config.cookieSecure }));
  return ACK;
}

export interface RevokeAllCredentialsOptions {
  /** the account whose credentials end */
  userId: number;
  /** the instant of the revocation, written to every revoked row */
  at: Date;
}

/** How many credentials of each kind revokeAllCredentials ended. */
export interface RevokedCredentials {
  /** personal tokens that were live (or expired but not yet revoked) */
  personalTokens: number;
  /** OAuth connections (with every token of theirs) that were not revoked yet */
  oauthConnections: number;
}

/**
 * Ends every credential of an account at once, inside the caller's transaction: the one place that
 * knows what "every credential" means, used by revoke-all, password reset and account deletion
 * (its first step). Each kind is rejected on its next request (src/auth/authenticate.ts checks all
 * of them on every request):
 * - login tokens and cookies: the session epoch is bumped, so every one minted before is stale;
 * - personal tokens: revoked_at is set on each one not yet revoked;
 * - OAuth connections: revoked_at is set on each one, which ends its access and refresh tokens.
 * A new kind of credential is ended here too, by its domain's
 * `revokeAll...(tx, { userId, at })`, so that no door that signs an account out can forget it.
 * NOTE: once the transaction commits, the caller calls `ctx.credentials.revoked(userId)`, which ends
 * the cached sessions (src/auth/credential-cache.ts); inside it, a lookup could cache them again.
 */
export async function revokeAllCredentials(
  tx: DbTx,
  options: RevokeAllCredentialsOptions,
): Promise<RevokedCredentials> {
  const { userId, at } = options;
  await tx.user.update({ where: { id: userId }, data: { sessionEpoch: { increment: 1 } } });
  const personalTokens = await revokeAllPersonalTokens(tx, { userId, at });
  const oauthConnections = await revokeAllOAuthConnections(tx, { userId, at });
  return { personalTokens, oauthConnections };
}

/**
 * Signs the account out everywhere (revokeAllCredentials): every login token, cookie and personal
 * token minted before is rejected on its next request, the caller's own included, whichever kind
 * it is. A personal token that calls this (an assistant over MCP) ends itself too: it was minted
 * before now, and a stolen token must not be able to sign the owner out while keeping its access.
 */
export async function revokeAllSessions(ctx: AuthedContext): Promise<Ack> {
  const userId = ctx.principal.userId;
  await ctx.prisma.$transaction((tx) => revokeAllCredentials(tx, { userId, at: clock.now() }));
  await ctx.credentials.revoked(userId);
  clearCookiesOfWebCaller(ctx);
  return ACK;
}

export interface RevokeSessionOptions {
  /** the session's id, as listed by sessions */
  sid: string;
}

/** Revokes one of the caller's sessions (404 for an unknown id or another person's). */
export async function revokeSession(
  ctx: AuthedContext,
  options: RevokeSessionOptions,
): Promise<SessionView> {
  // NOTE: ownership is part of the where: another person's session id answers 404 like an unknown one.
  const row = await ctx.prisma.session.findFirst({
    where: { id: options.sid, userId: ctx.principal.userId },
  });
  if (!row) throw appError('NOT_FOUND', 'Session not found');
  const revoked = row.revokedAt
    ? row
    : await ctx.prisma.session.update({ where: { id: row.id }, data: { revokedAt: clock.now() } });
  await ctx.credentials.revoked(row.userId);
  const current = ctx.principal.kind === 'session' && ctx.principal.sessionId === row.id;
  if (current) clearCookiesOfWebCaller(ctx);
  return sessionView(revoked, current);
}

export interface SessionView {
  id: string;
  kind: string;
  userAgent: string | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  current: boolean;
}

/** The caller's live sessions, newest first; `current` marks the one making this request. */
export async function sessions(ctx: AuthedContext): Promise<SessionView[]> {
  const epoch = await ctx.prisma.user.findUniqueOrThrow({
    where: { id: ctx.principal.userId },
    select: { sessionEpoch: true },
  });
  const rows = await ctx.prisma.session.findMany({
    where: {
      userId: ctx.principal.userId,
      revokedAt: null,
      expiresAt: { gt: clock.now() },
      epoch: epoch.sessionEpoch,
    },
    orderBy: { createdAt: 'desc' },
  });
  const currentId = ctx.principal.kind === 'session' ? ctx.principal.sessionId : null;
  return rows.map((s) => sessionView(s, s.id === currentId));
}

function sessionView(s: Omit<SessionView, 'current'>, current: boolean): SessionView {
  return {
    id: s.id,
    kind: s.kind,
    userAgent: s.userAgent,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    expiresAt: s.expiresAt,
    current,
  };
}
