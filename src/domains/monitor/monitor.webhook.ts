/**
 * The monitor cloud's webhook: real-time readings pushed as
 * `{"data": [{"serialNumber", "recorded", "temp", "humidity", "co2", "pm25"}]}` (Airthings'
 * webhook field names), signed with HMAC-SHA256 of the raw body under MONITOR_WEBHOOK_SECRET
 * (`X-Monitor-Signature: sha256=<hex>`), one delivery id per push (`X-Monitor-Delivery`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { appError } from '../../base/errors.ts';
import type { Context } from '../../graphql/context.ts';
import { storeReadings } from './monitor.readings.ts';
import { clock } from '../../base/clock.ts';

/** Readings one delivery may carry (422 beyond). */
export const WEBHOOK_READINGS_MAX = 1000;

/** The answer to a delivery. */
export interface MonitorWebhookAck {
  ok: true;
  /** true when this delivery id was received before (nothing changed) */
  duplicate: boolean;
  /** readings new here (a reading already stored for its device and time is skipped) */
  stored: number;
}

export interface ReceiveMonitorWebhookOptions {
  /** the body exactly as sent (raw responder) */
  body: string;
  /** the X-Monitor-Signature header: `sha256=<hex>` (or the bare hex) */
  signature?: string | null;
  /** the X-Monitor-Delivery header: the cloud's id of this push */
  deliveryId?: string | null;
}

const measure = (min: number, max: number) => z.number().min(min).max(max).nullish();
const Payload = z.object({
  data: z
    .array(
      z.object({
        serialNumber: z.string().min(1).max(64),
        /** ISO-8601; without a zone it is UTC */
        recorded: z
          .string()
          .max(40)
          .transform((t) => new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`))
          .refine((d) => {
            const ms = d.getTime();
            return ms >= Date.UTC(2000, 0, 1) && ms <= clock.ms() + 86_400_000;
          }, 'a time between 2000 and tomorrow'),
        temp: measure(-60, 100),
        humidity: measure(0, 100),
        co2: measure(0, 100_000),
        pm25: measure(0, 10_000),
      }),
    )
    .max(WEBHOOK_READINGS_MAX),
});

/**
 * NOTE: the sender is authenticated before anything is parsed or written: HMAC-SHA256 of the raw
 * body under MONITOR_WEBHOOK_SECRET, compared in constant time (timingSafeEqual over equal-length
 * digests). A missing or wrong signature is 403 and leaves no trace.
 */
function checkSignature(secret: string, body: string, signature: string | null | undefined): void {
  const expected = createHmac('sha256', secret).update(body, 'utf8').digest();
  const hex = (signature ?? '').trim().replace(/^sha256=/i, '');
  const given = /^[0-9a-f]{64}$/i.test(hex) ? Buffer.from(hex, 'hex') : Buffer.alloc(32);
  if (!timingSafeEqual(expected, given) || !/^[0-9a-f]{64}$/i.test(hex))
    throw appError('FORBIDDEN', 'invalid webhook signature', {
      detail: { code: 'invalid_signature', message: 'invalid webhook signature' },
    });
}

function invalid(loc: (string | number)[], msg: string): Error {
  return appError('VALIDATION_FAILED', `${loc.join('.')}: ${msg}`, {
    detail: [{ loc, msg, type: 'value_error' }],
  });
}

/**
 * Receives one signed delivery: a repeat of a delivery id is acknowledged and changes nothing;
 * otherwise the raw payload is kept and its readings stored per device and time, attached to the
 * person who linked the device (to nobody when no one did).
 */
export async function receiveMonitorWebhook(
  ctx: Context,
  options: ReceiveMonitorWebhookOptions,
): Promise<MonitorWebhookAck> {
  const secret = ctx.config.MONITOR_WEBHOOK_SECRET;
  if (!secret) throw appError('UNAVAILABLE', 'The room-monitor webhook is not configured');
  checkSignature(secret, options.body, options.signature);
  const deliveryId = options.deliveryId?.trim() ?? '';
  if (deliveryId.length < 1 || deliveryId.length > 200)
    throw invalid(['header', 'x-monitor-delivery'], 'a delivery id of 1 to 200 characters');
  let json: unknown;
  try {
    json = JSON.parse(options.body);
  } catch {
    throw invalid(['body'], 'not JSON');
  }
  const parsed = Payload.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(['body', ...(issue.path as (string | number)[])], issue.message);
  }
  const rows = parsed.data.data;
  const owners = await ctx.prisma.monitorDevice.findMany({
    where: { serialNumber: { in: [...new Set(rows.map((r) => r.serialNumber))] } },
    select: { serialNumber: true, userId: true },
  });
  const ownerOf = new Map(owners.map((o) => [o.serialNumber, o.userId]));
  try {
    const stored = await ctx.prisma.$transaction(async (tx) => {
      const delivery = await tx.monitorDelivery.create({
        data: { deliveryId, payload: options.body },
      });
      return storeReadings(
        tx,
        rows.map((r) => ({
          userId: ownerOf.get(r.serialNumber) ?? null,
          serialNumber: r.serialNumber,
          recordedAt: r.recorded,
          temperature: r.temp ?? null,
          humidity: r.humidity ?? null,
          co2: r.co2 ?? null,
          pm25: r.pm25 ?? null,
          deliveryId: delivery.id,
        })),
      );
    });
    return { ok: true, duplicate: false, stored };
  } catch (e) {
    if ((e as { code?: string }).code !== 'P2002') throw e;
    return { ok: true, duplicate: true, stored: 0 };
  }
}
