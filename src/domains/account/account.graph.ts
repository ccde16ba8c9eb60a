/**
 * Sessions in the dashboard graph (docs/graphql.md): `User.sessions`, the caller's live login
 * sessions as a connection (the root field sessions, paged).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { Session } from './account.schema.ts';
import { sessions } from './account.sessions.ts';

const SessionConnection = connectionOf('Session', Session);

builder.prismaObjectFields('User', (t) => ({
  sessions: t.withAuth({ scope: 'account:read' }).field({
    type: SessionConnection,
    nullable: true,
    description: "The caller's live login sessions, newest first",
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await sessions(ctx), args, (s) => s.id);
    },
  }),
}));
