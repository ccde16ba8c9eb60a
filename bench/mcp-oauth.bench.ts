/**
 * The OAuth MCP host (issue 13, docs/mcp-oauth.md section 13), on the server run as `npm start` runs
 * it (bench/server.ts: embedded database in a temp dir, or BENCH_DATABASE_URL; the host listens on
 * MCP_OAUTH_PORT = port + 1). Two measurements in one run:
 *
 * 1. The authorization-code flow end to end, FLOWS times (default 200), one after another, the person
 *    signed in once: `GET /oauth/authorize` (302 to the consent page's ticket), the approval, and
 *    `POST /oauth/token` (code + PKCE verifier). The consent page is HTML; the bench approves
 *    through the GraphQL operation the page runs (`approveOAuthAuthorization` on `POST /graphql`,
 *    with the person's login bearer token), so page rendering and the form post are not counted.
 *    The first flow, with sign-up and login, is timed apart.
 * 2. `tools/call get_profile` over OAuth (`POST <host>/mcp`, access token) and over a personal token
 *    (`POST /api/mcp`, `hdp_pat_` token with profile:read), same person, autocannon at 10
 *    connections, ROUNDS rounds (default 3) alternating which door goes first; the median of the
 *    rounds for each figure.
 *
 * Limits: MCP calls are raised as bench:facades raises them (they count per OAuth connection as per
 * personal token). The host's own limits are constants (src/oauth-host/host.ts): 100 authorizations
 * per client IP per 15 minutes and 120 token requests per client id per minute. The bench therefore
 * uses one registered client per 100 flows, and each client authorizes from its own address through
 * X-Forwarded-For (trusted from loopback: TRUST_PROXY=loopback, the default, passed explicitly).
 * Prints one JSON line.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { fetchJson, signUp, startBenchServer } from './server.ts';
import { median, percentile } from './stats.ts';

const root = path.resolve(import.meta.dirname, '..');
const flows = Number(process.env.FLOWS ?? 200);
const rounds = Number(process.env.ROUNDS ?? 3);
const seconds = Number(process.env.DURATION ?? 10);
const connections = 10;
/** flows per registered client: under both host limits (100 authorizations, 120 token requests) */
const FLOWS_PER_CLIENT = 100;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

const server = await startBenchServer({
  MCP_CALLS_PER_MINUTE: '100000000',
  MCP_CALLS_PER_DAY: '100000000',
  TRUST_PROXY: 'loopback',
});
const base = server.base;
const mcpBase = `http://127.0.0.1:${Number(new URL(base).port) + 1}`;

const jsonHeaders = { 'content-type': 'application/json' };
const approveDocument = (
  JSON.parse(readFileSync(path.join(root, 'src/generated/operations.json'), 'utf8')) as {
    operations: { name: string; body: string }[];
  }
).operations.find((o) => o.name === 'approveOAuthAuthorization')?.body;
if (!approveDocument) throw new Error('approveOAuthAuthorization is not a persisted operation');

const ms = (value: number): number => Number(value.toFixed(2));

/** Waits for the OAuth host's handler (attached once its port is bound). */
async function waitForHost(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${mcpBase}/.well-known/oauth-authorization-server`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the OAuth host at ${mcpBase} did not answer`);
}

/** Registers a public client (RFC 7591) for the bench's redirect URI; answers its client_id. */
async function registerClient(name: string): Promise<string> {
  const body = (await fetchJson(mcpBase, '/oauth/register', {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    }),
  })) as { client_id: string };
  return body.client_id;
}

interface Flow {
  total_ms: number;
  authorize_ms: number;
  approve_ms: number;
  token_ms: number;
  accessToken: string;
}

/**
 * One authorization: authorize (302 with a ticket), approve the ticket for the "read" family with
 * the login token, exchange the code. `ip` is the client address the host sees (X-Forwarded-For).
 */
async function flow(clientId: string, loginToken: string, ip: string): Promise<Flow> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const t0 = performance.now();
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    resource: `${mcpBase}/mcp`,
  });
  const started = await fetch(`${mcpBase}/oauth/authorize?${params}`, {
    redirect: 'manual',
    headers: { 'x-forwarded-for': ip },
  });
  const startedBody = await started.text();
  const location = started.headers.get('location');
  const ticket = location ? new URL(location, mcpBase).searchParams.get('ticket') : null;
  if (started.status !== 302 || !ticket) {
    throw new Error(`authorize: ${started.status} ${location} ${startedBody.slice(0, 300)}`);
  }
  const t1 = performance.now();
  const approved = (await fetchJson(base, '/graphql', {
    method: 'POST',
    headers: { ...jsonHeaders, authorization: `Bearer ${loginToken}` },
    body: JSON.stringify({
      query: approveDocument,
      operationName: 'approveOAuthAuthorization',
      variables: { ticket, families: ['read'] },
    }),
  })) as { data?: { approveOAuthAuthorization?: { redirectTo: string } }; errors?: unknown };
  const redirectTo = approved.data?.approveOAuthAuthorization?.redirectTo;
  if (!redirectTo) throw new Error(`approve: ${JSON.stringify(approved.errors)}`);
  const code = new URL(redirectTo).searchParams.get('code');
  if (!code) throw new Error(`approve: no code in ${redirectTo}`);
  const t2 = performance.now();
  const tokens = (await fetchJson(mcpBase, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
    }).toString(),
  })) as { access_token?: string };
  const t3 = performance.now();
  if (!tokens.access_token?.startsWith('hdp_oat_')) {
    throw new Error(`token: ${JSON.stringify(tokens).slice(0, 300)}`);
  }
  return {
    total_ms: t3 - t0,
    authorize_ms: t1 - t0,
    approve_ms: t2 - t1,
    token_ms: t3 - t2,
    accessToken: tokens.access_token,
  };
}

interface Figures {
  p50_ms: number;
  p99_ms: number;
  req_per_s: number;
  errors: number;
  non_2xx: number;
}

type Door = { url: string; headers: Record<string, string>; body: string };

async function load(door: Door, duration: number): Promise<Figures> {
  const r = await autocannon({
    url: door.url,
    method: 'POST',
    headers: door.headers,
    body: door.body,
    connections,
    duration,
  });
  return {
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    req_per_s: Math.round(r.requests.average),
    errors: r.errors,
    non_2xx: r.non2xx,
  };
}

/** One call through `door`, checked: a profile, not an MCP error (wrong token, missing scope). */
async function checkDoor(name: string, door: Door): Promise<void> {
  const res = await fetch(door.url, { method: 'POST', headers: door.headers, body: door.body });
  const text = await res.text();
  if (
    res.status !== 200 ||
    text.includes('"isError":true') ||
    !text.includes('bench@example.com')
  ) {
    throw new Error(`${name} get_profile: ${res.status} ${text.slice(0, 300)}`);
  }
}

const medianFigures = (runs: Figures[]): Figures => ({
  p50_ms: median(runs.map((r) => r.p50_ms)),
  p99_ms: median(runs.map((r) => r.p99_ms)),
  req_per_s: median(runs.map((r) => r.req_per_s)),
  errors: runs.reduce((n, r) => n + r.errors, 0),
  non_2xx: runs.reduce((n, r) => n + r.non_2xx, 0),
});

try {
  await waitForHost();

  // The first flow: sign-up and login, a client's registration, then the flow itself.
  const f0 = performance.now();
  const loginToken = await signUp(base, 'bench@example.com');
  const f1 = performance.now();
  const firstClient = await registerClient('Bench client 0');
  const f2 = performance.now();
  const first = await flow(firstClient, loginToken, '198.51.100.1');
  const firstFlow = {
    total_ms: ms(performance.now() - f0),
    sign_up_and_login_ms: ms(f1 - f0),
    register_client_ms: ms(f2 - f1),
    flow_ms: ms(first.total_ms),
  };

  // FLOWS more, signed in: one client (and one client address) per FLOWS_PER_CLIENT flows,
  // registered before the timed flows.
  const clients: string[] = [];
  for (let i = 0; i < Math.ceil(flows / FLOWS_PER_CLIENT); i++) {
    clients.push(await registerClient(`Bench client ${i + 1}`));
  }
  const measured: Flow[] = [];
  for (let i = 0; i < flows; i++) {
    const c = Math.floor(i / FLOWS_PER_CLIENT);
    measured.push(await flow(clients[c], loginToken, `198.51.100.${c + 2}`));
  }
  const phase = (key: 'total_ms' | 'authorize_ms' | 'approve_ms' | 'token_ms') => ({
    p50_ms: percentile(
      measured.map((f) => f[key]),
      50,
    ),
    p99_ms: percentile(
      measured.map((f) => f[key]),
      99,
    ),
  });

  // tools/call get_profile through both doors, same person.
  const pat = (await fetchJson(base, '/api/v1/tokens', {
    method: 'POST',
    headers: { ...jsonHeaders, authorization: `Bearer ${loginToken}` },
    body: JSON.stringify({ name: 'bench', scopes: ['profile:read'] }),
  })) as { token: string };
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_profile', arguments: {} },
  });
  const mcpHeaders = { ...jsonHeaders, accept: 'application/json, text/event-stream' };
  const doors: Record<'pat' | 'oauth', Door> = {
    pat: {
      url: `${base}/api/mcp`,
      headers: { ...mcpHeaders, authorization: `Bearer ${pat.token}` },
      body: call,
    },
    oauth: {
      url: `${mcpBase}/mcp`,
      headers: { ...mcpHeaders, authorization: `Bearer ${measured.at(-1)!.accessToken}` },
      body: call,
    },
  };
  await checkDoor('pat', doors.pat);
  await checkDoor('oauth', doors.oauth);
  await load(doors.pat, 2);
  await load(doors.oauth, 2);
  const runs: Record<'pat' | 'oauth', Figures[]> = { pat: [], oauth: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (['pat', 'oauth'] as const) : (['oauth', 'pat'] as const);
    for (const door of order) runs[door].push(await load(doors[door], seconds));
  }
  const patFigures = medianFigures(runs.pat);
  const oauthFigures = medianFigures(runs.oauth);
  const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));

  console.log(
    JSON.stringify({
      bench: 'mcp-oauth',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      flow: {
        count: flows,
        clients: clients.length,
        ...phase('total_ms'),
        authorize: phase('authorize_ms'),
        approve: phase('approve_ms'),
        token: phase('token_ms'),
        first_flow: firstFlow,
        note: 'authorize (302) -> approve via the GraphQL operation the consent page runs (approveOAuthAuthorization, login bearer token; page HTML not rendered) -> token exchange; one client and one X-Forwarded-For address per 100 flows (host limits are constants)',
      },
      tools_call: {
        connections,
        duration_s: seconds,
        rounds,
        pat: patFigures,
        oauth: oauthFigures,
        runs: {
          pat: runs.pat.map((r) => [r.p50_ms, r.p99_ms, r.req_per_s]),
          oauth: runs.oauth.map((r) => [r.p50_ms, r.p99_ms, r.req_per_s]),
        },
      },
      oauth_over_pat_p50: ratio(oauthFigures.p50_ms, patFigures.p50_ms),
      oauth_over_pat_rps: ratio(oauthFigures.req_per_s, patFigures.req_per_s),
      // per round (the two doors' runs of a round are back to back, under the same machine load)
      oauth_over_pat_p50_by_round: runs.oauth.map((r, i) => ratio(r.p50_ms, runs.pat[i].p50_ms)),
      goals: { oauth_over_pat_p50_max: 1.2 },
    }),
  );
} finally {
  await server.stop();
}
