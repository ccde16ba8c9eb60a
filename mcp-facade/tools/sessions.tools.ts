/**
 * Sessions: the person's signed-in phones and browsers. sessions_all_revoke ends every credential
 * of the account, personal tokens included: the token calling it stops working too.
 */
import type { McpTool } from '../tool.ts';

export const sessionTools: McpTool[] = [
  {
    name: 'sessions_list_read',
    title: 'List signed-in sessions',
    operation: 'sessions',
    scopes: ['account:read'],
    kind: 'read',
  },
  {
    name: 'sessions_all_revoke',
    title: 'Sign out everywhere',
    operation: 'revokeAllSessions',
    scopes: ['account:write'],
    kind: 'deletes',
  },
  {
    name: 'sessions_one_revoke',
    title: 'Sign out one session',
    operation: 'revokeSession',
    scopes: ['account:write'],
    kind: 'deletes',
  },
];
