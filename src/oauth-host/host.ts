/**
 * The OAuth MCP host (issue 13, docs/mcp-oauth.md): a second express app, served by the same
 * process on its own port (MCP_OAUTH_PORT), whose origin is the OAuth issuer and whose `/mcp` is the
 * protected resource. It serves:
 * - `/mcp`: the MCP router's OAuth door (mcp-facade/server.ts, given by the composition root), which
 *   takes OAuth access tokens for `<origin>/mcp` only and answers anything else with a 401 naming the
 *   RFC 9728 `resource_metadata`;
 * - the discovery documents (metadata.ts): `/.well-known/oauth-protected-resource/mcp` and
 *   `/.well-known/oauth-authorization-server`;
 * - the SDK's handlers over our provider (provider.ts): `/oauth/register` (RFC 7591),
 *   `/oauth/authorize`, `/oauth/token`, `/oauth/revoke` (RFC 7009), each behind our limits and body
 *   parsers (their in-memory limiters off);
 * - the sign-in and consent pages (web-pages/oauth-pages.ts) at `/oauth/consent` and `/oauth/sign-in`.
 * It imports no domain but src/domains/oauth/index.ts.
 */
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import {
  InvalidClientMetadataError,
  InvalidRequestError,
  TooManyRequestsError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { hostNameOf } from '../base/config.ts';
import type { Config } from '../base/config.ts';
import { ERROR_TABLE, httpErrorBody } from '../base/errors.ts';
import { requestIdOf } from '../base/logger.ts';
import type { Db } from '../db/client.ts';
import { REGISTRATIONS_PER_IP } from '../domains/oauth/index.ts';
import type { ClientMetadataFetcher } from '../domains/oauth/index.ts';
import { jsonBodyParser } from '../platform/input-guards.ts';
import type { LimitRule, Limits } from '../platform/limits.ts';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  AUTHORIZE_PATH,
  authorizationServerMetadata,
  MCP_RESOURCE_PATH,
  PROTECTED_RESOURCE_METADATA_PATH,
  protectedResourceMetadata,
  REGISTRATION_PATH,
  REVOCATION_PATH,
  TOKEN_PATH,
} from './metadata.ts';
import { clientAuth, clientsStore, oauthProvider } from './provider.ts';

export { MCP_RESOURCE_PATH, PROTECTED_RESOURCE_METADATA_PATH } from './metadata.ts';
/** The longest ticket (the pages refuse longer ones before anything else). */
export { MAX_TICKET_CHARS } from '../domains/oauth/index.ts';

/** Largest registration body (a client's metadata is a few hundred bytes). */
const REGISTRATION_BODY_LIMIT = '16kb';
/** Largest token, revocation or authorization form (a few hundred bytes in practice). */
const FORM_BODY_LIMIT = '8kb';

/** Authorization requests per client IP (the SDK's own default, kept in our shared store). */
export const AUTHORIZATIONS_PER_IP: LimitRule = {
  name: 'oauth:authorize:ip',
  points: 100,
  seconds: 900,
};
/** Token and revocation requests per client id. */
export const TOKEN_REQUESTS_PER_CLIENT: LimitRule = {
  name: 'oauth:token:client',
  points: 120,
  seconds: 60,
};

/** What the host's `/mcp` router is built from: its public resource and the metadata naming it. */
export interface OAuthResource {
  /** `<origin>/mcp`: what access tokens must be issued for */
  resource: string;
  /** `<origin>/.well-known/oauth-protected-resource/mcp`, named in every challenge */
  resourceMetadataUrl: string;
  /** the public origin's host name, served beside loopback and MCP_ALLOWED_HOSTS */
  host: string;
}

export interface OAuthHostOptions {
  config: Config;
  /** the MCP router of `/mcp` (the OAuth door of mcp-facade/server.ts), built for this resource */
  mcpRouter(resource: OAuthResource): RequestHandler;
  /** request id, pino-http logging and the request scope: the main app's own middleware */
  requestMiddleware: readonly RequestHandler[];
  /** the database the oauth domain works on (never queried here) */
  db: Db;
  /** the app's shared limits (memory, or Redis with REDIS_URL) */
  limits: Limits;
  /** fetches a client ID metadata document (src/integrations/client-metadata.ts) */
  fetchClientMetadata: ClientMetadataFetcher;
  /** the sign-in and consent pages (web-pages/oauth-pages.ts) for this origin */
  pages(origin: string): RequestHandler;
}

/**
 * Takes one point of `rule` per request, keyed by `keyOf` (the client IP, or the form's client id);
 * 429 `too_many_requests` with Retry-After once spent.
 */
function limited(limits: Limits, rule: LimitRule, keyOf: (req: Request) => string): RequestHandler {
  return (req, res, next) => {
    limits.take(rule, keyOf(req)).then((decision) => {
      if (decision.allowed) return next();
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      res
        .status(429)
        .json(new TooManyRequestsError('Too many requests; try again later').toResponseObject());
    }, next);
  };
}

/** `handler` for POSTs; other methods pass on (to the handler's own 405). */
function postsOnly(handler: RequestHandler): RequestHandler {
  return (req, res, next) => (req.method === 'POST' ? handler(req, res, next) : next());
}

const clientIp = (req: Request): string => req.ip ?? 'unknown';
const formClientId = (req: Request): string => {
  const id = (req.body as Record<string, unknown> | undefined)?.client_id;
  return typeof id === 'string' ? id.slice(0, 200) : 'none';
};

/**
 * Body parser failures at an OAuth endpoint as OAuth errors (never 5xx): 413 for a body over the
 * limit, else 400 (`invalid_client_metadata` at registration, `invalid_request` elsewhere).
 */
function bodyErrors(registration: boolean) {
  return (
    err: Error & { type?: string; status?: number },
    _req: Request,
    res: Response,
    next: NextFunction,
  ): void => {
    if (err.type === 'entity.too.large') {
      res.status(413).json(new InvalidRequestError('Body too large').toResponseObject());
      return;
    }
    if (err.status && err.status >= 400 && err.status < 500) {
      const message = err.type === 'entity.parse.failed' ? 'Body could not be read' : err.message;
      const error = registration
        ? new InvalidClientMetadataError(message)
        : new InvalidRequestError(message);
      res.status(400).json(error.toResponseObject());
      return;
    }
    next(err);
  };
}

/** A small url-encoded form parser (token, revocation, authorization by POST). */
const formParser = express.urlencoded({
  extended: false,
  limit: FORM_BODY_LIMIT,
  parameterLimit: 20,
});

/** The host's public origin: MCP_PUBLIC_URL, else `http://<MCP_OAUTH_HOST>:<bound port>`. */
export function oauthHostUrl(config: Config, boundPort: number): URL {
  if (config.MCP_PUBLIC_URL) return new URL(config.MCP_PUBLIC_URL);
  const host = config.MCP_OAUTH_HOST.includes(':')
    ? `[${config.MCP_OAUTH_HOST}]`
    : config.MCP_OAUTH_HOST;
  return new URL(`http://${host}:${boundPort}`);
}

const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The OAuth server's endpoints: metadata (RFC 9728, RFC 8414), registration, authorize, token, revocation. */
function mountOAuthEndpoints(
  app: express.Express,
  options: OAuthHostOptions,
  origin: string,
): void {
  const { config } = options;
  const { db, limits } = options;
  const clients = clientsStore(db, options.fetchClientMetadata);
  const provider = oauthProvider({
    db,
    clients,
    secret: config.jwtSecret,
    issuer: origin,
    resource: `${origin}${MCP_RESOURCE_PATH}`,
  });

  // RFC 9728 (no root document: it would name another resource, only the one of /mcp) and RFC 8414.
  // The SDK's handler answers CORS `*` and 405 on methods other than GET and OPTIONS.
  app.use(PROTECTED_RESOURCE_METADATA_PATH, metadataHandler(protectedResourceMetadata(origin)));
  app.use(AUTHORIZATION_SERVER_METADATA_PATH, metadataHandler(authorizationServerMetadata(origin)));

  // RFC 7591 registration: our per-IP limit and 16 kB JSON parser first (the SDK's own express.json
  // then finds the body read), its in-memory limiter off; secrets never expire (0).
  app.use(
    REGISTRATION_PATH,
    postsOnly(limited(limits, REGISTRATIONS_PER_IP, clientIp)),
    jsonBodyParser(REGISTRATION_BODY_LIMIT),
    bodyErrors(true),
    clientRegistrationHandler({
      clientsStore: clients,
      clientSecretExpirySeconds: 0,
      rateLimit: false,
      clientIdGeneration: true,
    }),
  );

  // The SDK checks client, redirect URI and PKCE S256; our provider checks the resource and sends
  // the browser to the consent page.
  app.use(
    AUTHORIZE_PATH,
    limited(limits, AUTHORIZATIONS_PER_IP, clientIp),
    formParser,
    bodyErrors(false),
    authorizationHandler({ provider, rateLimit: false }),
  );
  // Token and revocation: form first (the SDK's parser then finds it read), our limit per client,
  // our client authentication (hashed secrets), then the SDK's handler.
  for (const [path, handler] of [
    [TOKEN_PATH, tokenHandler({ provider, rateLimit: false })],
    [REVOCATION_PATH, revocationHandler({ provider, rateLimit: false })],
  ] as const) {
    app.use(
      path,
      formParser,
      bodyErrors(false),
      limited(limits, TOKEN_REQUESTS_PER_CLIENT, formClientId),
      clientAuth(db),
      handler,
    );
  }
}

/**
 * Builds the host's express app for one public origin (known only after listen when the port is 0).
 * Built once per listener; nothing here is rebuilt per request.
 */
export function createOAuthHost(options: OAuthHostOptions, publicUrl: URL): express.Express {
  const { config } = options;
  const origin = publicUrl.origin;
  const metadataUrl = `${origin}${PROTECTED_RESOURCE_METADATA_PATH}`;
  const publicHost = hostNameOf(publicUrl.host) ?? publicUrl.hostname;
  const hosts = new Set([...LOCAL_HOSTS, ...config.mcpAllowedHosts, publicHost]);

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  for (const middleware of options.requestMiddleware) app.use(middleware);

  // /mcp first (the hot path): the MCP router makes the same Host check itself, then its Origin check;
  // auth comes before the method check, so an unauthenticated GET also gets the challenge that
  // starts discovery.
  app.use(
    options.mcpRouter({
      resource: `${origin}${MCP_RESOURCE_PATH}`,
      resourceMetadataUrl: metadataUrl,
      host: publicHost,
    }),
  );

  // NOTE: DNS-rebinding defence, as on /mcp: the raw Host header (never X-Forwarded-Host) must name
  // loopback, MCP_PUBLIC_URL's host or an MCP_ALLOWED_HOSTS entry, on every other path of this host.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const host = hostNameOf(req.headers.host ?? '');
    if (host !== null && hosts.has(host)) return next();
    res.status(ERROR_TABLE.FORBIDDEN.status).json({ detail: 'Host not allowed' });
  });

  mountOAuthEndpoints(app, options, origin);

  app.use(options.pages(origin));

  // Unknown paths: JSON always.
  app.use(
    (_req: Request, res: Response) =>
      void res.status(ERROR_TABLE.NOT_FOUND.status).json(httpErrorBody('NOT_FOUND')),
  );
  app.use((err: Error & { status?: number }, req: Request, res: Response, _next: NextFunction) => {
    if (err.status && err.status >= 400 && err.status < 500) {
      res.status(err.status).json(httpErrorBody('BAD_REQUEST', { detail: 'Bad request' }));
      return;
    }
    req.log.error({ err }, 'unhandled error');
    res
      .status(ERROR_TABLE.INTERNAL.status)
      .json(httpErrorBody('INTERNAL', { requestId: requestIdOf(req) }));
  });
  return app;
}
