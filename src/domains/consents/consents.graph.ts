/**
 * Consents in the dashboard graph (docs/graphql.md): `User.consents`, the caller's consents as a
 * connection (the root field consents, paged: one node per kind).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { Consent } from './consents.schema.ts';
import { consents } from './consents.service.ts';

const ConsentConnection = connectionOf('Consent', Consent);

builder.prismaObjectFields('User', (t) => ({
  consents: t.withAuth({ scope: 'consents:read' }).field({
    type: ConsentConnection,
    nullable: true,
    description: "The caller's consents, one per kind",
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await consents(ctx), args, (c) => c.kind);
    },
  }),
}));
