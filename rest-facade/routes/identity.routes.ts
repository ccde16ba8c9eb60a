/** Sign-in through an identity provider (Apple, Google, ...): bearer token or web session cookie. */
import type { RestRoute } from '../route.ts';

export const identityRoutes: RestRoute[] = [
  { method: 'POST', path: '/api/auth/idp', operation: 'loginWithIdp', body: 'input', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/web/idp',
    operation: 'webLoginWithIdp',
    body: 'input',
    tag: 'auth',
  },
];
