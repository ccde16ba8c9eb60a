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
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { CSRF_HEADER } from '../auth/authenticate.ts';
import { maskError, validationError } from '../base/errors.ts';
import type { Logger } from '../base/logger.ts';
import { noFramingHeaders } from '../platform/framing.ts';
import { countGraphqlOperation } from '../platform/metrics.ts';
import { jsonTextTooDeep, MAX_JSON_DEPTH, unsafeInputIssues } from '../platform/input-guards.ts';
import { requestScope } from '../base/request-context.ts';
import { createContext } from '../graphql/context.ts';
import type { Context, ContextDeps } from '../graphql/context.ts';
import { withAccountGone } from '../graphql/account-gone.ts';
import { documentLimitsOf, useDocumentLimits } from '../graphql/document-limits.ts';
import { useLocalTimes } from './local-times.ts';
import type { OperationStore } from './operations.ts';
import { useQueryCost } from '../graphql/query-cost.ts';
import { useStatementMetrics } from '../graphql/statement-metrics.ts';

/**
 * GraphiQL's first tab (admins use GraphiQL): how to send the admin bearer, and an admin query.
 * Only shown on a browser's first visit; GraphiQL keeps the person's own tabs after that.
 */
export const GRAPHIQL_ADMIN_QUERY = `# Admin GraphiQL. Admin fields need an admin's bearer token:
#   1. POST /api/admin/auth/login with {"email": "...", "password": "..."}
#      (an admin account: npm run admin:create -- --email <address>)
#   2. In the Headers tab below, enter:
#      { "Authorization": "Bearer <access_token from step 1>" }
#   3. Run this query (Ctrl-Enter). Without the header: 401; with a non-admin's token: 403.
# (Anonymous on purpose: GraphiQL keeps a named default's operation name for a moment after the
# text is replaced, and would run the new text under that stale name.)
{
  adminDashboardStats {
    accounts { users admins newLast7Days activeSessions }
    glucose { readings people meanMgDl inRangePct }
    sensors { active unbound }
  }
  adminSystemStatus { status version uptimeSeconds migrations { upToDate } }
}
`;

export interface YogaOptions {
  schema: GraphQLSchema;
  operations: OperationStore;
  /** the app's long-lived parts every request's context carries */
  deps: ContextDeps;
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
 * A request whose account was deleted while it ran answers UNAUTHENTICATED, not INTERNAL
 * (src/graphql/account-gone.ts).
 */
const accountGone: Plugin<Context> = {
  onExecute: () => ({
    onExecuteDone: async ({ args, result, setResult }) => {
      if (Symbol.asyncIterator in result || !result.errors?.length) return;
      const errors = await withAccountGone(args.contextValue, result.errors as GraphQLError[]);
      if (errors !== result.errors) setResult({ ...result, errors });
    },
  }),
};

/** Each request's operation label and start, for graphql_operations_total (metrics.ts). */
type OperationClock = WeakMap<Request, { operation: string; at: number }>;

export function createGraphqlServer(
  options: YogaOptions,
): YogaServerInstance<ServerContext, Context> {
  const { schema, operations, deps } = options;
  const { config } = deps;
  const started: OperationClock = new WeakMap();
  const persistedDocuments = new WeakSet([...operations.byId.values()].map((op) => op.document));
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    // Multipart uploads (a File variable) are read with the same file limit as the REST facade's.
    fetchAPI: createFetch({
      formDataLimits: {
        fileSize: config.UPLOAD_MAX_BYTES,
        files: 5,
        fields: 50,
        parts: 60,
        fieldSize: 1024 * 1024,
      },
    }),
    logging: false,
    landingPage: false,
    ...graphiqlOptions(config.GRAPHIQL),
    maskedErrors: {
      maskError: (error) => {
        const scope = requestScope.getStore();
        const log = scope?.log ?? options.log;
        return maskError(error, scope?.requestId ?? 'unknown', (err) =>
          log.error({ err }, 'unexpected error'),
        );
      },
    },
    plugins: [
      responseHeaders(started),
      refuseHostileInput(operations, started),
      accountGone,
      useLocalTimes,
      usePersistedOperations({
        allowArbitraryOperations: true,
        getPersistedOperation: (id) => operations.byId.get(id)?.document ?? null,
      }),
      // NOTE: every document's size (tokens, depth, aliases, directives, cost) is checked before
      // it runs; over GRAPHQL_MAX_* it is refused (src/graphql/document-limits.ts); the cost of a
      // client's own document with its variables (src/graphql/query-cost.ts)
      useDocumentLimits(documentLimitsOf(config)),
      useQueryCost({
        maxCost: config.GRAPHQL_MAX_COST,
        isPersisted: (document) => persistedDocuments.has(document),
      }),
      // the SQL statements of each operation, on /metrics (src/graphql/statement-metrics.ts)
      useStatementMetrics,
    ],
    // NOTE: a credential that was presented (a bearer or the session cookie) but is unknown,
    // expired or revoked answers HTTP 401 (no field runs; a cookie is cleared); no credential at
    // all leaves the public fields open.
    context: ({ request, requestId, ip, log, responseCookies }) =>
      createContext(deps, {
        authorization: request.headers.get('authorization'),
        cookie: request.headers.get('cookie'),
        csrfToken: request.headers.get(CSRF_HEADER),
        method: request.method,
        ip,
        userAgent: request.headers.get('user-agent'),
        requestId,
        log,
        via: 'graphql',
        responseCookies,
        refuseInvalidCredential: true,
      }),
  });
}

/** GraphiQL for admins when configured, its page rendered once. */
function graphiqlOptions(enabled: boolean) {
  let graphiqlPage: string | undefined;
  return {
    graphiql: enabled
      ? {
          title: 'Health platform GraphiQL',
          credentials: 'same-origin' as const,
          defaultQuery: GRAPHIQL_ADMIN_QUERY,
          defaultEditorToolsVisibility: 'headers' as const,
        }
      : false,
    // The page is the same for every request (about 9 MB with its assets inlined): render it once.
    // NOTE: its module is loaded on the first page, not at start: holding the inlined assets cost an
    // idle server ~70 MB of resident memory that only admins' browsers ever use (docs/benchmarks.md).
    renderGraphiQL: async (opts: Parameters<typeof renderGraphiQLPage>[0]) =>
      (graphiqlPage ??= await renderGraphiQLPage(opts)),
  };
}

async function renderGraphiQLPage(
  opts: Parameters<(typeof import('@graphql-yoga/render-graphiql'))['renderGraphiQL']>[0],
): Promise<string> {
  return (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(opts);
}

/** Counts the operation, copies the fields' cookies, and keeps GraphiQL's page out of frames. */
function responseHeaders(started: OperationClock): Plugin<Context, ServerContext> {
  return {
    onResponse: ({ request, response, serverContext }) => {
      const start = started.get(request);
      if (start) countGraphqlOperation(start.operation, (performance.now() - start.at) / 1000);
      for (const c of (serverContext as Partial<ServerContext> | undefined)?.responseCookies ?? [])
        response.headers.append('set-cookie', c);
      // GraphiQL's page: no other site may frame it (its inline scripts need no other policy)
      if (response.headers.get('content-type')?.startsWith('text/html')) {
        for (const [name, value] of Object.entries(noFramingHeaders()))
          response.headers.set(name, value);
      }
    },
  };
}

/**
 * Starts the operation's clock and refuses hostile input.
 * NOTE: hostile input is refused before graphql-js parses the document (a recursive descent) or a
 * resolver sees the variables: runaway nesting, NUL characters.
 */
function refuseHostileInput(
  operations: OperationStore,
  started: OperationClock,
): Plugin<Context, ServerContext> {
  return {
    onParams: ({ params, request, setResult }) => {
      // the operation label: a persisted operation's manifest name, never client text
      const hash = (params.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)
        ?.sha256Hash;
      const persisted = typeof hash === 'string' ? operations.byId.get(hash) : undefined;
      started.set(request, { operation: persisted?.name ?? 'anonymous', at: performance.now() });
      if (typeof params.query === 'string' && jsonTextTooDeep(Buffer.from(params.query))) {
        const message = `Document nested deeper than ${MAX_JSON_DEPTH} levels`;
        return setResult({
          errors: [
            new GraphQLError(message, {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            }),
          ],
        });
      }
      const issues = params.variables ? unsafeInputIssues(params.variables) : [];
      if (issues.length) setResult({ errors: [validationError(issues)] });
    },
  };
}
