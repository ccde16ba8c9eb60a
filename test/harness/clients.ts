/** Small HTTP clients over the real stack: REST (JSON) and GraphQL (POST /graphql). */
import type { TestApp } from './app.ts';

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RestCallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls a REST path and parses the JSON answer. */
export async function rest<T = any>(
  app: TestApp,
  method: string,
  path: string,
  options: RestCallOptions = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await app.fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export interface GqlOptions {
  token?: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Runs a GraphQL document through POST /graphql. */
export async function gql<T = any>(
  app: TestApp,
  query: string,
  options: GqlOptions = {},
): Promise<JsonResponse<{ data: T; errors: any[] }>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...options.headers,
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await app.fetch('/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables: options.variables ?? {} }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

let ipSeq = 0;

/**
 * Headers that make a request come from its own client address (X-Forwarded-For, trusted from
 * loopback), so per-IP limits of one test do not spill into the next.
 */
export function fromNewIp(): Record<string, string> {
  ipSeq += 1;
  return {
    'x-forwarded-for': `10.${process.pid % 250}.${Math.floor(ipSeq / 250) % 250}.${(ipSeq % 250) + 1}`,
  };
}

/** The Cookie header value for the cookies a response set (name=value pairs of non-empty cookies). */
export function cookiesFrom(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .filter((pair) => !pair.endsWith('='))
    .join('; ');
}
