/** The caller's profile: read, change, photo upload (multipart). */
import type { RestRoute } from '../route.ts';

export const profileRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/auth/me', operation: 'me', tag: 'auth' },
  { method: 'PATCH', path: '/api/auth/me', operation: 'updateProfile', body: 'input', tag: 'auth' },
  {
    method: 'POST',
    path: '/api/auth/profile-photo',
    operation: 'setProfilePhoto',
    responder: 'multipart',
    photo: 'profile',
    tag: 'auth',
  },
];
