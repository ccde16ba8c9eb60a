/** Account: permanent deletion of the person's account. */
import type { McpTool } from '../tool.ts';

export const accountTools: McpTool[] = [
  {
    name: 'account_delete',
    title: 'Delete my account',
    operation: 'deleteAccount',
    scopes: ['account:write'],
    kind: 'deletes',
  },
];
