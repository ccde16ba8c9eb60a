/** Profile photo upload (multipart) and account deletion. */
import type { RestRoute } from '../route.ts';

export const profileRoutes: RestRoute[] = [
  { method: 'DELETE', path: '/api/auth/me', operation: 'DeleteAccount', tag: 'auth' },
  { method: 'POST', path: '/api/auth/profile-photo', operation: 'SetProfilePhoto', responder: 'multipart', tag: 'auth' },
];
