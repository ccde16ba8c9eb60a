/** Profile: read and change the person's profile and onboarding progress. */
import type { McpTool } from '../tool.ts';

export const profileTools: McpTool[] = [
  { name: 'get_profile', operation: 'GetProfile', scopes: ['profile:read'], kind: 'read' },
  { name: 'update_profile', operation: 'UpdateProfile', scopes: ['profile:write'], kind: 'write', idempotent: true },
  {
    name: 'update_profile_onboarding',
    operation: 'UpdateProfileOnboarding',
    scopes: ['profile:write'],
    kind: 'write',
    idempotent: true,
  },
  { name: 'profile_photo_set', operation: 'SetProfilePhotoData', scopes: ['profile:write'], kind: 'write', idempotent: true },
];
