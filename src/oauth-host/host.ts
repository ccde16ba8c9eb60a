/**
 * The OAuth MCP host (issue 13, docs/mcp-oauth.md): a second express app, served by the same
 * process on its own port (MCP_OAUTH_PORT), whose origin is the OAuth issuer and whose `/mcp` is the
 * protected resource. It serves:
 * - `/mcp`: the MCP router's OAuth door (mcp-facade/server.ts, given by the composition root), which
 *   takes OAuth access tokens for `<origin>/mcp` only and answers anything else with a 401 naming the
 *   RFC 9728 `resource_metadata`;
 * - `GET /.well-known/oauth-protected-resource/mcp`: the protected-resource metadata (RFC 9728);
 * - `POST /oauth/register`: dynamic client registration (RFC 7591), the SDK's handler over our
 *   clients store (src/domains/oauth), behind our per-IP limit and a 16 kB JSON body limit.
 * No authorization-server metadata yet: it would advertise authorize and token endpoints that do
 * not exist. It imports no domain but src/domains/oauth/index.ts.
 */
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import {
  CustomOAuthError,
  InvalidClientMetadataError,
  InvalidRequestError,
  TooManyRequestsError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { OAuthProtectedResourceMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAUTH_SCOPES } from '../auth/scope-families.ts';
import { hostNameOf } from '../config.ts';
import type { Config } from '../config.ts';
import { ERROR_TABLE, httpErrorBody } from '../errors.ts';
import { requestIdOf } from '../logger.ts';
import type { Db } from '../db/client.ts';
import {
  ClientMetadataRefused,
  getClient,
  registerClient,
  REGISTRATIONS_PER_IP,
} from '../domains/oauth/index.ts';
import { jsonBodyParser } from '../platform/input-guards.ts';
import type { Limits } from '../platform/limits.ts';

/** The protected resource's path on the host, and its metadata document's (RFC 9728 section 3.1). */
export const MCP_RESOURCE_PATH = '/mcp';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
/** Dynamic client registration (RFC 7591). */
export const REGISTRATION_PATH = '/oauth/register';
/** Largest registration body (a client's metadata is a few hundred bytes). */
const REGISTRATION_BODY_LIMIT = '16kb';

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
}

/**
 * The SDK's clients store over the oauth domain: registerClient applies our policy and answers the
 * registration response (the plaintext secret once); getClient never returns a secret. A refusal
 * becomes the RFC 7591 error the SDK's handler answers with 400.
 */
export function clientsStore(db: Db): OAuthRegisteredClientsStore {
  return {
    getClient: (clientId) => getClient(db, clientId),
    registerClient: async (client) => {
      try {
        return await registerClient(db, client);
      } catch (err) {
        if (!(err instanceof ClientMetadataRefused)) throw err;
        if (err.code === 'invalid_redirect_uri')
          throw new CustomOAuthError('invalid_redirect_uri', err.message);
        throw new InvalidClientMetadataError(err.message);
      }
    },
  };
}

/** Counts every registration attempt per client IP; 429 `too_many_requests` once spent. */
function registrationLimit(limits: Limits): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    limits.take(REGISTRATIONS_PER_IP, req.ip ?? 'unknown').then((decision) => {
      if (decision.allowed) return next();
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      res
        .status(429)
        .json(
          new TooManyRequestsError(
            'Too many client registrations from this address; try again later',
          ).toResponseObject(),
        );
    }, next);
  };
}

/** Body parser failures at the registration endpoint, as RFC 7591 errors (never 5xx). */
function registrationBodyErrors(
  err: Error & { type?: string; status?: number },
  _req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (err.type === 'entity.too.large') {
    res.status(413).json(new InvalidRequestError('Body larger than 16 kB').toResponseObject());
    return;
  }
  if (err.status && err.status >= 400 && err.status < 500) {
    const message = err.type === 'entity.parse.failed' ? 'Body is not valid JSON' : err.message;
    res.status(400).json(new InvalidClientMetadataError(message).toResponseObject());
    return;
  }
  next(err);
}

/** The host's public origin: MCP_PUBLIC_URL, else `http://<MCP_OAUTH_HOST>:<bound port>`. */
export function oauthHostUrl(config: Config, boundPort: number): URL {
  if (config.MCP_PUBLIC_URL) return new URL(config.MCP_PUBLIC_URL);
  const host = config.MCP_OAUTH_HOST.includes(':')
    ? `[${config.MCP_OAUTH_HOST}]`
    : config.MCP_OAUTH_HOST;
  return new URL(`http://${host}:${boundPort}`);
}

/** The RFC 9728 document of `<origin>/mcp`; the origin is its own authorization server. */
export function protectedResourceMetadata(origin: string): OAuthProtectedResourceMetadata {
  return OAuthProtectedResourceMetadataSchema.parse({
    resource: `${origin}${MCP_RESOURCE_PATH}`,
    authorization_servers: [origin],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Health Platform',
  });
}

/**
 * A refusal on `/mcp` in the JSON-RPC error shape /api/mcp answers with (mcp-facade/server.ts:
 * code -32000, id null), so one client handles both doors alike.
 */
function refuseRpc(
  res: Response,
  status: number,
  message: string,
  data?: Record<string, unknown>,
): void {
  const error = { code: -32000, message, ...(data === undefined ? {} : { data }) };
  res.status(status).json({ jsonrpc: '2.0', error, id: null });
}

const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

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

  // NOTE: DNS-rebinding defence, as on /api/mcp: the raw Host header (never X-Forwarded-Host) must
  // name loopback, MCP_PUBLIC_URL's host or an MCP_ALLOWED_HOSTS entry, on every path of this host.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const host = hostNameOf(req.headers.host ?? '');
    if (host !== null && hosts.has(host)) return next();
    if (req.path === MCP_RESOURCE_PATH) return refuseRpc(res, 403, 'Host not allowed');
    res.status(ERROR_TABLE.FORBIDDEN.status).json({ detail: 'Host not allowed' });
  });

  // RFC 9728: no root document (it would name another resource), only the one of /mcp. The SDK's
  // handler answers CORS `*` and 405 on methods other than GET and OPTIONS.
  app.use(PROTECTED_RESOURCE_METADATA_PATH, metadataHandler(protectedResourceMetadata(origin)));

  // RFC 7591 registration: our per-IP limit and 16 kB JSON parser first (the SDK's own express.json
  // then finds the body read), its in-memory limiter off; secrets never expire (0).
  app.use(
    REGISTRATION_PATH,
    registrationLimit(options.limits),
    jsonBodyParser(REGISTRATION_BODY_LIMIT),
    registrationBodyErrors,
    clientRegistrationHandler({
      clientsStore: clientsStore(options.db),
      clientSecretExpirySeconds: 0,
      rateLimit: false,
      clientIdGeneration: true,
    }),
  );

  // Every method of /mcp: auth comes before the method check, so an unauthenticated GET also gets
  // the challenge that starts discovery.
  app.use(
    options.mcpRouter({
      resource: `${origin}${MCP_RESOURCE_PATH}`,
      resourceMetadataUrl: metadataUrl,
      host: publicHost,
    }),
  );

  // Unknown paths: JSON always (no page on this host yet).
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
