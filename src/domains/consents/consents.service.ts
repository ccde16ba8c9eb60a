/**
 * Consents a person gives for kinds of processing (today: `meal_photo`, AI recognition of meal
 * photos). Given and withdrawn by the person; other domains ask hasConsent() before processing.
 * A withdrawn consent keeps its row (withdrawn_at set) so the history of what was allowed stays.
 */
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

/** The kinds of consent, closed list (the GraphQL enum ConsentKind). */
export const CONSENT_KINDS = ['meal_photo', 'assistant'] as const;

export type ConsentKind = (typeof CONSENT_KINDS)[number];

export interface ConsentView {
  kind: ConsentKind;
  /** true while the consent stands (given and not withdrawn) */
  given: boolean;
  /** when it was last given; null if never */
  givenAt: Date | null;
  /** when it was withdrawn; null while it stands or if never given */
  withdrawnAt: Date | null;
}

export interface ConsentOptions {
  /** the kind of processing */
  kind: ConsentKind;
}

type ConsentRow = { kind: string; givenAt: Date; withdrawnAt: Date | null } | null;

function viewOf(kind: ConsentKind, row: ConsentRow): ConsentView {
  if (!row) return { kind, given: false, givenAt: null, withdrawnAt: null };
  return {
    kind,
    given: row.withdrawnAt === null,
    givenAt: row.givenAt,
    withdrawnAt: row.withdrawnAt,
  };
}

const select = { kind: true, givenAt: true, withdrawnAt: true } as const;

/** Whether `userId` currently consents to `kind` (for the AI features that require it). */
export async function hasConsent(
  ctx: Pick<Context, 'prisma'>,
  userId: number,
  kind: ConsentKind,
): Promise<boolean> {
  const row = await ctx.prisma.consent.findUnique({
    where: { userId_kind: { userId, kind } },
    select: { withdrawnAt: true },
  });
  return !!row && row.withdrawnAt === null;
}

/** Gives the caller's consent; giving a standing consent again keeps its original time. */
export async function giveConsent(
  ctx: AuthedContext,
  options: ConsentOptions,
): Promise<ConsentView> {
  const userId = ctx.principal.userId;
  const current = await ctx.prisma.consent.findUnique({
    where: { userId_kind: { userId, kind: options.kind } },
    select,
  });
  if (current && current.withdrawnAt === null) return viewOf(options.kind, current);
  const row = await ctx.prisma.consent.upsert({
    where: { userId_kind: { userId, kind: options.kind } },
    create: { userId, kind: options.kind },
    update: { givenAt: clock.now(), withdrawnAt: null },
    select,
  });
  return viewOf(options.kind, row);
}

/** Withdraws the caller's consent (nothing to do when it does not stand). */
export async function withdrawConsent(
  ctx: AuthedContext,
  options: ConsentOptions,
): Promise<ConsentView> {
  const userId = ctx.principal.userId;
  // NOTE: the caller's own row only; the user id never comes from the request.
  await ctx.prisma.consent.updateMany({
    where: { userId, kind: options.kind, withdrawnAt: null },
    data: { withdrawnAt: clock.now() },
  });
  const row = await ctx.prisma.consent.findUnique({
    where: { userId_kind: { userId, kind: options.kind } },
    select,
  });
  return viewOf(options.kind, row);
}

/** The state of every kind of consent for the caller, in CONSENT_KINDS order. */
export async function consents(ctx: AuthedContext): Promise<ConsentView[]> {
  const rows = await ctx.prisma.consent.findMany({
    where: { userId: ctx.principal.userId },
    select,
  });
  return CONSENT_KINDS.map((kind) => viewOf(kind, rows.find((r) => r.kind === kind) ?? null));
}
