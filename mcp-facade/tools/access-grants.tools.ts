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
    operation: 'acceptAccessGrant',
    scopes: ['sharing:write'],
    kind: 'shares',
  },
  {
    name: 'sharing_grant_invite',
    title: 'Invite someone to see my data',
    operation: 'createAccessGrant',
    scopes: ['sharing:write'],
    kind: 'shares',
  },
  {
    name: 'sharing_grant_renew',
    title: 'Renew a data-sharing grant',
    operation: 'renewAccessGrant',
    scopes: ['sharing:write'],
    kind: 'shares',
  },
  {
    name: 'sharing_grant_revoke',
    title: 'Revoke a data-sharing grant',
    operation: 'revokeAccessGrant',
    scopes: ['sharing:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'sharing_grant_list',
    title: 'List data-sharing grants',
    operation: 'accessGrants',
    scopes: ['sharing:read'],
    kind: 'read',
  },
  {
    name: 'sharing_view_as_switch',
    title: "Switch to viewing someone's shared data",
    operation: 'switchViewAs',
    scopes: ['sharing:read'],
    kind: 'read',
  },
];
