/**
 * CORS for browser pages on other origins that an operator named (the `cors` package). Only the
 * listed origins are granted, echoed with `Vary: Origin`; any other origin gets no CORS headers, so
 * its browser keeps refusing the answer. No credentials: these callers send a bearer token, never
 * our cookies. A granted origin's preflight is answered here (200) on every path under the mount;
 * any other OPTIONS request continues to the route table (its OPTIONS rows, or its 405).
 */
import cors from 'cors';
import type { RequestHandler } from 'express';

/** Request headers a granted page may send. */
const ALLOWED_HEADERS = ['authorization', 'content-type'];
/** Seconds a browser may reuse a preflight answer. */
const PREFLIGHT_MAX_AGE_S = 600;

/** CORS for `origins` (exact `scheme://host[:port]`, a trailing slash ignored). */
export function corsFor(origins: readonly string[]): RequestHandler {
  const granted = new Set(origins.map((o) => o.replace(/\/+$/, '')));
  return cors((req, done) => {
    const origin = req.headers.origin;
    const allowed = origin !== undefined && granted.has(origin);
    done(null, {
      origin: allowed,
      allowedHeaders: ALLOWED_HEADERS,
      maxAge: PREFLIGHT_MAX_AGE_S,
      preflightContinue: !allowed,
      optionsSuccessStatus: 200,
    });
  });
}
