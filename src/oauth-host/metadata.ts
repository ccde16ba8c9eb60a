/**
 * The OAuth host's two discovery documents (docs/mcp-oauth.md section 11), built once per origin and
 * checked against the SDK's schemas: the protected resource `<origin>/mcp` (RFC 9728) and its
 * authorization server, the same origin (RFC 8414).
 */
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type {
  OAuthMetadata,
  OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAUTH_SCOPES } from '../auth/scope-families.ts';

/** The protected resource's path on the host, and its metadata document's (RFC 9728 section 3.1). */
export const MCP_RESOURCE_PATH = '/mcp';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
/** The authorization server's endpoints. */
export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTRATION_PATH = '/oauth/register';
export const REVOCATION_PATH = '/oauth/revoke';

/** The RFC 9728 document of `<origin>/mcp`; the origin is its own authorization server. */
export function protectedResourceMetadata(origin: string): OAuthProtectedResourceMetadata {
  return OAuthProtectedResourceMetadataSchema.parse({
    resource: `${origin}${MCP_RESOURCE_PATH}`,
    authorization_servers: [origin],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Health Platform',
  });
}

/**
 * The RFC 8414 document: authorization code with PKCE S256 only, refresh tokens, public clients
 * (`none`) and `client_secret_post`, registration and metadata-document clients.
 * NOTE: `authorization_response_iss_parameter_supported` is not claimed: the SDK's error redirects
 * carry no `iss`, though our answers do.
 */
export function authorizationServerMetadata(origin: string): OAuthMetadata {
  const authMethods = ['none', 'client_secret_post'];
  return OAuthMetadataSchema.parse({
    issuer: origin,
    authorization_endpoint: `${origin}${AUTHORIZE_PATH}`,
    token_endpoint: `${origin}${TOKEN_PATH}`,
    registration_endpoint: `${origin}${REGISTRATION_PATH}`,
    revocation_endpoint: `${origin}${REVOCATION_PATH}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    scopes_supported: [...OAUTH_SCOPES],
    client_id_metadata_document_supported: true,
  });
}
