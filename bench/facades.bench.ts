/**
 * The same read (the current user's profile) through the three doors, measured in one run:
 * REST `GET /api/auth/me`, `POST /graphql` with the GetProfile document, and the MCP tool
 * `get_profile` (`tools/call` on POST /api/mcp with a personal token). The server runs as a child
 * process exactly as `npm start` runs it (embedded database in a temp dir, or BENCH_DATABASE_URL);
 * autocannon drives it at 10 connections. MCP limits are raised for the run so that the
 * 60-per-minute rule does not turn the benchmark into a 429 benchmark.
 * Prints one JSON line: p50, p99 and req/s of each, and the ratios the goals name.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { fetchJson, signUp, startBenchServer } from './server.ts';

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.DURATION ?? 10);
const connections = 10;
const server = await startBenchServer({
  MCP_CALLS_PER_MINUTE: '100000000',
  MCP_CALLS_PER_DAY: '100000000',
});
const base = server.base;

const json = (pathname: string, init: RequestInit): Promise<any> => fetchJson(base, pathname, init);

interface Figures {
  p50_ms: number;
  p99_ms: number;
  req_per_s: number;
  errors: number;
  non_2xx: number;
}

async function load(
  title: string,
  opts: { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string },
): Promise<Figures> {
  // warm-up, then the measured run
  await autocannon({ url: base + opts.path, connections, duration: 2, ...opts });
  const r = await autocannon({
    url: base + opts.path,
    connections,
    duration: seconds,
    title,
    ...opts,
  });
  return {
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    req_per_s: Math.round(r.requests.average),
    errors: r.errors,
    non_2xx: r.non2xx,
  };
}

try {
  const jsonHeaders = { 'content-type': 'application/json' };
  const token = await signUp(base, 'bench@example.com');
  const bearer = { authorization: `Bearer ${token}` };
  const pat = await json('/api/v1/tokens', {
    method: 'POST',
    headers: { ...jsonHeaders, ...bearer },
    body: JSON.stringify({ name: 'bench', scopes: ['profile:read'] }),
  });
  const getProfile = JSON.parse(
    readFileSync(path.join(root, 'src/generated/operations.json'), 'utf8'),
  ).operations.find((o: { name: string }) => o.name === 'GetProfile').body;

  const rest = await load('rest', { method: 'GET', path: '/api/auth/me', headers: bearer });
  const graphql = await load('graphql', {
    method: 'POST',
    path: '/graphql',
    headers: { ...jsonHeaders, ...bearer },
    body: JSON.stringify({ query: getProfile, operationName: 'GetProfile' }),
  });
  const mcp = await load('mcp', {
    method: 'POST',
    path: '/api/mcp',
    headers: {
      ...jsonHeaders,
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${pat.token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_profile', arguments: {} },
    }),
  });
  const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
  console.log(
    JSON.stringify({
      bench: 'facades',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      connections,
      duration_s: seconds,
      rest,
      graphql,
      mcp,
      rest_p50_vs_graphql: ratio(rest.p50_ms, graphql.p50_ms),
      mcp_p50_vs_rest: ratio(mcp.p50_ms, rest.p50_ms),
      rest_rps_vs_graphql: ratio(rest.req_per_s, graphql.req_per_s),
      mcp_rps_vs_rest: ratio(mcp.req_per_s, rest.req_per_s),
      goals: { rest_p50_vs_graphql_max: 1.2, mcp_p50_vs_rest_max: 1.5 },
    }),
  );
} finally {
  await server.stop();
}
