/** Consents of the read API (/api/v1): give, read and withdraw consent to a kind of processing. */
import type { RestRoute } from '../route.ts';

export const consentRoutes: RestRoute[] = [
  { method: 'POST', path: '/api/v1/consents/{kind}', operation: 'giveConsent', tag: 'consents' },
  { method: 'GET', path: '/api/v1/consents', operation: 'consents', tag: 'consents' },
  {
    method: 'DELETE',
    path: '/api/v1/consents/{kind}',
    operation: 'withdrawConsent',
    tag: 'consents',
  },
];
