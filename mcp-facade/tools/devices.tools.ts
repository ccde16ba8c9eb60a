/** Devices: the person's room-monitor readings, a page at a time. */
import type { McpTool } from '../tool.ts';

export const deviceTools: McpTool[] = [
  {
    name: 'monitor_readings_read',
    title: 'Read room-monitor readings',
    operation: 'monitorReadingPage',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
];
