/** Accounts: register, password login, the caller's profile. */
import type { RestRoute } from '../route.ts';

export const accountRoutes: RestRoute[] = [
  { method: 'POST', path: '/api/auth/register', operation: 'Register', body: 'input', tag: 'auth' },
  { method: 'POST', path: '/api/auth/login', operation: 'Login', body: 'input', tag: 'auth' },
  { method: 'GET', path: '/api/auth/me', operation: 'GetProfile', tag: 'auth' },
  { method: 'PATCH', path: '/api/auth/me', operation: 'UpdateProfile', body: 'input', tag: 'auth' },
  { method: 'GET', path: '/api/auth/sessions', operation: 'ListSessions', tag: 'auth' },
];
