/**
 * Product interests in the dashboard graph (docs/graphql.md): `User.productInterests`, the
 * caller's interests as a connection (the root field productInterests, paged by id).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { productInterests } from './outreach.interests.ts';
import { ProductInterest } from './outreach.schema.ts';

const ProductInterestConnection = connectionOf('ProductInterest', ProductInterest);

builder.prismaObjectFields('User', (t) => ({
  productInterests: t.withAuth({ loginSession: true }).field({
    type: ProductInterestConnection,
    nullable: true,
    description: "The caller's product interests, oldest first",
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await productInterests(ctx), args, (p) => p.id);
    },
  }),
}));
