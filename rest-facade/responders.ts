/**
 * The closed list of responders: answers that are not "run the operation, answer its JSON"
 * (ARCHITECTURE.md section 3). A row names one with `responder`; handler.ts serves it. Responders
 * are HTTP mechanics only: they never decide who may do what (that stays behind the GraphQL fields).
 */
import type { RequestHandler } from 'express';
import { CSRF_HEADER } from '../src/auth/authenticate.ts';

export const RESPONDERS = ['preflight'] as const;

/**
 * - `preflight`: OPTIONS for a browser's CORS preflight. Answers 200 with no body, naming the methods
 *   the route table serves on the path (`Allow`, `Access-Control-Allow-Methods`) and the request
 *   headers clients send; it runs no operation. It grants no origin (no
 *   `Access-Control-Allow-Origin`): a page on another origin stays refused by the browser.
 */
export type Responder = (typeof RESPONDERS)[number];

/** Request headers the documented clients send (header names are case-insensitive). */
const ALLOWED_HEADERS = ['authorization', 'content-type', CSRF_HEADER];

/** The preflight answer of a path whose rows serve `methods`. */
export function preflightResponder(methods: readonly string[]): RequestHandler {
  const allow = [...new Set([...methods, 'OPTIONS'])].sort().join(', ');
  const headers = {
    allow,
    'access-control-allow-methods': allow,
    'access-control-allow-headers': ALLOWED_HEADERS.join(', '),
    'access-control-max-age': '600',
  };
  return (_req, res) => {
    res.status(200).set(headers).end();
  };
}
