/**
 * What an express request tells createContext() (src/graphql/context.ts): its credential headers,
 * method, client address, user agent, request id and logger. The REST and MCP facades and the web
 * pages build their contexts from it; yoga reads the same headers from its fetch Request.
 *
 * It must never decide anything about the credentials: it only reads them.
 */
import type { Request } from 'express';
import { CSRF_HEADER } from '../auth/authenticate.ts';
import type { RequestFacts, Via } from './context.ts';
import { requestIdOf } from '../base/logger.ts';

/** The facts of an express request coming through `via` (req.ip honours TRUST_PROXY). */
export function requestFactsOf(req: Request, via: Via): RequestFacts {
  return {
    authorization: req.get('authorization'),
    cookie: req.get('cookie'),
    csrfToken: req.get(CSRF_HEADER),
    method: req.method,
    ip: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
    requestId: requestIdOf(req),
    log: req.log,
    via,
  };
}
