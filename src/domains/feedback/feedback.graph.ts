/**
 * Feedback in the dashboard graph (docs/graphql.md): `User.feedbackReports`, the caller's own
 * reports as a connection (the root field feedbackReports, newest first).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs } from '../../graphql/connection.ts';
import { assertOwnAccount } from '../../graphql/person.ts';
import { FeedbackReport } from './feedback.schema.ts';
import { feedbackReports } from './feedback.service.ts';

const FeedbackReportConnection = connectionOf('FeedbackReport', FeedbackReport);

builder.prismaObjectFields('User', (t) => ({
  feedbackReports: t.withAuth({ scope: 'account:read' }).field({
    type: FeedbackReportConnection,
    nullable: true,
    description: "The caller's feedback reports, newest first (the root field feedbackReports)",
    args: pageArgs(t.arg),
    resolve: async (user, { first, after }, ctx) => {
      assertOwnAccount(ctx, user);
      const page = await feedbackReports(ctx, { limit: first, cursor: after });
      return {
        nodes: page.items,
        pageInfo: { hasNextPage: !!page.nextCursor, endCursor: page.nextCursor },
      };
    },
  }),
}));
