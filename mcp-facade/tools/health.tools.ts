/** Health: workouts and the person's health record (the family grows with issue 16). */
import type { McpTool } from '../tool.ts';

export const healthTools: McpTool[] = [
  {
    name: 'workout_insight_read',
    title: 'Read an AI insight about a workout',
    operation: 'WorkoutInsight',
    scopes: ['health:workouts:read'],
    kind: 'read',
  },
];
