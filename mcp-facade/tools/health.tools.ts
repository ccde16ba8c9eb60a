/** Health: workouts and the person's health record (the family grows with issue 16). */
import type { McpTool } from '../tool.ts';

export const healthTools: McpTool[] = [
  {
    name: 'workout_insight_read',
    title: 'Read an AI insight about a workout',
    operation: 'workoutInsight',
    scopes: ['health:workouts:read'],
    kind: 'read',
  },
  // The spec lists no scope; the field behind it requires health:summary:read, so tools/list shows
  // it only to tokens holding that scope (a call without it gets INSUFFICIENT_SCOPE); health meta.
  {
    name: 'get_health_summary',
    title: "Get the day's health summary",
    description: 'One day at a glance; the same as health_summary_read.',
    operation: 'healthDaySummary',
    scopes: [],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'health_summary_read',
    title: 'Read a health day summary',
    description: 'The same as get_health_summary, under health:summary:read.',
    operation: 'healthDaySummary',
    scopes: ['health:summary:read'],
    kind: 'read',
  },
  {
    name: 'health_summary_range',
    title: 'Read health summaries over a range',
    operation: 'healthRangeSummary',
    scopes: ['health:summary:read'],
    kind: 'read',
  },
  {
    name: 'health_catalog_read',
    title: 'Read the health record catalogue',
    operation: 'healthCatalog',
    scopes: ['health:summary:read'],
    kind: 'read',
  },
  {
    name: 'activity_body_composition_read',
    title: 'Read activity and body composition',
    operation: 'healthActivityTrend',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'workouts_list',
    title: 'List workouts',
    operation: 'healthWorkoutPage',
    scopes: ['health:workouts:read'],
    kind: 'read',
  },
  {
    name: 'workout_detail_read',
    title: 'Read a workout with its heart rate',
    operation: 'healthWorkout',
    scopes: ['health:workouts:read'],
    kind: 'read',
  },
  {
    name: 'workout_comparison_read',
    title: 'Compare a workout with earlier ones',
    operation: 'healthWorkoutComparison',
    scopes: ['health:workouts:read'],
    kind: 'read',
  },
  {
    name: 'sleep_nights_list',
    title: 'List sleep nights',
    operation: 'healthSleepNights',
    scopes: ['health:sleep:read'],
    kind: 'read',
  },
  {
    name: 'sleep_stages_read',
    title: "Read a night's sleep stages",
    operation: 'healthSleepNight',
    scopes: ['health:sleep:read'],
    kind: 'read',
  },
];
