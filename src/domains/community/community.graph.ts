/**
 * Community in the dashboard graph (docs/graphql.md): `User.circles` (the root field
 * communityCircles, paged) and `User.nudges` (the nudges received, newest first, keyset pages).
 * Both are the caller's own social account (never another person's while viewing as).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { communityCircles } from './community.circles.ts';
import { nudgePage } from './community.nudges.ts';
import { CommunityCircle, CommunityNudge } from './community.schema.ts';

const CircleConnection = connectionOf('CommunityCircle', CommunityCircle);
const NudgeConnection = connectionOf('CommunityNudge', CommunityNudge);

builder.prismaObjectFields('User', (t) => ({
  circles: t.withAuth({ scope: 'community:read' }).field({
    type: CircleConnection,
    nullable: true,
    description: 'The circles the caller is in, the longest-held membership first',
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await communityCircles(ctx), args, (c) => c.id);
    },
  }),
  nudges: t.withAuth({ scope: 'community:read' }).field({
    type: NudgeConnection,
    nullable: true,
    description: 'Nudges the caller received, newest first',
    args: {
      ...pageArgs(t.arg),
      unreadOnly: t.arg.boolean({ description: 'only those not yet seen' }),
    },
    resolve: (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return nudgePage(ctx, args);
    },
  }),
}));
