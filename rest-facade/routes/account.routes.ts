/** Accounts: register, logins (app, web, emailed code, admin), sessions, password reset, account deletion. */
import type { RestRoute } from '../route.ts';

export const accountRoutes: RestRoute[] = [
  { method: 'POST', path: '/api/auth/register', operation: 'register', body: 'input', tag: 'auth' },
  { method: 'POST', path: '/api/auth/login', operation: 'login', body: 'input', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/web/login',
    operation: 'webLogin',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/email/start',
    operation: 'startEmailCode',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/email/verify',
    operation: 'verifyEmailCode',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/web/email/verify',
    operation: 'verifyEmailCodeWeb',
    body: 'input',
    tag: 'auth',
  },
  { method: 'GET', path: '/api/auth/web/session', operation: 'webSession', tag: 'auth' },
  { method: 'POST', path: '/api/auth/web/logout', operation: 'webLogout', tag: 'auth' },
  { method: 'DELETE', path: '/api/auth/me', operation: 'deleteAccount', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/sessions/revoke-all',
    operation: 'revokeAllSessions',
    tag: 'auth',
  },
  { method: 'GET', path: '/api/auth/sessions', operation: 'sessions', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/sessions/{sid}/revoke',
    operation: 'revokeSession',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/forgot-password',
    operation: 'forgotPassword',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/reset-password',
    operation: 'resetPassword',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/admin/auth/login',
    operation: 'adminLogin',
    body: 'input',
    tag: 'admin',
  },
  {
    method: 'OPTIONS',
    path: '/api/admin/auth/login',
    operation: 'adminLogin',
    responder: 'preflight',
    tag: 'admin',
  },
];
