/**
 * Push notifications to phones (issue 15): the payload each platform's push service takes (APNs for
 * ios, FCM HTTP v1 for android) and a sender that delivers one message to one device token.
 *
 * Without PUSH_HTTP_URL the sender only logs (sends nothing) and answers `not_configured` (issue
 * 33: a push nobody delivered is never counted as sent), so a self-hosted or development server
 * works without push credentials. With it, the HTTP sender POSTs each platform's request to
 * that gateway in the platform's own shape (APNs: `POST /3/device/<token>`; FCM:
 * `POST /v1/projects/<project>/messages:send`), so a relay holding the APNs key and the FCM service
 * account forwards it as is (the suite points it at test/fakes/push.ts).
 * It must never throw for a refused or unreachable push, or for any answer body (issue 29): one
 * bad device never stops the others, and a push never fails the request that sent it. A 2xx is the
 * service's acceptance whatever its body; the body is read only to tell a dead token.
 */
import { z } from 'zod';
import type { Config } from '../base/config.ts';
import type { Logger } from '../base/logger.ts';

/** The platforms a device token can belong to (DeviceToken.platform). */
export type PushPlatform = 'ios' | 'android';

/** One device to push to. */
export interface PushDevice {
  /** the APNs or FCM token */
  token: string;
  platform: PushPlatform;
}

/** What a push says and where it leads; the same for every platform. */
export interface PushMessage {
  /** the inbox item it announces */
  notificationId: string;
  title: string;
  body: string;
  /** the notification category (APNs thread, FCM channel) */
  category: string;
  /** the person's chosen tone (a sound file shipped in the app) */
  tone: string;
  /** where opening it leads in the app, when anywhere */
  link: string | null;
}

/**
 * sent: the push service accepted it; invalid_token: the token is dead (retire it);
 * not_configured: no push service is configured (PUSH_HTTP_URL unset), nothing left the server;
 * failed: anything else.
 */
export type PushOutcome = 'sent' | 'invalid_token' | 'not_configured' | 'failed';

export interface PushSender {
  /** Delivers one message to one device; never throws. */
  send(device: PushDevice, message: PushMessage): Promise<PushOutcome>;
}

/** The APNs payload (the JSON body of `POST /3/device/<token>`). */
export function apnsPayload(message: PushMessage): Record<string, unknown> {
  return {
    aps: {
      alert: { title: message.title, body: message.body },
      sound: `${message.tone}.caf`,
      'thread-id': message.category,
      'mutable-content': 1,
    },
    notification_id: message.notificationId,
    category: message.category,
    ...(message.link ? { link: message.link } : {}),
  };
}

/** The FCM HTTP v1 request body (`POST /v1/projects/<project>/messages:send`). */
export function fcmRequest(token: string, message: PushMessage): Record<string, unknown> {
  return {
    message: {
      token,
      notification: { title: message.title, body: message.body },
      android: { notification: { sound: message.tone, channel_id: message.category } },
      // FCM data values are strings only
      data: {
        notification_id: message.notificationId,
        category: message.category,
        ...(message.link ? { link: message.link } : {}),
      },
    },
  };
}

const SEND_TIMEOUT_MS = 10_000;

/** The part of an FCM error body that says a token is no longer registered. */
const FcmError = z.object({
  error: z.object({
    status: z.unknown(),
    details: z.array(z.unknown()).catch([]),
  }),
});

/** Whether an FCM error body (any JSON, or null) says the token is no longer registered. */
function fcmUnregistered(body: unknown): boolean {
  const parsed = FcmError.safeParse(body);
  if (!parsed.success) return false;
  const { status, details } = parsed.data.error;
  return (
    status === 'NOT_FOUND' ||
    details.some((d) => (d as { errorCode?: unknown } | null)?.errorCode === 'UNREGISTERED')
  );
}

/** The HTTP sender: each platform's request to the gateway at `url`. */
function httpSender(config: Config, url: string, log: Logger): PushSender {
  const base = url.replace(/\/+$/, '');
  const auth: Record<string, string> = config.PUSH_HTTP_TOKEN
    ? { authorization: `Bearer ${config.PUSH_HTTP_TOKEN}` }
    : {};
  return {
    send: async (device, message) => {
      const ios = device.platform === 'ios';
      const target = ios
        ? `${base}/3/device/${encodeURIComponent(device.token)}`
        : `${base}/v1/projects/${encodeURIComponent(config.PUSH_FCM_PROJECT)}/messages:send`;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        ...auth,
        ...(ios
          ? {
              'apns-push-type': 'alert',
              'apns-topic': config.PUSH_APNS_TOPIC,
              'apns-priority': '10',
            }
          : {}),
      };
      try {
        const res = await fetch(target, {
          method: 'POST',
          headers,
          body: JSON.stringify(ios ? apnsPayload(message) : fcmRequest(device.token, message)),
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        const body: unknown = await res.json().catch(() => null);
        if (res.ok) return 'sent';
        // APNs: 410 Unregistered (also 400 BadDeviceToken); FCM: 404 UNREGISTERED
        const reason = (body as { reason?: unknown } | null)?.reason;
        if (ios && (res.status === 410 || reason === 'BadDeviceToken')) return 'invalid_token';
        if (!ios && fcmUnregistered(body)) return 'invalid_token';
        log.warn({ status: res.status, platform: device.platform }, 'push refused');
        return 'failed';
      } catch (err) {
        log.warn({ err: (err as Error).message, platform: device.platform }, 'push not sent');
        return 'failed';
      }
    },
  };
}

/**
 * The log sender: logs what it would send (never the token or the text), sends nothing and says
 * so (`not_configured`, never `sent`).
 */
function logSender(log: Logger): PushSender {
  return {
    send: (device, message) => {
      log.info(
        { platform: device.platform, notificationId: message.notificationId },
        'no PUSH_HTTP_URL configured: push logged, not sent',
      );
      return Promise.resolve('not_configured');
    },
  };
}

/** The configured sender: HTTP with PUSH_HTTP_URL, else the log sender. */
export function createPushSender(config: Config, log: Logger): PushSender {
  return config.PUSH_HTTP_URL ? httpSender(config, config.PUSH_HTTP_URL, log) : logSender(log);
}
