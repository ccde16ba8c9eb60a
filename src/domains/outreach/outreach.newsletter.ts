/**
 * The newsletter: double opt-in subscription (a pending row and an emailed confirmation link whose
 * page confirms on POST), and the admin's list of subscribers.
 * Subscribing must not differ in answer or timing whether the address is new, pending or
 * confirmed: the lookup and the email happen after the answer.
 */
import { sha256 } from '../../auth/credentials.ts';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { normaliseEmail } from '../account/index.ts';
import type { Ack } from './outreach.shared.ts';
import {
  ACK,
  inBackground,
  newConfirmationToken,
  pageLink,
  spendIpAndAddress,
} from './outreach.shared.ts';
import { clock } from '../../base/clock.ts';

/** The page the confirmation email links to (web-pages/outreach-confirm.page.ts). */
export const NEWSLETTER_CONFIRM_PAGE = '/newsletter/confirm';

export interface SubscribeOptions {
  /** the subscriber's address (normalised: trimmed, lower case) */
  email: string;
  /** how to greet them */
  name?: string | null;
  /** where the sign-up came from (a page, a campaign) */
  source?: string | null;
}

/**
 * Subscribes an address (pending until the emailed link is confirmed). Counted per client IP and
 * per address; always answers ok. A new or pending address gets a fresh link (the older one stops
 * working); a confirmed one gets nothing.
 */
export async function subscribeNewsletter(ctx: Context, options: SubscribeOptions): Promise<Ack> {
  const email = normaliseEmail(options.email);
  await spendIpAndAddress(ctx, email);
  inBackground(ctx, 'newsletter confirmation email', () =>
    sendConfirmation(ctx, { ...options, email }),
  );
  return ACK;
}

async function sendConfirmation(ctx: Context, options: SubscribeOptions): Promise<void> {
  const existing = await ctx.prisma.newsletterSubscriber.findUnique({
    where: { email: options.email },
  });
  if (existing?.status === 'confirmed') return;
  const { token, tokenHash, tokenExpiresAt } = newConfirmationToken(ctx.config);
  const details = { name: options.name ?? null, source: options.source ?? null };
  await ctx.prisma.newsletterSubscriber.upsert({
    where: { email: options.email },
    create: { email: options.email, ...details, tokenHash, tokenExpiresAt },
    update: { ...details, tokenHash, tokenExpiresAt },
  });
  await ctx.mailer.send({
    to: options.email,
    subject: 'Confirm your newsletter subscription',
    text:
      `Someone (hopefully you) asked to receive our newsletter at this address.\n\n` +
      `Confirm here: ${pageLink(ctx.config, NEWSLETTER_CONFIRM_PAGE, token)}\n\n` +
      `The link expires in ${ctx.config.OUTREACH_CONFIRM_TTL_HOURS} hours. If you did not ask, ` +
      `ignore this email: you will not be subscribed.\n`,
  });
}

export interface ConfirmOptions {
  /** the token from the emailed link */
  token: string;
}

/**
 * Confirms a subscription with the emailed token (400 when it is unknown, or expired while
 * pending). Confirming again is harmless: it answers ok and changes nothing.
 */
export async function confirmNewsletter(ctx: Context, options: ConfirmOptions): Promise<Ack> {
  const found = await ctx.prisma.newsletterSubscriber.findUnique({
    where: { tokenHash: sha256(options.token) },
  });
  if (found?.status === 'confirmed') return ACK;
  const now = clock.now();
  if (!found?.tokenExpiresAt || found.tokenExpiresAt <= now)
    throw appError('BAD_REQUEST', 'Invalid or expired confirmation link');
  await ctx.prisma.newsletterSubscriber.updateMany({
    where: { id: found.id, status: 'pending' },
    data: { status: 'confirmed', confirmedAt: now },
  });
  return ACK;
}

export interface SubscriberView {
  id: number;
  email: string;
  name: string | null;
  source: string | null;
  status: string;
  createdAt: Date;
  confirmedAt: Date | null;
}

export interface ListSubscribersOptions {
  /** rows per page */
  limit: number;
  /** rows skipped (oldest first) */
  offset: number;
}

/** One page of every subscriber, oldest first, pending and confirmed (admins only, by the schema). */
export async function newsletterSubscribers(
  ctx: Context,
  options: ListSubscribersOptions,
): Promise<SubscriberView[]> {
  return ctx.prisma.newsletterSubscriber.findMany({
    orderBy: { id: 'asc' },
    take: options.limit,
    skip: options.offset,
    select: {
      id: true,
      email: true,
      name: true,
      source: true,
      status: true,
      createdAt: true,
      confirmedAt: true,
    },
  });
}
