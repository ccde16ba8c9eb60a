/**
 * Access grants: share the person's data read-only with someone, accept, renew and revoke grants,
 * and switch the token to view an owner's data. sharing_view_as_switch is a `read` tool that runs a
 * mutation: it changes which data this token reads, never any data (see docs/decisions.md).
 */
import type { McpTool } from '../tool.ts';

export const accessGrantTools: McpTool[] = [
  { name: 'sharing_grant_accept', operation: 'AcceptAccessGrant', scopes: ['sharing:write'], kind: 'shares' },
  { name: 'sharing_grant_invite', operation: 'CreateAccessGrant', scopes: ['sharing:write'], kind: 'shares' },
  { name: 'sharing_grant_renew', operation: 'RenewAccessGrant', scopes: ['sharing:write'], kind: 'shares' },
  { name: 'sharing_grant_revoke', operation: 'RevokeAccessGrant', scopes: ['sharing:write'], kind: 'write', idempotent: true },
  { name: 'sharing_grant_list', operation: 'ListAccessGrants', scopes: ['sharing:read'], kind: 'read' },
  { name: 'sharing_view_as_switch', operation: 'SwitchViewAs', scopes: ['sharing:read'], kind: 'read' },
];
