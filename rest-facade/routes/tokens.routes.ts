/** Personal access tokens of the read API (/api/v1). */
import type { RestRoute } from '../route.ts';

export const tokenRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/tokens',
    operation: 'createPersonalToken',
    body: 'input',
    status: 201,
    tag: 'tokens',
  },
  { method: 'GET', path: '/api/v1/tokens', operation: 'personalTokens', tag: 'tokens' },
  {
    method: 'DELETE',
    path: '/api/v1/tokens/{token_id}',
    operation: 'revokePersonalToken',
    rename: { token_id: 'id' },
    tag: 'tokens',
  },
];
