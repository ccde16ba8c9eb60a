/**
 * A fake room-monitor cloud: a real HTTP server on 127.0.0.1 speaking the consumer API the app
 * calls (src/integrations/monitor-cloud.ts, modelled on Airthings'): `POST /v1/token` (JSON
 * client-credentials grant; 401 `invalid_client` for unknown credentials), `GET /v1/devices` and
 * `GET /v1/devices/{serial}/samples?start&end[&cursor]` (bearer; parallel columns, `PAGE` samples a
 * page with a cursor). Accounts, devices and samples are what the test adds; `fail`, `delay` and
 * `answerRaw` break the next answers. Every request is recorded. Closed after the test file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startHttpFake } from './http-fake.ts';

/** Samples per page of the samples path (the cloud's own paging). */
const PAGE = 500;

export interface FakeSample {
  /** epoch seconds */
  time: number;
  temp?: number;
  humidity?: number;
  co2?: number;
  pm25?: number;
}

export interface FakeDevice {
  id: string;
  deviceType?: string;
  room?: string;
  samples?: FakeSample[];
}

export interface FakeMonitorRequest {
  method: string;
  path: string;
  authorization?: string;
  body?: unknown;
}

export interface FakeMonitorCloud {
  /** MONITOR_API_BASE */
  url: string;
  requests: FakeMonitorRequest[];
  /** adds (or replaces) an API client and its devices */
  addAccount(clientId: string, clientSecret: string, devices: FakeDevice[]): void;
  /** the next `times` requests answer `status` */
  fail(status: number, times?: number): void;
  /** the next request answers after `ms` */
  delay(ms: number): void;
  /**
   * The next request whose `METHOD /path` matches `request` (default: the next request) is
   * answered with this raw body, status 200 and a JSON content type unless given: a malformed
   * answer (`{}`, text that is not JSON, a field of the wrong type).
   */
  answerRaw(
    body: string,
    options?: { request?: RegExp; status?: number; contentType?: string },
  ): void;
}

interface Account {
  secret: string;
  devices: FakeDevice[];
}

export async function startFakeMonitorCloud(): Promise<FakeMonitorCloud> {
  const accounts = new Map<string, Account>();
  const tokens = new Map<string, string>();
  const requests: FakeMonitorRequest[] = [];
  const failures: number[] = [];
  let delayNext = 0;
  let tokenSeq = 0;
  const raw: { body: string; request?: RegExp; status?: number; contentType?: string }[] = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return undefined;
    }
  };

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    requests.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      body,
    });
    const failure = failures.shift();
    if (failure) return json(res, failure, { error: 'fake failure' });
    const at = raw.findIndex((r) => !r.request || r.request.test(`${req.method} ${url.pathname}`));
    if (at >= 0) {
      const [next] = raw.splice(at, 1);
      res.writeHead(next.status ?? 200, {
        'content-type': next.contentType ?? 'application/json',
      });
      return res.end(next.body);
    }

    if (req.method === 'POST' && url.pathname === '/v1/token') {
      const b = (body ?? {}) as Record<string, unknown>;
      const account = accounts.get(String(b.client_id));
      if (b.grant_type !== 'client_credentials' || !account || account.secret !== b.client_secret)
        return json(res, 401, { error: 'invalid_client' });
      const token = `fake-token-${++tokenSeq}`;
      tokens.set(token, String(b.client_id));
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 10800 });
    }
    const clientId = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    const account = clientId ? accounts.get(clientId) : undefined;
    if (!account) return json(res, 401, { error: 'invalid_token' });
    if (req.method === 'GET' && url.pathname === '/v1/devices') {
      return json(res, 200, {
        devices: account.devices.map((d) => ({
          id: d.id,
          deviceType: d.deviceType ?? 'VIEW_PLUS',
          sensors: ['temp', 'humidity', 'co2', 'pm25'],
          segment: { id: `seg-${d.id}`, name: d.room ?? null, started: '2026-01-01T00:00:00' },
          location: { id: 'loc-1', name: 'Home' },
        })),
      });
    }
    const match = /^\/v1\/devices\/([^/]+)\/samples$/.exec(url.pathname);
    if (req.method === 'GET' && match) {
      const device = account.devices.find((d) => d.id === decodeURIComponent(match[1]));
      if (!device) return json(res, 404, { error: 'not_found' });
      const start = Date.parse(url.searchParams.get('start') ?? '') / 1000;
      const end = Date.parse(url.searchParams.get('end') ?? '') / 1000;
      if (!Number.isFinite(start) || !Number.isFinite(end))
        return json(res, 400, { error: 'start and end required' });
      const inWindow = (device.samples ?? []).filter((s) => s.time >= start && s.time <= end);
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      const page = inWindow.slice(offset, offset + PAGE);
      const column = (key: keyof FakeSample) => page.map((s) => s[key] ?? null);
      return json(res, 200, {
        data: {
          time: column('time'),
          temp: column('temp'),
          humidity: column('humidity'),
          co2: column('co2'),
          pm25: column('pm25'),
        },
        ...(offset + PAGE < inWindow.length ? { cursor: String(offset + PAGE) } : {}),
      });
    }
    return json(res, 404, { error: 'not_found' });
  };

  // a caller that gave up (timeout) closes the socket: its request simply ends unanswered
  const run = (req: IncomingMessage, res: ServerResponse) =>
    void answer(req, res).catch(() => res.destroy());
  const fake = await startHttpFake((req, res) => {
    const wait = delayNext;
    delayNext = 0;
    if (wait > 0) fake.later(wait, () => run(req, res));
    else run(req, res);
  });

  return {
    url: fake.origin,
    requests,
    addAccount: (clientId, clientSecret, devices) =>
      accounts.set(clientId, { secret: clientSecret, devices }),
    fail: (status, times = 1) => {
      for (let i = 0; i < times; i += 1) failures.push(status);
    },
    delay: (ms) => {
      delayNext = ms;
    },
    answerRaw: (body, options = {}) => void raw.push({ ...options, body }),
  };
}
