/**
 * Challenges in the dashboard graph (docs/graphql.md): `User.challenges`, the caller's challenges
 * as a connection (the root field challenges, paged; the caller's own).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { ChallengeRef } from './challenges.schema.ts';
import { challenges } from './challenges.service.ts';

const ChallengeConnection = connectionOf('Challenge', ChallengeRef);

builder.prismaObjectFields('User', (t) => ({
  challenges: t.withAuth({ scope: 'community:read' }).field({
    type: ChallengeConnection,
    nullable: true,
    description:
      "The challenges the person is in or invited to (their circles' included), newest first",
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await challenges(ctx), args, (c) => c.id);
    },
  }),
}));
