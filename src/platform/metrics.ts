/**
 * Prometheus metrics (prom-client), served at GET /metrics for operators: the process (RSS, heap,
 * event-loop lag, GC), every HTTP request (rate and latency by method, route template and status),
 * MCP tool calls, persisted GraphQL operations and the SQL statements of each /graphql operation,
 * refusals by a rate limit, and the AI ledger.
 *
 * Why here: one registry per process that any layer may count into (a facade, a domain's ledger
 * write, the limits); docs/operations.md lists every metric and what to alert on.
 * It must never put a secret or a person in a label: labels are route templates, tool, operation,
 * limit and feature names (finite sets from the code), never raw URLs, tokens, emails or user ids.
 * Per-request cost is a few map lookups: children are cached per label set (O(1), no allocation
 * once warm), and the access check runs only on /metrics.
 */
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Pool } from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../base/config.ts';
import { openPools } from '../db/pools.ts';
import { ERROR_TABLE, httpErrorBody } from '../base/errors.ts';
import type { RequestTracer } from './tracing.ts';

/** The process's registry (not prom-client's global one, so nothing else registers into it). */
export const registry = new Registry();

// Latency buckets in seconds: 1 ms to 10 s (the goal's p50 is a few ms).
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});
const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being written, by method, route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: BUCKETS,
  registers: [registry],
});
const mcpCalls = new Counter({
  name: 'mcp_tool_calls_total',
  help: 'MCP tool calls by tool and outcome (ok, or the error code in lower case)',
  labelNames: ['tool', 'outcome'] as const,
  registers: [registry],
});
const mcpDuration = new Histogram({
  name: 'mcp_tool_call_duration_seconds',
  help: 'Duration of one MCP tool call by tool',
  labelNames: ['tool'] as const,
  buckets: BUCKETS,
  registers: [registry],
});
const graphqlOperations = new Counter({
  name: 'graphql_operations_total',
  help: 'Requests to /graphql by persisted operation name (anonymous: any other document)',
  labelNames: ['operation'] as const,
  registers: [registry],
});
const graphqlDuration = new Histogram({
  name: 'graphql_operation_duration_seconds',
  help: 'Duration of one /graphql request by persisted operation name',
  labelNames: ['operation'] as const,
  buckets: BUCKETS,
  registers: [registry],
});
// Statements per request: a dashboard request costs about 20, an N+1 regression hundreds.
const STATEMENT_BUCKETS = [0, 1, 2, 5, 10, 20, 30, 50, 100, 200, 500, 1000];
const graphqlStatements = new Histogram({
  name: 'graphql_request_db_statements',
  help:
    'SQL statements one request sent to the database (authentication included), by door ' +
    '(graphql: one /graphql operation; rest; mcp) and operation type: query, mutation, ' +
    'subscription, or none when it was refused before an operation ran',
  labelNames: ['door', 'operation_type'] as const,
  buckets: STATEMENT_BUCKETS,
  registers: [registry],
});
const limitHits = new Counter({
  name: 'rate_limit_hits_total',
  help: 'Events a rate limit refused, by limit name',
  labelNames: ['limit'] as const,
  registers: [registry],
});
const aiCalls = new Counter({
  name: 'ai_calls_total',
  help: 'AI ledger rows written: model calls and cached answers, by feature, outcome and cached',
  labelNames: ['feature', 'outcome', 'cached'] as const,
  registers: [registry],
});
const aiTokens = new Counter({
  name: 'ai_tokens_total',
  help: 'Model tokens recorded in the AI ledger, by feature and direction (in, out)',
  labelNames: ['feature', 'direction'] as const,
  registers: [registry],
});
const aiCost = new Counter({
  name: 'ai_cost_usd_total',
  help: 'What the model calls recorded in the AI ledger cost, USD, by feature',
  labelNames: ['feature'] as const,
  registers: [registry],
});

/** A gauge summed over the process's open PostgreSQL pools (src/db/pools.ts; none on PGlite). */
const poolGauge = (name: string, help: string, read: (pool: Pool) => number): void =>
  void new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(openPools().reduce((total, pool) => total + read(pool), 0));
    },
  });
poolGauge('db_pool_connections', 'PostgreSQL pool: open connections', (p) => p.totalCount);
poolGauge('db_pool_idle_connections', 'PostgreSQL pool: idle connections', (p) => p.idleCount);
poolGauge(
  'db_pool_waiting_requests',
  'PostgreSQL pool: queries waiting for a free connection',
  (p) => p.waitingCount,
);

let defaultsOn = false;
/** Starts the process metrics (once per process: event-loop lag and GC observers). */
function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

type Child = { inc(): void; observe(seconds: number): void };
/** children of one request label set, cached: method -> route -> status */
const httpChildren = new Map<string, Map<string, Map<number, Child>>>();

function httpChild(method: string, route: string, status: number): Child {
  let byRoute = httpChildren.get(method);
  if (!byRoute) httpChildren.set(method, (byRoute = new Map<string, Map<number, Child>>()));
  let byStatus = byRoute.get(route);
  if (!byStatus) byRoute.set(route, (byStatus = new Map<number, Child>()));
  let child = byStatus.get(status);
  if (!child) {
    const labels = [method, route, String(status)] as const;
    const counter = httpRequests.labels(...labels);
    const histogram = httpDuration.labels(...labels);
    child = { inc: () => counter.inc(), observe: (s) => histogram.observe(s) };
    byStatus.set(status, child);
  }
  return child;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** express route paths (`/api/v1/glucose/:id`) as the documented templates (`/api/v1/glucose/{id}`) */
const routeLabels = new Map<string, string>([
  ['/api/mcp', 'mcp'],
  ['/mcp', 'mcp'],
  ['/graphql', 'graphql'],
]);

/**
 * The bounded route label: the matched route's template (REST rows, health checks, pages), `graphql`,
 * `mcp`, or `other` (unknown paths: never the raw URL, which would grow without bound).
 */
function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string' && req.baseUrl === '') {
    let label = routeLabels.get(path);
    if (label === undefined) {
      label = path.replace(/:(\w+)/g, '{$1}');
      routeLabels.set(path, label);
    }
    return label;
  }
  return req.baseUrl === '/graphql' || req.originalUrl.startsWith('/graphql') ? 'graphql' : 'other';
}

/**
 * Middleware counting every request when its answer is written (and, with a tracer, one span per
 * request). Mount it first, so the time covers everything after.
 */
export function observeRequests(tracer?: () => RequestTracer | undefined): RequestHandler {
  collectProcessMetrics();
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = performance.now();
    const span = tracer?.()?.start(req);
    res.once('finish', () => {
      const route = routeOf(req);
      const method = METHODS.has(req.method) ? req.method : 'OTHER';
      const child = httpChild(method, route, res.statusCode);
      child.inc();
      child.observe((performance.now() - start) / 1000);
      span?.end(route, res.statusCode);
    });
    next();
  };
}

/** Counts one MCP tool call (`outcome`: ok, internal, or an error code of the error table). */
export function countToolCall(tool: string, outcome: string, seconds: number): void {
  const known = outcome === 'ok' || outcome === 'internal' || Object.hasOwn(ERROR_TABLE, outcome);
  mcpCalls.inc({ tool, outcome: known ? outcome.toLowerCase() : 'error' });
  mcpDuration.observe({ tool }, seconds);
}

/** Counts one /graphql request under its persisted operation's name (or `anonymous`). */
export function countGraphqlOperation(operation: string, seconds: number): void {
  graphqlOperations.inc({ operation });
  graphqlDuration.observe({ operation }, seconds);
}

/** The doors whose requests' statements are counted: /graphql, the REST facade, the MCP facade. */
export type StatementDoor = 'graphql' | 'rest' | 'mcp';
const OPERATION_TYPES = ['query', 'mutation', 'subscription', 'none'];
/** the histogram's children by door and operation type (a finite set) */
const statementChildren = new Map(
  (['graphql', 'rest', 'mcp'] as const).flatMap((door) =>
    OPERATION_TYPES.map((type) => [`${door}:${type}`, graphqlStatements.labels(door, type)]),
  ),
);
/**
 * Records the statements of one request through `door` (src/db/statement-count.ts);
 * `operationType` is the executed operation's type, anything else reads as `none`.
 */
export function observeRequestStatements(
  door: StatementDoor,
  operationType: string,
  statements: number,
): void {
  const child =
    statementChildren.get(`${door}:${operationType}`) ?? statementChildren.get(`${door}:none`);
  child!.observe(statements);
}

/** Counts one event a rate limit refused (`limit`: the rule's name, e.g. `auth:login-fail`). */
export function countLimitHit(limit: string): void {
  limitHits.inc({ limit });
}

/** One AI ledger row as the metrics see it. */
export interface AiLedgerEntry {
  feature: string;
  outcome: string;
  cached: boolean;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

/** Counts one AI ledger row (called where the row is written, after it committed). */
export function countAiUsage(entry: AiLedgerEntry): void {
  const { feature } = entry;
  aiCalls.inc({ feature, outcome: entry.outcome, cached: String(entry.cached) });
  if (entry.tokensIn) aiTokens.inc({ feature, direction: 'in' }, entry.tokensIn);
  if (entry.tokensOut) aiTokens.inc({ feature, direction: 'out' }, entry.tokensOut);
  if (entry.costUsd) aiCost.inc({ feature }, entry.costUsd);
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * NOTE: who may read /metrics. With METRICS_TOKEN: only `Authorization: Bearer <METRICS_TOKEN>`
 * (compared in constant time). Without it: only a direct loopback connection, and never a request
 * a proxy forwarded (a proxy on this machine would otherwise make the public look local).
 */
function mayScrape(req: Request, token: Uint8Array | null): boolean {
  if (token) {
    const given = req.headers.authorization;
    if (typeof given !== 'string' || !given.startsWith('Bearer ')) return false;
    const presented = Buffer.from(given.slice(7));
    return presented.length === token.length && timingSafeEqual(presented, token);
  }
  const forwarded = req.headers['x-forwarded-for'] ?? req.headers.forwarded;
  return forwarded === undefined && LOOPBACK.test(req.socket.remoteAddress ?? '');
}

/** GET /metrics: the registry in Prometheus' text format, for whoever mayScrape lets in. */
export function metricsHandler(
  config: Pick<Config, 'METRICS_TOKEN'>,
): (req: Request, res: Response) => Promise<void> {
  const token = config.METRICS_TOKEN ? Buffer.from(config.METRICS_TOKEN) : null;
  return async (req, res) => {
    if (!mayScrape(req, token)) {
      const code = token ? 'UNAUTHENTICATED' : 'FORBIDDEN';
      if (token) res.set('www-authenticate', 'Bearer realm="metrics"');
      const detail = token
        ? 'Not authenticated'
        : 'Metrics are served to loopback only; set METRICS_TOKEN to scrape from elsewhere';
      res.status(ERROR_TABLE[code].status).json(httpErrorBody(code, { detail }));
      return;
    }
    res.set('content-type', registry.contentType).send(await registry.metrics());
  };
}
