/** Sensors: the status of the person's CGM sensors. */
import type { McpTool } from '../tool.ts';

export const sensorTools: McpTool[] = [
  {
    name: 'sensors_cgm_status_read',
    title: 'Read CGM sensor status',
    operation: 'cgmSensors',
    scopes: ['health:glucose:read'],
    kind: 'read',
  },
];
