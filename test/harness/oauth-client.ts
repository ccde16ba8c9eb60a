/**
 * An OAuth client's side of the host's endpoints, over HTTP (docs/mcp-oauth.md section 12):
 * register, authorize with PKCE, approve through the GraphQL consent operation with the person's
 * login token (the consent page itself is tested in consent-page.test.ts), exchange and refresh.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TestApp } from './app.ts';
import { gql } from './clients.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh PKCE pair (S256). */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client (or one with `metadata` on top); answers the registration response. */
export async function registerTestClient(
  app: TestApp,
  metadata: Record<string, unknown> = {},
): Promise<{ client_id: string; client_secret?: string }> {
  const res = await app.mcpFetch('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Flow test client',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  if (res.status !== 201) throw new Error(`registration ${res.status}: ${await res.text()}`);
  return res.json();
}

/** The parameters of a valid authorization request of `clientId` (a fresh challenge), `extra` on top. */
export function authorizeParams(
  clientId: string,
  extra: Record<string, string> = {},
  challenge = pkce().challenge,
): Record<string, string> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
    ...extra,
  };
}

/** GET /oauth/authorize with `params` (manual redirects); answers the status and Location. */
export async function authorize(
  app: TestApp,
  params: Record<string, string>,
): Promise<{ status: number; location: URL | null; body: string }> {
  const res = await app.mcpFetch(`/oauth/authorize?${new URLSearchParams(params)}`, {
    redirect: 'manual',
  });
  const location = res.headers.get('location');
  return {
    status: res.status,
    location: location ? new URL(location, app.mcpUrl) : null,
    body: await res.text(),
  };
}

export interface CodeOptions {
  clientId: string;
  /** the person's login token (approves through GraphQL) */
  token: string;
  families?: string[];
  pkce?: Pkce;
  /** extra or replacing authorize parameters */
  params?: Record<string, string>;
}

/** Authorizes and approves; answers the code, its verifier and the final redirect. */
export async function obtainCode(
  app: TestApp,
  options: CodeOptions,
): Promise<{ code: string; verifier: string; redirect: URL }> {
  const { verifier, challenge } = options.pkce ?? pkce();
  const started = await authorize(
    app,
    authorizeParams(options.clientId, options.params, challenge),
  );
  const ticket = started.location?.searchParams.get('ticket');
  if (started.status !== 302 || !ticket) {
    throw new Error(`authorize ${started.status}: ${started.location} ${started.body}`);
  }
  const approved = await gql(
    app,
    `mutation ($ticket: String!, $families: [String!]!) {
      approveOAuthAuthorization(ticket: $ticket, families: $families) { redirectTo }
    }`,
    { token: options.token, variables: { ticket, families: options.families ?? ['read'] } },
  );
  const redirectTo = approved.body.data?.approveOAuthAuthorization?.redirectTo as
    | string
    | undefined;
  if (!redirectTo) throw new Error(`approve: ${JSON.stringify(approved.body.errors)}`);
  const redirect = new URL(redirectTo);
  return { code: redirect.searchParams.get('code')!, verifier, redirect };
}

/** POST a form to a token-side endpoint (`/oauth/token`, `/oauth/revoke`); answers status and JSON. */
export async function postForm(
  app: TestApp,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await app.mcpFetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the raw text is the body
  }
  return { status: res.status, headers: res.headers, body };
}

/** Exchanges a code at /oauth/token. */
export function exchange(
  app: TestApp,
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) {
  return postForm(app, '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    ...extra,
  });
}

/** Refreshes at /oauth/token. */
export function refresh(
  app: TestApp,
  clientId: string,
  refreshToken: string,
  extra: Record<string, string> = {},
) {
  return postForm(app, '/oauth/token', {
    grant_type: 'refresh_token',
    client_id: clientId,
    refresh_token: refreshToken,
    ...extra,
  });
}

/** A tools/list POST to the OAuth host's /mcp; answers the status. */
export async function mcpStatus(app: TestApp, accessToken: string): Promise<number> {
  const res = await app.mcpFetch('/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await res.text();
  return res.status;
}
