/**
 * Access grants: share the person's data read-only with someone, accept, renew and revoke grants,
 * and switch the token to view an owner's data. sharing_view_as_switch is a `read` tool that runs a
 * mutation: it changes which data this token reads, never any data (see docs/decisions.md).
 */
import type { McpTool } from '../tool.ts';

export const accessGrantTools: McpTool[] = [
  {
    name: 'sharing_grant_accept',
    title: 'Accept a data-sharing invitation',
    operation: 'AcceptAccessGrant',
    scopes: ['sharing:write'],
    kind: 'shares',
  },
  {
    name: 'sharing_grant_invite',
    title: 'Invite someone to see my data',
    operation: 'CreateAccessGrant',
    scopes: ['sharing:write'],
    kind: 'shares',
  },
  {
    name: 'sharing_grant_renew',
    title: 'Renew a data-sharing grant',
    operation: 'RenewAccessGrant',
    scopes: ['sharing:write'],
    kind: 'shares',
  },
  {
    name: 'sharing_grant_revoke',
    title: 'Revoke a data-sharing grant',
    operation: 'RevokeAccessGrant',
    scopes: ['sharing:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'sharing_grant_list',
    title: 'List data-sharing grants',
    operation: 'ListAccessGrants',
    scopes: ['sharing:read'],
    kind: 'read',
  },
  {
    name: 'sharing_view_as_switch',
    title: "Switch to viewing someone's shared data",
    operation: 'SwitchViewAs',
    scopes: ['sharing:read'],
    kind: 'read',
  },
];
