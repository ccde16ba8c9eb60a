/** Sharing: access grants (documented /api/auth paths), renew, view-as and the viewed profile (/api/v1). */
import type { RestRoute } from '../route.ts';

export const sharingRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/auth/share',
    operation: 'CreateAccessGrant',
    body: 'input',
    tag: 'sharing',
  },
  { method: 'GET', path: '/api/auth/grants', operation: 'ListAccessGrants', tag: 'sharing' },
  {
    method: 'POST',
    path: '/api/auth/grants/{grant_id}/accept',
    operation: 'AcceptAccessGrant',
    tag: 'sharing',
  },
  {
    method: 'POST',
    path: '/api/auth/grants/{grant_id}/revoke',
    operation: 'RevokeAccessGrant',
    tag: 'sharing',
  },
  {
    method: 'POST',
    path: '/api/v1/grants/{grant_id}/renew',
    operation: 'RenewAccessGrant',
    tag: 'sharing',
  },
  { method: 'POST', path: '/api/v1/view-as', operation: 'SwitchViewAs', tag: 'sharing' },
  { method: 'GET', path: '/api/v1/profile', operation: 'GetViewedProfile', tag: 'sharing' },
];
