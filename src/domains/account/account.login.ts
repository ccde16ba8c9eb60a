/**
 * Register (limited per client IP) and password login (app, web, admin) with its failure throttle.
 * Login failures must not differ in bytes or in timing between an unknown address, a wrong password
 * and (admin login) a non-admin account: keep it so.
 */
import { hashPassword, verifyPassword } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';
import { createSession, startWebSession } from './account.sessions.ts';
import type { IssuedSession, WebSessionStart } from './account.sessions.ts';
import { clientIp, normaliseEmail, rateLimited, rules, spend } from './account.shared.ts';

export interface RegisterOptions {
  /** the sign-in address; unique, compared case-insensitively */
  email: string;
  /** plain password, hashed with argon2id before it is stored */
  password: string;
  /** display name */
  name?: string | null;
}

/**
 * Creates an account; 409 when the address is taken. Every attempt counts against the client IP's
 * sign-ups (429 beyond SIGNUPS_PER_IP_PER_HOUR, before the password is hashed), a taken address
 * too, so the limit also bounds probing for accounts.
 */
export async function register(
  ctx: Context,
  options: RegisterOptions,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  const limit = rules(ctx.config).signupsPerIp;
  await spend(ctx, limit, clientIp(ctx), 'Too many sign-ups from this address; try again later');
  const email = normaliseEmail(options.email);
  const passwordHash = await hashPassword(options.password);
  try {
    return await ctx.prisma.user.create({
      ...query,
      data: { email, passwordHash, name: options.name ?? null },
    });
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002')
      throw appError('CONFLICT', 'Email already registered');
    throw e;
  }
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
  if (!standing.allowed)
    throw rateLimited('Too many failed logins; try again later', standing.retryAfterSeconds);
  const user = await ctx.prisma.user.findUnique({
    where: { email },
    select: { id: true, passwordHash: true, isAdmin: true },
  });
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
export async function login(ctx: Context, options: PasswordLoginOptions): Promise<IssuedSession> {
  return createSession(ctx, { userId: await checkPassword(ctx, options), kind: 'native' });
}

/** Password login for the web: the session cookie is set; the answer carries the CSRF token. */
export async function webLogin(
  ctx: Context,
  options: PasswordLoginOptions,
): Promise<WebSessionStart> {
  return startWebSession(ctx, await checkPassword(ctx, options));
}

/**
 * Admin panel login: the same throttle and failure answer as the app login, and the account must
 * be an admin. Answers a bearer token of a native session of that admin (the admin scope follows
 * from the account on every request, so demoting an admin takes effect at once).
 */
export async function adminLogin(
  ctx: Context,
  options: PasswordLoginOptions,
): Promise<IssuedSession> {
  return createSession(ctx, {
    userId: await checkPassword(ctx, { ...options, adminOnly: true }),
    kind: 'native',
  });
}
