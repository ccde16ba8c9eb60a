/**
 * Room monitors in the dashboard graph (docs/graphql.md): `User.monitorReadings`, a connection of
 * the person's readings (the keyset pages of monitorReadingPage).
 */
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { MONITOR_PAGE_MAX, monitorReadingPage } from './monitor.readings.ts';
import { MonitorReading, days, serialNumberArg } from './monitor.schema.ts';

const MonitorReadingConnection = connectionOf('MonitorReading', MonitorReading);

builder.prismaObjectFields('User', (t) => ({
  monitorReadings: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: MonitorReadingConnection,
    nullable: true,
    description:
      "The person's room-monitor readings of the last days, newest first (the root field monitorReadingPage as a connection; endCursor is null on the last page)",
    args: {
      ...pageArgs(t.arg, MONITOR_PAGE_MAX),
      days: t.arg.int(days(1, 'the window: the last days')),
      serialNumber: t.arg.string(serialNumberArg),
    },
    resolve: async (user, { first, after, ...args }, ctx) => {
      assertPersonData(ctx, user);
      const page = await monitorReadingPage(ctx, { ...args, limit: first, cursor: after });
      return {
        nodes: page.items,
        pageInfo: { hasNextPage: !!page.nextCursor, endCursor: page.nextCursor },
      };
    },
  }),
}));
