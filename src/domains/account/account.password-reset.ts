/**
 * Forgotten passwords: the emailed single-use reset link, and setting a new password with it
 * (which ends every credential of the account).
 * Forgot password must not differ in bytes or in timing whether or not the address has an
 * account: keep it so.
 */
import { hashPassword, newResetToken, sha256 } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { revokeAllCredentials } from './account.sessions.ts';
import { ACK, normaliseEmail, rules, spendIpAndAddress } from './account.shared.ts';
import type { Ack } from './account.shared.ts';
import { clock } from '../../base/clock.ts';

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
  await spendIpAndAddress(
    ctx,
    { perIp: limits.resetsPerIp, perAddress: limits.resetsPerAddress },
    email,
    'Too many password resets requested; try again later',
  );
  // NOTE: never awaited: awaiting would make known addresses measurably slower than unknown ones.
  setImmediate(() => {
    sendResetLink(ctx, email).catch((err: unknown) =>
      ctx.log.error({ err }, 'password reset email failed'),
    );
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
    data: {
      userId: user.id,
      tokenHash: sha256(token),
      expiresAt: new Date(clock.ms() + minutes * 60_000),
    },
  });
  const base = (ctx.config.PUBLIC_URL ?? `http://${ctx.config.HOST}:${ctx.config.PORT}`).replace(
    /\/$/,
    '',
  );
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
  if (!found || found.usedAt || found.expiresAt.getTime() <= clock.ms()) throw invalid;
  const passwordHash = await hashPassword(options.newPassword);
  await ctx.prisma.$transaction(async (tx) => {
    const now = clock.now();
    // NOTE: single use: only the request that flips used_at goes on.
    const claimed = await tx.passwordResetToken.updateMany({
      where: { id: found.id, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (claimed.count !== 1) throw invalid;
    await tx.passwordResetToken.updateMany({
      where: { userId: found.userId, usedAt: null },
      data: { usedAt: now },
    });
    await tx.user.update({ where: { id: found.userId }, data: { passwordHash } });
    await revokeAllCredentials(tx, { userId: found.userId, at: now });
  });
  await ctx.credentials.revoked(found.userId);
  return ACK;
}
