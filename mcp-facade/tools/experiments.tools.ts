/** Experiments: n-of-1 experiments (a control period, then an intervention), started, controlled, read. */
import type { McpTool } from '../tool.ts';

export const experimentTools: McpTool[] = [
  {
    name: 'insights_experiment_start',
    title: 'Start an n-of-1 experiment',
    operation: 'startExperiment',
    scopes: ['insights:write'],
    kind: 'write',
  },
  {
    name: 'insights_experiment_control',
    title: 'Pause, resume, stop or abandon an experiment',
    operation: 'controlExperiment',
    scopes: ['insights:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'insights_experiments_read',
    title: 'Read experiments and their results',
    operation: 'experiments',
    scopes: ['insights:read'],
    kind: 'read',
    healthData: true,
  },
];
