/**
 * The inbox: every notification sent to the person (pushed or held back), newest first; marking
 * items read, and opening one (read and opened, answering where it leads).
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { CATEGORY_LINKS } from './notifications.catalogue.ts';
import type { NotificationCategory } from './notifications.catalogue.ts';
import { clock } from '../../base/clock.ts';

export interface InboxItemView {
  id: string;
  userId: number;
  category: string;
  title: string;
  body: string;
  link: string | null;
  source: string;
  pushStatus: string;
  devicesSent: number;
  createdAt: Date;
  readAt: Date | null;
  openedAt: Date | null;
}

export interface ListInboxOptions {
  /** items per page */
  limit: number;
  /** items skipped (newest first) */
  offset: number;
  /** only items not read yet */
  unreadOnly: boolean;
}

export interface MarkReadOptions {
  /** the caller's items to mark read (none: every unread item) */
  ids?: string[] | null;
}

export interface MarkReadView {
  /** items that were unread and are read now */
  marked: number;
}

export interface OpenItemOptions {
  /** one of the caller's items */
  id: string;
}

export const itemSelect = {
  id: true,
  userId: true,
  category: true,
  title: true,
  body: true,
  link: true,
  source: true,
  pushStatus: true,
  devicesSent: true,
  createdAt: true,
  readAt: true,
  openedAt: true,
} as const;

/** Where opening an item leads: its own link, else its category's screen. */
export function leadsTo(item: InboxItemView): string {
  return item.link ?? CATEGORY_LINKS[item.category as NotificationCategory] ?? 'app://inbox';
}

/** One page of the caller's inbox, newest first. */
export async function notificationInbox(
  ctx: AuthedContext,
  options: ListInboxOptions,
): Promise<InboxItemView[]> {
  // NOTE: the person's data: the owner's while a grantee views as (reads only).
  return ctx.prisma.notification.findMany({
    where: { userId: readerUserId(ctx), ...(options.unreadOnly ? { readAt: null } : {}) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit,
    skip: options.offset,
    select: itemSelect,
  });
}

/** Marks the caller's items read (the given ones, or all); an id not the caller's answers NOT_FOUND. */
export async function markNotificationsRead(
  ctx: AuthedContext,
  options: MarkReadOptions,
): Promise<MarkReadView> {
  const userId = ctx.principal.userId;
  const ids = options.ids ? [...new Set(options.ids)] : null;
  return ctx.prisma.$transaction(async (tx) => {
    if (ids) {
      // NOTE: ownership: every id must be the caller's, or nothing is marked.
      const mine = await tx.notification.count({ where: { userId, id: { in: ids } } });
      if (mine !== ids.length) throw appError('NOT_FOUND', 'Notification not found');
    }
    const { count } = await tx.notification.updateMany({
      where: { userId, readAt: null, ...(ids ? { id: { in: ids } } : {}) },
      data: { readAt: clock.now() },
    });
    return { marked: count };
  });
}

/** Opens one of the caller's items: marks it read and opened (first time), answers it. */
export async function openNotification(
  ctx: AuthedContext,
  options: OpenItemOptions,
): Promise<InboxItemView> {
  // NOTE: ownership is in the where: another person's item is "not found".
  const where = { id: options.id, userId: ctx.principal.userId };
  const item = await ctx.prisma.notification.findFirst({ where, select: itemSelect });
  if (!item) throw appError('NOT_FOUND', 'Notification not found');
  const now = clock.now();
  const readAt = item.readAt ?? now;
  const openedAt = item.openedAt ?? now;
  await ctx.prisma.notification.updateMany({ where, data: { readAt, openedAt } });
  return { ...item, readAt, openedAt };
}
