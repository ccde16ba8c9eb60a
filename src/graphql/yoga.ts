/**
 * POST /graphql: graphql-yoga over the one schema. Accepts documents (GraphiQL, admins) and the
 * persisted operations by sha256 id (the web dashboard). GraphiQL's page is rendered with every
 * asset inlined, so it works with no internet. Unknown errors are masked with a request id.
 */
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { createFetch } from '@whatwg-node/fetch';
import { createYoga } from 'graphql-yoga';
import type { YogaServerInstance } from 'graphql-yoga';
import { authenticate, CSRF_HEADER } from '../auth/authenticate.ts';
import type { AuthDeps } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { maskError, validationError } from '../errors.ts';
import type { IdentityProviders } from '../integrations/idp.ts';
import type { Mailer } from '../integrations/mailer.ts';
import type { Storage } from '../integrations/storage.ts';
import type { Logger } from '../logger.ts';
import type { Limits } from '../platform/limits.ts';
import { jsonTextTooDeep, MAX_JSON_DEPTH, unsafeInputIssues } from '../platform/input-guards.ts';
import { requestScope } from '../request-context.ts';
import type { Context } from './context.ts';
import type { OperationStore } from './operations.ts';

export interface YogaOptions {
  schema: GraphQLSchema;
  operations: OperationStore;
  prisma: Db;
  config: Config;
  mailer: Mailer;
  storage: Storage;
  idp: IdentityProviders;
  limits: Limits;
  log: Logger;
}

/** What express hands yoga for each request (request id and client address). */
export interface ServerContext {
  requestId: string;
  ip: string | null;
  log: Logger;
  /** filled by fields that set cookies; copied onto the response by the plugin below */
  responseCookies: string[];
}

/**
 * The caller of a /graphql request. A credential that was presented but is unknown, expired or
 * revoked answers HTTP 401 (no field runs); no credential at all leaves the public fields open.
 */
async function presentedPrincipal(deps: AuthDeps, request: Request): Promise<Principal | null> {
  const authorization = request.headers.get('authorization');
  const principal = await authenticate(deps, {
    authorization,
    cookie: request.headers.get('cookie'),
    csrfToken: request.headers.get(CSRF_HEADER),
    method: request.method,
  });
  if (!principal && authorization) {
    throw new GraphQLError('Invalid or expired credential: sign in again or use a valid token', {
      extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } } },
    });
  }
  return principal;
}

export function createGraphqlServer(options: YogaOptions): YogaServerInstance<ServerContext, Context> {
  const { schema, operations, prisma, config, mailer, storage, idp, limits } = options;
  let graphiqlPage: string | undefined;
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    // Multipart uploads (a File variable) are read with the same file limit as the REST facade's.
    fetchAPI: createFetch({
      formDataLimits: { fileSize: config.UPLOAD_MAX_BYTES, files: 5, fields: 50, parts: 60, fieldSize: 1024 * 1024 },
    }),
    logging: false,
    landingPage: false,
    graphiql: config.GRAPHIQL ? { title: 'Health platform GraphiQL', credentials: 'same-origin' } : false,
    // The page is the same for every request (about 9 MB with its assets inlined): render it once.
    // NOTE: its module is loaded on the first page, not at start: holding the inlined assets cost an
    // idle server ~70 MB of resident memory that only admins' browsers ever use (docs/benchmarks.md).
    renderGraphiQL: async (opts) =>
      (graphiqlPage ??= (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(opts)),
    maskedErrors: {
      maskError: (error) => {
        const scope = requestScope.getStore();
        const log = scope?.log ?? options.log;
        return maskError(error, scope?.requestId ?? 'unknown', (err) => log.error({ err }, 'unexpected error'));
      },
    },
    plugins: [
      {
        onResponse: ({ response, serverContext }) => {
          for (const c of (serverContext as Partial<ServerContext> | undefined)?.responseCookies ?? []) response.headers.append('set-cookie', c);
        },
      },
      {
        // NOTE: hostile input is refused before graphql-js parses the document (a recursive descent)
        // or a resolver sees the variables: runaway nesting, NUL characters.
        onParams: ({ params, setResult }) => {
          if (typeof params.query === 'string' && jsonTextTooDeep(Buffer.from(params.query))) {
            const message = `Document nested deeper than ${MAX_JSON_DEPTH} levels`;
            return setResult({ errors: [new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } })] });
          }
          const issues = params.variables ? unsafeInputIssues(params.variables) : [];
          if (issues.length) setResult({ errors: [validationError(issues)] });
        },
      },
      usePersistedOperations({
        allowArbitraryOperations: true,
        getPersistedOperation: (id) => operations.byId.get(id)?.document ?? null,
      }),
    ],
    context: async ({ request, requestId, ip, log, responseCookies }) => ({
      prisma,
      config,
      mailer,
      storage,
      idp,
      limits,
      principal: await presentedPrincipal({ prisma, jwtSecret: config.jwtSecret }, request),
      requestId,
      log,
      ip,
      userAgent: request.headers.get('user-agent'),
      via: 'graphql',
      responseCookies,
    }),
  });
}
