/**
 * The person's places on product waitlists (MCP `orders_waitlist_*`): the outreach waitlist,
 * keyed by the person's account address, through outreach's exported services (no second table).
 * Joining sends the usual confirmation link; the place is pending until it is confirmed.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import type { Ack, WaitlistPlaceView } from '../outreach/index.ts';
import { joinWaitlist, leaveWaitlist, listWaitlistPlaces } from '../outreach/index.ts';

export interface WaitlistProductOptions {
  /** the product's waitlist (a ProductKey) */
  product: string;
}

/** The signed-in person's account address (ownership: only their own places). */
async function ownEmail(ctx: AuthedContext): Promise<string> {
  const user = await ctx.prisma.user.findUniqueOrThrow({
    where: { id: ctx.principal.userId },
    select: { email: true },
  });
  return user.email;
}

/** The person's waitlist places. */
export async function waitlistPlaces(ctx: AuthedContext): Promise<WaitlistPlaceView[]> {
  return listWaitlistPlaces(ctx, { email: await ownEmail(ctx) });
}

/** Puts the person on a product's waitlist (pending until the emailed link is confirmed). */
export async function joinProductWaitlist(
  ctx: AuthedContext,
  options: WaitlistProductOptions,
): Promise<Ack> {
  return joinWaitlist(ctx, { email: await ownEmail(ctx), product: options.product });
}

/** Takes the person off a product's waitlist; 404 when they are not on it. */
export async function leaveProductWaitlist(
  ctx: AuthedContext,
  options: WaitlistProductOptions,
): Promise<Ack> {
  return leaveWaitlist(ctx, { email: await ownEmail(ctx), product: options.product });
}
