/**
 * Personal tokens in the dashboard graph (docs/graphql.md): `User.personalTokens`, the caller's
 * active tokens as a connection (the root field personalTokens, paged; login sessions only).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOfList } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { PersonalToken } from './tokens.schema.ts';
import { personalTokens } from './tokens.service.ts';

const PersonalTokenConnection = connectionOf('PersonalToken', PersonalToken);

builder.prismaObjectFields('User', (t) => ({
  personalTokens: t.withAuth({ loginSession: true }).field({
    type: PersonalTokenConnection,
    nullable: true,
    description: "The caller's active personal tokens, newest first",
    args: pageArgs(t.arg),
    resolve: async (user, args, ctx) => {
      assertOwnAccount(ctx, user);
      return pageOfList(await personalTokens(ctx), args, (token) => token.id);
    },
  }),
}));
