/** What other domains (and src/oauth-host) may use of the oauth domain. */
export { revokeAllOAuthConnections } from './oauth.connections.ts';
export {
  checkClientSecret,
  checkRedirectUris,
  ClientMetadataRefused,
  getClient,
  OAUTH_CLIENT_SECRET_PREFIX,
  redirectUriIssue,
  registerClient,
  REGISTRATIONS_PER_IP,
} from './oauth.clients.ts';
export type { ClientRefusalCode, ClientRegistration } from './oauth.clients.ts';
export {
  MAX_STATE_CHARS,
  MAX_TICKET_CHARS,
  requestedFamilies,
  signTicket,
} from './oauth.authorize.ts';
export {
  challengeForCode,
  exchangeCode,
  OAuthGrantRefused,
  refreshTokens,
  revokeToken,
} from './oauth.tokens.ts';
export { isClientMetadataUrl, metadataClient } from './oauth.cimd.ts';
export type { ClientMetadataFetcher } from './oauth.cimd.ts';
