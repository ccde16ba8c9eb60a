/**
 * Accounts and login sessions: register, password login, profile reads and updates, session lists.
 * Session tokens are JWTs naming a session row; see src/auth/authenticate.ts for how they are checked.
 */
import { sessionCookies } from '../../auth/cookies.ts';
import { csrfTokenFor, hashPassword, newSessionId, signAccessToken, verifyPassword } from '../../auth/credentials.ts';
import { appError } from '../../errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';

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

export interface PasswordLoginOptions {
  email: string;
  password: string;
}

/**
 * Password login for the phone. Unknown address and wrong password give the same answer and
 * take the same time (the hash is verified against a dummy when there is no account).
 */
export async function loginWithPassword(ctx: Context, options: PasswordLoginOptions): Promise<IssuedSession> {
  const user = await ctx.prisma.user.findUnique({
    where: { email: normaliseEmail(options.email) },
    select: { id: true, passwordHash: true },
  });
  const ok = await verifyPassword(user?.passwordHash, options.password);
  if (!user || !ok) throw appError('UNAUTHENTICATED', 'Incorrect email or password');
  return createSession(ctx, { userId: user.id, kind: 'native' });
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
  return rows.map((s) => ({
    id: s.id,
    kind: s.kind,
    userAgent: s.userAgent,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    expiresAt: s.expiresAt,
    current: s.id === currentId,
  }));
}
