/** What other domains may use of the tokens domain (revoking every personal token). */
export { revokeAllPersonalTokens } from './tokens.service.ts';
