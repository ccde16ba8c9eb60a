/** pino logger; every request logs through a child carrying its request id. */
import { pino } from 'pino';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

/** The app's logger, to stdout (or `destination`, as tests capture it). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: ['req.headers.authorization', 'req.headers.cookie'],
  };
  return destination ? pino(options, destination) : pino(options);
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

/** pino-http's `req` serializer: the serialized request with secret query values redacted. */
export function serializeRequest<T extends { url?: string; query?: Record<string, unknown> }>(
  req: T,
): T {
  if (typeof req.url === 'string') req.url = redactedUrl(req.url);
  if (req.query && typeof req.query === 'object') {
    req.query = Object.fromEntries(
      Object.entries(req.query).map(([k, v]) => [k, SECRET_PARAMS.test(k) ? '[Redacted]' : v]),
    );
  }
  return req;
}

/** The id pino-http gave a request (a string: genReqId in src/app.ts makes every one). */
export function requestIdOf(req: { id?: unknown }): string {
  return typeof req.id === 'string' || typeof req.id === 'number' ? String(req.id) : '';
}
