/** Discovery: the person's daily signals, their observations, and runs that find associations. */
import type { McpTool } from '../tool.ts';

export const discoveryTools: McpTool[] = [
  {
    name: 'discovery_signals_read',
    title: 'List my daily signals and their coverage',
    operation: 'discoverySignals',
    scopes: ['discovery:read'],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'discovery_observations_read',
    title: 'Read my observations',
    operation: 'discoveryObservations',
    scopes: ['discovery:read'],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'discovery_hypotheses_read',
    title: 'Read what a discovery run found',
    operation: 'discoveryHypotheses',
    scopes: ['discovery:read'],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'discovery_observation_add',
    title: 'Note an observation',
    operation: 'addDiscoveryObservation',
    scopes: ['discovery:write'],
    kind: 'write',
  },
  {
    name: 'discovery_observation_delete',
    title: 'Delete an observation',
    operation: 'deleteDiscoveryObservation',
    scopes: ['discovery:write'],
    kind: 'deletes',
  },
  {
    name: 'discovery_run_start',
    title: 'Start a discovery run',
    operation: 'startDiscoveryRun',
    scopes: ['discovery:write'],
    kind: 'write',
  },
  {
    name: 'discovery_explore_start',
    title: 'Explore one signal at lags 0-3',
    operation: 'startDiscoveryExplore',
    scopes: ['discovery:write'],
    kind: 'write',
  },
];
