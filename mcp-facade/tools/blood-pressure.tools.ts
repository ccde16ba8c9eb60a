/** Blood pressure: readings grouped into sessions, and logging, editing, deleting a reading. */
import type { McpTool } from '../tool.ts';

const write = ['health:logs:write'] as const;

export const bloodPressureTools: McpTool[] = [
  {
    name: 'bp_readings_list',
    title: 'List blood-pressure sessions',
    operation: 'ListBloodPressureSessions',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'bp_reading_log',
    title: 'Log a blood-pressure reading',
    operation: 'LogBloodPressureReading',
    scopes: write,
    kind: 'write',
  },
  {
    name: 'bp_reading_edit',
    title: 'Edit a blood-pressure reading',
    operation: 'UpdateBloodPressureReading',
    scopes: write,
    kind: 'write',
  },
  {
    name: 'bp_reading_delete',
    title: 'Delete a blood-pressure reading',
    operation: 'DeleteBloodPressureReading',
    scopes: write,
    kind: 'deletes',
  },
];
