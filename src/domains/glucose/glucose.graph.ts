/**
 * Glucose in the dashboard graph (docs/graphql.md): `User.glucoseReadings`, a connection of the
 * person's readings (the keyset pages of glucoseReadingPage), and `User.glucoseTrends`, the
 * statistics of a window (the root field glucoseTrends).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { GlucoseReading, GlucoseTrend, readingArgs, toDate, trendArgs } from './glucose.schema.ts';
import { GLUCOSE_PAGE_MAX, glucoseTrends, listReadingPage } from './glucose.service.ts';

const GlucoseReadingConnection = connectionOf('GlucoseReading', GlucoseReading);

builder.prismaObjectFields('User', (t) => ({
  glucoseReadings: t.withAuth({ scope: 'health:glucose:read' }).field({
    type: GlucoseReadingConnection,
    nullable: true,
    description:
      "The person's glucose readings of the last hours, in mg/dL (the root field glucoseReadingPage as a connection; endCursor is null on the last page)",
    args: {
      ...pageArgs(t.arg, GLUCOSE_PAGE_MAX),
      sinceHours: t.arg.int(readingArgs.sinceHours),
      sensorId: t.arg.int(readingArgs.sensorId),
      sort: t.arg.string(readingArgs.sort),
    },
    resolve: async (user, { first, after, ...args }, ctx) => {
      assertPersonData(ctx, user);
      const sort = args.sort as 'asc' | 'desc';
      const page = await listReadingPage(ctx, { ...args, sort, limit: first, cursor: after });
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
