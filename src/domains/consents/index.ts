/** What other domains may use of the consents domain: whether a person consents to a kind. */
export { hasConsent, listConsents, withdrawConsent } from './consents.service.ts';
export type { ConsentKind, ConsentView } from './consents.service.ts';
