/**
 * Glucose in the dashboard graph (docs/graphql.md): `User.glucoseReadings`, a connection of the
 * person's readings (the keyset pages of glucoseReadingPage, of the last sinceHours or a window
 * `from`/`to`), and `User.glucoseTrends`, the statistics of a window (the root field glucoseTrends).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, rangeArgs, windowOf } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { GlucoseReading, GlucoseTrend, readingArgs, toDate, trendArgs } from './glucose.schema.ts';
import { glucoseTrends, glucoseReadingPage } from './glucose.service.ts';

const GlucoseReadingConnection = connectionOf('GlucoseReading', GlucoseReading);
/**
 * The largest page of readings on the graph: a week of one-minute readings (a week of 5-minute
 * readings is 2,016). The dashboard reads a week in one request; a document's cost bounds how many
 * such lists it asks (src/graphql/query-cost.ts: a page of n readings costs about n).
 */
const READINGS_PAGE_MAX = 10_080;

builder.prismaObjectFields('User', (t) => ({
  glucoseReadings: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: GlucoseReadingConnection,
    nullable: true,
    description:
      "The person's glucose readings of the last sinceHours, or of the window from/to, in mg/dL (the root field glucoseReadingPage as a connection; endCursor is null on the last page)",
    args: {
      ...pageArgs(t.arg, READINGS_PAGE_MAX),
      ...rangeArgs(t.arg, 'readings taken'),
      sinceHours: t.arg.int({
        ...readingArgs.sinceHours,
        description: `${readingArgs.sinceHours.description}; ignored when \`from\` is given`,
      }),
      sensorId: t.arg.int(readingArgs.sensorId),
      sort: t.arg.string(readingArgs.sort),
    },
    resolve: async (user, { first, after, from, to, ...args }, ctx) => {
      assertPersonData(ctx, user);
      const sort = args.sort as 'asc' | 'desc';
      const window = windowOf({ from, to });
      const page = await glucoseReadingPage(ctx, {
        ...args,
        ...window,
        sort,
        limit: first,
        cursor: after,
      });
      const pageInfo = { hasNextPage: page.nextCursor !== null, endCursor: page.nextCursor };
      return { nodes: page.items, pageInfo };
    },
  }),
  glucoseTrends: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: GlucoseTrend,
    nullable: true,
    description:
      'Glucose statistics and hourly percentiles of a window: the last sinceHours, or [startDate, endDate) (the root field glucoseTrends)',
    args: {
      sinceHours: t.arg.int(trendArgs.sinceHours),
      startDate: t.arg.string(trendArgs.startDate),
      endDate: t.arg.string(trendArgs.endDate),
    },
    resolve: (user, args, ctx) => {
      assertPersonData(ctx, user);
      const { sinceHours, startDate, endDate } = args;
      return glucoseTrends(ctx, {
        sinceHours,
        startDate: toDate(startDate),
        endDate: toDate(endDate),
      });
    },
  }),
}));
