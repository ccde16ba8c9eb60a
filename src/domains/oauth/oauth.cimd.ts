/**
 * Clients known by their metadata document (CIMD, draft-ietf-oauth-client-id-metadata-document;
 * docs/mcp-oauth.md section 6): a `client_id` that is an https URL with a path names a JSON
 * document the client publishes there. The document is fetched (by the fetcher the host passes in,
 * src/integrations/client-metadata.ts), checked against the same policy as a registered client,
 * and cached as an OAuthClient row of kind `cimd` for its Cache-Control max-age, kept between 5
 * minutes and 24 hours (1 hour when absent).
 *
 * It must never answer a client whose document failed to fetch or validate, nor a stale copy when
 * its refresh fails: such a client is unknown. A CIMD client is public (method `none`, no secret).
 */
import {
  OAuthClientMetadataSchema,
  type OAuthClientInformationFull,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db } from '../../db/client.ts';
import { checkClientMetadata, getClient } from './oauth.clients.ts';
import { clock } from '../../base/clock.ts';

/** Longest client_id URL accepted (the row id; a redirect URI has the same limit). */
const MAX_CLIENT_ID_CHARS = 2_000;
/** Cache lifetime bounds and default (seconds). */
const MIN_CACHE_SECONDS = 300;
const MAX_CACHE_SECONDS = 86_400;
const DEFAULT_CACHE_SECONDS = 3_600;

/** What the fetcher answers (src/integrations/client-metadata.ts, fetchClientMetadata). */
export type ClientMetadataFetcher = (
  url: URL,
) => Promise<{ document: unknown; maxAgeSeconds: number | null }>;

/** Whether a client_id names a metadata document: an https URL with a path other than `/`. */
export function isClientMetadataUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.pathname !== '/' && url.pathname !== '';
}

/** The document checked against our client policy; null when it is refused. */
function checkDocument(
  clientId: string,
  document: unknown,
): ReturnType<typeof checkClientMetadata> | null {
  const parsed = OAuthClientMetadataSchema.safeParse(document);
  if (!parsed.success) return null;
  const raw = document as Record<string, unknown>;
  // NOTE: the document must name itself: simple string comparison with the URL it came from, or
  // anyone could publish a document claiming another client's identity.
  if (raw.client_id !== clientId) return null;
  // NOTE: a published document is readable by anyone, so it can hold no secret: public clients only.
  if ('client_secret' in raw || 'client_secret_expires_at' in raw) return null;
  const method = parsed.data.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') return null;
  if (typeof parsed.data.client_name !== 'string' || parsed.data.client_name.trim() === '')
    return null;
  try {
    // the registration policy: redirect URIs (checkRedirectUris), grant and response types, name
    // length, storable strings
    return checkClientMetadata({ ...parsed.data, token_endpoint_auth_method: 'none' });
  } catch {
    return null;
  }
}

/**
 * A client known by its metadata document, as getClient answers it (no secret), or undefined when
 * `clientId` is not a usable document URL or its document cannot be fetched or is refused. A cached
 * row of kind `cimd` is used until its staleAt; then the document is fetched again with `fetcher`
 * and the row replaced. Nothing about a refusal is logged here (the caller sees only "unknown").
 */
export async function metadataClient(
  db: Db,
  clientId: string,
  fetcher: ClientMetadataFetcher,
): Promise<OAuthClientInformationFull | undefined> {
  if (clientId.length > MAX_CLIENT_ID_CHARS || !isClientMetadataUrl(clientId)) return undefined;
  const url = new URL(clientId);
  // NOTE: only the canonical form: the id compared, stored and fetched is one string (no dot
  // segments, upper-case host or default port that the URL parser would rewrite).
  if (url.href !== clientId) return undefined;
  const row = await db.oAuthClient.findUnique({
    where: { id: clientId },
    select: { kind: true, staleAt: true },
  });
  if (row && row.kind !== 'cimd') return undefined;
  if (row?.staleAt && row.staleAt.getTime() > clock.ms()) return getClient(db, clientId);

  let fetched: Awaited<ReturnType<ClientMetadataFetcher>>;
  try {
    fetched = await fetcher(url);
  } catch {
    return undefined;
  }
  const metadata = checkDocument(clientId, fetched.document);
  if (!metadata) return undefined;

  const seconds = Math.min(
    MAX_CACHE_SECONDS,
    Math.max(MIN_CACHE_SECONDS, fetched.maxAgeSeconds ?? DEFAULT_CACHE_SECONDS),
  );
  const fetchedAt = clock.now();
  const staleAt = new Date(fetchedAt.getTime() + seconds * 1000);
  const data = {
    kind: 'cimd',
    name: metadata.client_name ?? null,
    redirectUris: metadata.redirect_uris,
    authMethod: 'none',
    secretHash: null,
    metadata,
    fetchedAt,
    staleAt,
  };
  await db.oAuthClient.upsert({
    where: { id: clientId },
    create: { id: clientId, ...data },
    update: data,
  });
  return getClient(db, clientId);
}
