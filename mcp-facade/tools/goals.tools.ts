/** Goals: the person's targets per metric, their progress, set (upsert by metric) and clear. */
import type { McpTool } from '../tool.ts';

export const goalTools: McpTool[] = [
  {
    name: 'goals_list_read',
    title: "List the person's goals",
    operation: 'goals',
    scopes: ['goals:read'],
    kind: 'read',
  },
  {
    name: 'goals_progress_read',
    title: "Read the goals' progress",
    operation: 'goalProgress',
    scopes: ['goals:read'],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'goals_goal_set',
    title: 'Set a goal',
    operation: 'setGoal',
    scopes: ['goals:write'],
    kind: 'write',
    creates: false,
    idempotent: true,
  },
  {
    name: 'goals_goal_clear',
    title: 'Clear a goal',
    operation: 'clearGoal',
    scopes: ['goals:write'],
    kind: 'deletes',
  },
];
