/**
 * Accounts and login sessions: register, password login (app, web, admin) with its failure
 * throttle, emailed sign-in codes, web sessions, session lists and revocation, password reset,
 * profile reads and updates.
 * Session tokens are JWTs naming a session row; see src/auth/authenticate.ts for how they are checked.
 * Answers that could tell whether an address has an account (code start, forgot password, login
 * failures) must not differ in bytes or in timing between the two cases: keep it so.
 */
import type { GraphQLError } from 'graphql';
import { clearedSessionCookies, sessionCookies } from '../../auth/cookies.ts';
import {
  csrfTokenFor,
  emailCodeMatches,
  hashEmailCode,
  hashPassword,
  newEmailCode,
  newResetToken,
  newSessionId,
  sha256,
  signAccessToken,
  verifyPassword,
} from '../../auth/credentials.ts';
import type { Config } from '../../config.ts';
import type { DbTx } from '../../db/client.ts';
import { appError } from '../../errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { revokeAllPersonalTokens } from '../tokens/tokens.service.ts';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface RegisterOptions {
  /** the sign-in address; unique, compared case-insensitively */
  email: string;
  /** plain password, hashed with argon2id before it is stored */
  password: string;
  /** display name */
  name?: string | null;
}

/** Creates an account; 409 when the address is taken. */
export async function registerUser(
  ctx: Context,
  options: RegisterOptions,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  const email = normaliseEmail(options.email);
  const passwordHash = await hashPassword(options.password);
  try {
    return await ctx.prisma.user.create({ ...query, data: { email, passwordHash, name: options.name ?? null } });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002') throw appError('CONFLICT', 'Email already registered');
    throw e;
  }
}

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
export async function createSession(ctx: Context, options: CreateSessionOptions): Promise<IssuedSession> {
  const ttl = ctx.config.ACCESS_TOKEN_TTL_DAYS * 86_400;
  const user = await ctx.prisma.user.findUniqueOrThrow({ where: { id: options.userId }, select: { sessionEpoch: true } });
  const sessionId = newSessionId();
  await ctx.prisma.session.create({
    data: {
      id: sessionId,
      userId: options.userId,
      kind: options.kind,
      userAgent: ctx.userAgent?.slice(0, 300) ?? null,
      ip: ctx.ip,
      epoch: user.sessionEpoch,
      expiresAt: new Date(Date.now() + ttl * 1000),
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
  ctx.responseCookies.push(...sessionCookies(issued.token, csrfToken, issued.expiresIn, { secure: ctx.config.cookieSecure }));
  return { sessionId: issued.sessionId, csrfToken, expiresIn: issued.expiresIn, userId };
}

/** The outcome of `{ok: true}` operations (EmailCodeStartOut, forgot and reset password, logout, revoke-all). */
export interface Ack {
  ok: true;
}

const ACK: Ack = { ok: true };
const HOUR = 3600;

type RuleName = 'codesPerAddress' | 'codesPerIp' | 'guessesPerAddress' | 'resetsPerAddress' | 'resetsPerIp' | 'loginFailures';

/** The limits of this domain, from config (documented in .env.example and docs/decisions.md). */
function rules(config: Config): Record<RuleName, LimitRule> {
  return {
    codesPerAddress: { name: 'auth:code:address', points: config.EMAIL_CODES_PER_ADDRESS_PER_HOUR, seconds: HOUR },
    codesPerIp: { name: 'auth:code:ip', points: config.EMAIL_CODES_PER_IP_PER_HOUR, seconds: HOUR },
    guessesPerAddress: { name: 'auth:code-guess:address', points: config.EMAIL_CODE_GUESSES_PER_DAY, seconds: 24 * HOUR },
    resetsPerAddress: { name: 'auth:reset:address', points: config.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR, seconds: HOUR },
    resetsPerIp: { name: 'auth:reset:ip', points: config.PASSWORD_RESETS_PER_IP_PER_HOUR, seconds: HOUR },
    loginFailures: { name: 'auth:login-fail', points: config.LOGIN_FAILURES_PER_15_MINUTES, seconds: 15 * 60 },
  };
}

/** 429 + Retry-After, `detail: {code: "rate_limited"}`. */
function rateLimited(message: string, retryAfter?: number): GraphQLError {
  return appError('RATE_LIMITED', message, { detail: { code: 'rate_limited' }, retryAfter });
}

/** Counts one event under `rule` for `key`; RATE_LIMITED once the rule's events are spent. */
async function spend(ctx: Context, rule: LimitRule, key: string, message: string): Promise<void> {
  const decision = await ctx.limits.take(rule, key);
  if (!decision.allowed) throw rateLimited(message, decision.retryAfterSeconds);
}

function clientIp(ctx: Context): string {
  return ctx.ip ?? 'unknown';
}

export interface PasswordLoginOptions {
  /** the sign-in address, compared case-insensitively */
  email: string;
  /** plain password, checked against the argon2id hash */
  password: string;
}

interface PasswordCheckOptions extends PasswordLoginOptions {
  /** the account must also be an admin's (admin panel login) */
  adminOnly?: boolean;
}

/**
 * The password check of every login door (app, web, admin). Throttled per client IP and address:
 * a failure counts, a success clears the count, and over the limit it answers 429 before any hash
 * is verified. Unknown address, wrong password and (for admin login) a non-admin account give the
 * same 401 bytes and take the same time (the hash is verified against a dummy when there is no account).
 */
async function checkPassword(ctx: Context, options: PasswordCheckOptions): Promise<number> {
  const email = normaliseEmail(options.email);
  const rule = rules(ctx.config).loginFailures;
  const key = `${clientIp(ctx)}|${email}`;
  const standing = await ctx.limits.peek(rule, key);
  if (!standing.allowed) throw rateLimited('Too many failed logins; try again later', standing.retryAfterSeconds);
  const user = await ctx.prisma.user.findUnique({ where: { email }, select: { id: true, passwordHash: true, isAdmin: true } });
  const ok = await verifyPassword(user?.passwordHash, options.password);
  // NOTE: one answer for every failure, so no failure tells an account (or an admin) apart.
  if (!user || !ok || (options.adminOnly && !user.isAdmin)) {
    await ctx.limits.take(rule, key);
    throw appError('UNAUTHENTICATED', 'Incorrect email or password');
  }
  await ctx.limits.reset(rule, key);
  return user.id;
}

/** Password login for the phone: a bearer token. */
export async function loginWithPassword(ctx: Context, options: PasswordLoginOptions): Promise<IssuedSession> {
  return createSession(ctx, { userId: await checkPassword(ctx, options), kind: 'native' });
}

/** Password login for the web: the session cookie is set; the answer carries the CSRF token. */
export async function loginWeb(ctx: Context, options: PasswordLoginOptions): Promise<WebSessionStart> {
  return startWebSession(ctx, await checkPassword(ctx, options));
}

/**
 * Admin panel login: the same throttle and failure answer as the app login, and the account must
 * be an admin. Answers a bearer token of a native session of that admin (the admin scope follows
 * from the account on every request, so demoting an admin takes effect at once).
 */
export async function loginAdmin(ctx: Context, options: PasswordLoginOptions): Promise<IssuedSession> {
  return createSession(ctx, { userId: await checkPassword(ctx, { ...options, adminOnly: true }), kind: 'native' });
}

/** Wrong guesses allowed on one emailed code (the spec's number); then 429 until a new code. */
export const EMAIL_CODE_MAX_GUESSES = 5;

export interface StartEmailCodeOptions {
  /** where to send the code (well-formed, checked by the schema); it need not have an account */
  email: string;
}

/**
 * Emails a six-digit sign-in code. No account is looked up (the account is created on first
 * verify), so the answer is the same whether or not the address has one. A new code supersedes
 * the address's earlier ones: only the newest can be verified.
 */
export async function startEmailCode(ctx: Context, options: StartEmailCodeOptions): Promise<Ack> {
  const email = normaliseEmail(options.email);
  const limits = rules(ctx.config);
  await spend(ctx, limits.codesPerIp, clientIp(ctx), 'Too many sign-in codes requested; try again later');
  await spend(ctx, limits.codesPerAddress, email, 'Too many sign-in codes requested; try again later');
  const code = newEmailCode();
  const minutes = ctx.config.EMAIL_CODE_TTL_MINUTES;
  await ctx.prisma.emailCode.create({
    data: { email, codeHash: hashEmailCode(ctx.config.jwtSecret, email, code), expiresAt: new Date(Date.now() + minutes * 60_000) },
  });
  await sendMail(ctx, {
    to: email,
    subject: `Your sign-in code: ${code}`,
    text: `Your sign-in code is ${code}.\n\nIt expires in ${minutes} minutes and works once. If you did not ask for it, ignore this email.\n`,
  });
  return ACK;
}

async function sendMail(ctx: Context, message: { to: string; subject: string; text: string }): Promise<void> {
  try {
    await ctx.mailer.send(message);
  } catch (err) {
    ctx.log.error({ err }, 'email delivery failed');
    throw appError('UPSTREAM_FAILED', 'The email could not be sent; try again later');
  }
}

export interface VerifyEmailCodeOptions {
  /** the address the code was sent to */
  email: string;
  /** the six digits from the email (spaces are ignored) */
  code: string;
}

export interface EmailSignIn {
  userId: number;
  /** true when this sign-in created the account */
  isNewUser: boolean;
}

/**
 * Checks a code against the address's newest code: 400 when there is none, it expired, was used or
 * is wrong; 429 once it took 5 wrong guesses (until a new code is requested) or the address's daily
 * guess cap is spent. Success uses the code up and returns the account, created on first sign-in.
 */
async function signInWithEmailCode(ctx: Context, options: VerifyEmailCodeOptions): Promise<EmailSignIn> {
  const email = normaliseEmail(options.email);
  const badCode = appError('BAD_REQUEST', 'Invalid or expired code');
  const latest = await ctx.prisma.emailCode.findFirst({ where: { email }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  if (!latest || latest.usedAt || latest.expiresAt.getTime() <= Date.now()) throw badCode;
  if (latest.failedAttempts >= EMAIL_CODE_MAX_GUESSES) throw await exhaustedCode(ctx, email);
  // NOTE: every evaluated guess counts against the address's daily cap, so hourly code requests
  // (5 codes x 5 guesses) cannot be chained into a day-long brute force of a million codes.
  await spend(ctx, rules(ctx.config).guessesPerAddress, email, 'Too many sign-in attempts for this address; try again later');
  // NOTE: the guess is counted before it is compared, atomically, so parallel guesses cannot exceed
  // the per-code limit; a correct guess gives its count back below.
  const counted = await ctx.prisma.emailCode.updateMany({
    where: { id: latest.id, usedAt: null, failedAttempts: { lt: EMAIL_CODE_MAX_GUESSES } },
    data: { failedAttempts: { increment: 1 } },
  });
  if (counted.count === 0) throw await exhaustedCode(ctx, email);
  if (!emailCodeMatches(ctx.config.jwtSecret, latest.codeHash, email, options.code.replace(/\s+/g, ''))) throw badCode;
  const used = await ctx.prisma.emailCode.updateMany({
    where: { id: latest.id, usedAt: null },
    data: { usedAt: new Date(), failedAttempts: { decrement: 1 } },
  });
  if (used.count === 0) throw badCode; // a parallel request used it first: single use
  return findOrCreateCodeUser(ctx, email);
}

/**
 * The 429 of a code that took its wrong guesses. Retrying it never helps, so Retry-After says when a
 * new code can be requested for the address: 1 s when one can be now, else when its hourly limit resets.
 */
async function exhaustedCode(ctx: Context, email: string): Promise<GraphQLError> {
  const next = await ctx.limits.peek(rules(ctx.config).codesPerAddress, email);
  return rateLimited('Too many wrong guesses; request a new code', next.allowed ? 1 : next.retryAfterSeconds);
}

/** The account of `email`, created (without a password) when there is none. */
async function findOrCreateCodeUser(ctx: Context, email: string): Promise<EmailSignIn> {
  const existing = await ctx.prisma.user.findUnique({ where: { email }, select: { id: true } });
  if (existing) return { userId: existing.id, isNewUser: false };
  try {
    const created = await ctx.prisma.user.create({ data: { email }, select: { id: true } });
    return { userId: created.id, isNewUser: true };
  } catch (e) {
    if ((e as { code?: string }).code !== 'P2002') throw e;
    // created by a parallel sign-in a moment ago
    const user = await ctx.prisma.user.findUniqueOrThrow({ where: { email }, select: { id: true } });
    return { userId: user.id, isNewUser: false };
  }
}

/** Emailed-code sign-in for the phone: a bearer token (EmailCodeTokenOut). */
export async function verifyEmailCode(
  ctx: Context,
  options: VerifyEmailCodeOptions,
): Promise<IssuedSession & { isNewUser: boolean }> {
  const signIn = await signInWithEmailCode(ctx, options);
  return { ...(await createSession(ctx, { userId: signIn.userId, kind: 'native' })), isNewUser: signIn.isNewUser };
}

/** Emailed-code sign-in for the web: the session cookie is set (EmailCodeWebSessionOut). */
export async function verifyEmailCodeWeb(
  ctx: Context,
  options: VerifyEmailCodeOptions,
): Promise<WebSessionStart & { isNewUser: boolean }> {
  const signIn = await signInWithEmailCode(ctx, options);
  return { ...(await startWebSession(ctx, signIn.userId)), isNewUser: signIn.isNewUser };
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
export async function currentWebSession(ctx: AuthedContext): Promise<WebSessionView> {
  const principal = ctx.principal;
  if (principal.kind !== 'session') throw appError('FORBIDDEN', 'Not allowed for this kind of credential');
  const session = await ctx.prisma.session.findUniqueOrThrow({ where: { id: principal.sessionId }, select: { expiresAt: true } });
  return {
    userId: principal.userId,
    csrfToken: principal.sessionKind === 'web' ? csrfTokenFor(ctx.config.jwtSecret, principal.sessionId) : null,
    expiresIn: Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000)),
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
export async function logoutWeb(ctx: Context): Promise<Ack> {
  const principal = ctx.principal;
  if (principal?.kind === 'session' && principal.sessionKind === 'web') {
    await ctx.prisma.session.updateMany({ where: { id: principal.sessionId, revokedAt: null }, data: { revokedAt: new Date() } });
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
}

/**
 * Ends every credential of an account at once, inside the caller's transaction: the one place that
 * knows what "every credential" means, used by revoke-all and password reset. Each kind is rejected
 * on its next request (src/auth/authenticate.ts checks all of them on every request):
 * - login tokens and cookies: the session epoch is bumped, so every one minted before is stale;
 * - personal tokens: revoked_at is set on each one not yet revoked.
 * A new kind of credential (OAuth grants, refresh tokens) is ended here too, by its domain's
 * `revokeAll...(tx, { userId, at })`, so that no door that signs an account out can forget it.
 */
export async function revokeAllCredentials(
  tx: DbTx,
  options: RevokeAllCredentialsOptions,
): Promise<RevokedCredentials> {
  const { userId, at } = options;
  await tx.user.update({ where: { id: userId }, data: { sessionEpoch: { increment: 1 } } });
  const personalTokens = await revokeAllPersonalTokens(tx, { userId, at });
  return { personalTokens };
}

/**
 * Signs the account out everywhere (revokeAllCredentials): every login token, cookie and personal
 * token minted before is rejected on its next request, the caller's own included, whichever kind
 * it is. A personal token that calls this (an assistant over MCP) ends itself too: it was minted
 * before now, and a stolen token must not be able to sign the owner out while keeping its access.
 */
export async function revokeAllSessions(ctx: AuthedContext): Promise<Ack> {
  const userId = ctx.principal.userId;
  await ctx.prisma.$transaction((tx) => revokeAllCredentials(tx, { userId, at: new Date() }));
  clearCookiesOfWebCaller(ctx);
  return ACK;
}

export interface RevokeSessionOptions {
  /** the session's id, as listed by sessions */
  sid: string;
}

/** Revokes one of the caller's sessions (404 for an unknown id or another person's). */
export async function revokeSession(ctx: AuthedContext, options: RevokeSessionOptions): Promise<SessionView> {
  // NOTE: ownership is part of the where: another person's session id answers 404 like an unknown one.
  const row = await ctx.prisma.session.findFirst({ where: { id: options.sid, userId: ctx.principal.userId } });
  if (!row) throw appError('NOT_FOUND', 'Session not found');
  const revoked = row.revokedAt
    ? row
    : await ctx.prisma.session.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
  const current = ctx.principal.kind === 'session' && ctx.principal.sessionId === row.id;
  if (current) clearCookiesOfWebCaller(ctx);
  return sessionView(revoked, current);
}

export interface ForgotPasswordOptions {
  /** the account's address; an unknown one gets the same answer and no email */
  email: string;
}

/**
 * Starts a password reset. Counted per client IP and per address whether or not the address has
 * an account, and always answers ok. The account lookup, the token and the email happen after the
 * answer (in the background, as FastAPI's BackgroundTasks would), so neither the answer nor its
 * timing tells whether the address is registered.
 */
export async function forgotPassword(ctx: Context, options: ForgotPasswordOptions): Promise<Ack> {
  const email = normaliseEmail(options.email);
  const limits = rules(ctx.config);
  await spend(ctx, limits.resetsPerIp, clientIp(ctx), 'Too many password resets requested; try again later');
  await spend(ctx, limits.resetsPerAddress, email, 'Too many password resets requested; try again later');
  // NOTE: never awaited: awaiting would make known addresses measurably slower than unknown ones.
  setImmediate(() => {
    sendResetLink(ctx, email).catch((err: unknown) => ctx.log.error({ err }, 'password reset email failed'));
  });
  return ACK;
}

/** Emails a single-use reset link to the account of `email`, if there is one. */
async function sendResetLink(ctx: Context, email: string): Promise<void> {
  const user = await ctx.prisma.user.findUnique({ where: { email }, select: { id: true } });
  if (!user) return;
  const token = newResetToken();
  const minutes = ctx.config.PASSWORD_RESET_TTL_MINUTES;
  await ctx.prisma.passwordResetToken.create({
    data: { userId: user.id, tokenHash: sha256(token), expiresAt: new Date(Date.now() + minutes * 60_000) },
  });
  const base = (ctx.config.PUBLIC_URL ?? `http://${ctx.config.HOST}:${ctx.config.PORT}`).replace(/\/$/, '');
  await ctx.mailer.send({
    to: email,
    subject: 'Reset your password',
    text:
      `Someone (hopefully you) asked to reset the password of this account.\n\n` +
      `Choose a new password here: ${base}/reset-password?token=${token}\n\n` +
      `The link works once and expires in ${minutes} minutes. If you did not ask, ignore this email: ` +
      `your password stays as it is.\n`,
  });
}

export interface ResetPasswordOptions {
  /** the token from the emailed link */
  token: string;
  /** the new password (validated by the schema), hashed with argon2id */
  newPassword: string;
}

/**
 * Sets a new password with an emailed token (400 when it is unknown, used or expired). The token
 * and every other outstanding one of the account are used up, and every credential of the account
 * ends in the same transaction (revokeAllCredentials): login tokens, cookies and personal tokens,
 * so whoever stole the account loses every way in once the owner resets.
 */
export async function resetPassword(ctx: Context, options: ResetPasswordOptions): Promise<Ack> {
  const tokenHash = sha256(options.token);
  const invalid = appError('BAD_REQUEST', 'Invalid or expired reset token');
  const found = await ctx.prisma.passwordResetToken.findUnique({ where: { tokenHash } });
  if (!found || found.usedAt || found.expiresAt.getTime() <= Date.now()) throw invalid;
  const passwordHash = await hashPassword(options.newPassword);
  await ctx.prisma.$transaction(async (tx) => {
    const now = new Date();
    // NOTE: single use: only the request that flips used_at goes on.
    const claimed = await tx.passwordResetToken.updateMany({
      where: { id: found.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (claimed.count !== 1) throw invalid;
    await tx.passwordResetToken.updateMany({ where: { userId: found.userId, usedAt: null }, data: { usedAt: now } });
    await tx.user.update({ where: { id: found.userId }, data: { passwordHash } });
    await revokeAllCredentials(tx, { userId: found.userId, at: now });
  });
  return ACK;
}

/** Profile changes as they arrive: absent means unchanged, null clears a nullable field. */
export interface ProfileChanges {
  name?: string | null;
  timezone?: string | null;
  country?: string | null;
  glucoseUnit?: string | null;
  dateOfBirth?: string | null;
  sex?: string | null;
  heightCm?: number | null;
  weightKg?: number | null;
  diabetesType?: string | null;
  goals?: string[] | null;
  onboardingCompleted?: boolean | null;
  onboardingStep?: number | null;
}

export interface UpdateProfileOptions {
  /** fields to change (validated by the schema) */
  changes: ProfileChanges;
}

/** Updates the caller's own profile. */
export function updateProfile(
  ctx: AuthedContext,
  options: UpdateProfileOptions,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  const { glucoseUnit, goals, onboardingCompleted, onboardingStep, ...nullable } = options.changes;
  // Columns that cannot be null keep their value when null is sent.
  const data: Prisma.UserUpdateInput = {
    ...nullable,
    ...(glucoseUnit != null && { glucoseUnit }),
    ...(goals != null && { goals }),
    ...(onboardingCompleted != null && { onboardingCompleted }),
    ...(onboardingStep != null && { onboardingStep }),
  };
  // NOTE: the row is always the caller's own; no id is taken from the request.
  return ctx.prisma.user.update({ ...query, where: { id: ctx.principal.userId }, data });
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
export async function listSessions(ctx: AuthedContext): Promise<SessionView[]> {
  const epoch = await ctx.prisma.user.findUniqueOrThrow({
    where: { id: ctx.principal.userId },
    select: { sessionEpoch: true },
  });
  const rows = await ctx.prisma.session.findMany({
    where: { userId: ctx.principal.userId, revokedAt: null, expiresAt: { gt: new Date() }, epoch: epoch.sessionEpoch },
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
