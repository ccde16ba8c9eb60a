/** Sleep: snoring nights the phone measured (list, read one, delete one). */
import type { McpTool } from '../tool.ts';

export const sleepTools: McpTool[] = [
  {
    name: 'snore_nights_list',
    title: 'List snoring nights',
    operation: 'snoreNights',
    scopes: ['health:sleep:read'],
    kind: 'read',
  },
  {
    name: 'snore_night_read',
    title: 'Read a snoring night',
    operation: 'snoreNight',
    scopes: ['health:sleep:read'],
    kind: 'read',
  },
  {
    name: 'snore_night_delete',
    title: 'Delete a snoring night',
    operation: 'deleteSnoreNight',
    scopes: ['health:logs:write'],
    kind: 'deletes',
  },
];
