/** Glucose: the person's readings in canonical mg/dL, a page at a time. */
import type { McpTool } from '../tool.ts';

export const glucoseTools: McpTool[] = [
  // The spec lists no scope; the field behind it requires health:glucose:read, so tools/list shows
  // it only to tokens holding that scope (a call without it gets INSUFFICIENT_SCOPE); health meta.
  {
    name: 'get_glucose_readings',
    title: 'Get glucose readings',
    operation: 'glucoseReadingPage',
    scopes: [],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'glucose_readings_read',
    title: 'Read glucose readings',
    operation: 'glucoseReadingPage',
    scopes: ['health:glucose:read'],
    kind: 'read',
  },
];
