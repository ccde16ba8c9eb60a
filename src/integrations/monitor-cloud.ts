/**
 * The room-monitor cloud's consumer API (issue 15), modelled on Airthings' public consumer API
 * (docs/decisions.md, "Room monitor and feedback"): an OAuth client-credentials token endpoint
 * (`POST <token url>`, JSON `{grant_type, client_id, client_secret, scope}` -> `{access_token,
 * token_type, expires_in}`), the devices list (`GET <base>/v1/devices` -> `{devices: [{id,
 * deviceType, segment: {name}}]}`) and a device's samples (`GET <base>/v1/devices/{serial}/samples
 * ?start&end[&cursor]` -> `{data: {time: [epoch s], temp, humidity, co2, pm25}, cursor?}`, the
 * columns parallel arrays).
 *
 * Plain fetch (undici), one timeout per call (MONITOR_TIMEOUT_MS), no retries. Every failure
 * becomes an app error a person can act on: credentials the cloud refuses are 400
 * (`monitor_credentials_rejected`), the cloud unreachable or answering nonsense is 502, too slow
 * 504. It must never log or echo the client secret or a token.
 */
import { z } from 'zod';
import type { Config } from '../base/config.ts';
import { appError } from '../base/errors.ts';
import { parsedAnswer, upstreamError } from './upstream.ts';

type MonitorConfig = Pick<Config, 'MONITOR_API_BASE' | 'MONITOR_TOKEN_URL' | 'MONITOR_TIMEOUT_MS'>;

/** Scope the consumer API grants to a person's own API client (Airthings' one scope). */
const TOKEN_SCOPE = ['read:device:current_values'];
/** Pages of samples followed per device and call (the cloud's cursor), a bound on one sync. */
const SAMPLE_PAGES_MAX = 20;

/** A device as the cloud's devices list names it. */
export interface CloudDevice {
  serialNumber: string;
  deviceType: string | null;
  name: string | null;
}

/** One sample of a device (time in epoch seconds, missing sensors null). */
export interface CloudSample {
  time: number;
  temp: number | null;
  humidity: number | null;
  co2: number | null;
  pm25: number | null;
}

const TokenAnswer = z.object({ access_token: z.string().min(1) });
const DevicesAnswer = z.object({
  devices: z.array(
    z.object({
      id: z.string().min(1).max(64),
      deviceType: z.string().max(64).nullish(),
      segment: z.object({ name: z.string().max(200).nullish() }).nullish(),
    }),
  ),
});
const column = z.array(z.number().nullable()).optional();
const SamplesAnswer = z.object({
  data: z.object({
    time: z.array(z.number().int()),
    temp: column,
    humidity: column,
    co2: column,
    pm25: column,
  }),
  cursor: z.string().max(500).nullish(),
});

/** The base URL, or 503 when the integration is not configured. */
function baseOf(config: MonitorConfig): string {
  if (!config.MONITOR_API_BASE)
    throw appError('UNAVAILABLE', 'The room-monitor integration is not configured on this server');
  return config.MONITOR_API_BASE.replace(/\/+$/, '');
}

/** One JSON call with the timeout; network failures and timeouts become 502 / 504. */
async function call(config: MonitorConfig, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, {
      ...init,
      redirect: 'error',
      signal: AbortSignal.timeout(config.MONITOR_TIMEOUT_MS),
    });
  } catch (e) {
    if ((e as Error).name === 'TimeoutError')
      throw appError(
        'UPSTREAM_TIMEOUT',
        'The room-monitor cloud did not answer in time; try again',
      );
    throw appError(
      'UPSTREAM_FAILED',
      'The room-monitor cloud could not be reached; try again later',
    );
  }
}

const SERVICE = 'the room-monitor cloud';

/**
 * Parses a 2xx answer with `schema`; anything else from the cloud (an error status, a body that is
 * not JSON or lacks the fields) is a 502. `what` is what the cloud was asked to do.
 */
async function parse<T>(res: Response, schema: z.ZodType<T>, what: string): Promise<T> {
  if (!res.ok) {
    await res.body?.cancel();
    throw appError('UPSTREAM_FAILED', `The room-monitor cloud failed to ${what}; try again later`, {
      detail: { code: 'monitor_cloud_failed', status: res.status },
    });
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw upstreamError(SERVICE, what);
  }
  return parsedAnswer(body, schema, { service: SERVICE, what });
}

/**
 * The client-credentials grant: an access token for the person's API client. Credentials the
 * cloud refuses (400/401/403) are a 400 the person can fix.
 */
export async function fetchMonitorToken(
  config: MonitorConfig,
  credentials: { clientId: string; clientSecret: string },
): Promise<string> {
  const base = baseOf(config);
  const url = config.MONITOR_TOKEN_URL ?? `${base}/v1/token`;
  const res = await call(config, url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      scope: TOKEN_SCOPE,
    }),
  });
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw appError('BAD_REQUEST', 'The room-monitor cloud refused these client credentials', {
      detail: {
        code: 'monitor_credentials_rejected',
        message:
          'The room-monitor cloud refused this client id and secret. Check them in the monitor ' +
          "cloud's API client settings (the client must be active), then link again.",
      },
    });
  }
  return (await parse(res, TokenAnswer, 'issue a token')).access_token;
}

/** The devices of the token's account. */
export async function fetchMonitorDevices(
  config: MonitorConfig,
  token: string,
): Promise<CloudDevice[]> {
  const res = await call(config, `${baseOf(config)}/v1/devices`, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  const answer = await parse(res, DevicesAnswer, 'list the devices');
  return answer.devices.map((d) => ({
    serialNumber: d.id,
    deviceType: d.deviceType ?? null,
    name: d.segment?.name ?? null,
  }));
}

/** A device's samples between `start` and `end`, following the cloud's cursor (bounded). */
export async function fetchMonitorSamples(
  config: MonitorConfig,
  token: string,
  options: { serialNumber: string; start: Date; end: Date },
): Promise<CloudSample[]> {
  const samples: CloudSample[] = [];
  let cursor: string | null | undefined;
  for (let page = 0; page < SAMPLE_PAGES_MAX; page += 1) {
    const query = new URLSearchParams({
      start: options.start.toISOString(),
      end: options.end.toISOString(),
    });
    if (cursor) query.set('cursor', cursor);
    const path = `/v1/devices/${encodeURIComponent(options.serialNumber)}/samples?${query}`;
    const res = await call(config, `${baseOf(config)}${path}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    const { data, cursor: next } = await parse(res, SamplesAnswer, 'send the samples');
    data.time.forEach((time, i) =>
      samples.push({
        time,
        temp: data.temp?.[i] ?? null,
        humidity: data.humidity?.[i] ?? null,
        co2: data.co2?.[i] ?? null,
        pm25: data.pm25?.[i] ?? null,
      }),
    );
    if (!next) break;
    cursor = next;
  }
  return samples;
}
