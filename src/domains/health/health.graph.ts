/**
 * Health-store data in the dashboard graph (docs/graphql.md): `User.sleep`, `User.workouts` and
 * `User.metrics`, connections of the person's samples (the root fields healthSleep,
 * healthWorkouts and healthMetrics, paged; metrics of one type or of all).
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOf, positionAfter } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import {
  daysArg,
  HealthMetric,
  HealthMetricType,
  SleepSample,
  WorkoutSample,
} from './health.schema.ts';
import { healthMetrics, healthSleep, healthWorkouts } from './health.service.ts';

const SleepSampleConnection = connectionOf('SleepSample', SleepSample);
const WorkoutSampleConnection = connectionOf('WorkoutSample', WorkoutSample);
const HealthMetricConnection = connectionOf('HealthMetric', HealthMetric);
/** A sample's position in its list: [its sort time in ms, id]. */
const SAMPLE_POSITION = z.tuple([z.number().int(), z.string().max(200)]);
/** A page's service options: the window, one row more than `first` (is there a next page?), the position. */
const pageOptions = (args: { days: number; first: number; after?: string | null }) => {
  const at = positionAfter(args.after, SAMPLE_POSITION);
  return { days: args.days, limit: args.first + 1, after: at && { at: at[0], id: at[1] } };
};

builder.prismaObjectFields('User', (t) => ({
  sleep: t.withAuth({ scope: 'health:sleep:read' }).field({
    type: SleepSampleConnection,
    nullable: true,
    description: 'Sleep intervals that ended in the last `days` days, oldest first',
    args: {
      ...pageArgs(t.arg),
      days: t.arg.int({ required: true, defaultValue: 7, validate: daysArg }),
    },
    resolve: async (user, args, ctx) => {
      assertPersonData(ctx, user);
      const rows = await healthSleep(ctx, pageOptions(args));
      return pageOf(rows, args.first, (s) => [s.startAt.getTime(), s.id]);
    },
  }),
  workouts: t.withAuth({ scope: 'health:workouts:read' }).field({
    type: WorkoutSampleConnection,
    nullable: true,
    description: 'Workouts that started in the last `days` days, newest first',
    args: {
      ...pageArgs(t.arg),
      days: t.arg.int({ required: true, defaultValue: 7, validate: daysArg }),
    },
    resolve: async (user, args, ctx) => {
      assertPersonData(ctx, user);
      const rows = await healthWorkouts(ctx, pageOptions(args));
      return pageOf(rows, args.first, (w) => [w.startAt.getTime(), w.id]);
    },
  }),
  metrics: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: HealthMetricConnection,
    nullable: true,
    description:
      'Metric samples of the last `days` days (one metric, or every metric), oldest first',
    args: {
      ...pageArgs(t.arg),
      metricType: t.arg({ type: HealthMetricType, description: 'leave it out for every metric' }),
      days: t.arg.int({ required: true, defaultValue: 30, validate: daysArg }),
    },
    resolve: async (user, args, ctx) => {
      assertPersonData(ctx, user);
      const rows = await healthMetrics(ctx, { ...pageOptions(args), metricType: args.metricType });
      return pageOf(rows, args.first, (m) => [m.timestamp.getTime(), m.id]);
    },
  }),
}));
