/**
 * OAuth clients of the MCP host (docs/mcp-oauth.md section 6): the redirect-URI policy, dynamic
 * client registration (RFC 7591, kind `dcr`) and reading a client back for the protocol handlers.
 * The SDK's registration handler parses the request with its own schema first; this file applies
 * our rules on top and stores the row. A client secret is shown once, in the registration answer;
 * only its sha256 is kept, and getClient never returns a secret.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { safeEqual, sha256 } from '../../auth/credentials.ts';
import type { Db, DbTx } from '../../db/client.ts';
import type { LimitRule } from '../../platform/limits.ts';
import { clock } from '../../base/clock.ts';

/** Recognisable prefix of OAuth client secrets (docs/mcp-oauth.md section 5). */
export const OAUTH_CLIENT_SECRET_PREFIX = 'hdp_ocs_';

/** Registrations allowed per client IP per hour (docs/mcp-oauth.md section 6). */
export const REGISTRATIONS_PER_IP: LimitRule = {
  name: 'oauth:register:ip',
  points: 20,
  seconds: 3600,
};

export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME_CHARS = 100;
/** Longest redirect URI accepted (a body is at most 16 kB anyway). */
const MAX_REDIRECT_URI_CHARS = 2_000;

export const AUTH_METHODS = ['none', 'client_secret_post'] as const;
export type ClientAuthMethod = (typeof AUTH_METHODS)[number];
const GRANT_TYPES: ReadonlySet<string> = new Set(['authorization_code', 'refresh_token']);
const RESPONSE_TYPES: ReadonlySet<string> = new Set(['code']);

/** Schemes a browser gives a meaning to: never a private-use redirect (RFC 8252 section 7.1). */
const BROWSER_SCHEMES: ReadonlySet<string> = new Set([
  'javascript',
  'data',
  'vbscript',
  'file',
  'blob',
  'about',
  'ftp',
  'ws',
  'wss',
  'intent',
  'chrome',
]);
/** Hosts an `http:` redirect may name (RFC 8252 loopback; `localhost` too, docs/decisions.md). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Which RFC 7591 error a refusal is: a redirect URI, or any other metadata. */
export type ClientRefusalCode = 'invalid_redirect_uri' | 'invalid_client_metadata';

/** A client's metadata refused by our policy (the host turns it into the RFC 7591 error). */
export class ClientMetadataRefused extends Error {
  constructor(
    readonly code: ClientRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'ClientMetadataRefused';
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL can store: no U+0000, no lone surrogate. */
function storableText(text: string): boolean {
  return !text.includes('\0') && !LONE_SURROGATE.test(text);
}

function hasSpaceOrControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
}

function quote(text: string): string {
  return JSON.stringify(text.length <= 100 ? text : `${text.slice(0, 100)}…`);
}

/**
 * Why one redirect URI is refused, or null when it is allowed: no fragment, no userinfo; `https:`
 * any host; `http:` only 127.0.0.1, [::1] and localhost; a private-use scheme unless a browser gives
 * it a meaning.
 */
export function redirectUriIssue(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_CHARS)
    return `redirect URI longer than ${MAX_REDIRECT_URI_CHARS} characters`;
  if (!storableText(uri) || hasSpaceOrControl(uri))
    return `redirect URI ${quote(uri)} contains whitespace or control characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `redirect URI ${quote(uri)} is not an absolute URL`;
  }
  if (uri.includes('#')) return `redirect URI ${quote(uri)} must not contain a fragment`;
  if (url.username || url.password || /^[^:]+:\/\/[^/?]*@/.test(uri))
    return `redirect URI ${quote(uri)} must not contain user information`;
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https') {
    return url.hostname ? null : `redirect URI ${quote(uri)} names no host`;
  }
  if (scheme === 'http') {
    return LOOPBACK_HOSTS.has(url.hostname.toLowerCase())
      ? null
      : `redirect URI ${quote(uri)}: http is allowed only for 127.0.0.1, [::1] and localhost`;
  }
  if (BROWSER_SCHEMES.has(scheme))
    return `redirect URI ${quote(uri)}: the scheme ${scheme}: is not allowed`;
  return null;
}

/**
 * The redirect-URI policy of every client, registered (DCR) or known by its metadata document
 * (CIMD): 1 to 10 URIs, each allowed by redirectUriIssue. Throws ClientMetadataRefused
 * (`invalid_redirect_uri`).
 */
export function checkRedirectUris(uris: unknown): string[] {
  if (!Array.isArray(uris) || uris.length === 0)
    throw new ClientMetadataRefused(
      'invalid_redirect_uri',
      'redirect_uris must name at least one URI',
    );
  if (uris.length > MAX_REDIRECT_URIS)
    throw new ClientMetadataRefused(
      'invalid_redirect_uri',
      `redirect_uris may name at most ${MAX_REDIRECT_URIS} URIs`,
    );
  for (const uri of uris) {
    if (typeof uri !== 'string')
      throw new ClientMetadataRefused('invalid_redirect_uri', 'redirect_uris must be strings');
    const issue = redirectUriIssue(uri);
    if (issue) throw new ClientMetadataRefused('invalid_redirect_uri', issue);
  }
  return uris as string[];
}

/** What the SDK's handler hands the store: its parsed metadata (client_id and secret set by it). */
export type ClientRegistration = Omit<
  OAuthClientInformationFull,
  'client_id' | 'client_id_issued_at'
> & { client_id?: string; client_id_issued_at?: number };

/** The RFC 7591 fields kept and answered (no key material: we support no JWT client auth). */
const KEPT_FIELDS = [
  'redirect_uris',
  'token_endpoint_auth_method',
  'grant_types',
  'response_types',
  'client_name',
  'client_uri',
  'logo_uri',
  'scope',
  'contacts',
  'tos_uri',
  'policy_uri',
  'software_id',
  'software_version',
] as const;

type StoredMetadata = Partial<Pick<OAuthClientInformationFull, (typeof KEPT_FIELDS)[number]>>;

function refuse(message: string): never {
  throw new ClientMetadataRefused('invalid_client_metadata', message);
}

/** Every string in the kept metadata storable (no NUL, no lone surrogate), each at most 2,000 chars. */
function checkStrings(metadata: StoredMetadata): void {
  for (const [key, value] of Object.entries(metadata)) {
    const texts = Array.isArray(value) ? value : [value];
    for (const text of texts) {
      if (typeof text !== 'string') continue;
      if (!storableText(text))
        refuse(`${key} contains text that cannot be stored (NUL or invalid Unicode)`);
      if (text.length > MAX_REDIRECT_URI_CHARS)
        refuse(`${key} is longer than ${MAX_REDIRECT_URI_CHARS} characters`);
    }
  }
}

/**
 * Applies the client policy to registration metadata: redirect URIs, auth method (`none` or
 * `client_secret_post`; absent means `client_secret_post`), grant and response types, name length.
 * Answers the metadata to keep. Throws ClientMetadataRefused.
 */
export function checkClientMetadata(input: ClientRegistration): StoredMetadata & {
  redirect_uris: string[];
  token_endpoint_auth_method: ClientAuthMethod;
} {
  const redirectUris = checkRedirectUris(input.redirect_uris);
  const method = input.token_endpoint_auth_method ?? 'client_secret_post';
  if (!(AUTH_METHODS as readonly string[]).includes(method))
    refuse(
      `token_endpoint_auth_method ${quote(method)} is not supported: use "none" or "client_secret_post"`,
    );
  for (const grant of input.grant_types ?? [])
    if (!GRANT_TYPES.has(grant))
      refuse(`grant_types: ${quote(grant)} is not supported (authorization_code, refresh_token)`);
  for (const type of input.response_types ?? [])
    if (!RESPONSE_TYPES.has(type)) refuse(`response_types: ${quote(type)} is not supported (code)`);
  if (input.client_name !== undefined && input.client_name.length > MAX_CLIENT_NAME_CHARS)
    refuse(`client_name is longer than ${MAX_CLIENT_NAME_CHARS} characters`);
  const kept: StoredMetadata = {};
  for (const field of KEPT_FIELDS) {
    const value = input[field];
    if (value !== undefined) Object.assign(kept, { [field]: value });
  }
  const metadata = {
    ...kept,
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method as ClientAuthMethod,
  };
  checkStrings(metadata);
  return metadata;
}

/** A client secret: 256 random bits behind its prefix (only its sha256 is stored). */
export function newClientSecret(): string {
  return OAUTH_CLIENT_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Registers a client (kind `dcr`) under `client_id` (the SDK's UUID): applies the policy, stores the
 * row with only the secret's sha256, and answers the registration response, which alone carries
 * the plaintext `client_secret` (confidential clients; `client_secret_expires_at` 0: never).
 */
export async function registerClient(
  db: Db | DbTx,
  input: ClientRegistration,
): Promise<OAuthClientInformationFull> {
  const metadata = checkClientMetadata(input);
  const clientId = input.client_id ?? randomUUID();
  const issuedAt = input.client_id_issued_at ?? Math.floor(clock.ms() / 1000);
  const secret = metadata.token_endpoint_auth_method === 'none' ? undefined : newClientSecret();
  await db.oAuthClient.create({
    data: {
      id: clientId,
      kind: 'dcr',
      name: metadata.client_name ?? null,
      redirectUris: metadata.redirect_uris,
      authMethod: metadata.token_endpoint_auth_method,
      secretHash: secret === undefined ? null : sha256(secret),
      metadata: metadata,
      createdAt: new Date(issuedAt * 1000),
    },
  });
  return {
    ...metadata,
    client_id: clientId,
    client_id_issued_at: issuedAt,
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
  };
}

/**
 * A client as the SDK's handlers read it, or undefined: its metadata, id and issue time, never a
 * secret (client authentication compares the sha256 itself, before the SDK's check).
 */
export async function getClient(
  db: Db | DbTx,
  clientId: string,
): Promise<OAuthClientInformationFull | undefined> {
  if (clientId.length > 2_000 || !storableText(clientId)) return undefined;
  const row = await db.oAuthClient.findUnique({ where: { id: clientId } });
  if (!row) return undefined;
  const metadata = (row.metadata ?? {}) as StoredMetadata;
  return {
    ...metadata,
    redirect_uris: row.redirectUris,
    token_endpoint_auth_method: row.authMethod,
    client_id: row.id,
    client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
  };
}

/**
 * Whether a token or revocation request authenticates its client: a confidential client's secret
 * matches the stored sha256 (constant time); a public client needs none. An unknown client passes
 * here and is refused by the SDK's own check (`invalid_client`).
 */
export async function checkClientSecret(
  db: Db | DbTx,
  clientId: string,
  secret: string | undefined,
): Promise<boolean> {
  if (clientId.length > 2_000 || !storableText(clientId)) return true;
  const row = await db.oAuthClient.findUnique({
    select: { secretHash: true },
    where: { id: clientId },
  });
  if (!row?.secretHash) return true;
  return secret !== undefined && safeEqual(sha256(secret), row.secretHash);
}
