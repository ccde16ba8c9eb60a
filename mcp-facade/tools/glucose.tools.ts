/** Glucose: the person's readings in canonical mg/dL. */
import type { McpTool } from '../tool.ts';

export const glucoseTools: McpTool[] = [
  // The spec lists no scope: the tool is listed to every token, but the field behind it still
  // requires health:glucose:read (a token without it gets INSUFFICIENT_SCOPE); it answers health meta.
  { name: 'get_glucose_readings', operation: 'ListGlucoseReadings', scopes: [], kind: 'read', healthData: true },
  { name: 'glucose_readings_read', operation: 'ListGlucoseReadings', scopes: ['health:glucose:read'], kind: 'read' },
];
