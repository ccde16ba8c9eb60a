/**
 * Insights in the dashboard graph (docs/graphql.md): `User.insights`, a connection of the person's
 * recorded insights, newest first (the root field `insights` as pages; dismissed ones left out, as
 * the list does). It only reads: insights are recorded when the rules run (insights.feed.ts).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOf, positionAfter } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { Insight } from './insights.feed-schema.ts';
import { listInsights } from './insights.feed.ts';

const InsightConnection = connectionOf('InsightItem', Insight);
/** An insight's position in the list: [id] (ids grow with time). */
const INSIGHT_POSITION = z.tuple([z.number().int().positive()]);

builder.prismaObjectFields('User', (t) => ({
  insights: t.withAuth({ scope: 'insights:read' }).field({
    type: InsightConnection,
    nullable: true,
    description: "The person's insights, newest first, dismissed ones left out (insights, paged)",
    args: pageArgs(t.arg),
    resolve: async (user, { first, after }, ctx) => {
      assertPersonData(ctx, user);
      const at = positionAfter(after, INSIGHT_POSITION);
      const page = await listInsights(ctx, {
        limit: first + 1,
        cursor: at ? String(at[0]) : null,
      });
      return pageOf(page.items, first, (i) => [i.id]);
    },
  }),
}));
