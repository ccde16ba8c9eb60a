/** What other domains may use of the consents domain: whether a person consents to a kind. */
export { hasConsent } from './consents.service.ts';
export type { ConsentKind } from './consents.service.ts';
