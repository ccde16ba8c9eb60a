/**
 * The admin event list: what happened to accounts, newest first. An event is one of
 * - `signup`: an account was created (users.created_at),
 * - `sign_in`: a login session was opened (sessions.created_at; detail: native or web),
 * - `admin_action`: an admin acted on data (admin_audit_log; detail: the action and the admin).
 * Nothing is stored for it: the list is a UNION over those rows (the account domain hands its part
 * as SQL, accountEventsSql, so no table of another domain is named here).
 */
import { Prisma } from '../../generated/prisma/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { accountEventsSql } from '../account/index.ts';
import { recordAdminAction } from './admin.audit.ts';
import { requirePerson } from './admin.service.ts';
import type { Page, PageOptions } from './admin.service.ts';

export const EVENT_TYPES = ['signup', 'sign_in', 'admin_action'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface AdminEventView {
  type: EventType;
  userId: number | null;
  at: Date;
  detail: Prisma.JsonValue;
}

export interface AdminEventsOptions extends PageOptions {
  /** one kind of event */
  type?: EventType | null;
  /** one person's events (404 for an unknown id; audited) */
  userId?: number | null;
}

/** One page of events, newest first; 404 for an unknown person. */
export async function adminEvents(
  ctx: AuthedContext,
  options: AdminEventsOptions,
): Promise<Page<AdminEventView>> {
  if (options.userId != null) await requirePerson(ctx, options.userId);
  await recordAdminAction(ctx, {
    action: 'adminEvents',
    targetUserId: options.userId ?? null,
    detail: { type: options.type ?? null, page: options.page },
  });
  const filters: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (options.type) filters.push(Prisma.sql`e.type = ${options.type}::text`);
  if (options.userId != null) filters.push(Prisma.sql`e.user_id = ${options.userId}::int`);
  const events = Prisma.sql`(
      ${accountEventsSql()}
      UNION ALL
      SELECT 'admin_action'::text, a.target_user_id, a.created_at,
             jsonb_build_object('action', a.action, 'admin_user_id', a.admin_user_id)
        FROM admin_audit_log a
    ) e WHERE ${Prisma.join(filters, ' AND ')}`;
  const [[{ total }], rows] = await Promise.all([
    ctx.prisma.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM ${events}`,
    ctx.prisma.$queryRaw<
      { type: EventType; user_id: number | null; at: Date; detail: Prisma.JsonValue }[]
    >`
      SELECT e.type, e.user_id, e.at, e.detail FROM ${events}
       ORDER BY e.at DESC, e.type, e.user_id
       LIMIT ${options.limit}::int OFFSET ${(options.page - 1) * options.limit}::bigint`,
  ]);
  const items = rows.map((r) => ({ type: r.type, userId: r.user_id, at: r.at, detail: r.detail }));
  return { total, page: options.page, limit: options.limit, items };
}
