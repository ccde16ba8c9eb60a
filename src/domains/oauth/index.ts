/** What other domains (and src/oauth-host) may use of the oauth domain. */
export { revokeAllOAuthConnections } from './oauth.connections.ts';
