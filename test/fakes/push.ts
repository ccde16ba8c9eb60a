/**
 * A fake push gateway: a real HTTP server on 127.0.0.1 taking the requests the HTTP push sender
 * makes (src/integrations/push.ts): APNs `POST /3/device/<token>` and FCM HTTP v1
 * `POST /v1/projects/<project>/messages:send`. It records every request (platform, token, headers,
 * parsed body) and answers as the real services do: 200 (APNs with an `apns-id`, FCM with the
 * message name), or for a token marked dead APNs 410 `{"reason":"Unregistered"}` and FCM 404
 * `UNREGISTERED`; `failNext` answers the next request 500, `answerRaw` with a body of its choosing. Closed after the test file.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { startHttpFake } from './http-fake.ts';
import { clock } from '../../src/base/clock.ts';

/** One push the fake received. */
export interface FakePush {
  platform: 'ios' | 'android';
  /** the device token (APNs: from the path; FCM: message.token) */
  token: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** the parsed JSON body */
  body: any;
}

export interface FakePushGateway {
  /** PUSH_HTTP_URL for the app */
  url: string;
  /** every push received, in order */
  pushes: FakePush[];
  /** tokens the push services report as no longer registered */
  deadTokens: Set<string>;
  /** answers the next request with a 500 */
  failNext(): void;
  /**
   * Answers the next request with this raw body and status (default 200, a JSON content type
   * unless given): a malformed answer of a push service.
   */
  answerRaw(body: string, options?: { status?: number; contentType?: string }): void;
  /** pushes to one token */
  to(token: string): FakePush[];
}

const APNS = /^\/3\/device\/([^/?]+)$/;
const FCM = /^\/v1\/projects\/([^/]+)\/messages:send$/;

export async function startFakePushGateway(): Promise<FakePushGateway> {
  const pushes: FakePush[] = [];
  const deadTokens = new Set<string>();
  let failures = 0;
  const raw: { body: string; status?: number; contentType?: string }[] = [];
  const fake = await startHttpFake((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // not JSON: recorded as null
      }
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
        res
          .writeHead(status, { 'content-type': 'application/json', ...headers })
          .end(value === undefined ? '' : JSON.stringify(value));
      const apns = APNS.exec(path);
      const fcm = FCM.exec(path);
      if (req.method !== 'POST' || (!apns && !fcm)) return json(404, { reason: 'BadPath' });
      const platform = apns ? 'ios' : 'android';
      const token = apns ? decodeURIComponent(apns[1]) : String(body?.message?.token ?? '');
      pushes.push({ platform, token, path, headers: req.headers, body });
      const next = raw.shift();
      if (next)
        return res
          .writeHead(next.status ?? 200, {
            'content-type': next.contentType ?? 'application/json',
          })
          .end(next.body);
      if (failures > 0) {
        failures--;
        return json(500, { reason: 'InternalServerError' });
      }
      if (deadTokens.has(token))
        return apns
          ? json(410, { reason: 'Unregistered', timestamp: clock.ms() })
          : json(404, {
              error: {
                code: 404,
                message: 'Requested entity was not found.',
                status: 'NOT_FOUND',
                details: [
                  {
                    '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError',
                    errorCode: 'UNREGISTERED',
                  },
                ],
              },
            });
      return apns
        ? json(200, undefined, { 'apns-id': randomUUID() })
        : json(200, { name: `projects/${fcm![1]}/messages/${randomUUID()}` });
    });
  });
  return {
    url: fake.origin,
    pushes,
    deadTokens,
    failNext: () => void failures++,
    answerRaw: (body, options = {}) => void raw.push({ ...options, body }),
    to: (token) => pushes.filter((p) => p.token === token),
  };
}
