/** Health: the health archive, the whole Apple Health export (issue 16). */
import type { McpTool } from '../tool.ts';

export const healthArchiveTools: McpTool[] = [
  {
    name: 'get_health_archive_coverage',
    title: 'Get what the health archive holds',
    operation: 'healthArchiveCoverage',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'health_archive_samples',
    title: 'Read archived samples of one type',
    operation: 'healthArchiveSamples',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'health_archive_events',
    title: 'Read archived health events',
    operation: 'healthArchiveEvents',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'health_archive_workouts',
    title: 'Read archived workouts with statistics',
    operation: 'healthArchiveWorkouts',
    scopes: ['health:workouts:read'],
    kind: 'read',
  },
  {
    name: 'health_archive_workout_series',
    title: "Read a workout's archived series",
    operation: 'healthArchiveWorkoutSeries',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'health_archive_routes',
    title: "Read an archived workout's route",
    operation: 'healthArchiveRoute',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'health_archive_ecg',
    title: 'Read archived ECG recordings',
    operation: 'healthArchiveEcg',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
];
