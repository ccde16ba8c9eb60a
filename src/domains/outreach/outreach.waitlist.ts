/**
 * The waitlist: joining (a pending place per address and product, and an emailed single-use
 * confirmation link) and confirming with the token. Joining answers the same whether the address
 * is new, pending or confirmed; the lookup and the email happen after the answer.
 */
import { sha256 } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { normaliseEmail } from '../account/index.ts';
import type { Ack } from './outreach.shared.ts';
import {
  ACK,
  clientIp,
  inBackground,
  newConfirmationToken,
  pageLink,
  rules,
  spend,
  spendIpAndAddress,
} from './outreach.shared.ts';
import { clock } from '../../base/clock.ts';

/** The page the confirmation email links to (web-pages/outreach-confirm.page.ts). */
export const WAITLIST_CONFIRM_PAGE = '/waitlist/confirm';

export interface JoinWaitlistOptions {
  /** the address (normalised: trimmed, lower case) */
  email: string;
  /** the product waited for (a ProductKey); none: the general waitlist */
  product?: string | null;
}

/**
 * Puts an address on a waitlist (pending until confirmed). Counted per client IP and per address;
 * always answers ok. A new or pending place gets a fresh link (the older one stops working); a
 * confirmed one gets nothing.
 */
export async function joinWaitlist(ctx: Context, options: JoinWaitlistOptions): Promise<Ack> {
  const email = normaliseEmail(options.email);
  const product = options.product ?? '';
  await spendIpAndAddress(ctx, email);
  inBackground(ctx, 'waitlist confirmation email', async () => {
    const key = { email_product: { email, product } };
    const existing = await ctx.prisma.waitlistEntry.findUnique({ where: key });
    if (existing?.status === 'confirmed') return;
    const { token, tokenHash, tokenExpiresAt } = newConfirmationToken(ctx.config);
    await ctx.prisma.waitlistEntry.upsert({
      where: key,
      create: { email, product, tokenHash, tokenExpiresAt },
      update: { tokenHash, tokenExpiresAt },
    });
    await ctx.mailer.send({
      to: email,
      subject: 'Confirm your place on the waitlist',
      text:
        `Someone (hopefully you) asked to join the waitlist${product ? ` for ${product}` : ''} ` +
        `with this address.\n\n` +
        `Confirm here: ${pageLink(ctx.config, WAITLIST_CONFIRM_PAGE, token)}\n\n` +
        `The link works once and expires in ${ctx.config.OUTREACH_CONFIRM_TTL_HOURS} hours. ` +
        `If you did not ask, ignore this email: the address stays off the list.\n`,
    });
  });
  return ACK;
}

export interface ConfirmWaitlistOptions {
  /** the token from the emailed link */
  token: string;
}

/**
 * Confirms a place with the emailed token: single use (the token is cleared), 400 when it is
 * unknown, used or expired. Counted per client IP.
 */
export async function confirmWaitlist(ctx: Context, options: ConfirmWaitlistOptions): Promise<Ack> {
  await spend(ctx, rules(ctx.config).confirmsPerIp, clientIp(ctx));
  const now = clock.now();
  // NOTE: single use: only the request that clears the hash goes on.
  const claimed = await ctx.prisma.waitlistEntry.updateMany({
    where: { tokenHash: sha256(options.token), tokenExpiresAt: { gt: now } },
    data: { status: 'confirmed', confirmedAt: now, tokenHash: null, tokenExpiresAt: null },
  });
  if (claimed.count !== 1) throw appError('BAD_REQUEST', 'Invalid or expired confirmation link');
  return ACK;
}

/** A place on a waitlist, as the person sees it. */
export interface WaitlistPlaceView {
  /** the product waited for ('' : the general waitlist) */
  product: string;
  /** "pending" (the emailed link is not confirmed yet) or "confirmed" */
  status: string;
  createdAt: Date;
  confirmedAt: Date | null;
}

export interface WaitlistPlacesOptions {
  /** the address whose places are listed (the signed-in person's own) */
  email: string;
}

/** The places an address holds, oldest first (at most one per product). */
export async function listWaitlistPlaces(
  ctx: Context,
  options: WaitlistPlacesOptions,
): Promise<WaitlistPlaceView[]> {
  const rows = await ctx.prisma.waitlistEntry.findMany({
    where: { email: normaliseEmail(options.email) },
    orderBy: { id: 'asc' },
    select: { product: true, status: true, createdAt: true, confirmedAt: true },
  });
  return rows;
}

export interface LeaveWaitlistOptions {
  /** the address leaving (the signed-in person's own) */
  email: string;
  /** the product's waitlist ('' : the general waitlist) */
  product: string;
}

/** Removes an address's place on one waitlist; 404 when it holds none there. */
export async function leaveWaitlist(ctx: Context, options: LeaveWaitlistOptions): Promise<Ack> {
  const removed = await ctx.prisma.waitlistEntry.deleteMany({
    where: { email: normaliseEmail(options.email), product: options.product },
  });
  if (removed.count === 0) throw appError('NOT_FOUND', 'Not on this waitlist');
  return ACK;
}
