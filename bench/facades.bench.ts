/**
 * The same read (the current user's profile) through the three doors, measured in one run:
 * REST `GET /api/auth/me`, `POST /graphql` with the me document, and the MCP tool
 * `get_profile` (`tools/call` on POST /api/mcp with a personal token). The server runs as a child
 * process exactly as `npm start` runs it (embedded database in a temp dir, or BENCH_DATABASE_URL);
 * autocannon drives it at 10 connections. MCP limits are raised for the run so that the
 * 60-per-minute rule does not turn the benchmark into a 429 benchmark.
 * The doors take turns: ROUNDS rounds (default 5) of DURATION seconds (default 4) per door, the
 * order rotating each round, so that a slower minute of a shared machine falls on every door alike;
 * each figure is the median over the rounds.
 * Prints one JSON line: p50, p99, mean latency and req/s of each, and the ratios the goals name.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { fetchJson, signUp, startBenchServer } from './server.ts';

const root = path.resolve(import.meta.dirname, '..');
const seconds = Number(process.env.DURATION ?? 4);
const rounds = Number(process.env.ROUNDS ?? 5);
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
  mean_ms: number;
  req_per_s: number;
  errors: number;
  non_2xx: number;
}

interface Door {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

async function load(door: Door, duration: number): Promise<Figures> {
  const r = await autocannon({ url: base + door.path, connections, duration, ...door });
  return {
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    mean_ms: r.latency.mean,
    req_per_s: Math.round(r.requests.average),
    errors: r.errors,
    non_2xx: r.non2xx,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Each door warmed up, then `rounds` turns each, the order rotating; medians per door. */
async function takeTurns<K extends string>(doors: Record<K, Door>): Promise<Record<K, Figures>> {
  const names = Object.keys(doors) as K[];
  for (const name of names) await load(doors[name], 2);
  const runs = Object.fromEntries(names.map((n) => [n, [] as Figures[]])) as Record<K, Figures[]>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length];
      runs[name].push(await load(doors[name], seconds));
    }
  }
  const of = (figures: Figures[]): Figures => ({
    p50_ms: median(figures.map((f) => f.p50_ms)),
    p99_ms: median(figures.map((f) => f.p99_ms)),
    mean_ms: Number(median(figures.map((f) => f.mean_ms)).toFixed(2)),
    req_per_s: median(figures.map((f) => f.req_per_s)),
    errors: figures.reduce((sum, f) => sum + f.errors, 0),
    non_2xx: figures.reduce((sum, f) => sum + f.non_2xx, 0),
  });
  return Object.fromEntries(names.map((n) => [n, of(runs[n])])) as Record<K, Figures>;
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
  ).operations.find((o: { name: string }) => o.name === 'me').body;

  const { rest, graphql, mcp } = await takeTurns({
    rest: { method: 'GET', path: '/api/auth/me', headers: bearer },
    graphql: {
      method: 'POST',
      path: '/graphql',
      headers: { ...jsonHeaders, ...bearer },
      body: JSON.stringify({ query: getProfile, operationName: 'me' }),
    },
    mcp: {
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
    },
  });
  const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
  console.log(
    JSON.stringify({
      bench: 'facades',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      connections,
      rounds,
      duration_s: seconds,
      rest,
      graphql,
      mcp,
      rest_p50_vs_graphql: ratio(rest.p50_ms, graphql.p50_ms),
      mcp_p50_vs_rest: ratio(mcp.p50_ms, rest.p50_ms),
      mcp_mean_vs_rest: ratio(mcp.mean_ms, rest.mean_ms),
      rest_rps_vs_graphql: ratio(rest.req_per_s, graphql.req_per_s),
      mcp_rps_vs_rest: ratio(mcp.req_per_s, rest.req_per_s),
      goals: { rest_p50_vs_graphql_max: 1.2, mcp_p50_vs_rest_max: 1.25 },
    }),
  );
} finally {
  await server.stop();
}
