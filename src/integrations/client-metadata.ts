/**
 * Fetches OAuth client ID metadata documents (draft-ietf-oauth-client-id-metadata-document;
 * docs/mcp-oauth.md section 6): a client whose `client_id` is an https URL publishes its metadata
 * there, and the authorization server fetches it. Because anyone can name any URL, the fetch is a
 * server-side request forgery risk, so it is guarded: https only, only public unicast addresses
 * (checked in the connection's own DNS lookup, so a rebinding answer cannot swap the address after
 * the check), no redirects, 200 only, `application/json`, 5 kB at most (reading stops there), 3 s in
 * all, and one fetch per URL at a time.
 *
 * It must never connect to a loopback, private, link-local or otherwise non-public address, and
 * never follow a redirect. What the document says is decided in src/domains/oauth/oauth.cimd.ts.
 */
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { MIMEType } from 'node:util';
import ipaddr from 'ipaddr.js';

/** Largest document read, in bytes (reading stops and the fetch fails beyond it). */
export const CLIENT_METADATA_MAX_BYTES = 5_120;
/** Time allowed for the whole fetch (lookup, connection, TLS, headers and body), in ms. */
export const CLIENT_METADATA_TIMEOUT_MS = 3_000;

/**
 * TEST-ONLY seam, given to createApp as an option (never from the environment): maps a client's
 * https URL to another URL to fetch instead (a local fake, `http://127.0.0.1:<port>/...`), or
 * answers undefined to fetch the URL itself. A mapped URL skips the address guard (the fake listens
 * on loopback); every other rule still applies, and every URL it does not map is guarded as usual.
 */
export type ClientMetadataDial = (url: URL) => URL | undefined;

/** What a fetch answers: the parsed JSON document and its Cache-Control freshness. */
export interface ClientMetadataResponse {
  /** the parsed JSON body, not yet validated */
  document: unknown;
  /** `max-age` in seconds; 0 for `no-store`/`no-cache`; null when the answer says neither */
  maxAgeSeconds: number | null;
}

export interface FetchClientMetadataOptions {
  /** test-only URL mapping (see ClientMetadataDial) */
  dial?: ClientMetadataDial;
  /** total time allowed, in ms (default CLIENT_METADATA_TIMEOUT_MS; tests pass a small one) */
  timeoutMs?: number;
}

/** A metadata document that could not be fetched; the message says why (no secrets in it). */
export class ClientMetadataFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientMetadataFetchError';
  }
}

/**
 * Whether an IP address is a public unicast one (ipaddr.js range `unicast`, IPv4-mapped IPv6
 * addresses judged as the IPv4 address they carry). Loopback, private, link-local, unique-local,
 * carrier-grade NAT, multicast, reserved, unspecified and every special-purpose range are not.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  // NOTE: process() unwraps ::ffff:a.b.c.d, so ::ffff:10.0.0.1 is judged as 10.0.0.1 (private).
  return ipaddr.process(ip).range() === 'unicast';
}

/**
 * A URL's host as an IP literal (brackets of IPv6 removed), or null when it is a name.
 * NOTE: net.connect skips the lookup for whatever net.isIP accepts, so that counts as a literal too
 * (and isPublicAddress refuses any literal ipaddr.js cannot read).
 */
function ipLiteral(hostname: string): string | null {
  const bare =
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0 || ipaddr.isValid(bare) ? bare : null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The connection's DNS lookup: dns.lookup, then refuses the answer unless every address is public.
 * NOTE: this is the lookup of the real connection (net.connect calls it), so the address checked is
 * the address connected to; a second, rebinding answer is never asked for.
 */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, verbatim: true }, (err, address, family) => {
    if (err) return callback(err, '');
    const addresses: LookupAddress[] = Array.isArray(address)
      ? address
      : [{ address, family: family ?? 4 }];
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused || addresses.length === 0) {
      const e: NodeJS.ErrnoException = new ClientMetadataFetchError(
        `${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not a public address`,
      );
      e.code = 'ERR_CLIENT_METADATA_ADDRESS';
      return callback(e, '');
    }
    if (Array.isArray(address)) callback(null, addresses);
    else callback(null, address, family);
  });
}

/** Why a client metadata URL cannot be fetched at all, or null. */
function urlIssue(url: URL): string | null {
  if (url.protocol !== 'https:') return 'the URL is not https';
  if (url.username || url.password) return 'the URL contains user information';
  if (url.href.includes('#')) return 'the URL contains a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'the URL has no path';
  const literal = ipLiteral(url.hostname);
  if (literal !== null && !isPublicAddress(literal)) return `${literal} is not a public address`;
  return null;
}

/**
 * `max-age` (seconds) of a Cache-Control header; 0 for `no-store` or `no-cache`; null when absent.
 * NOTE: hand-written because no dependency of ours parses Cache-Control; only these directives
 * matter here, and an unreadable max-age counts as absent (the caller's default applies).
 */
function maxAgeOf(header: string | undefined): number | null {
  if (!header) return null;
  let maxAge: number | null = null;
  for (const part of header.split(',')) {
    const [name = '', value = ''] = part.split('=', 2).map((s) => s.trim());
    const directive = name.toLowerCase();
    if (directive === 'no-store' || directive === 'no-cache') return 0;
    if (directive === 'max-age') {
      const digits = value.replace(/^"(.*)"$/, '$1');
      if (/^\d{1,10}$/.test(digits)) maxAge = Number(digits);
    }
  }
  return maxAge;
}

/** Whether a Content-Type header names application/json (parameters such as charset allowed). */
function isJson(contentType: string | undefined): boolean {
  if (!contentType) return false;
  try {
    return new MIMEType(contentType).essence === 'application/json';
  } catch {
    return false;
  }
}

/** One request: the guard, the limits, the parse. */
function fetchOnce(url: URL, options: FetchClientMetadataOptions): Promise<ClientMetadataResponse> {
  return new Promise((resolve, reject) => {
    const issue = urlIssue(url);
    if (issue) return reject(new ClientMetadataFetchError(issue));
    const dialled = options.dial?.(url);
    const target = dialled ?? url;
    const timeoutMs = options.timeoutMs ?? CLIENT_METADATA_TIMEOUT_MS;
    let settled = false;
    let req: ClientRequest | undefined;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      reject(new ClientMetadataFetchError(message));
    };
    const timer = setTimeout(() => fail(`no complete answer within ${timeoutMs} ms`), timeoutMs);

    const requestOptions: RequestOptions = {
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity' },
      // NOTE: a fresh connection per fetch: a pooled socket may have been opened by a request
      // that did not go through the guarded lookup.
      agent: false,
    };
    const onResponse = (res: IncomingMessage): void => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400)
        return fail(`answered ${status}: redirects are not followed`);
      if (status !== 200) return fail(`answered ${status}, not 200`);
      if (!isJson(res.headers['content-type']))
        return fail(
          `answered content type ${JSON.stringify(res.headers['content-type'] ?? '')}, not application/json`,
        );
      const declared = Number(res.headers['content-length']);
      if (declared > CLIENT_METADATA_MAX_BYTES)
        return fail(`the document is larger than ${CLIENT_METADATA_MAX_BYTES} bytes`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CLIENT_METADATA_MAX_BYTES)
          return fail(`the document is larger than ${CLIENT_METADATA_MAX_BYTES} bytes`);
        chunks.push(chunk);
      });
      res.on('error', () => fail('the answer was cut off'));
      res.on('close', () => {
        if (!res.complete) fail('the answer was cut off');
      });
      res.on('end', () => {
        if (settled) return;
        let document: unknown;
        try {
          document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return fail('the document is not valid JSON');
        }
        settled = true;
        clearTimeout(timer);
        resolve({ document, maxAgeSeconds: maxAgeOf(res.headers['cache-control']) });
      });
    };
    try {
      req = dialled
        ? (dialled.protocol === 'http:' ? http : https).request(target, requestOptions, onResponse)
        : https.request(target, { ...requestOptions, lookup: guardedLookup }, onResponse);
    } catch {
      return fail('the request could not be made');
    }
    req.on('error', (e: NodeJS.ErrnoException) => {
      fail(
        e instanceof ClientMetadataFetchError
          ? e.message
          : `the fetch failed (${e.code ?? e.name})`,
      );
    });
    req.end();
  });
}

const inFlight = new Map<string, Promise<ClientMetadataResponse>>();

/**
 * Fetches the client metadata document at `url` (an https URL with a path, no userinfo, no
 * fragment) under the guard and limits above. Concurrent calls for one URL share one fetch.
 * Throws ClientMetadataFetchError on any failure.
 */
export async function fetchClientMetadata(
  url: URL,
  options: FetchClientMetadataOptions = {},
): Promise<ClientMetadataResponse> {
  const key = url.href;
  const running = inFlight.get(key);
  if (running) return running;
  const fetching = fetchOnce(url, options).finally(() => inFlight.delete(key));
  inFlight.set(key, fetching);
  return fetching;
}
