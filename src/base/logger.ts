/** pino logger; every request logs through a child carrying its request id. */
import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

/**
 * The app's logger, to stdout (or `destination`, as tests capture it). Stdout is written
 * asynchronously (sonic-boom buffers while a write is in flight): a synchronous write per request
 * line was the largest single cost of a profile read (issue 18, docs/benchmarks.md).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
  };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

/** Query parameters that carry a secret (an emailed reset link's `token`): never written to a log. */
const SECRET_PARAMS = /^(token|code|password|secret|access_token|id_token|ticket)$/i;

/** `url` with the values of secret query parameters replaced (the request log's `url`). */
export function redactedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_PARAMS.test(safeDecode(name)) ? `${name}=[Redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

interface SerializedRequest {
  id?: unknown;
  method?: string;
  url?: string;
  query?: Record<string, unknown>;
}

/**
 * pino-http's `req` serializers for `log`: the request's id, method and URL (secret query values
 * redacted); its headers (credentials redacted), parameters and address only at debug level.
 */
export function requestSerializer(log: Logger): (req: SerializedRequest) => SerializedRequest {
  return (req) =>
    log.isLevelEnabled('debug')
      ? serializeRequest(req)
      : { id: req.id, method: req.method, url: redactedUrl(req.url ?? '') };
}

/** `res` as the request line logs it: the status alone (the headers at debug level). */
export function responseSerializer(log: Logger): (res: { statusCode?: number }) => object {
  return (res) => (log.isLevelEnabled('debug') ? res : { statusCode: res.statusCode });
}

/** The serialized request with secret query values redacted. */
function serializeRequest<T extends SerializedRequest>(req: T): T {
  if (typeof req.url === 'string') req.url = redactedUrl(req.url);
  if (req.query && typeof req.query === 'object') {
    req.query = Object.fromEntries(
      Object.entries(req.query).map(([k, v]) => [k, SECRET_PARAMS.test(k) ? '[Redacted]' : v]),
    );
  }
  return req;
}

/** The id pino-http gave a request (a string: genReqId in src/server/app.ts makes every one). */
export function requestIdOf(req: { id?: unknown }): string {
  return typeof req.id === 'string' || typeof req.id === 'number' ? String(req.id) : '';
}
