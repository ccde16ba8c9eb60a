/**
 * Composition root: one express app serving GraphQL (/graphql), the REST facade (/api/...),
 * the MCP facade (/api/mcp), the OpenAPI document and docs page, the pages emailed links open
 * (web-pages/: /reset-password, and / for a browser), and health checks; and the OAuth MCP host's
 * app (src/oauth-host), which src/server/main.ts serves on a second port.
 * It wires modules together and defines no behaviour of its own.
 */
import { randomUUID } from 'node:crypto';
import compression from 'compression';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { pinoHttp } from 'pino-http';
import { clock } from '../base/clock.ts';
import { buildRegistry, lazyRegistry } from '../../mcp-facade/registry.ts';
import { createMcpRouter } from '../../mcp-facade/server.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { createRestRouter, createRouteBodyParsers } from '../../rest-facade/handler.ts';
import { createOpenApiRouter } from '../../rest-facade/openapi.ts';
import { ROUTES } from '../../rest-facade/routes.ts';
import { createOAuthPages } from '../../web-pages/oauth-pages.ts';
import { createWebPages } from '../../web-pages/server.ts';
import type { Config } from '../base/config.ts';
import { trackRequests } from '../db/bulk.ts';
import type { Database } from '../db/database.ts';
import { clip, ERROR_TABLE, httpErrorBody } from '../base/errors.ts';
import type { ErrorCode } from '../base/errors.ts';
import { createCredentialCache } from '../auth/credential-cache.ts';
import { createContext } from '../graphql/context.ts';
import type { Context, ContextDeps, Via } from '../graphql/context.ts';
import { loadOperations } from '../schema/operations.ts';
import type { OperationStore } from '../schema/operations.ts';
import { schema } from '../schema/schema.ts';
import { countRequestStatements } from '../graphql/statement-metrics.ts';
import { createGraphqlServer } from '../schema/yoga.ts';
import { createIdempotencyStore } from '../platform/idempotency.ts';
import { createJobQueue } from '../platform/jobs.ts';
import type { JobQueue } from '../platform/jobs.ts';
import { startBackgroundWork } from './background.ts';
import { corsFor } from '../platform/cors.ts';
import {
  BODY_LIMIT_BYTES,
  boundedBody,
  jsonBodyParser,
  TOO_DEEP,
} from '../platform/input-guards.ts';
import { createMediaRouter } from '../platform/media.router.ts';
import { metricsHandler, observeRequests } from '../platform/metrics.ts';
import { lazyTracer } from '../platform/tracing.ts';
import { createIdentityProviders } from '../integrations/idp.ts';
import { createModelClient } from '../integrations/openai.ts';
import { createLimits } from '../platform/limits.ts';
import type { Limits } from '../platform/limits.ts';
import { createMcpLimits, limitNamespace, openLimitStore } from '../platform/rate-limit.ts';
import type { LimitStore } from '../platform/rate-limit.ts';
import { createOAuthHost, MAX_TICKET_CHARS, MCP_RESOURCE_PATH } from '../oauth-host/host.ts';
import type { OAuthResource } from '../oauth-host/host.ts';
import { fetchClientMetadata } from '../integrations/client-metadata.ts';
import type { ClientMetadataDial } from '../integrations/client-metadata.ts';
import { createMailer } from '../integrations/mailer.ts';
import { createStorage } from '../integrations/storage.ts';
import { requestIdOf, requestSerializer, responseSerializer } from '../base/logger.ts';
import type { Logger } from '../base/logger.ts';
import { requestFactsOf } from '../graphql/request-facts.ts';
import { requestScope } from '../base/request-context.ts';

export interface AppOptions {
  config: Config;
  db: Database;
  log: Logger;
  /**
   * Tests only (never from the environment): sends a client ID metadata document's https URL to a
   * local fake server instead (src/integrations/client-metadata.ts)
   */
  clientMetadataDial?: ClientMetadataDial;
}

export interface App {
  app: express.Express;
  operations: OperationStore;
  /** the app's rate limits and their store (Redis with REDIS_URL: wait for ready(), close() at exit) */
  limits: Limits;
  limitStore: LimitStore;
  /** background jobs (pg-boss): stop() them before closing the database */
  jobs: JobQueue;
  /** the long-lived parts every request's context carries (createContext) */
  deps: ContextDeps;
  /** builds the context of an express request through `via` (createContext) */
  contextFor(req: Request, via: Via): Promise<Context>;
  /**
   * The OAuth MCP host's app for its public origin (src/oauth-host; MCP_PUBLIC_URL, else known
   * only once its listener is bound: see oauthHostUrl), served on its own port
   */
  createOAuthHost: (publicUrl: URL) => express.Express;
  /** stops request tracing (OTEL_EXPORTER_OTLP_ENDPOINT), sending the spans still buffered */
  stopTracing: () => Promise<void>;
}

/** 405 for a known path asked with another method, as FastAPI answers it. */
function methodNotAllowed(allow: string) {
  return (_req: Request, res: Response): void =>
    void res
      .status(ERROR_TABLE.METHOD_NOT_ALLOWED.status)
      .set('allow', allow)
      .json(httpErrorBody('METHOD_NOT_ALLOWED'));
}

const NOT_FOUND_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Not Found</title><h1>Not Found</h1>';

/**
 * 404 for a path nothing serves: `{"detail": "Not Found"}` (FastAPI's answer) for API clients,
 * that is any client not preferring HTML (okhttp, fetch and curl accept any type); a small
 * self-contained page for a browser navigating to it.
 */
function notFound(req: Request, res: Response): void {
  res.status(ERROR_TABLE.NOT_FOUND.status);
  if (req.accepts(['json', 'html']) === 'html') {
    res.set('content-security-policy', "default-src 'none'").type('html').send(NOT_FOUND_PAGE);
  } else {
    res.json(httpErrorBody('NOT_FOUND'));
  }
}

/** The long-lived parts of every request's context, and the rate-limit store they share. */
function createDeps(options: AppOptions): {
  deps: ContextDeps;
  limitStore: LimitStore;
  namespace: string;
} {
  const { config, db, log } = options;
  // One counter store per app (one Redis connection), keys namespaced by the database.
  const limitStore = openLimitStore(config.REDIS_URL);
  const namespace = limitNamespace(db.target);
  const deps: ContextDeps = {
    prisma: db.prisma,
    config,
    mailer: createMailer(config, log),
    storage: createStorage(config),
    idp: createIdentityProviders(config),
    limits: createLimits({ store: limitStore, namespace }),
    models: createModelClient(config, log),
    jobs: createJobQueue(db.target, log),
    credentials: createCredentialCache({ redis: limitStore.redis, namespace }),
  };
  return { deps, limitStore, namespace };
}

/** Request id, logging and the request scope: the same on the OAuth host (createOAuthHost). */
function requestMiddlewareOf(
  log: Logger,
  tracing: ReturnType<typeof lazyTracer>,
): RequestHandler[] {
  return [
    // Prometheus counters per request, and a span per request when OTEL_EXPORTER_OTLP_ENDPOINT is set
    observeRequests(tracing.current),
    pinoHttp({
      logger: log,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
        res.setHeader('x-request-id', id);
        return id;
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      // one short line per request (id, method, URL with secrets redacted, status, time); the
      // headers only at debug level. An emailed link's token travels in its URL: never logged.
      serializers: { req: requestSerializer(log), res: responseSerializer(log) },
    }),
    (req, _res, next) => requestScope.run({ requestId: requestIdOf(req), log: req.log }, next),
  ];
}

/** The express app with the request middleware every request passes first. */
function createExpress(
  config: Config,
  log: Logger,
): {
  app: express.Express;
  tracing: ReturnType<typeof lazyTracer>;
  requestMiddleware: RequestHandler[];
} {
  const app = express();
  app.disable('x-powered-by');
  // the client IP of per-IP limits: X-Forwarded-For counts only from the proxies TRUST_PROXY names
  app.set('trust proxy', config.trustProxy);
  const tracing = lazyTracer(config, log);
  const requestMiddleware = requestMiddlewareOf(log, tracing);
  for (const middleware of requestMiddleware) app.use(middleware);
  // bulk writes (glucose batches) give way to requests in flight between their slices
  app.use(trackRequests);
  return { app, tracing, requestMiddleware };
}

/** Liveness, readiness and the operators' metrics. */
function mountProbes(app: express.Express, db: Database, config: Config): void {
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (_req, res) => {
    try {
      await db.ping();
      res.json({ status: 'ready' });
    } catch {
      res.status(503).json({ status: 'unavailable' });
    }
  });
  // for operators: METRICS_TOKEN's bearer, else direct loopback only (docs/operations.md)
  app.get('/metrics', metricsHandler(config));
  app.all(['/healthz', '/readyz', '/metrics'], methodNotAllowed('GET, HEAD'));
}

/** The 413 of a /graphql body over BODY_LIMIT_BYTES, in GraphQL's error shape. */
function graphqlBodyTooLarge(res: Response): void {
  const message = `Request body too large: at most ${BODY_LIMIT_BYTES} bytes (files go in a multipart upload)`;
  res.status(ERROR_TABLE.PAYLOAD_TOO_LARGE.status).json({
    errors: [{ message, extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
  });
}

/** POST /graphql and GraphiQL. */
function mountGraphql(app: express.Express, yoga: ReturnType<typeof createGraphqlServer>): void {
  // GraphiQL's page is ~9 MB of inlined HTML: send it compressed (GET only; POST answers are small).
  app.get('/graphql', compression());
  // NOTE: a body is read here within REST's limit, 413 the moment it passes it (issue 45: yoga
  // itself would read any length); a multipart upload's parts are bounded by yoga's form limits
  app.use(
    '/graphql',
    boundedBody({
      maxBytes: BODY_LIMIT_BYTES,
      except: 'multipart/form-data',
      tooLarge: graphqlBodyTooLarge,
    }),
  );
  app.use('/graphql', (req, res) =>
    yoga.handle(req, res, {
      requestId: requestIdOf(req),
      ip: req.ip ?? null,
      log: req.log,
      responseCookies: [],
    }),
  );
}

/** The REST facade: its body parsers (bulk rows first), its rows, and the statement tally. */
function mountRest(
  app: express.Express,
  config: Config,
  restOptions: Parameters<typeof createRestRouter>[0],
): void {
  // an admin panel served from another origin (ADMIN_ALLOWED_ORIGINS) may call the admin API
  app.use('/api/admin', corsFor(config.adminAllowedOrigins));
  // each REST request's SQL statements on /metrics
  app.use('/api', countRequestStatements('rest'));
  // bulk routes (a row's bodyLimit) authenticate, then parse their larger bodies; every other body: 1 MB
  app.use(createRouteBodyParsers(restOptions));
  app.use('/api', jsonBodyParser(BODY_LIMIT_BYTES));
  app.use(createRestRouter(restOptions));
}

/**
 * Unknown paths (kept last: routers added later, e.g. an OAuth host's /.well-known paths, go
 * above) and errors. Under /api always JSON; elsewhere JSON too, except for a browser asking for a
 * page. Body parser failures answer like FastAPI; other client errors (an unsupported charset or
 * encoding: 415; undecodable percent-encoding in a path: 400) keep their status; anything else is
 * masked with the request id.
 */
function mountFallbacks(app: express.Express): void {
  app.use(
    '/api',
    (_req, res) => void res.status(ERROR_TABLE.NOT_FOUND.status).json(httpErrorBody('NOT_FOUND')),
  );
  app.use(notFound);
  app.use(
    (
      err: Error & { type?: string; status?: number },
      req: Request,
      res: Response,
      _next: NextFunction,
    ) => {
      const fail = (code: ErrorCode, options?: Parameters<typeof httpErrorBody>[1]): void =>
        void res.status(ERROR_TABLE[code].status).json(httpErrorBody(code, options));
      if (err.type === 'entity.parse.failed' || err.type === TOO_DEEP) {
        const msg = err.type === TOO_DEEP ? err.message : 'JSON decode error';
        fail('VALIDATION_FAILED', { detail: [{ loc: ['body'], msg, type: 'json_invalid' }] });
      } else if (err.type === 'entity.too.large') {
        fail('PAYLOAD_TOO_LARGE');
      } else if (err.status && err.status >= 400 && err.status < 500) {
        // keeps its own status (415, 400): the code only shapes the body
        res.status(err.status).json(httpErrorBody('BAD_REQUEST', { detail: clip(err.message) }));
      } else {
        req.log.error({ err }, 'unhandled error');
        fail('INTERNAL', { requestId: requestIdOf(req) });
      }
    },
  );
}

/**
 * The MCP facade on /api/mcp (personal tokens), and the router of the OAuth host's /mcp (OAuth
 * tokens), which shares its idempotency records, its per-token limits (in memory, or Redis with
 * REDIS_URL; the OAuth door counts per connection, oauth:<id>) and its tool registry.
 */
function mountMcp(
  app: express.Express,
  options: {
    deps: ContextDeps;
    operations: OperationStore;
    idempotency: ReturnType<typeof createIdempotencyStore>;
    limits: ReturnType<typeof createMcpLimits>;
    contextFor: (req: Request, via: Via) => Promise<Context>;
  },
): (resource: OAuthResource) => express.Router {
  const { deps, operations, idempotency, limits, contextFor } = options;
  const shared = {
    schema,
    operations,
    config: deps.config,
    idempotency,
    limits,
    // one tool registry for both doors: built once, on the first MCP request (every tool's schemas)
    registry: lazyRegistry(() => buildRegistry(TOOLS, { schema, operations })),
  };
  app.use(createMcpRouter({ ...shared, context: (req) => contextFor(req, 'mcp') }));
  // the OAuth door: an OAuth access token counts only for this host's resource (oauthResource)
  return ({ resource, resourceMetadataUrl, host }: OAuthResource) =>
    createMcpRouter({
      ...shared,
      door: 'oauth',
      path: MCP_RESOURCE_PATH,
      oauth: { resourceMetadataUrl, host },
      context: (req) =>
        createContext(deps, { ...requestFactsOf(req, 'mcp'), oauthResource: resource }),
    });
}

/** Builds the app once; nothing here is rebuilt per request (schema, operations, registries). */
export function createApp(options: AppOptions): App {
  const { config, db, log } = options;
  if (config.CLOCK_AT) clock.set(config.CLOCK_AT);
  const operations = loadOperations(schema);
  const { deps, limitStore, namespace } = createDeps(options);
  const { limits, storage } = deps;
  startBackgroundWork({
    ...deps,
    log,
    singleProcess: db.target.kind === 'pglite',
    db: { prisma: db.prisma, target: db.target },
  });
  const yoga = createGraphqlServer({ schema, operations, deps, log });
  // every door's context comes from createContext (src/graphql/context.ts)
  const contextFor = (req: Request, via: Via): Promise<Context> =>
    createContext(deps, requestFactsOf(req, via));

  const { app, tracing, requestMiddleware } = createExpress(config, log);
  mountProbes(app, db, config);
  mountGraphql(app, yoga);
  // stored public files (profile photos) by their unguessable keys
  app.use(createMediaRouter({ storage }));
  app.use(createOpenApiRouter({ routes: ROUTES, operations, schema, config }));
  const oauthMcpRouter = mountMcp(app, {
    deps,
    operations,
    idempotency: createIdempotencyStore(db.prisma),
    limits: createMcpLimits(config, { namespace, store: limitStore }),
    contextFor,
  });
  mountRest(app, config, {
    routes: ROUTES,
    operations,
    schema,
    context: (req: Request) => contextFor(req, 'rest'),
    uploadMaxBytes: config.UPLOAD_MAX_BYTES,
  });
  app.use(
    createWebPages({
      operations,
      context: (req) => contextFor(req, 'web'),
      publicUrl: config.PUBLIC_URL,
    }),
  );
  mountFallbacks(app);

  return {
    app,
    operations,
    limits,
    limitStore,
    jobs: deps.jobs,
    deps,
    contextFor,
    stopTracing: async () => (await tracing.ready)?.shutdown(),
    createOAuthHost: (publicUrl) =>
      createOAuthHost(
        {
          config,
          requestMiddleware,
          mcpRouter: oauthMcpRouter,
          db: db.prisma,
          limits,
          fetchClientMetadata: (url) =>
            fetchClientMetadata(url, { dial: options.clientMetadataDial }),
          // the pages act as the signed-in visitor: the cookie, and the form's CSRF token
          pages: (origin) =>
            createOAuthPages({
              operations,
              context: (req, csrfToken) =>
                createContext(deps, {
                  ...requestFactsOf(req, 'web'),
                  ...(csrfToken === undefined ? {} : { csrfToken }),
                }),
              publicUrl: origin,
              maxTicketChars: MAX_TICKET_CHARS,
            }),
        },
        publicUrl,
      ),
  };
}
