/**
 * What other domains may use of the consents domain: whether a person consents to a kind, and the
 * `Consent` type for a root field of another domain that answers one (the assistant's consent).
 */
export { Consent } from './consents.schema.ts';
export { hasConsent, consents, withdrawConsent } from './consents.service.ts';
export type { ConsentKind, ConsentView } from './consents.service.ts';
