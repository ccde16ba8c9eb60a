/**
 * Sending: one notification to one person is one inbox item and, when preferences allow, a push to
 * each of the person's live device tokens (APNs or FCM shape by platform, src/integrations/push.ts).
 * A category the person turned off, or quiet hours (except for the person's own test send), hold
 * the push back; the item is still in the inbox, and its pushStatus says why. Tokens the push
 * service reports dead are retired through the devices domain. Admins send to one person (audited
 * in the item's transaction) and list what was sent.
 */
import type { AuthedContext, Context } from '../../graphql/context.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { appError } from '../../base/errors.ts';
import { createPushSender } from '../../integrations/push.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { recordAdminAction } from '../admin/index.ts';
import { pushTargets, retireDeviceTokens } from '../devices/index.ts';
import type { NotificationCategory, PushStatus } from './notifications.catalogue.ts';
import { itemSelect } from './notifications.inbox.ts';
import type { InboxItemView } from './notifications.inbox.ts';
import { pushPolicyOf } from './notifications.prefs.ts';
import { clock } from '../../base/clock.ts';

export interface SendResultView {
  /** the inbox item written */
  notification: InboxItemView;
  /** what happened to the push */
  pushStatus: PushStatus;
  /** the person's live devices when it was sent */
  devices: number;
  /** devices whose push service accepted it */
  sent: number;
  /** dead tokens retired by this send */
  retired: number;
  /** the tone the push played */
  tone: string;
}

export interface SendTestOptions {
  /** the category to test (default account); a category turned off is held back */
  category?: NotificationCategory | null;
}

export interface AdminSendOptions {
  /** the person to send to */
  userId: number;
  title: string;
  body: string;
  category: NotificationCategory;
  /** where opening it leads in the app (app:// or https://), when anywhere */
  link?: string | null;
}

export interface AdminListOptions {
  /** items per page */
  limit: number;
  /** items skipped (newest first) */
  offset: number;
  /** only those sent to this person */
  userId?: number | null;
}

interface DeliverOptions {
  userId: number;
  category: NotificationCategory;
  title: string;
  body: string;
  link: string | null;
  source: 'admin' | 'test' | 'system';
  /** the person's own test send: quiet hours do not hold it back */
  ignoreQuietHours: boolean;
  /** written in the item's transaction (an admin's send is audited with it) */
  alsoInTransaction?: (tx: Prisma.TransactionClient, notificationId: string) => Promise<void>;
}

const HOUR = 3600;

async function spend(ctx: Context, rule: LimitRule, key: string): Promise<void> {
  const decision = await ctx.limits.take(rule, key);
  if (!decision.allowed)
    throw appError('RATE_LIMITED', 'Too many notifications sent; try again later', {
      detail: { code: 'rate_limited' },
      retryAfter: decision.retryAfterSeconds,
    });
}

/** Writes the inbox item and pushes it to the person's devices as preferences allow. */
async function deliver(ctx: AuthedContext, options: DeliverOptions): Promise<SendResultView> {
  const { userId, category } = options;
  const [policy, devices] = await Promise.all([
    pushPolicyOf(ctx, userId),
    pushTargets(ctx, { userId }),
  ]);
  const held: PushStatus | null = !policy.categories.has(category)
    ? 'category_off'
    : !options.ignoreQuietHours && policy.quietAt(clock.now())
      ? 'quiet_hours'
      : devices.length
        ? null
        : 'no_devices';
  const item = await ctx.prisma
    .$transaction(async (tx) => {
      const row = await tx.notification.create({
        data: {
          userId,
          category,
          title: options.title,
          body: options.body,
          link: options.link,
          source: options.source,
          sentByUserId: options.source === 'admin' ? ctx.principal.userId : null,
          // NOTE: not `sent` until a push service accepted it (a send cut short stays failed)
          pushStatus: held ?? 'failed',
        },
        select: itemSelect,
      });
      await options.alsoInTransaction?.(tx, row.id);
      return row;
    })
    .catch((e: unknown) => {
      // the person does not exist (the user foreign key)
      if ((e as { code?: string }).code === 'P2003') throw appError('NOT_FOUND', 'User not found');
      throw e;
    });
  const result = { devices: devices.length, tone: policy.tone };
  if (held) return { notification: item, ...result, pushStatus: held, sent: 0, retired: 0 };
  const sender = createPushSender(ctx.config, ctx.log);
  const message = {
    notificationId: item.id,
    title: options.title,
    body: options.body,
    category,
    tone: policy.tone,
    link: options.link,
  };
  const outcomes = await Promise.all(devices.map((d) => sender.send(d, message)));
  const sent = outcomes.filter((o) => o === 'sent').length;
  const dead = devices.filter((_d, i) => outcomes[i] === 'invalid_token').map((d) => d.token);
  const retired = await retireDeviceTokens(ctx, { userId, tokens: dead });
  // without a push service nothing left the server: not_configured, never sent (issue 33)
  const pushStatus: PushStatus = sent
    ? 'sent'
    : outcomes.every((o) => o === 'not_configured')
      ? 'not_configured'
      : 'failed';
  const notification = await ctx.prisma.notification.update({
    where: { id: item.id },
    data: { devicesSent: sent, pushStatus },
    select: itemSelect,
  });
  return { notification, ...result, pushStatus, sent, retired };
}

/** What the platform sends a person on another person's behalf (a nudge, a challenge). */
export interface NotifyPersonOptions {
  /** the person to notify */
  userId: number;
  category: NotificationCategory;
  title: string;
  body: string;
  /** where opening it leads in the app, when anywhere */
  link?: string | null;
}

/**
 * The platform's own send to a person (another domain's event): an inbox item, and a push as the
 * person's categories and quiet hours allow.
 */
export async function notifyPerson(
  ctx: AuthedContext,
  options: NotifyPersonOptions,
): Promise<SendResultView> {
  return deliver(ctx, {
    ...options,
    link: options.link ?? null,
    source: 'system',
    ignoreQuietHours: false,
  });
}

/** Sends the caller a test notification now (quiet hours ignored; a category turned off is not). */
export async function sendTestNotification(
  ctx: AuthedContext,
  options: SendTestOptions,
): Promise<SendResultView> {
  const rule = {
    name: 'notifications:test',
    points: ctx.config.NOTIFICATION_TEST_SENDS_PER_HOUR,
    seconds: HOUR,
  };
  await spend(ctx, rule, String(ctx.principal.userId));
  return deliver(ctx, {
    userId: ctx.principal.userId,
    category: options.category ?? 'account',
    title: 'Test notification',
    body: 'Notifications reach this phone.',
    link: null,
    source: 'test',
    ignoreQuietHours: true,
  });
}

/** An admin's send to one person, audited in the same transaction as the inbox item. */
export async function sendAdminNotification(
  ctx: AuthedContext,
  options: AdminSendOptions,
): Promise<SendResultView> {
  const rule = {
    name: 'notifications:admin-send',
    points: ctx.config.ADMIN_NOTIFICATION_SENDS_PER_HOUR,
    seconds: HOUR,
  };
  await spend(ctx, rule, String(ctx.principal.userId));
  return deliver(ctx, {
    userId: options.userId,
    category: options.category,
    title: options.title,
    body: options.body,
    link: options.link ?? null,
    source: 'admin',
    ignoreQuietHours: false,
    alsoInTransaction: (tx, notificationId) =>
      recordAdminAction(
        ctx,
        {
          action: 'sendAdminNotification',
          targetUserId: options.userId,
          detail: { notificationId, category: options.category },
        },
        tx,
      ),
  });
}

/** Sent notifications, newest first (admins); the listing itself is audited. */
export async function adminNotifications(
  ctx: AuthedContext,
  options: AdminListOptions,
): Promise<InboxItemView[]> {
  const items = await ctx.prisma.notification.findMany({
    where: options.userId ? { userId: options.userId } : {},
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit,
    skip: options.offset,
    select: itemSelect,
  });
  await recordAdminAction(ctx, {
    action: 'adminNotifications',
    targetUserId: options.userId ?? null,
    detail: { limit: options.limit, offset: options.offset, returned: items.length },
  });
  return items;
}
