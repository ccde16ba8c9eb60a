/** Accounts: register, logins (app, web, emailed code, admin), sessions, password reset, account deletion. */
import type { RestRoute } from '../route.ts';

export const accountRoutes: RestRoute[] = [
  { method: 'POST', path: '/api/auth/register', operation: 'Register', body: 'input', tag: 'auth' },
  { method: 'POST', path: '/api/auth/login', operation: 'Login', body: 'input', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/web/login',
    operation: 'WebLogin',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/email/start',
    operation: 'StartEmailCode',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/email/verify',
    operation: 'VerifyEmailCode',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/web/email/verify',
    operation: 'VerifyEmailCodeWeb',
    body: 'input',
    tag: 'auth',
  },
  { method: 'GET', path: '/api/auth/web/session', operation: 'GetWebSession', tag: 'auth' },
  { method: 'POST', path: '/api/auth/web/logout', operation: 'WebLogout', tag: 'auth' },
  { method: 'DELETE', path: '/api/auth/me', operation: 'DeleteAccount', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/sessions/revoke-all',
    operation: 'RevokeAllSessions',
    tag: 'auth',
  },
  { method: 'GET', path: '/api/auth/sessions', operation: 'ListSessions', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/sessions/{sid}/revoke',
    operation: 'RevokeSession',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/forgot-password',
    operation: 'ForgotPassword',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/auth/reset-password',
    operation: 'ResetPassword',
    body: 'input',
    tag: 'auth',
  },
  {
    method: 'POST',
    path: '/api/admin/auth/login',
    operation: 'AdminLogin',
    body: 'input',
    tag: 'admin',
  },
  {
    method: 'OPTIONS',
    path: '/api/admin/auth/login',
    operation: 'AdminLogin',
    responder: 'preflight',
    tag: 'admin',
  },
];
