/** Sharing: access grants (invite, list, accept, revoke, renew), view-as and the viewed profile. */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { AccessGrantView, ViewAsState } from './sharing.service.ts';
import {
  acceptAccessGrant,
  createAccessGrant,
  accessGrants,
  renewAccessGrant,
  revokeAccessGrant,
  switchViewAs,
  viewedProfile,
} from './sharing.service.ts';

const AccessGrantRole = builder.enumType('AccessGrantRole', {
  description: "The caller's side of a grant",
  values: {
    owner: { description: 'the caller shares their data' },
    grantee: { description: 'the caller was invited' },
  },
});

const AccessGrantStatus = builder.enumType('AccessGrantStatus', {
  description:
    'pending until accepted; active until revoked or expired; expired is derived from expires_at',
  values: ['pending', 'active', 'revoked', 'expired'] as const,
});

export const AccessGrant = builder.objectRef<AccessGrantView>('AccessGrant').implement({
  description: "A read-only share of an owner's data with an invitee",
  fields: (t) => ({
    id: t.exposeInt('id'),
    role: t.field({ type: AccessGrantRole, resolve: (g) => g.role }),
    status: t.field({ type: AccessGrantStatus, resolve: (g) => g.status }),
    ownerEmail: t.exposeString('ownerEmail'),
    ownerName: t.exposeString('ownerName', { nullable: true }),
    inviteeEmail: t.exposeString('inviteeEmail', {
      description: 'the address the invitation went to',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    acceptedAt: t.expose('acceptedAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'sharing ends here unless the owner renews',
    }),
    viewing: t.exposeBoolean('viewing', {
      description:
        "true when the credential of this request reads the owner's data through this grant",
    }),
  }),
});

export const ViewAs = builder.objectRef<ViewAsState>('ViewAsState').implement({
  description: 'Whose data the credential of this request reads',
  fields: (t) => ({
    viewing: t.exposeBoolean('viewing', {
      description: "true while reading another person's data (read-only)",
    }),
    grant: t.field({ type: AccessGrant, nullable: true, resolve: (s) => s.grant }),
  }),
});

const ShareDataInput = builder.inputType('ShareDataInput', {
  description: 'Whom to invite (ShareDataIn)',
  fields: (t) => ({
    email: t.string({ required: true, description: "the invitee's email address" }),
  }),
  validate: z.object({
    email: z.email({ message: 'value is not a valid email address' }).max(254),
  }),
});

builder.queryFields((t) => ({
  accessGrants: t.withAuth({ scope: 'sharing:read' }).field({
    type: [AccessGrant],
    description: 'Grants the caller owns or was invited to, newest first',
    resolve: (_root, _args, ctx) => accessGrants(ctx),
  }),
  viewedProfile: t.withAuth({ scope: 'profile:read' }).prismaField({
    type: 'User',
    description:
      "The profile of the person whose data the caller reads: the owner's while viewing as, else the caller's own (`me` is always the caller)",
    resolve: (query, _root, _args, ctx) => viewedProfile(ctx, query),
  }),
}));

builder.mutationFields((t) => ({
  createAccessGrant: t.withAuth({ scope: 'sharing:write' }).field({
    type: AccessGrant,
    description: "Invites someone by email to read the caller's data (pending until they accept)",
    args: { input: t.arg({ type: ShareDataInput, required: true }) },
    resolve: (_root, { input }, ctx) => createAccessGrant(ctx, { email: input.email }),
  }),
  acceptAccessGrant: t.withAuth({ scope: 'sharing:write' }).field({
    type: AccessGrant,
    description: 'Accepts a pending grant the caller was invited to',
    args: {
      grantId: t.arg.int({ required: true, description: "the grant's id (from the grant list)" }),
    },
    resolve: (_root, args, ctx) => acceptAccessGrant(ctx, args),
  }),
  revokeAccessGrant: t.withAuth({ scope: 'sharing:write' }).field({
    type: AccessGrant,
    description: 'Ends a grant, as its owner or its invitee; viewing through it stops at once',
    args: {
      grantId: t.arg.int({ required: true, description: "the grant's id (from the grant list)" }),
    },
    resolve: (_root, args, ctx) => revokeAccessGrant(ctx, args),
  }),
  renewAccessGrant: t.withAuth({ scope: 'sharing:write' }).field({
    type: AccessGrant,
    description: 'The owner keeps a grant going for 30 more days from now',
    args: {
      grantId: t.arg.int({ required: true, description: "the grant's id (from the grant list)" }),
    },
    resolve: (_root, args, ctx) => renewAccessGrant(ctx, args),
  }),
  // A mutation under a read scope, as the spec lists sharing_view_as_switch (sharing:read, read):
  // it changes only which data this credential reads, never any data, and it must stay reachable
  // while viewing as (read-only), so that a grantee can always switch back.
  switchViewAs: t.withAuth({ scope: 'sharing:read' }).field({
    type: ViewAs,
    description:
      "Switches this credential to read the owner's data through an active grant (read-only), or back to the caller's own data without a grant id",
    args: { grantId: t.arg.int({ description: 'omit or null to switch back' }) },
    resolve: (_root, args, ctx) => switchViewAs(ctx, args),
  }),
}));
