/** Sharing: access grants (documented /api/auth paths), renew, view-as and the viewed profile (/api/v1). */
import type { RestRoute } from '../route.ts';

export const sharingRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/auth/share',
    operation: 'createAccessGrant',
    body: 'input',
    tag: 'sharing',
  },
  { method: 'GET', path: '/api/auth/grants', operation: 'accessGrants', tag: 'sharing' },
  {
    method: 'POST',
    path: '/api/auth/grants/{grant_id}/accept',
    operation: 'acceptAccessGrant',
    tag: 'sharing',
  },
  {
    method: 'POST',
    path: '/api/auth/grants/{grant_id}/revoke',
    operation: 'revokeAccessGrant',
    tag: 'sharing',
  },
  {
    method: 'POST',
    path: '/api/v1/grants/{grant_id}/renew',
    operation: 'renewAccessGrant',
    tag: 'sharing',
  },
  { method: 'POST', path: '/api/v1/view-as', operation: 'switchViewAs', tag: 'sharing' },
  { method: 'GET', path: '/api/v1/profile', operation: 'viewedProfile', tag: 'sharing' },
];
