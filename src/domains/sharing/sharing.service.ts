/**
 * Sharing: an owner invites someone by email to read their data (read-only); the invitee accepts;
 * either side revokes; the owner renews; an accepted grantee switches a credential to view as the
 * owner. States: pending -> active -> revoked, and any live state turns expired at `expiresAt`
 * (derived, never stored). The credential side of view-as is resolved on every request by
 * src/auth/authenticate.ts; the rules it shares with this file are in src/auth/view-as.ts.
 *
 * NOTE: every function acts as the caller (`principal.userId`), never as the owner being viewed:
 * a grantee in view-as mode manages their own grants. A grant that is not the caller's answers
 * NOT_FOUND, like a missing one. The answers never tell an owner whether an address has an account.
 */
import { readerUserId } from '../../auth/principal.ts';
import { grantPermitsViewAs } from '../../auth/view-as.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { normaliseEmail } from '../account/index.ts';
import { clock } from '../../base/clock.ts';

/** A grant lasts this long from its creation; renewing sets it to this long from the renewal. */
export const GRANT_LIFETIME_DAYS = 30;
/** Invitations an owner may send in any 24 hours (each one sends an email). */
export const MAX_INVITATIONS_PER_DAY = 20;

const DAY_MS = 86_400_000;
/** First key of the transaction-scoped advisory lock that serialises one owner's invitations. */
const INVITE_LOCK = 0x5348_4152; // "SHAR"

export type GrantRole = 'owner' | 'grantee';
export type GrantStatus = 'pending' | 'active' | 'revoked' | 'expired';

export interface AccessGrantView {
  id: number;
  /** the caller's side of the grant */
  role: GrantRole;
  status: GrantStatus;
  ownerEmail: string;
  ownerName: string | null;
  inviteeEmail: string;
  createdAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date;
  /** true when the credential making this request views the owner's data through this grant */
  viewing: boolean;
}

export interface ViewAsState {
  /** true while this credential reads another person's data */
  viewing: boolean;
  /** the grant whose owner's data this credential now reads; null: its own data */
  grant: AccessGrantView | null;
}

const withOwner = { owner: { select: { email: true, name: true } } } as const;
type GrantRow = Prisma.AccessGrantGetPayload<{ include: typeof withOwner }>;

/** pending and active are stored; expired is derived from expiresAt; revoked wins over expired. */
export function grantStatus(
  row: { status: string; expiresAt: Date },
  now: number = clock.ms(),
): GrantStatus {
  if (row.status === 'revoked') return 'revoked';
  if (row.expiresAt.getTime() <= now) return 'expired';
  return row.status === 'active' ? 'active' : 'pending';
}

function view(ctx: AuthedContext, row: GrantRow, viewing?: boolean): AccessGrantView {
  return {
    id: row.id,
    role: row.ownerId === ctx.principal.userId ? 'owner' : 'grantee',
    status: grantStatus(row),
    ownerEmail: row.owner.email,
    ownerName: row.owner.name,
    inviteeEmail: row.inviteeEmail,
    createdAt: row.createdAt,
    acceptedAt: row.acceptedAt,
    revokedAt: row.revokedAt,
    expiresAt: row.expiresAt,
    viewing: viewing ?? ctx.principal.viewAs?.grantId === row.id,
  };
}

interface Caller {
  id: number;
  email: string;
  name: string | null;
}

async function caller(ctx: AuthedContext): Promise<Caller> {
  return ctx.prisma.user.findUniqueOrThrow({
    where: { id: ctx.principal.userId },
    select: { id: true, email: true, name: true },
  });
}

/** The grants the caller is the invitee of: named as grantee, or invited by address and not yet claimed. */
function asInvitee(me: Caller): Prisma.AccessGrantWhereInput {
  return { OR: [{ granteeId: me.id }, { granteeId: null, inviteeEmail: me.email }] };
}

/** The grants the caller may see: as owner or as invitee. */
function visibleTo(me: Caller): Prisma.AccessGrantWhereInput {
  return { OR: [{ ownerId: me.id }, asInvitee(me)] };
}

function notFound(): Error {
  return appError('NOT_FOUND', 'Grant not found');
}

function notInState(
  row: { status: string; expiresAt: Date },
  wanted: 'pending' | 'active' | 'live',
): Error {
  const status = grantStatus(row);
  return appError('CONFLICT', `The grant is ${status}, not ${wanted}`, {
    detail: { code: `grant_not_${wanted}`, status },
  });
}

export interface CreateAccessGrantOptions {
  /** the invitee's address; they keep (or create) their own account with it */
  email: string;
}

/**
 * Creates a pending, read-only grant of the caller's data for `email` and emails the invitation.
 * Nothing is shared until the invitee accepts. 422 for the caller's own address; 409 when a live
 * (pending or active, unexpired) grant to the same person exists; 429 over the daily invitations;
 * 502 when the invitation cannot be sent (the grant is then not kept, so a retry works).
 */
export async function createAccessGrant(
  ctx: AuthedContext,
  options: CreateAccessGrantOptions,
): Promise<AccessGrantView> {
  const me = await caller(ctx);
  const email = normaliseEmail(options.email);
  if (email === me.email) {
    throw validationError([
      {
        loc: ['input', 'email'],
        msg: 'You cannot share your data with yourself',
        type: 'value_error',
      },
    ]);
  }
  const now = clock.ms();
  const row = await ctx.prisma.$transaction(async (tx) => {
    // Serialises this owner's invitations, so the duplicate and daily checks hold under concurrency.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${INVITE_LOCK}::int, ${me.id}::int)`;
    const recent = await tx.accessGrant.findMany({
      where: { ownerId: me.id, createdAt: { gt: new Date(now - DAY_MS) } },
      select: { createdAt: true },
      orderBy: { createdAt: 'asc' },
    });
    if (recent.length >= MAX_INVITATIONS_PER_DAY) {
      const retryAfter =
        (recent[recent.length - MAX_INVITATIONS_PER_DAY].createdAt.getTime() + DAY_MS - now) / 1000;
      throw appError('RATE_LIMITED', `At most ${MAX_INVITATIONS_PER_DAY} invitations in 24 hours`, {
        detail: { code: 'rate_limited', limit: MAX_INVITATIONS_PER_DAY },
        retryAfter,
      });
    }
    const invitee = await tx.user.findUnique({ where: { email }, select: { id: true } });
    const live = await tx.accessGrant.findFirst({
      where: {
        ownerId: me.id,
        status: { in: ['pending', 'active'] },
        expiresAt: { gt: new Date(now) },
        OR: [{ inviteeEmail: email }, ...(invitee ? [{ granteeId: invitee.id }] : [])],
      },
      select: { id: true },
    });
    if (live) {
      throw appError('CONFLICT', 'This person already has a pending or active grant', {
        detail: { code: 'grant_exists', grant_id: live.id },
      });
    }
    return tx.accessGrant.create({
      include: withOwner,
      data: {
        ownerId: me.id,
        granteeId: invitee?.id ?? null,
        inviteeEmail: email,
        status: 'pending',
        createdAt: new Date(now),
        expiresAt: new Date(now + GRANT_LIFETIME_DAYS * DAY_MS),
      },
    });
  });
  try {
    await sendInvitation(ctx, me, row);
  } catch (err) {
    ctx.log.warn({ err, grantId: row.id }, 'sharing invitation could not be sent');
    await ctx.prisma.accessGrant.delete({ where: { id: row.id } });
    throw appError('UPSTREAM_FAILED', 'The invitation email could not be sent; try again later');
  }
  return view(ctx, row);
}

async function sendInvitation(ctx: AuthedContext, owner: Caller, grant: GrantRow): Promise<void> {
  const who = owner.name ? `${owner.name} (${owner.email})` : owner.email;
  const where = ctx.config.PUBLIC_URL ? ` at ${ctx.config.PUBLIC_URL}` : '';
  await ctx.mailer.send({
    to: grant.inviteeEmail,
    subject: `${owner.name ?? owner.email} wants to share their health data with you`,
    text: [
      `${who} invited you to see their health data, read-only.`,
      '',
      `Sign in${where} with this address (or create an account with it), open Sharing and accept`,
      `invitation ${grant.id}. Nothing is shared until you accept; you keep your own account.`,
      `The invitation and the sharing end on ${grant.expiresAt.toISOString().slice(0, 10)} unless ${owner.email} renews it.`,
      '',
      'If you did not expect this email, ignore it.',
    ].join('\n'),
  });
}

/** Every grant the caller owns or was invited to, newest first, with its derived status. */
export async function accessGrants(ctx: AuthedContext): Promise<AccessGrantView[]> {
  const me = await caller(ctx);
  const rows = await ctx.prisma.accessGrant.findMany({
    where: visibleTo(me),
    include: withOwner,
    orderBy: { id: 'desc' },
  });
  return rows.map((row) => view(ctx, row));
}

export interface GrantIdOptions {
  /** the grant's id */
  grantId: number;
}

/**
 * The invitee accepts a pending, unexpired grant: it turns active and names the caller as grantee.
 * 404 unless the caller is the invitee (by account, or by address while unclaimed); 409 otherwise.
 */
export async function acceptAccessGrant(
  ctx: AuthedContext,
  options: GrantIdOptions,
): Promise<AccessGrantView> {
  const me = await caller(ctx);
  const now = clock.now();
  // NOTE: the invitee filter is part of the update, so nobody else can claim the grant.
  const { count } = await ctx.prisma.accessGrant.updateMany({
    where: {
      AND: [{ id: options.grantId, status: 'pending', expiresAt: { gt: now } }, asInvitee(me)],
    },
    data: { status: 'active', granteeId: me.id, acceptedAt: now },
  });
  const row = await ctx.prisma.accessGrant.findFirst({
    where: { AND: [{ id: options.grantId }, asInvitee(me)] },
    include: withOwner,
  });
  if (!row) throw notFound();
  if (count === 0) throw notInState(row, 'pending');
  return view(ctx, row);
}

/**
 * Either side ends a grant (an invitee may decline a pending one). Idempotent: a revoked grant
 * answers as it is. Every credential viewing through it stops at once (authenticate.ts checks the
 * grant on each request); its view-as markers are cleared here too.
 */
export async function revokeAccessGrant(
  ctx: AuthedContext,
  options: GrantIdOptions,
): Promise<AccessGrantView> {
  const me = await caller(ctx);
  const where = { AND: [{ id: options.grantId }, visibleTo(me)] };
  const found = await ctx.prisma.accessGrant.findFirst({ where, select: { id: true } });
  if (!found) throw notFound();
  await ctx.prisma.accessGrant.updateMany({
    where: { id: found.id, status: { not: 'revoked' } },
    data: { status: 'revoked', revokedAt: clock.now() },
  });
  await ctx.prisma.session.updateMany({
    where: { viewAsGrantId: found.id },
    data: { viewAsGrantId: null },
  });
  await ctx.prisma.personalToken.updateMany({
    where: { viewAsGrantId: found.id },
    data: { viewAsGrantId: null },
  });
  const row = await ctx.prisma.accessGrant.findUniqueOrThrow({
    where: { id: found.id },
    include: withOwner,
  });
  return view(ctx, row, false);
}

/**
 * The owner keeps a pending or active grant going: it now ends GRANT_LIFETIME_DAYS from now (not
 * from the old end, so sharing never runs more than 30 days ahead of the owner's last decision).
 * 403 for its grantee, 404 for anyone else, 409 once it is revoked or expired (share again instead).
 */
export async function renewAccessGrant(
  ctx: AuthedContext,
  options: GrantIdOptions,
): Promise<AccessGrantView> {
  const me = await caller(ctx);
  const now = clock.now();
  const { count } = await ctx.prisma.accessGrant.updateMany({
    where: {
      id: options.grantId,
      ownerId: me.id,
      status: { in: ['pending', 'active'] },
      expiresAt: { gt: now },
    },
    data: { expiresAt: new Date(now.getTime() + GRANT_LIFETIME_DAYS * DAY_MS) },
  });
  const row = await ctx.prisma.accessGrant.findFirst({
    where: { AND: [{ id: options.grantId }, visibleTo(me)] },
    include: withOwner,
  });
  if (!row) throw notFound();
  if (row.ownerId !== me.id) throw appError('FORBIDDEN', 'Only the owner can renew a grant');
  if (count === 0) throw notInState(row, 'live');
  return view(ctx, row);
}

export interface SwitchViewAsOptions {
  /** the active grant to view through; null or absent: back to the caller's own data */
  grantId?: number | null;
}

/**
 * Switches the credential making this request (login session or personal token, each on its own)
 * to read the owner's data through an active grant the caller is grantee of, or back with no id.
 * 404 unless the caller is the grant's invitee; 409 unless it is active and unexpired.
 */
export async function switchViewAs(
  ctx: AuthedContext,
  options: SwitchViewAsOptions,
): Promise<ViewAsState> {
  let row: GrantRow | null = null;
  if (options.grantId != null) {
    const me = await caller(ctx);
    row = await ctx.prisma.accessGrant.findFirst({
      where: { AND: [{ id: options.grantId }, asInvitee(me)] },
      include: withOwner,
    });
    if (!row) throw notFound();
    if (!grantPermitsViewAs(row, me.id)) throw notInState(row, 'active');
  }
  const data = { viewAsGrantId: row?.id ?? null };
  // NOTE: only the credential of this request changes; the caller's other sessions and tokens keep theirs.
  switch (ctx.principal.kind) {
    case 'session':
      await ctx.prisma.session.update({ where: { id: ctx.principal.sessionId }, data });
      break;
    case 'personal_token':
      await ctx.prisma.personalToken.update({ where: { id: ctx.principal.tokenId }, data });
      break;
    case 'oauth':
      // NOTE: view-as over OAuth (per connection) is not offered yet (docs/mcp-oauth.md section 5).
      throw appError('FORBIDDEN', 'Not allowed for this kind of credential');
  }
  // the cached credential (without view-as) must not outlive the change
  await ctx.credentials.revoked(ctx.principal.userId);
  return { viewing: !!row, grant: row ? view(ctx, row, true) : null };
}

/**
 * The account whose data the caller reads: the owner's while viewing as, else the caller's own
 * (`viewedProfile`), with what the query selects.
 */
export function viewedProfile(
  ctx: AuthedContext,
  query: { select?: Prisma.UserSelect; include?: Prisma.UserInclude } = {},
) {
  return ctx.prisma.user.findUniqueOrThrow({ ...query, where: { id: readerUserId(ctx) } });
}
