/** What other domains (and src/oauth-host) may use of the oauth domain. */
export { revokeAllOAuthConnections } from './oauth.connections.ts';
export {
  checkRedirectUris,
  ClientMetadataRefused,
  getClient,
  OAUTH_CLIENT_SECRET_PREFIX,
  redirectUriIssue,
  registerClient,
  REGISTRATIONS_PER_IP,
} from './oauth.clients.ts';
export type { ClientRefusalCode, ClientRegistration } from './oauth.clients.ts';
