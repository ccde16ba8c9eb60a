/**
 * Sharing in the dashboard graph (docs/graphql.md): `User.accessGrants`, the caller's grants as a
 * connection (the root field accessGrants, paged; the caller's own, also while viewing as).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { AccessGrant } from './sharing.schema.ts';
import { accessGrants } from './sharing.service.ts';

const AccessGrantConnection = connectionOf('AccessGrant', AccessGrant);

builder.prismaObjectFields('User', (t) => ({
  accessGrants: t.withAuth({ scope: 'sharing:read' }).field({
    type: AccessGrantConnection,
    nullable: true,
    description: 'Grants the caller owns or was invited to, newest first',
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await accessGrants(ctx), args, (g) => g.id);
    },
  }),
}));
