/**
 * The GraphQL context, and the one way to build it: createContext(deps, request). Every door
 * builds its requests' contexts here: yoga (POST /graphql), the REST and MCP facades, the web pages
 * (through src/server/app.ts) and the test factories (createContextAs, with a principal they already know).
 *
 * It must never hold a door's rules beyond the one it is told (refuseInvalidCredential): which
 * credentials a door accepts, and what it answers without one, stay with that door.
 */
import { GraphQLError } from 'graphql';
import { authenticate, presentsCredential } from '../auth/authenticate.ts';
import { clearedSessionCookies } from '../auth/cookies.ts';
import type { Principal } from '../auth/principal.ts';
import type { CredentialCache } from '../auth/credential-cache.ts';
import type { Config } from '../base/config.ts';
import type { Db } from '../db/client.ts';
import type { IdentityProviders } from '../integrations/idp.ts';
import type { Mailer } from '../integrations/mailer.ts';
import type { ModelClient } from '../integrations/openai.ts';
import type { Storage } from '../integrations/storage.ts';
import type { Logger } from '../base/logger.ts';
import type { JobQueue } from '../platform/jobs.ts';
import type { Limits } from '../platform/limits.ts';
import { RequestLoaders } from './loaders.ts';

/** The app's long-lived parts every context carries: built once by createApp(). */
export interface ContextDeps {
  prisma: Db;
  config: Config;
  mailer: Mailer;
  /** stored files (profile photos), local disk by default */
  storage: Storage;
  /** ID-token verification for identity-provider sign-in */
  idp: IdentityProviders;
  /** rate limits shared by every replica (memory, or Redis with REDIS_URL) */
  limits: Limits;
  /** the AI model API (openai SDK); null when OPENAI_API_KEY is unset (AI features answer 503) */
  models: ModelClient | null;
  /** background jobs (pg-boss on either database; src/platform/jobs.ts) */
  jobs: JobQueue;
  /** credentials recently found valid; revoked(userId) after a change to an account's credentials */
  credentials: CredentialCache;
}

/** Which door a request came through. */
export type Via = 'graphql' | 'rest' | 'mcp' | 'web';

export interface Context extends ContextDeps {
  principal: Principal | null;
  requestId: string;
  log: Logger;
  ip: string | null;
  userAgent: string | null;
  /** which door the request came through */
  via: Via;
  /** Set-Cookie values for the HTTP answer (src/auth/cookies.ts); facades and yoga send them */
  responseCookies: string[];
  /** this request's DataLoaders (src/graphql/loaders.ts), made on first use */
  loaders: RequestLoaders;
}

/** The context inside a field whose auth scopes passed: the caller is known. */
export interface AuthedContext extends Context {
  principal: Principal;
}

/** Who sent a request and how it is answered, beside its credentials. */
export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string;
  log: Logger;
  via: Via;
  /** where fields put Set-Cookie values; the door sends them (default: a new empty list) */
  responseCookies?: string[];
}

/** What a door knows of one request: its credentials and who sent it. */
export interface RequestFacts extends RequestMeta {
  /** the Authorization header (a bearer: login token or personal token) */
  authorization?: string | null;
  /** the Cookie header (the web session) */
  cookie?: string | null;
  /** the CSRF header, required with a session cookie on state changes */
  csrfToken?: string | null;
  /** the HTTP method (state changes by cookie need the CSRF header) */
  method: string;
  /**
   * The protected resource of the door (`<origin>/mcp`, only the OAuth host's /mcp passes it): an
   * OAuth access token is a credential only for its own resource (src/auth/authenticate.ts).
   */
  oauthResource?: string | null;
  /**
   * A presented credential (a bearer or the session cookie) that is unknown, expired or revoked
   * answers HTTP 401 before any field runs (GraphQL). Otherwise the request goes on without a
   * principal and the door decides.
   */
  refuseInvalidCredential?: boolean;
}

/** The context of a caller already known (no authentication): test factories, in-process jobs. */
export function createContextAs<P extends Principal | null>(
  deps: ContextDeps,
  request: RequestMeta,
  principal: P,
): Context & { principal: P } {
  const { prisma, config, mailer, storage, idp, limits, models, jobs, credentials } = deps;
  return {
    prisma,
    config,
    mailer,
    storage,
    idp,
    limits,
    models,
    jobs,
    credentials,
    principal,
    requestId: request.requestId,
    log: request.log,
    ip: request.ip,
    userAgent: request.userAgent,
    via: request.via,
    responseCookies: request.responseCookies ?? [],
    loaders: new RequestLoaders(),
  };
}

/**
 * The context of one request: authenticates its credential (src/auth/authenticate.ts; a cookie
 * state change without its CSRF header throws FORBIDDEN) and carries the app's long-lived parts.
 */
export async function createContext(deps: ContextDeps, request: RequestFacts): Promise<Context> {
  const principal = await authenticate(
    { prisma: deps.prisma, jwtSecret: deps.config.jwtSecret, credentials: deps.credentials },
    {
      authorization: request.authorization,
      cookie: request.cookie,
      csrfToken: request.csrfToken,
      method: request.method,
      oauthResource: request.oauthResource,
    },
  );
  if (!principal && request.refuseInvalidCredential && presentsCredential(request)) {
    // a browser cannot drop its HttpOnly cookie itself: the 401 clears it, so the next request
    // (a new sign-in) goes through
    if (!request.authorization)
      request.responseCookies?.push(...clearedSessionCookies({ secure: deps.config.cookieSecure }));
    throw new GraphQLError('Invalid or expired credential: sign in again or use a valid token', {
      extensions: {
        code: 'UNAUTHENTICATED',
        http: { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } },
      },
    });
  }
  return createContextAs(deps, request, principal);
}
