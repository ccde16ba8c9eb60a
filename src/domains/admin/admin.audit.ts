/**
 * The admin audit log: every admin action on a person's data leaves one row (who, what, when).
 * An action records itself in the same transaction as its effect where it writes, so a rolled-back
 * action leaves no entry and a committed one always has its entry.
 */
import type { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';

export interface AdminActionOptions {
  /** what was done: the GraphQL field's name (e.g. "adminUser") */
  action: string;
  /** the person whose data it touched; null when it touched no one person (a list, a search) */
  targetUserId: number | null;
  /** the arguments that say which data (ids, filters, counts); never health values */
  detail?: Prisma.InputJsonObject;
}

/** Writes one audit entry for the calling admin; pass a transaction client to share its fate. */
export async function recordAdminAction(
  ctx: AuthedContext,
  options: AdminActionOptions,
  db: Prisma.TransactionClient = ctx.prisma,
): Promise<void> {
  await db.adminAuditEntry.create({
    data: {
      adminUserId: ctx.principal.userId,
      targetUserId: options.targetUserId,
      action: options.action,
      detail: options.detail ?? {},
    },
  });
}

export interface AuditEntryView {
  id: number;
  adminUserId: number;
  targetUserId: number | null;
  action: string;
  detail: Prisma.JsonValue;
  createdAt: Date;
}

export interface ListAuditEntriesOptions {
  /** entries about one person; none: every entry */
  targetUserId?: number | null;
  /** one action (a field name, e.g. "adminUser") */
  action?: string | null;
  /** entries skipped (newest first) */
  offset: number;
  /** entries answered */
  limit: number;
}

/** One page of the audit log, newest first, and how many entries match. */
export async function listAuditEntries(
  ctx: AuthedContext,
  options: ListAuditEntriesOptions,
): Promise<{ total: number; items: AuditEntryView[] }> {
  const where: Prisma.AdminAuditEntryWhereInput = {};
  if (options.targetUserId != null) where.targetUserId = options.targetUserId;
  if (options.action) where.action = options.action;
  const [total, items] = await Promise.all([
    ctx.prisma.adminAuditEntry.count({ where }),
    ctx.prisma.adminAuditEntry.findMany({
      where,
      orderBy: { id: 'desc' },
      skip: options.offset,
      take: options.limit,
    }),
  ]);
  return { total, items };
}
