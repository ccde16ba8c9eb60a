/**
 * Account reads for the admin API (src/domains/admin): the people with an account, one person's
 * account, counts, and the account events (sign-ups and sign-ins) as SQL for the admin event list.
 * NOTE: these read every account; only admin fields (`t.withAuth({ admin: true })`) call them.
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { Context } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

export interface AccountSummaryView {
  id: number;
  email: string;
  name: string | null;
  isAdmin: boolean;
  createdAt: Date;
  phoneLastSyncAt: Date | null;
}

export interface AccountDetailView extends AccountSummaryView {
  timezone: string | null;
  country: string | null;
  glucoseUnit: string;
  diabetesType: string | null;
  onboardingCompleted: boolean;
  /** sessions neither revoked nor expired */
  activeSessions: number;
}

export interface ListAccountsOptions {
  /** part of the address or the name, case-insensitive; none: everyone */
  search?: string | null;
  /** accounts skipped (newest first) */
  offset: number;
  /** accounts answered */
  limit: number;
}

export interface AccountCountsView {
  users: number;
  admins: number;
  /** accounts created in the last 7 days */
  newLast7Days: number;
  /** sessions neither revoked nor expired */
  activeSessions: number;
}

const summarySelect = {
  id: true,
  email: true,
  name: true,
  isAdmin: true,
  createdAt: true,
  phoneLastSyncAt: true,
} as const;

const searchWhere = (search?: string | null): Prisma.UserWhereInput =>
  search
    ? {
        OR: [
          { email: { contains: search, mode: 'insensitive' } },
          { name: { contains: search, mode: 'insensitive' } },
        ],
      }
    : {};

/** One page of accounts, newest first, with the number of accounts matching. */
export async function listAccounts(
  ctx: Context,
  options: ListAccountsOptions,
): Promise<{ total: number; items: AccountSummaryView[] }> {
  const where = searchWhere(options.search);
  const [total, items] = await Promise.all([
    ctx.prisma.user.count({ where }),
    ctx.prisma.user.findMany({
      where,
      select: summarySelect,
      orderBy: { id: 'desc' },
      skip: options.offset,
      take: options.limit,
    }),
  ]);
  return { total, items };
}

/** One account by id, or null when there is none. */
export async function accountById(ctx: Context, userId: number): Promise<AccountDetailView | null> {
  const user = await ctx.prisma.user.findUnique({
    where: { id: userId },
    select: {
      ...summarySelect,
      timezone: true,
      country: true,
      glucoseUnit: true,
      diabetesType: true,
      onboardingCompleted: true,
    },
  });
  if (!user) return null;
  const activeSessions = await ctx.prisma.session.count({
    where: { userId, revokedAt: null, expiresAt: { gt: clock.now() } },
  });
  return { ...user, activeSessions };
}

/** Whether an account with this id exists. */
export async function accountExists(ctx: Context, userId: number): Promise<boolean> {
  return (await ctx.prisma.user.count({ where: { id: userId } })) > 0;
}

/** How many accounts, admins, recent sign-ups and live sessions there are. */
export async function accountCounts(ctx: Context): Promise<AccountCountsView> {
  const weekAgo = new Date(clock.ms() - 7 * 24 * 3600_000);
  const [users, admins, newLast7Days, activeSessions] = await Promise.all([
    ctx.prisma.user.count(),
    ctx.prisma.user.count({ where: { isAdmin: true } }),
    ctx.prisma.user.count({ where: { createdAt: { gte: weekAgo } } }),
    ctx.prisma.session.count({ where: { revokedAt: null, expiresAt: { gt: clock.now() } } }),
  ]);
  return { users, admins, newLast7Days, activeSessions };
}

/**
 * A SELECT (for a UNION) of account events: `type` ('signup' or 'sign_in'), `user_id`, `at`,
 * `detail` (jsonb: the session kind of a sign-in; never a credential or an address).
 */
export function accountEventsSql(): Prisma.Sql {
  return Prisma.sql`
    SELECT 'signup'::text AS type, u.id AS user_id, u.created_at AS at, '{}'::jsonb AS detail FROM users u
    UNION ALL
    SELECT 'sign_in'::text, s.user_id, s.created_at, jsonb_build_object('kind', s.kind) FROM sessions s`;
}
