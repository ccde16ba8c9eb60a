/** Profile: read and change the person's profile and onboarding progress. */
import type { McpTool } from '../tool.ts';

export const profileTools: McpTool[] = [
  {
    name: 'get_profile',
    title: 'Read my profile',
    operation: 'me',
    scopes: ['profile:read'],
    kind: 'read',
  },
  {
    name: 'update_profile',
    title: 'Update my profile',
    operation: 'updateProfile',
    scopes: ['profile:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'update_profile_onboarding',
    title: 'Record onboarding progress',
    operation: 'updateOnboarding',
    scopes: ['profile:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'profile_photo_set',
    title: 'Set my profile photo',
    operation: 'setProfilePhotoData',
    scopes: ['profile:write'],
    kind: 'write',
    idempotent: true,
  },
];
