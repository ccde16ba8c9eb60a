/**
 * Emailed sign-in codes: start (email a six-digit code) and verify (phone or web), creating the
 * account on first sign-in.
 * Starting a code must not differ in bytes or in timing whether or not the address has an
 * account: keep it so.
 */
import type { GraphQLError } from 'graphql';
import { emailCodeMatches, hashEmailCode, newEmailCode } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { createSession, startWebSession } from './account.sessions.ts';
import type { IssuedSession, WebSessionStart } from './account.sessions.ts';
import {
  ACK,
  normaliseEmail,
  rateLimited,
  rules,
  spend,
  spendIpAndAddress,
} from './account.shared.ts';
import type { Ack } from './account.shared.ts';
import { clock } from '../../base/clock.ts';

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
  await spendIpAndAddress(
    ctx,
    { perIp: limits.codesPerIp, perAddress: limits.codesPerAddress },
    email,
    'Too many sign-in codes requested; try again later',
  );
  const code = newEmailCode();
  const minutes = ctx.config.EMAIL_CODE_TTL_MINUTES;
  await ctx.prisma.emailCode.create({
    data: {
      email,
      codeHash: hashEmailCode(ctx.config.jwtSecret, email, code),
      expiresAt: new Date(clock.ms() + minutes * 60_000),
    },
  });
  await sendMail(ctx, {
    to: email,
    subject: `Your sign-in code: ${code}`,
    text: `Your sign-in code is ${code}.\n\nIt expires in ${minutes} minutes and works once. If you did not ask for it, ignore this email.\n`,
  });
  return ACK;
}

async function sendMail(
  ctx: Context,
  message: { to: string; subject: string; text: string },
): Promise<void> {
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
async function signInWithEmailCode(
  ctx: Context,
  options: VerifyEmailCodeOptions,
): Promise<EmailSignIn> {
  const email = normaliseEmail(options.email);
  const badCode = appError('BAD_REQUEST', 'Invalid or expired code');
  const latest = await ctx.prisma.emailCode.findFirst({
    where: { email },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  if (!latest || latest.usedAt || latest.expiresAt.getTime() <= clock.ms()) throw badCode;
  if (latest.failedAttempts >= EMAIL_CODE_MAX_GUESSES) throw await exhaustedCode(ctx, email);
  // NOTE: every evaluated guess counts against the address's daily cap, so hourly code requests
  // (5 codes x 5 guesses) cannot be chained into a day-long brute force of a million codes.
  await spend(
    ctx,
    rules(ctx.config).guessesPerAddress,
    email,
    'Too many sign-in attempts for this address; try again later',
  );
  // NOTE: the guess is counted before it is compared, atomically, so parallel guesses cannot exceed
  // the per-code limit; a correct guess gives its count back below.
  const counted = await ctx.prisma.emailCode.updateMany({
    where: { id: latest.id, usedAt: null, failedAttempts: { lt: EMAIL_CODE_MAX_GUESSES } },
    data: { failedAttempts: { increment: 1 } },
  });
  if (counted.count === 0) throw await exhaustedCode(ctx, email);
  if (
    !emailCodeMatches(
      ctx.config.jwtSecret,
      latest.codeHash,
      email,
      options.code.replace(/\s+/g, ''),
    )
  )
    throw badCode;
  const used = await ctx.prisma.emailCode.updateMany({
    where: { id: latest.id, usedAt: null },
    data: { usedAt: clock.now(), failedAttempts: { decrement: 1 } },
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
  return rateLimited(
    'Too many wrong guesses; request a new code',
    next.allowed ? 1 : next.retryAfterSeconds,
  );
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
    const user = await ctx.prisma.user.findUniqueOrThrow({
      where: { email },
      select: { id: true },
    });
    return { userId: user.id, isNewUser: false };
  }
}

/** Emailed-code sign-in for the phone: a bearer token (EmailCodeTokenOut). */
export async function verifyEmailCode(
  ctx: Context,
  options: VerifyEmailCodeOptions,
): Promise<IssuedSession & { isNewUser: boolean }> {
  const signIn = await signInWithEmailCode(ctx, options);
  return {
    ...(await createSession(ctx, { userId: signIn.userId, kind: 'native' })),
    isNewUser: signIn.isNewUser,
  };
}

/** Emailed-code sign-in for the web: the session cookie is set (EmailCodeWebSessionOut). */
export async function verifyEmailCodeWeb(
  ctx: Context,
  options: VerifyEmailCodeOptions,
): Promise<WebSessionStart & { isNewUser: boolean }> {
  const signIn = await signInWithEmailCode(ctx, options);
  return { ...(await startWebSession(ctx, signIn.userId)), isNewUser: signIn.isNewUser };
}
