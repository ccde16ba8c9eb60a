/** Sessions: the person's signed-in phones and browsers. */
import type { McpTool } from '../tool.ts';

export const sessionTools: McpTool[] = [
  { name: 'sessions_list_read', operation: 'ListSessions', scopes: ['account:read'], kind: 'read' },
];
