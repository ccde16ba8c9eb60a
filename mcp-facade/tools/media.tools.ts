/** Media: a photo for one of the person's meals, and reading one of their meal photos back. */
import type { McpTool } from '../tool.ts';

export const mediaTools: McpTool[] = [
  {
    name: 'nutrition_meal_photo_upload',
    title: 'Attach a photo to a meal',
    operation: 'attachMealPhoto',
    scopes: ['health:nutrition:write', 'media:write'],
    kind: 'write',
  },
  {
    name: 'media_file_read',
    title: 'Read a meal photo',
    operation: 'mealPhotoFile',
    scopes: ['health:nutrition:read', 'media:read'],
    kind: 'read',
  },
  {
    name: 'snore_audio_read',
    title: 'Read a snoring audio clip',
    operation: 'snoreAudio',
    scopes: ['health:sleep:read'],
    kind: 'read',
  },
];
